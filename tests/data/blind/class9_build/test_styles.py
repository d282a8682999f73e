import sys, time, json
sys.path.insert(0, "/work/blind9/class9_build")
from nbtools import *
from styles import STYLES
res = {}
for k in map(int, sys.argv[1:]):
    for ps in PSS:
        t = time.time()
        ids = solution_ids(ps)
        missing = [i for i in ids if i not in STYLES[k]]
        assert not missing, missing
        errs = run(build(ps, STYLES[k]), "/work/blind9/class9_build/run")
        print(k, ps, round(time.time()-t,1), errs, flush=True)

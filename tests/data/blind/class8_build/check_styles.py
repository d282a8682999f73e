import sys; sys.path.insert(0, "/work/blind8/class8_build")
from common import *
from styles import STYLES
for s, src in STYLES.items():
    for ps in PS:
        r = run_inprocess(fill(ps, src))
        bad = {k: v for k, v in r.items() if v}
        print(s, ps, bad or "all pass")

# runs every submission once, one at a time; stores results in results_subs.json
from build import *
import time
out = {}
for st in STUDENTS:
    for ps in PSS:
        t = time.time()
        nb = nbformat.read(f"{OUT}/{st}/{ps}/{ps}.ipynb", as_version=4)
        r = run(nb)
        out[f"{st}/{ps}"] = r
        fails = {k: v[1] for k, v in r.items() if v[1]}
        print(st, ps, f"{time.time()-t:.1f}s", fails, flush=True)
json.dump(out, open("results_subs.json", "w"), indent=1)

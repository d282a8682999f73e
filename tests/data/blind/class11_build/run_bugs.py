from build import *
import time
out = []
for b in bugs.BUGS:
    t = time.time()
    r = run(fill(b["ps"], sources_for(b["student"], only_bug=b)))
    out.append(dict(student=b["student"], ps=b["ps"], cell=b["cell"], function=b["function"], res=r))
    print(b["student"], b["cell"], f"{time.time()-t:.1f}s", {k: v[1] for k, v in r.items() if v[1]}, flush=True)
json.dump(out, open("results_bugs.json", "w"), indent=1)

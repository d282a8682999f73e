import sys, json, time
sys.path.insert(0, '.')
from build import *
res = {"submissions": {}, "injected": {}}
CWD = "/work/blind10/class10_build"
for k in range(1, 11):
    for ps in PSS:
        nb = nbformat.read(f"{OUT}/blind10_s{k}/{ps}/{ps}.ipynb", as_version=4)
        res["submissions"][f"blind10_s{k}|{ps}"] = run_nb(nb, CWD)
        print(k, ps, res["submissions"][f"blind10_s{k}|{ps}"], flush=True)
for i, b in enumerate(BUGS):
    if b["visible_test_cell"] is None:
        continue
    src = dict(REF[b["ps"]]); src[b["cell"]] = b["src"]
    res["injected"][str(i)] = run_nb(make_nb(b["ps"], src), CWD)
    print(i, b["student"], b["function"], res["injected"][str(i)], flush=True)
    json.dump(res, open("measure.json", "w"), indent=1)
json.dump(res, open("measure.json", "w"), indent=1)
print("DONE")

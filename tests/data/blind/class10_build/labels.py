import sys, json; sys.path.insert(0,'.')
from build import *
res = json.load(open("measure.json"))
rows = []
for k in range(1, 11):
    st = f"blind10_s{k}"
    for ps in PSS:
        bl = [(i, b) for i, b in enumerate(BUGS) if b["student"] == st and b["ps"] == ps]
        if not bl:
            rows.append({"student": st, "ps": ps, "cell": None, "mistake": None})
        sub = res["submissions"][f"{st}|{ps}"]
        for i, b in bl:
            if b["visible_test_cell"] is None:
                rows.append({"student": st, "ps": ps, "cell": b["cell"], "function": b["function"],
                             "mistake": b["mistake"], "passes_visible_tests": True, "also_affects": [],
                             "visible_test_cell": None, "visible_test_error": None,
                             "visible_test_error_in_submission": None})
                continue
            inj = res["injected"][str(i)]
            tc = b["visible_test_cell"]
            rows.append({"student": st, "ps": ps, "cell": b["cell"], "function": b["function"],
                         "mistake": b["mistake"], "passes_visible_tests": tc not in inj,
                         "also_affects": b["also_affects"], "visible_test_cell": tc,
                         "visible_test_error": inj.get(tc), "visible_test_error_in_submission": sub.get(tc)})
json.dump(rows, open(f"{OUT}/labels.json", "w"), indent=1)
print(len(rows))

import sys, json
sys.path.insert(0, "/work/blind9/class9_build")
import nbformat
from nbtools import PSS, load_release
from bugs import BUGS
R = json.load(open("/work/blind9/class9_build/results.json"))
bres = {(r["student"], r["ps"], r["cell"]): r for r in R["bugs"]}
rows = []
for s in range(1, 11):
    for ps in PSS:
        mine = [b for b in BUGS if b["student"] == s and b["ps"] == ps]
        if not mine:
            rows.append({"student": f"blind9_s{s}", "ps": ps, "cell": None, "mistake": None})
            continue
        sub = R["submissions"][f"blind9_s{s}/{ps}"]
        for b in mine:
            r = bres[(s, ps, b["cell"])]
            tc = r["test_cell"]
            rows.append({"student": f"blind9_s{s}", "ps": ps, "cell": b["cell"],
                         "function": b["function"], "mistake": b["mistake"],
                         "passes_visible_tests": r["error"] is None,
                         "also_affects": b["also_affects"],
                         "visible_test_cell": tc,
                         "visible_test_error": r["error"],
                         "visible_test_error_in_submission": sub.get(tc) if tc else None})
json.dump(rows, open("/work/blind9/class9/labels.json", "w"), indent=1)
print(len(rows))

"""Write class14/labels.json from bugs.py and the execution results (results.json)."""
import json, os, sys
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
from bugs import BUGS, BASES, PS
from build import CORRECT, STUDENTS

results = json.load(open(f"{HERE}/results.json"))
rows, mismatches = [], []
for st in CORRECT:
    for ps in PS.values():
        rows.append({"student": st, "ps": ps, "cell": None, "mistake": None})
        assert not results[st][ps], (st, ps, results[st][ps])
for st in BASES:
    for ps in PS.values():
        mine = [b for b in BUGS if b["student"] == st and b["ps"] == ps]
        if not mine:
            rows.append({"student": st, "ps": ps, "cell": None, "function": None, "mistake": None,
                         "passes_visible_tests": True, "also_affects": [], "visible_test_cell": None,
                         "visible_test_error": None, "visible_test_error_in_submission": None})
        for b in mine:
            actual = results[st][ps].get(b["visible_test_cell"]) if b["visible_test_cell"] else None
            passes = actual is None
            if passes != b["expect_pass"]:
                mismatches.append((st, b["function"], b["expect_pass"], actual))
            rows.append({"student": st, "ps": ps, "cell": b["cell"], "function": b["function"],
                         "mistake": b["mistake"], "passes_visible_tests": passes,
                         "also_affects": b["also_affects"], "visible_test_cell": b["visible_test_cell"],
                         "visible_test_error": b["visible_test_error"],
                         "visible_test_error_in_submission": actual.strip() if actual else None})
json.dump(rows, open("/work/blind14/class14/labels.json", "w"), indent=1)
print(len(rows), "rows;", "mismatches:", mismatches)
from collections import Counter
print(Counter(r["student"] for r in rows if r.get("cell")))
print("passing bugs:", [(r["student"], r["function"] or r["cell"]) for r in rows if r.get("cell") and r["passes_visible_tests"]])

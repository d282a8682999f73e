"""Write class6/labels.json from bugs.py, probe_results.json and run_results.json."""
import json
from common import BUGS, PSETS, CLASS, sid
from probes import TEST_CELL

probes = {p["id"]: p for p in json.load(open("probe_results.json"))}
runs = json.load(open("run_results.json"))

rows = []
for n in range(1, 11):
    for ps in PSETS:
        if not any(b["student"] == n and b["ps"] == ps for b in BUGS):
            rows.append({"student": sid(n), "ps": ps, "cell": None, "mistake": None})
for b in BUGS:
    p = probes[b["id"]]
    assert p["real"], b["id"]
    ps = b["ps"]
    test_cell = TEST_CELL[ps].get(b["function"]) or TEST_CELL[ps][p["shown_by"]]
    err = runs[f"{sid(b['student'])}/{ps}"][test_cell]
    rows.append({"student": sid(b["student"]), "ps": ps, "cell": b["cell"], "function": b["function"],
                 "mistake": b["mistake"], "passes_visible_tests": err is None,
                 "also_affects": p["also_affects"], "visible_test_cell": test_cell,
                 "visible_test_error": err})
json.dump(rows, open(f"{CLASS}/labels.json", "w"), indent=1)
nb = [r for r in rows if r["mistake"]]
print(len(rows), "rows,", len(nb), "bugs,", sum(r["passes_visible_tests"] for r in nb), "pass the visible tests")

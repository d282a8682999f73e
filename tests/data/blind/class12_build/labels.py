import json
from lib import PS
from bugs import BUGS
R = json.load(open("results.json"))
labels = []
for i in range(1, 11):
    s = f"blind12_s{i}"
    bugs = BUGS.get(s, [])
    for ps in PS:
        mine = [(j, b) for j, b in enumerate(bugs) if b[0] == ps]
        if not mine:
            labels.append({"student": s, "ps": ps, "cell": None, "mistake": None})
            continue
        sub = R[f"{s}|{ps}|submission"]
        for j, (p, cell, func, src, mistake, also, vcell) in mine:
            iso = R[f"{s}|{ps}|bug{j}"]
            labels.append({"student": s, "ps": ps, "cell": cell, "function": func,
                           "mistake": mistake,
                           "passes_visible_tests": vcell not in iso,
                           "also_affects": also,
                           "visible_test_cell": vcell,
                           "visible_test_error": iso.get(vcell),
                           "visible_test_error_in_submission": sub.get(vcell)})
json.dump(labels, open("/work/blind12/class12/labels.json", "w"), indent=1)
from collections import Counter
print(len(labels), Counter(l["ps"] for l in labels if l["cell"]), sum(1 for l in labels if l["cell"]),
      sum(1 for l in labels if l["cell"] and l["passes_visible_tests"]))
for l in labels:
    if l["cell"]:
        print(l["student"], l["cell"], l["function"], "PASS" if l["passes_visible_tests"] else "fail")

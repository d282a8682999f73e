import sys, json, warnings
sys.path.insert(0, "/work/blind8/class8_build")
from common import PS, test_cell_for, fill, run_inprocess
from bugs import BUGS, BASE
from build import student_sources

sub = json.load(open("/work/blind8/class8_build/nbclient_results.json"))
labels = []
for s in range(1, 11):
    for ps in PS:
        bugs = [b for b in BUGS if b["student"] == s and b["ps"] == ps]
        if not bugs:
            labels.append({"student": s, "ps": ps, "cell": None, "mistake": None})
        for b in bugs:
            tc = test_cell_for(b["cell"], b["function"])
            iso_err = None
            if tc:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    iso_err = run_inprocess(fill(ps, student_sources(s, ps, only_bug=b))).get(tc)
            labels.append({
                "student": s, "ps": ps, "cell": b["cell"], "function": b["function"],
                "mistake": b["mistake"],
                "passes_visible_tests": iso_err is None,
                "also_affects": b["also_affects"],
                "visible_test_cell": tc,
                "visible_test_error": iso_err,
                "visible_test_error_in_submission": sub[f"{s}/{ps}"].get(tc) if tc else None,
            })
json.dump(labels, open("/work/blind8/class8/labels.json", "w"), indent=1)
nb = [l for l in labels if l["cell"]]
print("entries", len(labels), "bugs", len(nb), "pass visible", sum(l["passes_visible_tests"] for l in nb))
for ps in PS:
    x = [l for l in nb if l["ps"] == ps]
    print(ps, len(x), "pass", sum(l["passes_visible_tests"] for l in x), "fail", sum(not l["passes_visible_tests"] for l in x))
for s in range(5, 11):
    x = [l for l in nb if l["student"] == s]
    print("student", s, len(x), "pass", sum(l["passes_visible_tests"] for l in x))

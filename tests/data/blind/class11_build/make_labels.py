from build import *
subs = json.load(open("results_subs.json"))
singles = json.load(open("results_bugs.json"))
labels = []
buggy = {(b["student"], b["ps"]) for b in bugs.BUGS}
for st in STUDENTS:
    for ps in PSS:
        if (st, ps) not in buggy:
            labels.append({"student": st, "ps": ps, "cell": None, "mistake": None})
for b, s in zip(bugs.BUGS, singles):
    assert (b["student"], b["cell"], b["function"]) == (s["student"], s["cell"], s["function"])
    tc = test_cell_for(b["cell"], b["function"])
    res = s["res"]
    assert tc in res and res[tc][0], tc
    any_fail = any(v[1] for k, v in res.items() if v[0])
    labels.append({"student": b["student"], "ps": b["ps"], "cell": b["cell"], "function": b["function"],
                   "mistake": b["mistake"], "passes_visible_tests": not any_fail,
                   "also_affects": b["also_affects"], "visible_test_cell": tc,
                   "visible_test_error": res[tc][1],
                   "visible_test_error_in_submission": subs[f"{b['student']}/{b['ps']}"][tc][1]})
labels.sort(key=lambda d: (STUDENTS.index(d["student"]), PSS.index(d["ps"])))
json.dump(labels, open(f"{OUT}/labels.json", "w"), indent=1)
# sanity: s1-s4 pass everything
for st in STUDENTS[:4]:
    for ps in PSS:
        r = subs[f"{st}/{ps}"]
        assert not any(v[1] for v in r.values()), (st, ps)
print(len(labels), "labels;", sum(1 for l in labels if l["cell"]), "bugs;",
      sum(1 for l in labels if l["cell"] and l["passes_visible_tests"]), "pass visible")

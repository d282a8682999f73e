"""Write /work/blind4/class4/labels.json from bugs.py, the executed notebooks and the probes."""
import json
import nbformat
from build import OUT, PSS, REL, CORRECT
from bugs import BUGGY

results = json.load(open("/work/blind4/scratch4/results.json"))
probes = json.load(open("/work/blind4/class4_build/probe_results.json"))


def test_cell_for(ps, gid, function):
    if gid == "ps3_layer_code":
        return "ps3_init" if function == "SelfAttention.__init__" else "ps3_forward"
    nb = nbformat.read(f"{REL}/{ps}/{ps}.ipynb", as_version=4)
    seen = False
    for c in nb.cells:
        nbg = c.metadata.get("nbgrader", {})
        if nbg.get("grade_id") == gid:
            if c.cell_type == "markdown":
                return None
            seen = True
            continue
        if seen and c.cell_type == "code" and nbg.get("grade"):
            return nbg["grade_id"]
    return None


rows = []
for st in CORRECT:
    for ps in PSS:
        assert not any(v["error"] for v in results[st][ps].values()), (st, ps)
        rows.append({"student": st, "ps": ps, "cell": None, "mistake": None})
for st, spec in BUGGY.items():
    for gid, fn, mistake, _ in spec["bugs"]:
        ps = next(p for p in PSS if gid.startswith(p.split("_")[0] + "_"))
        pr = next(b for b in probes["bugs"] if b["student"] == st and b["cell"] == gid and b["function"] == fn)
        assert fn is None or pr["changes_output"], (st, gid, fn)
        test = test_cell_for(ps, gid, fn)
        passes = None if test is None else results[st][ps][test]["error"] is None
        rows.append({"student": st, "ps": ps, "cell": gid, "function": fn, "mistake": mistake,
                     "passes_visible_tests": passes, "also_affects": pr["also_affects"],
                     "visible_test_cell": test,
                     "visible_test_error": None if test is None else results[st][ps][test]["error"]})
json.dump(rows, open(f"{OUT}/labels.json", "w"), indent=1)
print(len(rows), "rows;", sum(r["cell"] is not None for r in rows), "bug rows")

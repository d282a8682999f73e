"""Rebuild run_results.json from the executed notebooks, checking they match the current submissions."""
import json
from students import PS
res = {}
for i in range(1, 11):
    st = f"blind7_s{i}"
    for ps in PS:
        sub = json.load(open(f"/work/blind7/class7/{st}/{ps}/{ps}.ipynb"))
        ex = json.load(open(f"/work/blind7/class7_build/executed/{st}/{ps}/{ps}.ipynb"))
        assert [c["source"] for c in sub["cells"]] == [c["source"] for c in ex["cells"]], (st, ps)
        assert [c.get("id") for c in sub["cells"]] == [c.get("id") for c in ex["cells"]]
        fails, errs = {}, {}
        for c in ex["cells"]:
            m = c["metadata"].get("nbgrader", {})
            for o in c.get("outputs", []):
                if o.get("output_type") == "error":
                    line = f"{o['ename']}: {o['evalue']}".splitlines()[0]
                    if m.get("grade") and c["cell_type"] == "code":
                        fails[m["grade_id"]] = line
                    else:
                        errs[m.get("grade_id") or c.get("id")] = line
        res[f"{st}/{ps}"] = {"failed_tests": fails, "other_errors": errs}
json.dump(res, open("/work/blind7/class7_build/run_results.json", "w"), indent=1)
print("ok", sum(len(r["failed_tests"]) for r in res.values()), [k for k, r in res.items() if r["other_errors"]])

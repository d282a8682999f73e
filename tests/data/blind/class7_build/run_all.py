"""Execute every notebook (one at a time) with nbconvert and record failing visible test cells."""
import json, os, subprocess, sys
sys.path.insert(0, os.path.dirname(__file__))
from students import PS
OUT = "/work/blind7/class7"
SCR = "/work/blind7/class7_build/executed"
JUP = "/work/blind7/class7_build/.venv/bin/jupyter"
res = {}
for i in range(1, 11):
    st = f"blind7_s{i}"
    for ps in PS:
        src = f"{OUT}/{st}/{ps}/{ps}.ipynb"
        od = f"{SCR}/{st}/{ps}"
        os.makedirs(od, exist_ok=True)
        p = subprocess.run([JUP, "nbconvert", "--to", "notebook", "--execute", "--allow-errors",
                            "--ExecutePreprocessor.timeout=120", "--output-dir", od, src],
                           capture_output=True, text=True)
        nb = json.load(open(f"{od}/{ps}.ipynb"))
        fails, errs = {}, {}
        for c in nb["cells"]:
            m = c["metadata"].get("nbgrader", {})
            for o in c.get("outputs", []):
                if o.get("output_type") == "error":
                    line = f"{o['ename']}: {o['evalue']}".splitlines()[0]
                    if m.get("grade") and c["cell_type"] == "code":
                        fails[m["grade_id"]] = line
                    else:
                        errs[m.get("grade_id") or c.get("id")] = line
        res[f"{st}/{ps}"] = {"rc": p.returncode, "failed_tests": fails, "other_errors": errs}
        print(st, ps, p.returncode, fails, errs, flush=True)
json.dump(res, open("/work/blind7/class7_build/run_results.json", "w"), indent=1)

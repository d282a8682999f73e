"""Execute every class notebook one at a time (allow errors) and record which test cells pass."""
import json, os, sys
import nbformat
from nbclient import NotebookClient
from build import OUT, PSS, REL

SCRATCH = "/work/blind4/scratch4"
os.environ["MPLBACKEND"] = "Agg"


def run(student, ps):
    nb = nbformat.read(f"{OUT}/{student}/{ps}/{ps}.ipynb", as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True).execute()
    os.makedirs(f"{SCRATCH}/{student}", exist_ok=True)
    nbformat.write(nb, f"{SCRATCH}/{student}/{ps}.ipynb")
    res = {}
    for cell in nb.cells:
        nbg = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        errs = [o for o in cell.outputs if o.get("output_type") == "error"]
        key = nbg.get("grade_id") or cell.get("id")
        res[key] = {"test": bool(nbg.get("grade")), "solution": bool(nbg.get("solution")),
                    "error": (errs[0]["ename"] + ": " + errs[0]["evalue"])[:300] if errs else None}
    return res


if __name__ == "__main__":
    students = sys.argv[1:] or sorted(os.listdir(OUT), key=lambda s: (len(s), s))
    students = [s for s in students if s.startswith("blind4_s")]
    path = f"{SCRATCH}/results.json"
    results = json.load(open(path)) if os.path.exists(path) else {}
    for st in students:
        for ps in PSS:
            r = run(st, ps)
            results.setdefault(st, {})[ps] = r
            fails = {k: v["error"] for k, v in r.items() if v["error"]}
            print(st, ps, "errors:", fails if fails else "none", flush=True)
            json.dump(results, open(path, "w"), indent=1)

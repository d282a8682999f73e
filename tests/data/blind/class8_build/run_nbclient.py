"""Execute every submission once with nbclient (allow errors, 60 s per cell); record each graded test cell's result."""
import sys, json, time
sys.path.insert(0, "/work/blind8/class8_build")
import nbformat
from nbclient import NotebookClient
from common import PS, gid

OUT = "/work/blind8/class8"
results = {}
for student in range(1, 11):
    for ps in PS:
        path = f"{OUT}/blind8_s{student}/{ps}/{ps}.ipynb"
        nb = nbformat.read(path, as_version=4)
        t = time.time()
        NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": f"{OUT}/blind8_s{student}/{ps}"}}).execute()
        cells = {}
        for c in nb.cells:
            g = gid(c)
            if c.cell_type != "code" or not g:
                continue
            errs = [o for o in c.get("outputs", []) if o.get("output_type") == "error"]
            cells[g] = (f"{errs[0]['ename']}: {errs[0]['evalue']}".splitlines()[0].rstrip(": ") if errs else None)
        results[f"{student}/{ps}"] = cells
        print(student, ps, f"{time.time() - t:.1f}s", {k: v[:60] for k, v in cells.items() if v}, flush=True)
json.dump(results, open("/work/blind8/class8_build/nbclient_results.json", "w"), indent=1)

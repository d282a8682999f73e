"""Run each of the 50 notebooks once with nbclient (allow_errors, 60 s per cell), one at a time;
record per code cell the first error line. The notebooks on disk are not modified."""
import json, sys, time
import nbformat
from nbclient import NotebookClient
from common import CLASS, PSETS, sid, grade_id

results = {}
for n in range(1, 11):
    for ps in PSETS:
        path = f"{CLASS}/{sid(n)}/{ps}/{ps}.ipynb"
        nb = nbformat.read(path, as_version=4)
        t = time.time()
        client = NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True,
                                resources={"metadata": {"path": f"{CLASS}/{sid(n)}/{ps}"}})
        client.execute()
        cells = {}
        for i, c in enumerate(nb.cells):
            if c.cell_type != "code":
                continue
            key = grade_id(c) or f"cell{i}:{c.get('id')}"
            err = None
            for o in c.get("outputs", []):
                if o.get("output_type") == "error":
                    err = f"{o['ename']}: {o['evalue']}".split("\n")[0]
                    break
            cells[key] = err
        results[f"{sid(n)}/{ps}"] = cells
        nerr = sum(e is not None for e in cells.values())
        print(f"{sid(n)}/{ps}: {nerr} error cells ({time.time() - t:.1f} s)", flush=True)
        json.dump(results, open("run_results.json", "w"), indent=1)

"""Execute every class5 notebook once (sequentially), record per-cell errors in run_results.json.
The notebooks on disk are NOT modified (outputs stay cleared)."""
import json, os, sys, time
import nbformat
from nbclient import NotebookClient

OUT = "/work/blind5/class5"
RES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_results.json")
PSS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
       "ps4_encoder_decoder_attention", "ps5_masked_attention"]


def run_one(path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": os.path.dirname(path)}})
    client.execute()
    cells = {}
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        gid = c.metadata.get("nbgrader", {}).get("grade_id") or c.get("id")
        err = None
        for o in c.get("outputs", []):
            if o.get("output_type") == "error":
                err = f"{o['ename']}: {o['evalue']}".split("\n")[0].rstrip().rstrip(":")
        cells[gid] = err
    return cells


if __name__ == "__main__":
    students = sys.argv[1:] or sorted(os.listdir(OUT), key=lambda s: int(s.split("_s")[1]) if "_s" in s else 0)
    students = [s for s in students if os.path.isdir(f"{OUT}/{s}")]
    results = json.load(open(RES)) if os.path.exists(RES) else {}
    for s in students:
        for ps in PSS:
            t = time.time()
            results.setdefault(s, {})[ps] = run_one(f"{OUT}/{s}/{ps}/{ps}.ipynb")
            errs = {k: v for k, v in results[s][ps].items() if v}
            print(s, ps, f"{time.time() - t:.1f}s", errs, flush=True)
            json.dump(results, open(RES, "w"), indent=1)

import nbformat, copy, json, os
from nbclient import NotebookClient
REL = "/work/blind9/release"
PSS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
       "ps4_encoder_decoder_attention", "ps5_masked_attention"]

def load_release(ps):
    return nbformat.read(f"{REL}/{ps}/{ps}.ipynb", as_version=4)

def solution_ids(ps):
    nb = load_release(ps)
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")]

def build(ps, sources):
    """sources: grade_id -> new source (for solution cells only)."""
    nb = load_release(ps)
    for c in nb.cells:
        g = c.metadata.get("nbgrader", {})
        if g.get("solution"):
            gid = g["grade_id"]
            if gid in sources:
                c.source = sources[gid]
        if c.cell_type == "code":
            c.outputs = []
            c.execution_count = None
    return nb

def next_test_cell(ps, gid):
    nb = load_release(ps)
    ids = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    seen = False
    for g in ids:
        if g.get("grade_id") == gid:
            seen = True
            continue
        if seen and g.get("grade"):
            if g.get("solution"):
                continue
            return g["grade_id"]
    return None

def run(nb, cwd):
    nb = copy.deepcopy(nb)
    client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": cwd}})
    client.execute()
    errs = {}
    for c in nb.cells:
        g = c.metadata.get("nbgrader", {})
        if c.cell_type != "code":
            continue
        for o in c.get("outputs", []):
            if o.get("output_type") == "error":
                key = g.get("grade_id") or c.get("id")
                errs[key] = f"{o['ename']}: {o['evalue']}"
    return errs

import json, os, sys, copy, tempfile
import nbformat
from nbclient import NotebookClient
sys.path.insert(0, os.path.dirname(__file__))
import correct, bugs

REL = "/work/blind11/release"
OUT = "/work/blind11/class11"
PSS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
       "ps4_encoder_decoder_attention", "ps5_masked_attention"]
STYLES = {"S1": correct.S1, "S2": correct.S2, "S3": correct.S3, "S4": correct.S4}
STUDENT_BASE = {"blind11_s1": "S1", "blind11_s2": "S2", "blind11_s3": "S3", "blind11_s4": "S4"}
STUDENT_BASE.update(bugs.BASE)
STUDENTS = [f"blind11_s{i}" for i in range(1, 11)]

def load(ps):
    return nbformat.read(f"{REL}/{ps}/{ps}.ipynb", as_version=4)

def fill(ps, sources):
    nb = load(ps)
    for c in nb.cells:
        g = c.metadata.get("nbgrader", {})
        if g.get("solution"):
            gid = g["grade_id"]
            assert gid in sources, (ps, gid)
            c.source = sources[gid]
        if c.cell_type == "code":
            c.outputs = []
            c.execution_count = None
    return nb

def sources_for(student, only_bug=None):
    src = dict(STYLES[STUDENT_BASE[student]])
    import answers
    if student in answers.A and only_bug is None:
        src.update(answers.A[student])
    if only_bug is not None:
        src[only_bug["cell"]] = only_bug["src"]
    else:
        for b in bugs.BUGS:
            if b["student"] == student:
                src[b["cell"]] = b["src"]
    return src

def test_cell_for(cell, function):
    if cell == "ps3_layer_code":
        return "ps3_init" if "__init__" in function else "ps3_forward"
    return {"ps1_loop_code": "ps1_self_attention_loop", "ps1_scaled_code": "ps1_scaled_attention"}.get(
        cell, cell[:-5] if cell.endswith("_code") else cell)

def run(nb):
    nb = copy.deepcopy(nb)
    with tempfile.TemporaryDirectory() as d:
        NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": d}}).execute()
    res = {}
    for c in nb.cells:
        g = c.metadata.get("nbgrader", {})
        if c.cell_type != "code":
            continue
        err = None
        for o in c.outputs:
            if o.get("output_type") == "error":
                err = f"{o['ename']}: {o['evalue']}".split("\n")[0]
        key = g.get("grade_id") or c.get("id")
        res[key] = (bool(g.get("grade")), err)
    return res

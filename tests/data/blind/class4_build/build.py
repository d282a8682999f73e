"""Rebuild /work/blind4/class4 from the release notebooks, styles.py and bugs.py."""
import copy, json, os
import nbformat
from styles import STYLES
from bugs import BUGGY

REL = "/work/blind4/release"
OUT = "/work/blind4/class4"
PSS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
       "ps4_encoder_decoder_attention", "ps5_masked_attention"]
CORRECT = {"blind4_s1": "S1", "blind4_s2": "S2", "blind4_s3": "S3", "blind4_s4": "S4"}


def student_cells(student):
    if student in CORRECT:
        return dict(STYLES[CORRECT[student]])
    spec = BUGGY[student]
    cells = dict(STYLES[spec["base"]])
    for gid, src in spec["cells"].items():
        assert src != STYLES[spec["base"]].get(gid), f"{student} {gid}: override identical to base"
        cells[gid] = src
    return cells


def build():
    students = list(CORRECT) + list(BUGGY)
    for student in students:
        cells = student_cells(student)
        for ps in PSS:
            nb = nbformat.read(f"{REL}/{ps}/{ps}.ipynb", as_version=4)
            for cell in nb.cells:
                nbg = cell.metadata.get("nbgrader", {})
                if nbg.get("solution"):
                    cell.source = cells[nbg["grade_id"]]
                if cell.cell_type == "code":
                    cell.outputs = []
                    cell.execution_count = None
            os.makedirs(f"{OUT}/{student}/{ps}", exist_ok=True)
            nbformat.write(nb, f"{OUT}/{student}/{ps}/{ps}.ipynb")
    return students


if __name__ == "__main__":
    print(build())

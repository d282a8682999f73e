"""Build /work/blind5/class5/<student>/<ps>/<ps>.ipynb from the release notebooks."""
import json, os, sys
import nbformat
sys.path.insert(0, os.path.dirname(__file__))
from styles import STYLES, ANSWERS
from bugs import STUDENTS, BUGS, PS_OF, ANSWER_VARIANT

REL = "/work/blind5/release"
OUT = "/work/blind5/class5"
PSS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
       "ps4_encoder_decoder_attention", "ps5_masked_attention"]


def cell_sources(student):
    """grade_id -> source for this student (base style + bugs)."""
    src = dict(STYLES[STUDENTS[student]])
    for b in BUGS:
        if b["student"] != student:
            continue
        if b["full"] is not None:
            src[b["cell"]] = b["full"]
        else:
            cur = src[b["cell"]]
            assert cur.count(b["old"]) == 1, (student, b["cell"], b["function"], cur.count(b["old"]))
            src[b["cell"]] = cur.replace(b["old"], b["new"])
    for gid, variants in ANSWERS.items():
        src[gid] = variants[ANSWER_VARIANT[student] % len(variants)]
    return src


def build():
    for student in STUDENTS:
        src = cell_sources(student)
        for ps in PSS:
            nb = nbformat.read(f"{REL}/{ps}/{ps}.ipynb", as_version=4)
            for c in nb.cells:
                md = c.metadata.get("nbgrader", {})
                if md.get("solution"):
                    c.source = src[md["grade_id"]].rstrip("\n")
                if c.cell_type == "code":
                    c.outputs = []
                    c.execution_count = None
            d = f"{OUT}/{student}/{ps}"
            os.makedirs(d, exist_ok=True)
            nbformat.write(nb, f"{d}/{ps}.ipynb")


def check_untouched():
    """Every non-solution cell byte-identical, same ids/metadata/order."""
    for student in STUDENTS:
        for ps in PSS:
            a = json.load(open(f"{REL}/{ps}/{ps}.ipynb"))
            b = json.load(open(f"{OUT}/{student}/{ps}/{ps}.ipynb"))
            assert a["metadata"] == b["metadata"] and a["nbformat"] == b["nbformat"]
            assert len(a["cells"]) == len(b["cells"])
            for ca, cb in zip(a["cells"], b["cells"]):
                assert ca["id"] == cb["id"] and ca["metadata"] == cb["metadata"] and ca["cell_type"] == cb["cell_type"]
                if not ca["metadata"].get("nbgrader", {}).get("solution"):
                    assert ca == cb, (student, ps, ca["id"])
                else:
                    assert set(ca) == set(cb)
    print("untouched check OK")


if __name__ == "__main__":
    build()
    check_untouched()

"""Shared helpers: student configuration, applying bugs, building notebooks, exec namespaces."""
import copy
import io
import contextlib
import os
import warnings

os.environ.setdefault("MPLBACKEND", "Agg")
import nbformat

from styles import STYLES, ANSWERS
from bugs import BUGS

ROOT = "/work/blind6"
RELEASE = f"{ROOT}/release"
CLASS = f"{ROOT}/class6"
PSETS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
         "ps4_encoder_decoder_attention", "ps5_masked_attention"]
# base style of every student
BASE = {1: 1, 2: 2, 3: 3, 4: 4, 5: 1, 6: 2, 7: 3, 8: 4, 9: 4, 10: 3}
BUG_BY_ID = {b["id"]: b for b in BUGS}


def sid(n):
    return f"blind6_s{n}"


def release_nb(ps):
    return nbformat.read(f"{RELEASE}/{ps}/{ps}.ipynb", as_version=nbformat.NO_CONVERT)


def grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def is_solution(cell):
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("solution"))


def is_test(cell):
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("grade")) and cell.cell_type == "code"


def apply_bug(cells, bug):
    src = cells[bug["cell"]]
    for r in bug["repl"]:
        old, new = r[0], r[1]
        count = r[2] if len(r) > 2 else 1
        found = src.count(old)
        if found != count:
            raise ValueError(f"{bug['id']}: {old!r} found {found} times, expected {count}")
        src = src.replace(old, new)
    cells = dict(cells)
    cells[bug["cell"]] = src
    return cells


def code_cells(ps, style, bug_ids=()):
    cells = dict(STYLES[ps][style])
    for b in bug_ids:
        cells = apply_bug(cells, BUG_BY_ID[b])
    return cells


def student_bugs(n, ps):
    return [b["id"] for b in BUGS if b["student"] == n and b["ps"] == ps]


def build_notebook(n, ps, bug_ids=None):
    if bug_ids is None:
        bug_ids = student_bugs(n, ps)
    cells = code_cells(ps, BASE[n], bug_ids)
    nb = release_nb(ps)
    for c in nb.cells:
        if not is_solution(c):
            continue
        gid = grade_id(c)
        if c.cell_type == "code":
            c.source = cells[gid].rstrip("\n")
            c.outputs = []
            c.execution_count = None
        else:
            variants = ANSWERS[gid]
            c.source = variants[(n * 3 + PSETS.index(ps)) % len(variants)]
    return nb


def exec_namespace(ps, cells):
    """Execute every code cell of the release that is not a test cell, with the given solution
    cells, in order; errors in a cell are recorded and execution goes on. Returns (ns, errors)."""
    import matplotlib
    matplotlib.use("Agg")
    nb = release_nb(ps)
    ns = {"__name__": "__main__"}
    errors = {}
    for c in nb.cells:
        if c.cell_type != "code" or is_test(c):
            continue
        src = cells[grade_id(c)] if is_solution(c) else c.source
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(src, f"<{grade_id(c)}>", "exec"), ns)
        except Exception as e:  # noqa
            errors[grade_id(c)] = f"{type(e).__name__}: {e}"
    import matplotlib.pyplot as plt
    plt.close("all")
    return ns, errors

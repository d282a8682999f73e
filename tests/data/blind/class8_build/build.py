"""Build the class: notebooks (unexecuted), isolated bug checks, nbclient runs, labels.json."""
import sys, json, copy, os, warnings
sys.path.insert(0, "/work/blind8/class8_build")
import numpy as np
import nbformat
from common import *
from styles import STYLES
from bugs import BUGS, BASE

OUT = "/work/blind8/class8"


def apply_bug(sources, bug):
    src = dict(sources)
    cell = bug["cell"]
    if "replace_all" in bug:
        src[cell] = bug["replace_all"]
        return src
    s = src[cell]
    for edit in bug["edits"]:
        old, new = edit[:2]
        expected = edit[2] if len(edit) > 2 else 1
        assert s.count(old) == expected, (bug["student"], cell, old, s.count(old))
        s = s.replace(old, new)
    src[cell] = s
    return src


def student_sources(student, ps, only_bug=None):
    src = dict(STYLES[BASE[student][ps]])
    bugs = [b for b in BUGS if b["student"] == student and b["ps"] == ps]
    if only_bug is not None:
        bugs = [only_bug]
    for b in bugs:
        src = apply_bug(src, b)
    return src


def write_notebooks():
    for student in range(1, 11):
        for ps in PS:
            nb = fill(ps, student_sources(student, ps))
            d = f"{OUT}/blind8_s{student}/{ps}"
            os.makedirs(d, exist_ok=True)
            nbformat.write(nb, f"{d}/{ps}.ipynb")


def isolated():
    res = []
    for b in BUGS:
        tc = test_cell_for(b["cell"], b["function"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = run_inprocess(fill(b["ps"], student_sources(b["student"], b["ps"], only_bug=b)))
        res.append((tc, r.get(tc) if tc else None, {k: v for k, v in r.items() if v}))
    return res


if __name__ == "__main__":
    write_notebooks()
    iso = isolated()
    json.dump([[tc, err, allerr] for tc, err, allerr in iso], open(f"{OUT}/../class8_build/isolated.json", "w"), indent=1)
    for b, (tc, err, allerr) in zip(BUGS, iso):
        print(b["student"], b["cell"], b["function"], "->", tc, "PASS" if not err else "FAIL: " + err[:110])
        print("      all failing cells:", list(allerr))

"""For every bug: does the bugged code differ from (or crash where) the correct base does not, on hidden-like inputs?"""
import sys, io, contextlib, warnings
sys.path.insert(0, "/work/blind8/class8_build")
import numpy as np
from common import *
from styles import STYLES
from bugs import BUGS, BASE
from build import student_sources
from crosscheck import cases


def ns_of(ps, sources):
    nb = fill(ps, sources); ns = {}
    import matplotlib; matplotlib.use("Agg")
    for c in nb.cells:
        if c.cell_type != "code" or c.metadata.get("nbgrader", {}).get("grade"):
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(c.source, ns)
        except Exception:
            pass
    return ns


def run(ps, sources):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return cases(ps, ns_of(ps, sources), np.random.default_rng(0)), None
        except Exception as e:
            return None, f"{type(e).__name__}: {e}"[:100]


for b in BUGS:
    if "replace_all" in b:
        print(b["student"], b["function"], "written answer: n/a"); continue
    good, _ = run(b["ps"], STYLES[BASE[b["student"]][b["ps"]]])
    bad, err = run(b["ps"], student_sources(b["student"], b["ps"], only_bug=b))
    if err:
        verdict = "raises " + err
    else:
        diff = [i for i, (x, y) in enumerate(zip(good, bad))
                if np.shape(np.ravel(x)) != np.shape(np.ravel(y)) or not np.allclose(np.ravel(x), np.ravel(y), rtol=1e-4, atol=1e-6)
                or not np.all(np.isfinite(np.ravel(y)))]
        verdict = f"differs at outputs {diff}" if diff else "SAME on hidden-like cases"
    print(b["student"], b["cell"], b["function"], "->", verdict)

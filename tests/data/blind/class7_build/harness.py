"""In-process execution of a release notebook with given solution cells (for probes)."""
import contextlib
import io
import json
import traceback

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

REL = "/work/blind7/release/{ps}/{ps}.ipynb"


def load(ps):
    return json.load(open(REL.format(ps=ps)))


def cells(ps):
    """[(grade_id or None, cell_type, source, is_test, is_solution)]"""
    out = []
    for c in load(ps)["cells"]:
        m = c["metadata"].get("nbgrader", {})
        out.append((m.get("grade_id"), c["cell_type"], "".join(c["source"]),
                    bool(m.get("grade")) and c["cell_type"] == "code", bool(m.get("solution"))))
    return out


def first_error_line(exc):
    s = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
    return s[0] if s else type(exc).__name__


def run(ps, codes, run_tests=True):
    """Execute the notebook with solution cells replaced by `codes`.
    Returns (namespace, {test_grade_id: None | first error line})."""
    ns = {"__name__": "__main__"}
    results = {}
    for gid, ctype, src, is_test, is_sol in cells(ps):
        if ctype != "code":
            continue
        if is_sol:
            src = codes[gid]
        if is_test and not run_tests:
            continue
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
                exec(compile(src, f"<{gid}>", "exec"), ns)
            if is_test:
                results[gid] = None
        except Exception as e:  # noqa: BLE001
            if is_test:
                results[gid] = first_error_line(e)
        finally:
            plt.close("all")
    return ns, results

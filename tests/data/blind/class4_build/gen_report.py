"""Write /work/blind4/class4/REPORT.md (tables from labels.json + the hand-written parts)."""
import json
from build import OUT, PSS, CORRECT
from bugs import BUGGY

rows = json.load(open(f"{OUT}/labels.json"))
STYLE_TEXT = {
    "blind4_s1": "CORRECT. Explicit loops and Python lists: math.exp softmax over a list, double loops for K^T Q, per-column loops for the column softmax, per-column comparison in check_equivariance, loop-built masks and positional encodings.",
    "blind4_s2": "CORRECT. Fully vectorised: einsum for K^T Q, keepdims broadcasting, np.hsplit, index broadcasting for the mask, np.where for the masked softmax, outer products for (PE).",
    "blind4_s3": "CORRECT. Numerically careful: log-domain softmaxes via a logsumexp helper, explicit float64 copies of every input, asserts on shapes, log-domain masked softmax with -inf and a guard for fully masked columns, symbolic shapes in ps4.",
    "blind4_s4": "CORRECT. Own helpers and unusual but valid decompositions: softmax_cols as the row softmax of the transpose, permutation matrix P in check_equivariance, multi-head as a sum of Omega_c column blocks times head outputs, A(x(W_v W_o)) re-association, setattr loop in __init__, split_heads by reshape/transpose, (PE) from complex exponentials; DEBUG print flags (off).",
    "blind4_s5": "BUGGY, loop style (base s1): careless with stability shifts (min/mean/global max), copy-paste slips, conventions.",
    "blind4_s6": "BUGGY, vectorised style (base s2): wrong axis, wrong scale dimension, global instead of argument, broadcasting, -1e9 mask, permuting Pi.",
    "blind4_s7": "BUGGY, helper-function style (base s4): bugs hidden in helpers that callers use, globals (all_x, H_D, N), seeded own RNG, precedence.",
    "blind4_s8": "BUGGY, vectorised (base s2) with 'rows convention' habits: transposed attention, x @ W.T, vector @ matrix, positions from 1, inverse permutation, missing keepdims.",
    "blind4_s9": "BUGGY, log-domain style (base s3) but sloppy: half-shifted softmax, Q^T K, D_q from the wrong axis, missing Omega_c, (T,1) shapes, float mask, mask after softmax, two mistakes in forward.",
    "blind4_s10": "BUGGY, loop style (base s1), mostly subtle: global N in loops, first-column-only check, heads[i-1], axis=0 softmax, precedence, d_model for d_k, np.stack instead of list, sin/cos swapped, mask-after-exp underflow.",
}


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


lines = ["# blind4 class 4: report", "",
         "Written blind from the five release notebooks in /work/blind4/release only.", "",
         "## Files", "",
         "- `/work/blind4/class4/blind4_sN/<ps>/<ps>.ipynb`: 10 students x 5 problem sets = 50 notebooks "
         "(only `nbgrader.solution == true` cells edited; ids, cell and notebook metadata unchanged; outputs cleared, "
         "execution_count None; checked by `class4_build/check_structure.py`).",
         "- `/work/blind4/class4/labels.json`: %d rows (%d fully-correct (student, ps) rows + %d bug rows). Extra keys on "
         "bug rows: `visible_test_cell` and `visible_test_error` (the error of that test cell in my run)." % (
             len(rows), sum(r["cell"] is None for r in rows), sum(r["cell"] is not None for r in rows)),
         "- `/work/blind4/class4_build/`: `styles.py` (4 correct styles, cell sources by grade_id), `bugs.py` (6 buggy "
         "students = base style + overridden cells + bug labels), `build.py` (writes the notebooks), `run_all.py` "
         "(executes each notebook one at a time with nbclient, allow_errors; results in /work/blind4/scratch4/results.json, "
         "executed copies in /work/blind4/scratch4/<student>/), `probes.py` (fresh-input probes, results in "
         "`probe_results.json`), `make_labels.py`, `check_structure.py`, `gen_report.py`.",
         "- Rebuild: `cd /work/blind4/class4_build && python build.py && python run_all.py && python probes.py && "
         "python make_labels.py && python gen_report.py` (with /work/main/.venv/bin/python).", "",
         "## Verification", "",
         "- All 20 notebooks of the 4 correct students run with no error in any cell (every visible test passes).",
         "- `probes.py` calls every public function of every student on fresh valid inputs (other D, N, H, D_q < D, "
         "d_k != d_v != d_model, T != n, int inputs, scores ~1e3-1e9, columns/rows 900+ apart, fully masked columns, "
         "masked scores far above allowed ones, non-square matrices) and compares with blind4_s2. The 4 correct students "
         "agree with it on every probe; every labelled code bug changes its function's output (or raises) on at least "
         "one probe. `also_affects` = the student's own functions whose output changes on the probes when only the buggy "
         "function is swapped for the reference one (for helpers/methods: callers that differ and call it).",
         "- Bugs that pass their own visible test: %d of %d code bugs." % (
             sum(1 for r in rows if r["cell"] and r["function"] and r["passes_visible_tests"]),
             sum(1 for r in rows if r["cell"] and r["function"])),
         "- Note: a visible test can fail because of an upstream bug of the same student (e.g. s6's scaled attention "
         "test fails because of its softmax_cols bug; s7's ps1_equivariance test fails because `_attend` ignores X; "
         "s10's single_query test fails because of its scale_scores bug). passes_visible_tests records what actually "
         "happened in my run; `visible_test_error` shows the message.", "",
         "## Students", "", "| student | style |", "|---|---|"]
for st, t in STYLE_TEXT.items():
    lines.append(f"| {st} | {t} |")
lines += ["", "## Bug table", "",
          "| student | ps | cell | function | mistake | passes visible | also affects |", "|---|---|---|---|---|---|---|"]
for r in rows:
    if r["cell"] is None:
        continue
    lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
        r["student"], r["ps"], r["cell"], r["function"] or "(written answer)", md_escape(r["mistake"]),
        "n/a (TA-graded)" if r["passes_visible_tests"] is None else r["passes_visible_tests"],
        ", ".join(r["also_affects"]) or "-"))
lines += ["", open("/work/blind4/class4_build/confusions.md").read()]
open(f"{OUT}/REPORT.md", "w").write("\n".join(lines) + "\n")
print("written", len(lines), "lines")

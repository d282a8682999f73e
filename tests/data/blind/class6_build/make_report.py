"""Write class6/REPORT.md from labels.json, probe_results.json, run_results.json and style_check.json."""
import json, collections
from common import CLASS, PSETS, BASE, BUGS, sid

labels = json.load(open(f"{CLASS}/labels.json"))
probes = {p["id"]: p for p in json.load(open("probe_results.json"))}
runs = json.load(open("run_results.json"))
styles = json.load(open("style_check.json"))
bugs = [r for r in labels if r["mistake"]]
STYLE_NAME = {1: "explicit loops, verbose comments", 2: "np.einsum everywhere",
              3: "terse vectorised one-liners / comprehensions (np.hsplit, walrus, generator unpacking)",
              4: "own private helpers (_proj, _attend, _scaled_scores, _mix, _softmax_1d, _allowed_max, _pe_column, _gap, SelfAttention._draw), asserts, a debug print, np.apply_along_axis, in-place ops"}
L = []
L.append("# Class 6 (blind tester 6): fake student submissions\n")
L.append("Built only from the five release notebooks in `/work/blind6/release/`. 10 students x 5 problem sets = 50 notebooks in "
         "`/work/blind6/class6/blind6_sN/<ps>/<ps>.ipynb`; labels in `labels.json`.\n")
L.append("## Students and styles\n")
L.append("| student | base style | correct? | bugs |")
L.append("|---|---|---|---|")
for n in range(1, 11):
    nb = sum(1 for b in bugs if b["student"] == sid(n))
    L.append(f"| {sid(n)} | {BASE[n]}: {STYLE_NAME[BASE[n]]} | {'yes' if nb == 0 else 'no'} | {nb} |")
L.append("\nStudents s5..s10 are their base style with their bugs applied as text replacements (`bugs.py`). "
         "Written answers (markdown solution cells) are plausible, correct answers in five variants.\n")
L.append("## Bug counts per problem set\n")
L.append("| problem set | bugs | pass the visible tests |")
L.append("|---|---|---|")
for ps in PSETS:
    b = [r for r in bugs if r["ps"] == ps]
    L.append(f"| {ps} | {len(b)} | {sum(r['passes_visible_tests'] for r in b)} |")
L.append(f"| **total** | **{len(bugs)}** | **{sum(r['passes_visible_tests'] for r in bugs)}** |\n")
per = collections.Counter((r["student"]) for r in bugs)
L.append("Per student: " + ", ".join(f"{s} {c}" for s, c in sorted(per.items(), key=lambda x: int(x[0].split('s')[-1]))) +
         ". Every bugged student has at least one bug in every problem set.\n")
L.append("## Bugs in private helper functions\n")
for r, b in zip(bugs, BUGS):
    last = r["function"].split(".")[-1]
    if last.startswith("_") and not last.startswith("__"):
        L.append(f"- {r['student']} {r['ps']} `{r['function']}` (cell {r['cell']}): {r['mistake']} Callers whose results change: {', '.join(r['also_affects'])}.")
L.append("\n`_proj` (s8, ps1) is called by `self_attention_loop`, `self_attention` (through `_attend`) and "
         "`scaled_dot_product_self_attention`; `_scaled_scores` (s9, ps2) is called by `single_head_attention` and so by both multihead functions.\n")
L.append("## Functions with two independent bugs (one row each in labels.json)\n")
cnt = collections.Counter((r["student"], r["ps"], r["function"]) for r in bugs)
for (s, ps, f), c in cnt.items():
    if c > 1:
        L.append(f"- {s} {ps} `{f}`:")
        for r in bugs:
            if (r["student"], r["ps"], r["function"]) == (s, ps, f):
                L.append(f"    - {r['mistake']}")
L.append("\nEach of the two bugs was probed alone on the base style (probe_results.json) and changes the result by itself.\n")
L.append("## How it was verified\n")
n_style = len(styles)
L.append(f"1. **Correct styles.** `verify_styles.py` executes every style's cells (with the release's locked cells) and calls every notebook "
         f"function on fresh inputs (`probes.py`: other D, N, H, head sizes, D_q < D with D_v != D_q, d_k != d_v != d_model, "
         f"logits near +-1000 and 900-apart rows/columns, fully masked columns, masked scores of 2000, non-square matrices, 1-token inputs, "
         f"statistics of SelfAttention weights for dims 96 and 80 and seed behaviour). Styles 2, 3 and 4 agree with style 1 on all "
         f"{n_style} (ps, style, function) combinations; style 1 raises on none (`style_check.json`).")
L.append("2. **Bugs are real.** `probe_bugs.py` applies each bug alone to its base style and compares every notebook function with the correct base "
         "style on the same probes (rtol 1e-4, atol 1e-6 x (1 + max|expected|), nan/inf vs finite, shapes, dtypes, containers, raises). "
         f"{sum(p['real'] for p in probes.values())} of {len(probes)} bugs change their own function's result (for a helper: a calling notebook function's result). "
         "`also_affects` = notebook functions that call the buggy one in the student's own code (static AST call graph, `callgraph.py`) and whose probe result changes with only this bug present.")
L.append("3. **Structure.** `build.py` re-reads every written notebook and checks that every non-solution cell is identical (JSON of the whole cell) to the release, "
         "that ids, cell types, cell metadata, notebook metadata and cell order are unchanged, and that solution code cells have no outputs and execution_count None. All 50 pass.")
errs_correct = {k: v for k, v in runs.items() if int(k.split('/')[0].split('s')[-1]) <= 4 and any(v.values())}
L.append(f"4. **Runs.** `run_all.py` ran each of the 50 notebooks once with nbclient (kernel python3, allow_errors, 60 s per cell), one at a time; "
         f"first error line per code cell in `class6_build/run_results.json`. Correct students' notebooks with an error: {len(errs_correct)} (none expected). "
         "`passes_visible_tests` and `visible_test_error` in labels.json come from this run (so a bug that passes alone can show the other bug's error when both sit in one function).\n")
L.append("## Bug table\n")
L.append("| # | student | ps | cell | function | passes visible | visible test error | also affects |")
L.append("|---|---|---|---|---|---|---|---|")
for b, r in zip(BUGS, bugs):
    L.append(f"| {b['id']} | {r['student']} | {r['ps']} | {r['cell']} | `{r['function']}` | {'yes' if r['passes_visible_tests'] else 'no'} | "
             f"{(r['visible_test_error'] or '').replace('|', '/')[:90]} | {', '.join(r['also_affects'])} |")
L.append("\nBug ids (B01..B61) are internal to `bugs.py` (B10 belongs to s10, B11 to B20 to s6); labels.json rows follow this table's order.\n")
L.append("## Rule check\n")
L.append("All 50 notebooks pass the structure check; the 20 notebooks of s1..s4 run with no error in any cell; every bug was shown real on fresh inputs. No notebook is known to break the rules.\n")
L.append("\n## How to rebuild\n")
L.append("```\ncd /work/blind6/class6_build\nPY=/work/main/.venv/bin/python\n$PY verify_styles.py      # correct styles agree on fresh inputs -> style_check.json\n"
         "$PY probe_bugs.py         # every bug alone vs its base style -> probe_results.json\n"
         "$PY build.py              # writes the 50 notebooks and checks them against the release\n"
         "$PY run_all.py            # nbclient, one notebook at a time -> run_results.json (about 4 minutes)\n"
         "$PY make_labels.py        # -> ../class6/labels.json\n$PY make_report.py        # -> ../class6/REPORT.md\n```\n")
L.append("Files: `styles.py` (four correct styles + written answers), `bugs.py` (bugs as text replacements with the mistake text), "
         "`common.py`, `probes.py`, `callgraph.py`.\n")
open(f"{CLASS}/REPORT.md", "w").write("\n".join(L) + "\n")
print("report written")

import sys, json
sys.path.insert(0, "/work/blind8/class8_build")
from common import PS
from bugs import BASE, STYLE_NAME

labels = json.load(open("/work/blind8/class8/labels.json"))
bugs = [l for l in labels if l["cell"]]
L = []
L.append("# Class 8: fake submissions for the self-attention course\n")
L.append("10 students x 5 problem sets = 50 notebooks in `blind8_sN/<ps>/<ps>.ipynb`, saved unexecuted "
         "(outputs cleared; only solution cells changed; cell ids and metadata as released, checked by "
         "`class8_build/check_integrity.py`). Build scripts: `/work/blind8/class8_build/` "
         "(`styles.py` four correct styles, `bugs.py` the bugs as edits of those styles, `build.py` writes the "
         "notebooks and runs each bug in isolation, `run_nbclient.py` executes each submission once with nbclient, "
         "`make_labels.py`, `verify_bugs.py` / `crosscheck.py` hidden-like checks, `make_report.py`).\n")
L.append("## Students\n")
L.append("| student | style (base style per problem set) | correct / bugged | bugs | bugs passing their visible test |")
L.append("|---|---|---|---|---|")
for s in range(1, 11):
    bases = sorted(set(BASE[s].values()))
    if len(bases) == 1:
        style = f"style {bases[0]}: {STYLE_NAME[bases[0]]}"
    else:
        style = "mixed: " + ", ".join(f"{ps[:3]} style {BASE[s][ps]}" for ps in PS)
    mine = [b for b in bugs if b["student"] == s]
    L.append(f"| {s} | {style} | {'bugged' if mine else 'correct'} | {len(mine)} | {sum(b['passes_visible_tests'] for b in mine)} |")
n_written = sum(1 for b in bugs if b["visible_test_cell"] is None)
L.append(f"\nTotal: {len(bugs)} bugs, {sum(b['passes_visible_tests'] for b in bugs)} of them pass the visible test cell that follows them "
         f"({n_written} of those are wrong written answers, which have no visible test; they are counted as passing). "
         "Students 1-4 pass every visible test (nbclient run). \"Passes\" is measured with only that bug injected into the student's otherwise "
         "correct notebook; `visible_test_error_in_submission` in labels.json is the same test cell in the real submission (all bugs together).\n")
L.append("## Bugs per problem set\n")
L.append("| problem set | bugs | pass visible test | fail visible test |")
L.append("|---|---|---|---|")
for ps in PS:
    x = [b for b in bugs if b["ps"] == ps]
    L.append(f"| {ps} | {len(x)} | {sum(b['passes_visible_tests'] for b in x)} | {sum(not b['passes_visible_tests'] for b in x)} |")
L.append("\n## All bugs\n")
L.append("| student | ps | cell | function | passes visible | error in isolation | also affects |")
L.append("|---|---|---|---|---|---|---|")
for b in bugs:
    err = (b["visible_test_error"] or "")[:90].replace("|", "/")
    L.append(f"| {b['student']} | {b['ps'][:3]} | {b['cell']} | {b['function']} | {'yes' if b['passes_visible_tests'] else 'no'} | {err} | {', '.join(b['also_affects'])} |")
L.append("")
L.append(open("/work/blind8/class8_build/notes.md").read())
open("/work/blind8/class8/REPORT.md", "w").write("\n".join(L))

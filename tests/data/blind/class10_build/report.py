import sys, json, collections; sys.path.insert(0,'.')
from build import *
rows = json.load(open(f"{OUT}/labels.json"))
res = json.load(open("measure.json"))
styles = {1: "object-oriented: small helper classes (StableSoftmax, Projection, QKV, AttentionHead, MultiHead, MaskedColumnSoftmax, Sinusoids)",
          2: "vectorised: np.einsum / np.tensordot / broadcasting everywhere, np.split, np.exp(where=...)",
          3: "plain Python: lists, loops and the math module, converted to numpy arrays at the end",
          4: "defensive: input validation, float64 casts, copies, shape checks, many comments",
          5: "plain reference style (bugged)", 6: "plain reference style (bugged)", 7: "plain reference style (bugged)",
          8: "plain reference style (bugged)", 9: "plain reference style (bugged)", 10: "plain reference style (bugged)"}
bugs = [r for r in rows if r["mistake"]]
L = ["# Class blind10 (class10): fake submissions for the self-attention course", "",
     "Built from the five release notebooks only; build scripts in `/work/blind10/class10_build/`",
     "(`sols_ref.py` reference used as the base of students 5-10, `sols_styles.py`/`sols_styles2.py` students 1-4,",
     "`bugs.py` every bug as a whole solution cell with only that bug, `build.py`, `measure.py`, `labels.py`, `verify.py`, `report.py`).",
     "Labels: `/work/blind10/class10/labels.json`.", "",
     "## Students", "",
     "| student | style | correct/bugged | bugs | bugs passing their visible test | visible test cells failing in the submission |",
     "|---|---|---|---|---|---|"]
for k in range(1, 11):
    st = f"blind10_s{k}"
    b = [r for r in bugs if r["student"] == st]
    fails = sum(len(res["submissions"][f"{st}|{ps}"]) for ps in PSS)
    L.append(f"| {st} | {styles[k]} | {'correct' if not b else 'bugged'} | {len(b)} | "
             f"{sum(r['passes_visible_tests'] for r in b)} of {len(b)} | {fails} |")
L += ["", "Written-answer bugs count as passing their visible test (there is none).", "",
      "## Bugs per problem set", "", "| problem set | bugs | of which written | pass their visible test | fail it |", "|---|---|---|---|---|"]
for ps in PSS:
    b = [r for r in bugs if r["ps"] == ps]
    L.append(f"| {ps} | {len(b)} | {sum(r['function']=='written answer' for r in b)} | "
             f"{sum(r['passes_visible_tests'] for r in b)} | {sum(not r['passes_visible_tests'] for r in b)} |")
L.append(f"| total | {len(bugs)} | {sum(r['function']=='written answer' for r in bugs)} | "
         f"{sum(r['passes_visible_tests'] for r in bugs)} | {sum(not r['passes_visible_tests'] for r in bugs)} |")
L += ["", "Problem-set rows with no bug (label rows with cell null): "
      + str(sum(1 for r in rows if r["mistake"] is None)) + " (students 1-4 x 5 problem sets; every bugged student has at least one bug in every problem set).", "",
      "## All bugs", ""]
for r in bugs:
    L.append(f"- **{r['student']} / {r['ps']} / `{r['cell']}` / {r['function']}** "
             f"({'passes' if r['passes_visible_tests'] else 'fails'} visible test"
             + (f" `{r['visible_test_cell']}`" if r['visible_test_cell'] else "") + "): " + r["mistake"]
             + (f" Also affects: {', '.join(r['also_affects'])}." if r["also_affects"] else ""))
L += ["", open("confusing.md").read()]
open(f"{OUT}/REPORT.md", "w").write("\n".join(L) + "\n")
print("\n".join(L[:40]))

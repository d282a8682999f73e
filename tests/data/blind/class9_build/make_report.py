import sys, json, collections
sys.path.insert(0, "/work/blind9/class9_build")
from nbtools import PSS
from bugs import BASE
rows = json.load(open("/work/blind9/class9/labels.json"))
R = json.load(open("results.json"))
STY = {1: "explicit Python loops and lists (loops over tokens, rows, columns; nested-loop masks and encodings)",
       2: "vectorised numpy: einsum, broadcasting, np.where, np.split, np.concatenate",
       3: "terse one-liners: comprehensions, generator unpacking, np.matmul, lambdas",
       4: "helper functions reused across cells, asserts, debug prints, in-place ops on its own copies (np.array copy, out=)"}
bugs = [r for r in rows if r["mistake"]]
L = ["# Class blind9 (class9): 10 fake students x 5 problem sets", "",
     "Built from the five release notebooks only; only solution cells (code and written answers) were edited; notebooks are saved unexecuted.",
     "Build scripts: /work/blind9/class9_build/ (styles.py = the four correct styles, bugs.py = every bug with its cell source, run_all.py = build + nbclient runs, results.json = raw run results, verify.py = checks).", "",
     "## Students", "",
     "| student | style | correct / bugged | bugs | bugs passing their visible test | visible test cells failing in the submission (of 23) |",
     "|---|---|---|---|---|---|"]
for s in range(1, 11):
    st = f"blind9_s{s}"
    mine = [r for r in bugs if r["student"] == st]
    fails = sum(len(R["submissions"][f"{st}/{ps}"]) for ps in PSS)
    base = s if s <= 4 else BASE[s]
    style = f"style {base}: {STY[base]}" if s <= 4 else f"style {base} base ({STY[base].split(':')[0].split('(')[0].strip()})"
    L.append(f"| {st} | {style} | {'correct' if s <= 4 else 'bugged'} | {len(mine)} | "
             f"{sum(r['passes_visible_tests'] for r in mine)} of {len(mine)} | {fails} |")
L += ["", "Students 1-4 pass every visible test cell when run top to bottom with nbclient (0 errors in all 20 notebooks). "
      "They were also cross-checked against each other on harder inputs (D_q < D, D_v != D_q, other N and H, scores near 900 and beyond, fully masked columns, d_k != d_v, argument mutation): all four styles agree to 1e-6.", "",
      "\"bugs passing their visible test\" is measured with only that bug injected into the student's otherwise correct notebook (its own base style); written-answer bugs count as passing. There are 23 autograded visible test cells over the five notebooks (ps1 6, ps2 3, ps3 3, ps4 7, ps5 4).", "",
      "## Bugs per problem set", "",
      "| problem set | " + " | ".join(f"s{s}" for s in range(5, 11)) + " | total | pass visible | written-answer bugs |",
      "|---|" + "---|" * 9]
for ps in PSS:
    cnt = [sum(1 for r in bugs if r["ps"] == ps and r["student"] == f"blind9_s{s}") for s in range(5, 11)]
    b = [r for r in bugs if r["ps"] == ps]
    L.append(f"| {ps} | " + " | ".join(map(str, cnt)) + f" | {len(b)} | {sum(r['passes_visible_tests'] for r in b)} | {sum(r['function']=='written answer' for r in b)} |")
L.append(f"| **all** | " + " | ".join(str(sum(1 for r in bugs if r['student']==f'blind9_s{s}')) for s in range(5, 11)) +
         f" | {len(bugs)} | {sum(r['passes_visible_tests'] for r in bugs)} | {sum(r['function']=='written answer' for r in bugs)} |")
L += ["", "## All bugs", "",
      "| # | student | ps | cell | function | passes visible | visible test cell | mistake |", "|---|---|---|---|---|---|---|---|"]
for i, r in enumerate(bugs, 1):
    aff = f" (also affects: {', '.join(r['also_affects'])})" if r["also_affects"] else ""
    L.append(f"| {i} | {r['student']} | {r['ps']} | {r['cell']} | {r['function']} | {'yes' if r['passes_visible_tests'] else 'no'} | {r['visible_test_cell'] or '-'} | {r['mistake']}{aff} |")
open("/work/blind9/class9/REPORT.md", "w").write("\n".join(L) + "\n")
print("\n".join(L[:40]))

import sys, json
sys.path.insert(0, "/work/blind9/class9_build")
import nbformat
from nbtools import PSS, load_release
from bugs import BUGS
R = json.load(open("results.json"))
problems = 0
for s in range(1, 11):
    for ps in PSS:
        rel = load_release(ps)
        nb = nbformat.read(f"/work/blind9/class9/blind9_s{s}/{ps}/{ps}.ipynb", 4)
        assert len(rel.cells) == len(nb.cells)
        assert rel.metadata == nb.metadata
        for a, b in zip(rel.cells, nb.cells):
            assert a.get("id") == b.get("id") and a.metadata == b.metadata and a.cell_type == b.cell_type
            sol = a.metadata.get("nbgrader", {}).get("solution")
            if not sol and a.source != b.source:
                print("CHANGED non-solution", s, ps, a.id); problems += 1
            if sol and ("YOUR CODE HERE" in b.source or "NotImplementedError" in b.source or "YOUR ANSWER HERE" in b.source):
                print("unsolved", s, ps, a.id); problems += 1
            if b.cell_type == "code" and (b.outputs or b.execution_count is not None):
                print("not cleared", s, ps); problems += 1
        srcs = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")}
        for bg in BUGS:
            if bg["student"] == s and bg["ps"] == ps and srcs[bg["cell"]] != bg["src"]:
                print("bug missing", s, ps, bg["cell"]); problems += 1
        if s <= 4 and R["submissions"][f"blind9_s{s}/{ps}"]:
            print("correct student fails", s, ps); problems += 1
print("problems:", problems)

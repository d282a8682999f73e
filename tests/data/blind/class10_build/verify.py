import sys; sys.path.insert(0,'.')
from build import *
problems = []
for k in range(1, 11):
    for ps in PSS:
        rel = release(ps)
        nb = nbformat.read(f"{OUT}/blind10_s{k}/{ps}/{ps}.ipynb", as_version=4)
        assert len(rel.cells) == len(nb.cells)
        for a, b in zip(rel.cells, nb.cells):
            if a.get("id") != b.get("id") or a.metadata != b.metadata or a.cell_type != b.cell_type:
                problems.append((k, ps, a.get("id"), "meta/id"))
            if a.source != b.source:
                if not a.metadata.get("nbgrader", {}).get("solution"):
                    problems.append((k, ps, a.get("id"), "non-solution changed"))
            elif a.metadata.get("nbgrader", {}).get("solution"):
                problems.append((k, ps, a.get("id"), "solution unchanged"))
            if b.cell_type == "code" and (b.outputs or b.execution_count is not None):
                problems.append((k, ps, b.get("id"), "not cleared"))
        if nb.metadata != rel.metadata:
            problems.append((k, ps, None, "nb metadata"))
for b in BUGS:
    k = int(b["student"].split("_s")[1])
    nb = nbformat.read(f"{OUT}/{b['student']}/{b['ps']}/{b['ps']}.ipynb", as_version=4)
    cell = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == b["cell"]][0]
    if cell.source != b["src"] or b["src"] == REF[b["ps"]][b["cell"]]:
        problems.append((b["student"], b["cell"], "bug not in submission"))
print("problems:", problems)

"""Write the 50 student notebooks and check them against the release."""
import json, os, sys
import nbformat
from common import CLASS, PSETS, build_notebook, release_nb, is_solution, sid


def check(nb, ps):
    """Every non-solution cell, every id, all metadata and the cell order identical to the release."""
    rel = release_nb(ps)
    problems = []
    if json.dumps(nb.metadata, sort_keys=True) != json.dumps(rel.metadata, sort_keys=True):
        problems.append("notebook metadata differs")
    if (nb.nbformat, nb.nbformat_minor) != (rel.nbformat, rel.nbformat_minor):
        problems.append("nbformat differs")
    if len(nb.cells) != len(rel.cells):
        return problems + ["cell count differs"]
    for i, (a, b) in enumerate(zip(nb.cells, rel.cells)):
        if a.get("id") != b.get("id") or a.cell_type != b.cell_type:
            problems.append(f"cell {i}: id or type differs")
        if json.dumps(a.metadata, sort_keys=True) != json.dumps(b.metadata, sort_keys=True):
            problems.append(f"cell {i}: metadata differs")
        if not is_solution(b):
            if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
                problems.append(f"cell {i}: non-solution cell changed")
        else:
            if set(a.keys()) != set(b.keys()):
                problems.append(f"cell {i}: keys differ")
            if a.cell_type == "code" and (a.outputs or a.execution_count is not None):
                problems.append(f"cell {i}: outputs not cleared")
            if a.source == b.source:
                problems.append(f"cell {i}: solution cell left unanswered")
    return problems


if __name__ == "__main__":
    bad = 0
    for n in range(1, 11):
        for ps in PSETS:
            nb = build_notebook(n, ps)
            path = f"{CLASS}/{sid(n)}/{ps}/{ps}.ipynb"
            os.makedirs(os.path.dirname(path), exist_ok=True)
            nbformat.write(nb, path)
            # re-read from disk and check
            probs = check(nbformat.read(path, as_version=nbformat.NO_CONVERT), ps)
            if probs:
                bad += 1
                print(path, probs)
    print("built 50 notebooks;", "all match the release structure" if not bad else f"{bad} with problems")

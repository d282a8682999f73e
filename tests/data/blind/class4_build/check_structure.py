"""Check that every class notebook differs from the release only in solution-cell sources."""
import nbformat
from build import OUT, PSS, REL
import os
bad = 0
for st in sorted(os.listdir(OUT)):
    if not st.startswith("blind4_s"):
        continue
    for ps in PSS:
        a = nbformat.read(f"{REL}/{ps}/{ps}.ipynb", as_version=4)
        b = nbformat.read(f"{OUT}/{st}/{ps}/{ps}.ipynb", as_version=4)
        assert a.metadata == b.metadata and a.nbformat == b.nbformat and a.nbformat_minor == b.nbformat_minor
        assert len(a.cells) == len(b.cells)
        for ca, cb in zip(a.cells, b.cells):
            assert ca.get("id") == cb.get("id") and ca.metadata == cb.metadata and ca.cell_type == cb.cell_type
            if not ca.metadata.get("nbgrader", {}).get("solution"):
                if ca.source != cb.source:
                    bad += 1; print("non-solution cell changed", st, ps, ca.get("id"))
            if cb.cell_type == "code":
                assert cb.outputs == [] and cb.execution_count is None
print("structure OK" if not bad else f"{bad} problems")

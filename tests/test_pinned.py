"""Every number pinned in a master notebook, recomputed by an independent implementation.

The recomputation of an assignment is found by name: ``pinned_<prefix>()`` in
``tests/helpers/independent.py``, ``<prefix>`` being the assignment's grade-id prefix
(``ps5`` for ``ps5_masked_attention``). A question whose cells pin no value needs nothing there.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import helpers.independent as independent
import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(ROOT.glob("source/*/*.ipynb"))


def recomputation(notebook: Path) -> str:
    """The name of the function of ``independent`` that recomputes the notebook's values."""
    return f"pinned_{notebook.parent.name.split('_')[0]}"


def pinned_values(notebook: Path) -> dict[str, tuple[str, np.ndarray]]:
    """``name = np.array(<literal>)`` assignments whose name contains ``_true``: name -> (the
    grade id of the cell that pins it, the value)."""
    found = {}
    for index, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        if cell.cell_type != "code":
            continue
        where = cell.metadata.get("nbgrader", {}).get("grade_id", f"cell {index}")
        for node in ast.walk(ast.parse(cell.source)):
            if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                    and "_true" in node.targets[0].id and isinstance(node.value, ast.Call)):
                found[node.targets[0].id] = (where, np.array(ast.literal_eval(node.value.args[0])))
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_pinned_value_is_recomputed(notebook: Path) -> None:
    pinned = pinned_values(notebook)
    assert pinned, f"{notebook.name} pins no values"
    function = recomputation(notebook)
    recomputed = getattr(independent, function, dict)()
    fix = (f"tests/helpers/independent.py's {function}() does not recompute"
           if hasattr(independent, function)
           else f"nothing recomputes: define {function}() in tests/helpers/independent.py")
    missing = [f"the cell {where!r} of {notebook.name} pins {name}, which {fix}"
               for name, (where, _) in pinned.items() if name not in recomputed]
    assert not missing, "; ".join(missing)
    extra = sorted(set(recomputed) - set(pinned))
    assert not extra, f"{function}() recomputes {extra}, which {notebook.name} does not pin"
    for name, (_, value) in pinned.items():
        want, atol = recomputed[name]
        assert value.shape == np.shape(want), name
        np.testing.assert_allclose(value, want, atol=atol, rtol=0, err_msg=name)


def test_every_recomputation_belongs_to_a_notebook() -> None:
    """A ``pinned_<prefix>`` whose assignment is gone (or misspelt) would never run."""
    functions = {name for name, _ in inspect.getmembers(independent, inspect.isfunction)
                 if name.startswith("pinned_")}
    assert functions <= {recomputation(n) for n in NOTEBOOKS}, functions

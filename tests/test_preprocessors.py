"""The kit's nbgrader preprocessors that work on a notebook alone (no kernel, no gradebook)."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest
from nbgrader.nbgraderformat import SchemaTooOldError, ValidationError
from nbgrader.preprocessors import CheckCellMetadata

from attnkit.preprocessors import FastCheckCellMetadata

MASTER = Path(__file__).resolve().parents[1] / "source" / "ps1_self_attention"


def graded_cell(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return next(cell for cell in nb.cells if "nbgrader" in cell.metadata)


@pytest.mark.parametrize("check", [CheckCellMetadata, FastCheckCellMetadata])
def test_metadata_check_agrees_with_nbgrader(check: type) -> None:
    nb = nbformat.read(MASTER / "ps1_self_attention.ipynb", as_version=4)
    check().preprocess(copy.deepcopy(nb), {})  # the master notebook is valid

    corrupt = copy.deepcopy(nb)
    graded_cell(corrupt).metadata.nbgrader["points"] = "many"
    with pytest.raises(ValidationError, match="nbgrader metadata may be corrupted"):
        check().preprocess(corrupt, {})

    old = copy.deepcopy(nb)
    graded_cell(old).metadata.nbgrader["schema_version"] = 1
    with pytest.raises(SchemaTooOldError):
        check().preprocess(old, {})

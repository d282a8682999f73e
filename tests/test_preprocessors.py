"""The kit's nbgrader preprocessors that work on a notebook alone (no kernel, no gradebook)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator, SchemaTooNewError, ValidationError
from nbgrader.preprocessors import CheckCellMetadata

from attnkit.preprocessors import CompiledCheckCellMetadata, CompiledMetadataValidator

SOURCE = Path(__file__).resolve().parents[1] / "source"
MASTERS = sorted(SOURCE.glob("*/*.ipynb"))


def outcome(validate: Callable[[], None]) -> tuple[str, str]:
    """What a validation did: ("ok", "") or the exception's type and message."""
    try:
        validate()
    except Exception as error:  # noqa: BLE001 - compared, not handled
        return type(error).__name__, str(error)
    return "ok", ""


def corruptions(cell: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """Copies of a graded cell broken in ways the schema, or nbgrader's v3 rules, reject."""
    broken = []
    for key, value in [("points", "many"), ("grade_id", 7), ("locked", "yes"),
                       ("schema_version", 4), ("schema_version", 1), ("cell_type", "raw")]:
        copied = copy.deepcopy(cell)
        copied.metadata.nbgrader[key] = value
        broken.append(copied)
    for key in ("grade", "solution"):
        copied = copy.deepcopy(cell)
        del copied.metadata.nbgrader[key]
        broken.append(copied)
    plain = copy.deepcopy(cell)  # as nbgrader re-adds a deleted cell: plain dicts inside
    plain["metadata"] = {"nbgrader": dict(plain.metadata.nbgrader)}
    broken.append(plain)
    return broken


@pytest.mark.parametrize("path", MASTERS, ids=lambda p: p.parent.name)
def test_compiled_validator_agrees_with_nbgrader_cell_by_cell(path: Path) -> None:
    cells = [c for c in nbformat.read(path, as_version=4).cells if "nbgrader" in c.metadata]
    cases = cells + [broken for cell in cells[:3] for broken in corruptions(cell)]
    results = []
    for cell in cases:
        expected = outcome(lambda c=cell: MetadataValidator().validate_cell(copy.deepcopy(c)))
        actual = outcome(lambda c=cell: CompiledMetadataValidator().validate_cell(
            copy.deepcopy(c)))
        assert actual == expected, cell.metadata
        results.append(expected[0])
    assert results[:len(cells)] == ["ok"] * len(cells)  # the masters are valid
    assert {"ValidationError", "SchemaTooNewError", "SchemaTooOldError"} <= set(results)


@pytest.mark.parametrize("check", [CheckCellMetadata, CompiledCheckCellMetadata])
def test_metadata_check_fails_a_corrupted_notebook_as_nbgrader_does(check: type) -> None:
    nb = nbformat.read(MASTERS[0], as_version=4)
    check().preprocess(copy.deepcopy(nb), {})
    graded = next(cell for cell in nb.cells if "nbgrader" in cell.metadata)
    graded.metadata.nbgrader["points"] = "many"
    with pytest.raises(ValidationError, match="nbgrader metadata may be corrupted"):
        check().preprocess(copy.deepcopy(nb), {})
    graded.metadata.nbgrader["schema_version"] = 9
    with pytest.raises(SchemaTooNewError):
        check().preprocess(nb, {})

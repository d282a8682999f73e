"""The kit's nbgrader preprocessors that work on a notebook alone (no kernel, no gradebook),
and the grading seed's salt."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator, SchemaTooNewError, ValidationError
from nbgrader.preprocessors import CheckCellMetadata, ClearHiddenTests

from attnkit.pipeline.preprocessors import (
    ClearHiddenTestsInTestCells,
    ScrubHiddenOutputs,
    course_salt,
    grading_seed,
)
from attnkit.upstream.schema import CompiledCheckCellMetadata, CompiledMetadataValidator

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


def _with_hidden_leak(path: Path) -> nbformat.NotebookNode:
    """A master as autograded: one student cell printed ``In`` (every hidden line so far)."""
    nb = nbformat.read(path, as_version=4)
    hidden = "\n".join(c.source for c in nb.cells if "BEGIN HIDDEN TESTS" in c.source)
    leak = nbformat.v4.new_code_cell("print(In)", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text=hidden),
        nbformat.v4.new_output("execute_result", data={"text/plain": repr(hidden)},
                               execution_count=1),
        nbformat.v4.new_output("error", ename="E", evalue=hidden[:80], traceback=[hidden])])
    nb.cells.append(leak)
    return nb


@pytest.mark.parametrize("path", MASTERS, ids=lambda p: p.parent.name)
def test_feedback_scrubs_hidden_lines_a_student_printed(path: Path) -> None:
    """The attack: print(In) after the tests ran. It fails with nbgrader's ClearHiddenTests
    alone, which clears cell sources but not outputs."""
    nb = _with_hidden_leak(path)
    for step in (ScrubHiddenOutputs(), ClearHiddenTestsInTestCells()):
        nb, _ = step.preprocess(nb, {})
    shown = nbformat.writes(nb)
    assert "attnkit.probe" not in shown and "HIDDEN TESTS" not in shown
    assert 'probe("' not in shown and "[hidden test]" in shown


def test_a_student_marker_without_end_keeps_the_feedback() -> None:
    """nbgrader's ClearHiddenTests raises on it, and that student gets no feedback page."""
    nb = nbformat.read(MASTERS[0], as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("### BEGIN HIDDEN TESTS\nmy notes"))
    with pytest.raises(RuntimeError, match="No end hidden tests"):
        ClearHiddenTests().preprocess(copy.deepcopy(nb), {})
    cleared, _ = ClearHiddenTestsInTestCells().preprocess(nb, {})
    assert cleared.cells[-1].source == "### BEGIN HIDDEN TESTS\nmy notes"
    assert not any("BEGIN HIDDEN TESTS" in c.source for c in cleared.cells[:-1])


def test_the_seed_salt_is_secret_made_once_and_changes_every_seed(tmp_path: Path) -> None:
    path = tmp_path / ".attnkit" / "seed-salt"
    salt = course_salt(str(path))
    assert len(salt) == 64 and course_salt(str(path)) == salt
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o077 == 0
    resources = {"nbgrader": {"assignment": "ps1_self_attention", "student": "s1",
                              "notebook": "ps1_self_attention"}}
    offline = grading_seed(resources)  # what a student can compute from the released code
    assert grading_seed(resources, salt) != offline
    assert grading_seed(resources, salt) == grading_seed(resources, course_salt(str(path)))
    assert course_salt(str(tmp_path / "other")) != salt

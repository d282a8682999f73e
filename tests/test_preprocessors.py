"""The kit's nbgrader preprocessors that work on a notebook alone (no kernel, no gradebook),
and the grading seed's salt."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest
from nbconvert.exporters import NotebookExporter
from nbconvert.preprocessors import Preprocessor
from nbgrader.nbgraderformat import SchemaTooNewError, ValidationError
from nbgrader.preprocessors import CheckCellMetadata, ClearHiddenTests

from attnkit import course
from attnkit.grading.settings import pipeline_config
from attnkit.pipeline.preprocessors import (
    ClearHiddenTestsInTestCells,
    ScrubHiddenOutputs,
    course_salt,
    grading_seed,
)

SOURCE = Path(__file__).resolve().parents[1] / "source"
MASTERS = sorted(SOURCE.glob("*/*.ipynb"))


def test_the_metadata_check_fails_a_corrupted_notebook() -> None:
    check = CheckCellMetadata
    nb = nbformat.read(MASTERS[0], as_version=4)
    check().preprocess(copy.deepcopy(nb), {})
    graded = next(cell for cell in nb.cells if "nbgrader" in cell.metadata)
    graded.metadata.nbgrader["points"] = "many"
    with pytest.raises(ValidationError, match="nbgrader metadata may be corrupted"):
        check().preprocess(copy.deepcopy(nb), {})
    graded.metadata.nbgrader["schema_version"] = 9
    with pytest.raises(SchemaTooNewError):
        check().preprocess(nb, {})


class _Corrupts(Preprocessor):
    def preprocess(self, nb, resources):
        nb.cells[0]["source"] = 42  # no longer a notebook nbformat accepts
        return nb, resources


class _Repairs(Preprocessor):
    def preprocess(self, nb, resources):
        nb.cells[0]["source"] = ""
        return nb, resources


def _exported(config, *preprocessors: Preprocessor) -> None:
    exporter = NotebookExporter(config=config)
    for preprocessor in preprocessors:
        exporter.register_preprocessor(preprocessor, enabled=True)
    exporter.from_notebook_node(nbformat.read(MASTERS[0], as_version=4))


def test_grading_checks_the_notebook_once_and_still_rejects_a_corrupted_one() -> None:
    """The kit's pipeline validates after the last preprocessor, not after each one: a
    notebook invalid only between two preprocessors passes, as it does not in nbconvert's
    default; one left invalid by the last still fails."""
    config = pipeline_config(course.load_config(SOURCE.parent), None)
    assert config.Exporter.optimistic_validation is True
    with pytest.raises(nbformat.ValidationError):  # nbconvert's default: after each one
        _exported(None, _Corrupts(), _Repairs())
    _exported(config, _Corrupts(), _Repairs())  # the kit's: once, after the last
    with pytest.raises(nbformat.ValidationError):
        _exported(config, _Corrupts())


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

"""The whole nbgrader cycle on the course, with stock nbgrader commands.

generate_assignment -> sample submissions -> autograde -> generate_feedback
-> export, then the grades the sample class must get.
"""

from __future__ import annotations

import csv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers.course import copy_course, run
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.samples import SAMPLES, write_submissions

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def whole_term(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_course(tmp_path_factory.mktemp("cycle"))
    for assignment in kit_course.assignments(root):
        run(["nbgrader", "generate_assignment", assignment, "--force"], root)
    write_submissions(root)
    # autograde adds a student it has not seen: two at once would add the same one twice
    for student in sorted({s for students in SAMPLES.values() for s in students}):
        run(["nbgrader", "db", "student", "add", student], root)

    def grade(assignment: str) -> None:
        run(["nbgrader", "autograde", assignment, "--force"], root)
        feedback = run(["nbgrader", "generate_feedback", assignment, "--force"], root)
        # the instructor's terminal: no warning about the kit's own configuration
        assert "not recognized" not in feedback.stderr, feedback.stderr[-2000:]

    with ThreadPoolExecutor(2) as pool:  # two assignments at once, one per core
        list(pool.map(grade, SAMPLES))
    run(["nbgrader", "export", "--to", str(root / "grades.csv")], root)
    return root


def cell_scores(root: Path, assignment: str, student: str) -> dict[str, tuple[float, float]]:
    with Gradebook(kit_course.db_url(root)) as gb:
        sub = gb.find_submission(assignment, student)
        return {g.name: (g.score, g.max_score) for nb in sub.notebooks for g in nb.grades}


def autograded_cells(root: Path, assignment: str) -> list[str]:
    with Gradebook(kit_course.db_url(root)) as gb:
        return [c.name for nb in gb.find_assignment(assignment).notebooks
                for c in nb.grade_cells if c.cell_type == "code"]


@pytest.mark.parametrize("assignment,student",
                         [(a, s) for a, students in SAMPLES.items() for s in students])
def test_sample_scores(whole_term: Path, assignment: str, student: str) -> None:
    sample = SAMPLES[assignment][student]
    scores = cell_scores(whole_term, assignment, student)
    for cell in autograded_cells(whole_term, assignment):
        score, points = scores[cell]
        want = 0.0 if sample.blank else sample.expect.get(cell, 1.0) * points
        assert score == pytest.approx(want), f"{student} {cell}: {score} != {want}"


def test_feedback_and_export_written(whole_term: Path) -> None:
    for assignment, students in SAMPLES.items():
        for student in students:
            pages = list((whole_term / "feedback" / student / assignment).glob("*.html"))
            assert pages, f"no feedback for {student}/{assignment}"
    rows = list(csv.DictReader((whole_term / "grades.csv").open()))
    assert {(r["assignment"], r["student_id"]) for r in rows} >= {
        (a, s) for a, students in SAMPLES.items() for s in students}


def test_config_loads_with_the_kits_preprocessors() -> None:
    """nbgrader only logs a broken config and grades without it: fail loudly here instead."""
    from helpers.course import ROOT

    from attnkit.pipeline.preprocessors import JudgeProbes, ResilientExecute

    config = kit_course.load_config(ROOT)
    pipeline = config.Autograde.autograde_preprocessors
    assert pipeline.index(ResilientExecute) < pipeline.index(JudgeProbes)
    assert config.KernelManager.transport == "ipc"
    assert config.OverwriteCells.add_missing_cells is True

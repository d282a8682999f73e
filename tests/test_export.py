"""``attnkit export``: per-question and LMS CSVs equal the gradebook, in the LMSs' formats."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import pytest
from helpers.course import run
from helpers.graded import ASSIGNMENT, BROKEN_JSON, GRADED, RENAMED, copy_graded
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit import report
from attnkit.report import export

pytestmark = pytest.mark.slow

ROSTER = [  # id, first_name, last_name, email, lms_user_id
    ("aisha", "Aisha", "Okafor", "aisha@example.edu", "1001"),
    ("chen", "Chen", "Wei", "chen@example.edu", ""),
    ("zoe", "Zoë", "van der Berg, Jr", "zoe@example.edu", "1003"),  # never submitted
]
CANVAS_HEAD = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_HEAD = ["First name", "Last name", "ID number", "Email address"]


@pytest.fixture(scope="module")
def rostered(graded_ps1: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared graded course, copied, with a roster imported by stock nbgrader."""
    root = copy_graded(graded_ps1, tmp_path_factory.mktemp("export") / "course")
    with (root / "roster.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "first_name", "last_name", "email", "lms_user_id"])
        writer.writerows(ROSTER)
    run(["nbgrader", "db", "student", "import", "roster.csv"], root)
    return root


def read(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def gradebook_grades(root: Path) -> dict[tuple[str, str], tuple[float | None, float, bool]]:
    """(student, cell) -> (auto score, max score, needs manual grade), from the gradebook."""
    with Gradebook(kit_course.db_url(root), "self-attention") as gb:
        return {(sub.student.id, g.name): (g.auto_score, g.max_score, g.needs_manual_grade)
                for sub in gb.assignment_submissions(ASSIGNMENT)
                for nb in sub.notebooks for g in nb.grades}


def gradebook_totals(root: Path) -> dict[str, float]:
    with Gradebook(kit_course.db_url(root), "self-attention") as gb:
        return {sub.student.id: max(0.0, sub.score - sub.late_submission_penalty)
                for sub in gb.assignment_submissions(ASSIGNMENT)}


def cli(root: Path, *argv: str) -> int:
    parser = argparse.ArgumentParser()
    export.add_arguments(parser)
    args = parser.parse_args(list(argv))
    args.root = root
    return export.main(args)


# ------------------------------------------------------------------ per question


def test_per_question_rows_equal_the_gradebook(rostered: Path) -> None:
    assert cli(rostered, "per-question") == 0
    rows = read(rostered / "exports" / "per_question.csv")
    assert rows[0] == export.PER_QUESTION_FIELDS
    found = {(r["student_id"], r["cell"]): r
             for r in csv.DictReader((rostered / "exports" / "per_question.csv").open())}
    grades = gradebook_grades(rostered)
    assert len(rows) - 1 == len(found) == len(grades)
    assert set(found) == set(grades)
    for (student, cell), (auto, points, pending) in grades.items():
        row = found[(student, cell)]
        assert (row["assignment"], row["notebook"]) == (ASSIGNMENT, ASSIGNMENT)
        assert float(row["max_score"]) == points
        if student in (BROKEN_JSON, RENAMED):
            assert (row["status"], row["score"]) == ("not graded", "")
        elif pending:
            assert (row["status"], row["score"], row["kind"]) == ("pending", "", "manual")
        else:
            assert row["status"] == "graded" and row["graded_by"] == "auto"
            assert float(row["score"]) == auto, (student, cell)
            assert row["kind"] == "auto"
    chen = found[("chen", "ps1_softmax")]
    assert chen["misconception"] == "no max subtraction" and "np.exp" in chen["hint"]
    assert found[("aisha", "ps1_softmax")]["misconception"] == ""
    assert "softmax over rows" in found[("dara", "ps1_softmax_cols")]["misconception"].split("; ")


# ------------------------------------------------------------------ LMS


def test_canvas_csv(rostered: Path) -> None:
    out = rostered / "canvas.csv"
    assert cli(rostered, "lms", "--format", "canvas", "--out", str(out)) == 0
    rows = read(out)
    assert rows[0] == CANVAS_HEAD + [ASSIGNMENT]
    with Gradebook(kit_course.db_url(rostered), "self-attention") as gb:
        points = gb.find_assignment(ASSIGNMENT).max_score
    assert rows[1] == ["Points Possible", "", "", "", "", report.fmt_score(points)]
    by_id = {r[2]: r for r in rows[2:]}
    assert set(by_id) == {*GRADED, BROKEN_JSON, RENAMED, "zoe"}
    totals = gradebook_totals(rostered)
    for student in GRADED:
        assert float(by_id[student][5]) == totals[student]
    assert by_id["aisha"][:5] == ["Okafor, Aisha", "1001", "aisha", "", ""]
    assert by_id["chen"][:2] == ["Wei, Chen", ""]
    assert by_id["zoe"][:2] == ["van der Berg, Jr, Zoë", "1003"]
    assert by_id["dara"][0] == "dara"  # not on the roster: no name
    assert by_id["zoe"][5] == ""  # no submission: Canvas's "no grade"
    assert by_id[BROKEN_JSON][5] == by_id[RENAMED][5] == ""  # failed to grade: never a 0


def test_canvas_assignment_ids_and_zero_policy(rostered: Path) -> None:
    rows, warnings = export.lms_table(rostered, "canvas", missing="zero",
                                      canvas_ids={ASSIGNMENT: "4242"})
    assert rows[0] == CANVAS_HEAD + [f"{ASSIGNMENT} (4242)"]
    by_id = {r[2]: r for r in rows[2:]}
    assert by_id["zoe"][5] == "0"
    assert by_id[BROKEN_JSON][5] == ""
    assert any("failed to grade" in w and BROKEN_JSON in w and RENAMED in w for w in warnings)
    assert any("written answers still to grade" in w for w in warnings)


def test_moodle_csv(rostered: Path) -> None:
    out = rostered / "moodle.csv"
    assert cli(rostered, "lms", "--format", "moodle", "--out", str(out)) == 0
    rows = read(out)
    assert rows[0] == MOODLE_HEAD + [f"Assignment: {ASSIGNMENT} (Real)"]
    by_id = {r[2]: r for r in rows[1:]}
    assert len(rows) - 1 == len(by_id) == 6
    totals = gradebook_totals(rostered)
    for student in GRADED:
        assert float(by_id[student][4]) == totals[student]
    assert by_id["aisha"][:4] == ["Aisha", "Okafor", "aisha", "aisha@example.edu"]
    assert by_id["zoe"][:4] == ["Zoë", "van der Berg, Jr", "zoe", "zoe@example.edu"]
    assert by_id["zoe"][4] == "-"  # no submission: Moodle's "no grade"
    assert by_id[BROKEN_JSON][4] == "-"
    rows, _ = export.lms_table(rostered, "moodle", missing="zero")
    assert {r[2]: r[4] for r in rows[1:]}["zoe"] == "0"


def test_default_paths_and_bad_arguments(rostered: Path) -> None:
    assert cli(rostered, "lms", "--format", "canvas") == 0
    assert (rostered / "exports" / "canvas.csv").is_file()
    with pytest.raises(SystemExit):
        cli(rostered, "lms", "--format", "blackboard")
    with pytest.raises(SystemExit):
        cli(rostered, "lms", "--format", "canvas", "--canvas-id", "ps1_self_attention")
    with pytest.raises(SystemExit, match="not in the gradebook"):
        cli(rostered, "per-question", "--assignment", "ps9_nothing")

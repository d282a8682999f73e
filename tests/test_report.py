"""``attnkit report`` on a course graded by stock nbgrader commands.

The graded course (three sample students plus two broken submissions) is made
once per test session (the ``graded_ps1`` fixture); the export tests use it too. Tests
that change a course work on a copy.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers.graded import ASSIGNMENT, BROKEN_JSON, GRADED, NOTEBOOK, RENAMED, copy_graded
from nbgrader.api import Gradebook
from PIL import Image

from attnkit import course as kit_course
from attnkit import report
from attnkit.report import cli as report_cli

pytestmark = pytest.mark.slow

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SECTIONS = ["Score distribution", "Scores per graded cell", "Pass rate per hidden check",
            "Most frequent misconceptions", "Submissions that failed to grade",
            "Manual grading progress"]

@pytest.fixture(scope="module")
def built(graded_ps1: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return report_cli.build(graded_ps1, ASSIGNMENT, tmp_path_factory.mktemp("report"))


def gradebook_view(root: Path) -> dict:
    """What the gradebook alone says: graded students' auto scores, and the manual cells."""
    with Gradebook(kit_course.db_url(root), "self-attention") as gb:
        nb = gb.find_notebook(ASSIGNMENT, ASSIGNMENT)
        answers = {c.name for c in nb.solution_cells}
        manual = {c.name for c in nb.grade_cells if c.name in answers}
        auto = {c.name: c.max_score for c in nb.grade_cells if c.name not in answers}
        scores = {}
        for sub in gb.assignment_submissions(ASSIGNMENT):
            grades = {g.name: g for snb in sub.notebooks for g in snb.grades}
            if any(grades[name].auto_score is not None for name in auto):
                scores[sub.student.id] = {name: grades[name].auto_score for name in auto}
        return {"auto": auto, "manual": manual, "scores": scores}


# ------------------------------------------------------------------ the page


def test_report_has_every_section(built: Path) -> None:
    assert built.name == "index.html" and built.is_file()
    page = built.read_text()
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in page, title
    assert "<style>" in page and 'rel="stylesheet"' not in page  # inline CSS only
    assert "<script" not in page


def test_figures_are_valid_pngs(built: Path) -> None:
    files = sorted((built.parent / "figures").glob("*.png"))
    assert [p.name for p in files] == ["cells.png", "pass_rates.png", "scores.png"]
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', built.read_text())
    assert len(embedded) == 3
    pngs = [p.read_bytes() for p in files] + [base64.b64decode(e) for e in embedded]
    for png in pngs:
        assert png.startswith(PNG_MAGIC)
        with Image.open(io.BytesIO(png)) as image:
            image.verify()
        with Image.open(io.BytesIO(png)) as image:
            assert image.format == "PNG" and image.width > 300 and image.height > 100
    assert sorted(embedded) == sorted(base64.b64encode(p.read_bytes()).decode() for p in files)


def test_pass_rates_equal_the_gradebook(graded_ps1: Path, built: Path) -> None:
    view = gradebook_view(graded_ps1)
    assert sorted(view["scores"]) == sorted(GRADED)
    rates = {r.cell.name: r for r in report.pass_rates(report.collect(graded_ps1, ASSIGNMENT))}
    assert set(rates) == set(view["auto"])
    section = built.read_text().split('id="checks"')[1].split("</section>")[0]
    for name, points in view["auto"].items():
        passed = sum(1 for s in view["scores"].values() if s[name] >= points)
        assert (rates[name].passed, rates[name].total) == (passed, len(GRADED)), name
        row = re.search(rf"<code>{name}</code></td>.*?</tr>", section).group(0)
        assert f"{passed} / {len(GRADED)}" in row and f"{100 * passed / len(GRADED):.0f}%" in row
    # the samples' expected results, independently: chen keeps half of softmax, dara none
    # of softmax_cols
    assert (rates["ps1_softmax"].passed, rates["ps1_softmax_cols"].passed) == (2, 2)
    assert rates["ps1_equivariance"].passed == 3


def test_hints_count_the_verdicts(graded_ps1: Path, built: Path) -> None:
    counted: Counter = Counter()
    for student in GRADED:
        nb = json.loads((graded_ps1 / "autograded" / student / ASSIGNMENT / NOTEBOOK).read_text())
        for cell in nb["cells"]:
            verdict = cell["metadata"].get("attnkit")
            if verdict and verdict["score"] < verdict["points"]:
                counted[(cell["metadata"]["nbgrader"]["grade_id"],
                         verdict["misconception"] or verdict["message"])] += 1
    found = report.hints(report.collect(graded_ps1, ASSIGNMENT), top=100)
    assert Counter({(h.check, h.label): h.count for h in found}) == counted
    assert ("ps1_scaled_attention", "scale D") in counted  # chen divides by D
    assert [h.count for h in found] == sorted((h.count for h in found), reverse=True)
    page = built.read_text()
    assert "scale D" in page and "softmax over rows" in page
    assert len(report.hints(report.collect(graded_ps1, ASSIGNMENT), top=2)) == 2


def test_broken_submissions_are_listed_with_their_reason(graded_ps1: Path, built: Path) -> None:
    data = report.collect(graded_ps1, ASSIGNMENT)
    problems = {p.student: p for p in data.problems}
    assert set(problems) == {BROKEN_JSON, RENAMED}
    assert problems[BROKEN_JSON].kind == report.INVALID
    assert "not valid JSON" in problems[BROKEN_JSON].detail
    assert problems[RENAMED].kind == report.MISSING
    assert f"no {NOTEBOOK}" in problems[RENAMED].detail
    assert f"found {ASSIGNMENT} (1).ipynb" in problems[RENAMED].detail
    assert data.submissions[BROKEN_JSON].status == report.FAILED
    assert data.submissions[RENAMED].status == report.FAILED
    assert [s.student for s in data.graded] == list(GRADED)
    section = built.read_text().split('id="failures"')[1].split("</section>")[0]
    for student, kind in ((BROKEN_JSON, "invalid notebook"), (RENAMED, "missing notebook")):
        row = re.search(rf"<td>{student}</td>.*?</tr>", section).group(0)
        assert kind in row


def test_crashes_timeouts_and_stale_grades_are_found(graded_ps1: Path, tmp_path: Path) -> None:
    root = copy_graded(graded_ps1, tmp_path / "course")
    path = root / "autograded" / "aisha" / ASSIGNMENT / NOTEBOOK
    nb = json.loads(path.read_text())
    solutions = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution")
                 and c["cell_type"] == "code"]
    errors = [("KernelDied", "this cell crashed the Python kernel"),
              ("CellTimeoutError", ""),
              ("KernelDied", "this cell ran past the time limit and the kernel did not respond")]
    for cell, (ename, evalue) in zip(solutions[:3], errors, strict=True):
        cell["outputs"].append({"output_type": "error", "ename": ename, "evalue": evalue,
                                "traceback": []})
    path.write_text(json.dumps(nb))
    # dara handed in again after grading; a newcomer was never autograded
    later = path.stat().st_mtime + 600
    os.utime(root / "submitted" / "dara" / ASSIGNMENT / NOTEBOOK, (later, later))
    shutil.copytree(root / "submitted" / "chen", root / "submitted" / "newcomer")
    data = report.collect(root, ASSIGNMENT)
    kinds = {(p.student, p.kind): p.detail for p in data.problems}
    crashed = solutions[0]["metadata"]["nbgrader"]["grade_id"]
    timed_out = [c["metadata"]["nbgrader"]["grade_id"] for c in solutions[1:3]]
    assert crashed in kinds[("aisha", report.CRASHED)]
    assert all(name in kinds[("aisha", report.TIMED_OUT)] for name in timed_out)
    assert not any(name in kinds[("aisha", report.CRASHED)] for name in timed_out)
    assert ("newcomer", report.NOT_AUTOGRADED) in kinds
    assert ("dara", report.OUTDATED) in kinds
    assert data.submissions["aisha"].status == report.GRADED  # still graded, with a warning
    assert data.submissions["newcomer"].status == report.WAITING
    text = report_cli.summary_text(data)
    assert "aisha: kernel died" in text and "aisha: timeout" in text


def test_manual_grading_progress(graded_ps1: Path, tmp_path: Path) -> None:
    view = gradebook_view(graded_ps1)
    (answer,) = view["manual"]
    data = report.collect(graded_ps1, ASSIGNMENT)
    (progress,) = report.manual_progress(data)
    assert (progress.cell.name, progress.graded, progress.pending) == (answer, 0, len(GRADED))
    root = copy_graded(graded_ps1, tmp_path / "course")
    with Gradebook(kit_course.db_url(root), "self-attention") as gb:
        grade = gb.find_grade(answer, ASSIGNMENT, ASSIGNMENT, "chen")
        grade.manual_score = 1.5
        grade.needs_manual_grade = False
        gb.db.commit()
    (progress,) = report.manual_progress(report.collect(root, ASSIGNMENT))
    assert (progress.graded, progress.pending, progress.mean) == (1, len(GRADED) - 1, 1.5)
    page = report_cli.build(root, ASSIGNMENT).read_text()
    assert "Written answers graded by a TA: 1 of 3" in page


def test_main_writes_default_report_and_prints_summary(graded_ps1: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    root = copy_graded(graded_ps1, tmp_path / "course")
    parser = argparse.ArgumentParser()
    report_cli.add_arguments(parser)
    args = parser.parse_args([ASSIGNMENT])
    args.root = root
    assert report_cli.main(args) == 0
    assert (root / "reports" / ASSIGNMENT / "index.html").is_file()
    out = capsys.readouterr().out
    table = kit_course.grade_table(root)[1]
    mean = sum(table[student][ASSIGNMENT][0] for student in GRADED) / len(GRADED)
    assert f"{len(GRADED)} of {len(GRADED) + 2} submissions graded, 2 failed to grade" in out
    assert f"Mean score {report.fmt_score(mean, 2)} / 11" in out
    assert re.search(r"ps1_softmax\s+67%\s+\(2/3\)", out)
    assert "Most frequent misconceptions:" in out
    assert f"{BROKEN_JSON}: invalid notebook" in out and f"{RENAMED}: missing notebook" in out
    assert "Written answers: 0 of 3 graded by a TA, 3 pending" in out


def test_unknown_assignment_is_refused(graded_ps1: Path) -> None:
    with pytest.raises(SystemExit, match="not in the gradebook"):
        report.collect(graded_ps1, "ps9_nothing")


# ------------------------------------------------------------------ without nbgrader


def synthetic(message: str) -> report.AssignmentData:
    cells = [report.Cell("nb", "q1", "auto", 2.0, "q1"),
             report.Cell("nb", "q2", "auto", 1.0, "q2"),
             report.Cell("nb", "essay", "manual", 3.0, "essay")]
    subs = {}
    wrong = {"s1": ("x", "y"), "s2": ("x", None), "s3": ("z", None), "s4": (None, None)}
    for student, (q1, q2) in wrong.items():
        sub = report.Submission(student, report.GRADED, max_score=6.0)
        for cell, name in ((cells[0], q1), (cells[1], q2)):
            score = 0.0 if name else cell.max_score
            sub.marks[cell.key] = report.Mark(score, cell.max_score, score, None, False, {
                "score": score, "points": cell.max_score, "misconception": name,
                "message": message if name else "correct"})
            sub.score += score
        sub.marks[cells[2].key] = report.Mark(None, 3.0, None, None, True)
        subs[student] = sub
    return report.AssignmentData("synthetic", "course", "db", cells, 6.0, subs, [], ["s9"])


def test_hints_rank_by_frequency_and_page_escapes_student_text(tmp_path: Path) -> None:
    data = synthetic("your code raised <script>alert(1)</script>")
    found = report.hints(data, top=2)
    assert [(h.check, h.label, h.count) for h in found] == [("q1", "x", 2), ("q1", "z", 1)]
    assert found[0].students == ["s1", "s2"]
    page = report_cli.write(data, tmp_path / "out").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert [r.rate for r in report.pass_rates(data)] == [0.25, 0.75]

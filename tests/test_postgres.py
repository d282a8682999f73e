"""``attnkit autograde`` into a real PostgreSQL gradebook, several workers writing at once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.postgres import (
    ASSIGNMENT,
    KERNEL,
    grade_rows,
    make_submissions,
    new_course,
    scores,
    sqlite_url,
    stock_autograde,
)

from attnkit.grading import grader

pytest_plugins = ["helpers.postgres"]
pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def test_every_grade_reaches_postgres_once(course_template: Path, tmp_path: Path,
                                           postgres: str, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    stock = new_course(course_template, tmp_path / "stock")
    students = make_submissions(stock, 12)
    kit = tmp_path / "kit"
    shutil.copytree(stock, kit)
    (kit / "gradebook.db").unlink()  # the kit grades into the empty PostgreSQL database
    monkeypatch.setenv("ATTNKIT_DB_URL", postgres)

    summary = grader.autograde(kit, ASSIGNMENT, workers=4, progress=False, kernel=KERNEL)
    assert sorted(summary.graded) == students
    assert summary.failed == [] and summary.skipped == []

    result = stock_autograde(stock)  # serial, into SQLite
    assert result.returncode == 0, result.stderr[-3000:]
    expected = scores(sqlite_url(stock))
    cells = {cell for _, cell in expected}
    assert len(cells) == 7
    assert grade_rows(postgres) == {(s, c): 1 for s in students for c in cells}
    assert scores(postgres) == expected

    again = grader.autograde(kit, ASSIGNMENT, workers=2, force=True, students=students[:3],
                             progress=False, kernel=KERNEL)  # regrading updates the rows
    assert sorted(again.graded) == students[:3] and again.failed == []
    assert grade_rows(postgres) == {(s, c): 1 for s in students for c in cells}
    assert scores(postgres) == expected

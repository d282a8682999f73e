"""``shared_engine``: nbgrader's gradebooks on one engine per graded submission."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.postgres import (
    ASSIGNMENT,
    COURSE_ID,
    KERNEL,
    make_submissions,
    new_course,
    scores,
    sqlite_url,
)
from nbgrader.api import Course, Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from sqlalchemy import event
from sqlalchemy.pool import Pool

from attnkit.course import load_config
from attnkit.upstream.gradebook import shared_engine

pytest_plugins = ["helpers.postgres"]

NBGRADER_OPEN, NBGRADER_CLOSE = Gradebook.__init__, Gradebook.close


@pytest.fixture(autouse=True)
def _venv_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new gradebook runs ``alembic`` from PATH; and tests use their own SQLite files."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("ATTNKIT_DB_URL", raising=False)


@pytest.fixture
def connections() -> Iterator[list[object]]:
    """Every new database connection any engine opens while the test runs."""
    opened: list[object] = []

    def count(dbapi_connection: object, record: object) -> None:
        opened.append(dbapi_connection)

    event.listen(Pool, "connect", count)
    yield opened
    event.remove(Pool, "connect", count)


def test_one_engine_per_url_inside_the_block(tmp_path: Path,
                                             connections: list[object]) -> None:
    first, second = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    with shared_engine() as engines:
        one = Gradebook(first, COURSE_ID)
        one.add_student("ada")
        one.close()
        two = Gradebook(first, COURSE_ID)  # a fresh session on the same engine
        assert two.engine is one.engine
        assert two.find_student("ada").id == "ada"  # sees what the first committed
        two.close()
        other = Gradebook(second, COURSE_ID)
        assert other.engine is not one.engine
        with pytest.raises(MissingEntry):
            other.find_student("ada")
        other.close()
        assert engines[first] is one.engine and engines[second] is other.engine
        assert len(connections) == 2  # one per database, however many gradebooks
    assert Gradebook.__init__ is NBGRADER_OPEN and Gradebook.close is NBGRADER_CLOSE
    assert engines[first].pool.checkedin() == engines[second].pool.checkedin() == 0  # closed
    with Gradebook(first, COURSE_ID) as after:
        assert after.engine not in engines.values()
        assert after.find_student("ada").id == "ada"
    with shared_engine():  # the next submission: the same engine, a new connection
        again = Gradebook(first, COURSE_ID)
        assert again.engine is one.engine
        assert again.find_student("ada").id == "ada"
        again.close()
    assert len(connections) == 4  # the two above, nbgrader's own, this block's


def test_restores_nbgrader_after_an_error_and_refuses_nesting(tmp_path: Path) -> None:
    with pytest.raises(ZeroDivisionError), shared_engine():
        with pytest.raises(RuntimeError, match="already active"), shared_engine():
            pass
        Gradebook(f"sqlite:///{tmp_path / 'a.db'}", COURSE_ID).close()
        1 / 0  # noqa: B018 - a failing submission
    assert Gradebook.__init__ is NBGRADER_OPEN and Gradebook.close is NBGRADER_CLOSE


def autograde_one(template: Path, dest: Path, share: bool,
                  connections: list[object]) -> tuple[dict, int]:
    """nbgrader's own autograde of one complete ps1 submission: its grades, and how many
    database connections grading it opened."""
    course = new_course(template, dest)
    [student] = make_submissions(course, 1)
    config = load_config(course)
    config.Execute.kernel_name = KERNEL
    api = NbGraderAPI(config=config)
    connections.clear()
    with shared_engine() if share else contextlib.nullcontext():
        result = api.autograde(ASSIGNMENT, student, force=True)
    opened = len(connections)
    assert result["success"], result.get("log")
    return scores(sqlite_url(course)), opened


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning",  # nbgrader's own, both ways
                            "ignore::nbformat.validator.MissingIDFieldWarning")
def test_nbgrader_autograde_opens_one_connection_and_grades_the_same(
        course_template: Path, tmp_path: Path, connections: list[object]) -> None:
    expected, by_nbgrader = autograde_one(course_template, tmp_path / "nbgrader", False,
                                          connections)
    grades, shared = autograde_one(course_template, tmp_path / "shared", True, connections)
    assert grades == expected
    assert shared == 1
    assert by_nbgrader >= 5, by_nbgrader  # a connection for each gradebook nbgrader opens
    assert len(expected) == 7  # six tests and the written answer, for ps1
    assert sum(score or 0 for score in expected.values()) == 9  # the complete notebook


def test_a_course_row_is_checked_once_per_process(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    statements: list[str] = []
    with shared_engine() as engines:
        Gradebook(url, COURSE_ID).close()  # opened as nbgrader opens it: the course is checked
        event.listen(engines[url], "before_cursor_execute",
                     lambda conn, cursor, sql, *args: statements.append(sql))
        Gradebook(url, COURSE_ID).close()
        assert not [sql for sql in statements if "FROM course" in sql]
        other = Gradebook(url, "another_course")  # a course not seen yet is still checked
        assert other.db.get(Course, "another_course") is not None
        other.close()
        assert [sql for sql in statements if "FROM course" in sql]
    with shared_engine():  # nor in a later submission
        statements.clear()
        Gradebook(url, COURSE_ID).close()
        assert not [sql for sql in statements if "FROM course" in sql]

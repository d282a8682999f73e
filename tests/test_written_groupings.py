"""A question's grouping lives in the gradebook's database, on SQLite and on a real
PostgreSQL server: another server process, or the same one after a restart, shows the same
groups and the same moves without grouping the class again, and only new answers make a new
grouping."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from helpers.written import load
from helpers.written_store import QUESTION, scratch_gradebook
from nbgrader.api import SubmittedAssignment

from attnkit.written import groupings, groups, page, store

# the real PostgreSQL server (postgres) and a fresh gradebook in either (gradebook_url)
pytest_plugins = ["helpers.postgres", "helpers.gradebooks"]
Q = QUESTION
REPO = Path(__file__).resolve().parents[1]
CLASS = 40


@pytest.fixture
def course(tmp_path: Path, gradebook_url: str) -> tuple[Path, str, str]:
    """(course root, database URL, assignment): 40 students' labelled answers handed in."""
    url = gradebook_url
    assignment = f"ps1_{uuid.uuid4().hex[:8]}"
    students = scratch_gradebook(url, CLASS, assignment)
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(f"c.CourseDirectory.db_url = {url!r}\n")
    texts = [row["answer"] for row in load(Q, "tune")[:CLASS]]
    for student, text in zip(students, texts, strict=True):
        hand_in(root, assignment, student, text)
    restart()
    return root, url, assignment


def hand_in(root: Path, assignment: str, student: str, text: str) -> None:
    """The student's autograded notebook, their answer in the question's cell."""
    path = root / "autograded" / student / assignment / f"{assignment}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    cell = {"cell_type": "markdown", "source": text, "id": "answer",
            "metadata": {"nbgrader": {"grade_id": Q, "solution": True, "grade": True}}}
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))


def restart() -> None:
    """What a new server process starts with: nothing kept."""
    groupings._BASES.clear()
    groupings._TEXTS.clear()
    groupings._grouping.cache_clear()


def shown(root: Path, assignment: str) -> list[tuple[str, list[str]]]:
    return [(g.key, g.students) for g in page.arrange(root, assignment, Q)]


def never_group(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the class was grouped again")

    monkeypatch.setattr(groups, "group_answers", refuse)


def version(url: str, assignment: str) -> int:
    with store.engine(url).connect() as conn:
        return conn.execute(sa.select(store.GROUPINGS.c.version).where(
            store.GROUPINGS.c.assignment == assignment)).scalar_one()


def test_a_restart_shows_the_same_groups_and_moves(course: tuple[Path, str, str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root, url, a = course
    first = shown(root, a)
    assert len(first) > 1 and sum(len(s) for _, s in first) == CLASS
    (_, members), (other, _) = first[0], first[1]
    page.move(root, a, Q, members[-1], other, "ann")  # into another group
    page.move(root, a, Q, members[0], "a-", "bob")  # out, to grade alone
    moved = shown(root, a)
    with store.engine(url).connect() as conn:
        rows = conn.execute(sa.select(sa.func.count()).select_from(store.GROUPED).where(
            store.GROUPED.c.assignment == a)).scalar_one()
    assert rows == CLASS and version(url, a) == 1
    restart()
    never_group(monkeypatch)
    assert shown(root, a) == moved
    assert ("a-" + members[0], [members[0]]) in moved
    assert members[-1] in dict(moved)[other]
    assert page.next_group(root, a, Q, "carol") == moved[0][0]


def test_another_server_process_reads_the_same_groups(course: tuple[Path, str, str]) -> None:
    root, url, a = course
    first = shown(root, a)
    page.move(root, a, Q, first[0][1][0], "a-", "ann")
    script = ("import json, sys; from pathlib import Path; from attnkit.written import page, "
              "groups\ngroups.group_answers = None  # grouping again would fail\n"
              f"print(json.dumps([(g.key, g.students) for g in page.arrange(Path(sys.argv[1]), "
              f"{a!r}, {Q!r})]))")
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    result = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True,
                            text=True, env=env, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    assert [tuple(g) for g in json.loads(result.stdout)] == shown(root, a)


def test_only_changed_answers_group_the_class_again(course: tuple[Path, str, str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root, url, a = course
    first = shown(root, a)
    stamp = page.stamp(root, a, Q)
    student = first[0][1][0]
    path = root / "autograded" / student / a / f"{a}.ipynb"
    path.write_text(path.read_text())  # re-autograded, the same answer
    handed_in_again(url, a, student)
    with monkeypatch.context() as patched:
        never_group(patched)
        restart()
        assert shown(root, a) == first and version(url, a) == 1
    hand_in(root, a, student, "Totally new: the positions move with the tokens, yes.")
    handed_in_again(url, a, student)
    again = shown(root, a)
    assert version(url, a) == 2 and page.stamp(root, a, Q) != stamp
    assert sorted(s for _, m in again for s in m) == sorted(s for _, m in first for s in m)


def handed_in_again(url: str, assignment: str, student: str) -> None:
    sub = SubmittedAssignment.__table__
    with store.engine(url).begin() as conn:
        conn.execute(sa.update(sub).where(sub.c.student_id == student).values(
            timestamp=store.now()))


def test_two_processes_grouping_at_once_keep_one_version(course: tuple[Path, str, str]
                                                         ) -> None:
    """The second to write the grouping of the same answers takes the first's version."""
    root, url, a = course
    with store.engine(url).connect() as conn:
        marks = store.marks(conn, a, Q)
    found = groupings.texts(root, a, Q, marks)
    found = {s: found[s] for s in sorted(found)}
    rows = groupings._rows(a, Q, found)
    made = groupings.digest(found)
    assert groupings._make(url, a, Q, rows, "x", made) == (1, True)
    assert groupings._make(url, a, Q, rows, "x", made) == (1, False)
    assert groupings._make(url, a, Q, rows[1:], "y", "other") == (2, True)

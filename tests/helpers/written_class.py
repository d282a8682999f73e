"""A large class for the grade-by-question page, entered without grading anything: ps1's
autograded notebooks are copies of the released one with each student's written answer in
its cell, and their gradebook rows are written in bulk as ``Gradebook.add_submission`` writes
them (every test passed, the written question awaiting a TA). What
``benchmarks/written_page.py`` (1,000 students) and ``tests/test_hub_written.py`` (300)
grade; nbgrader's formgrader shows the same submissions.

The course must have ps1 generated (``nbgrader generate_assignment``): its assignment,
notebook and cells are in the gradebook."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import sqlalchemy as sa
from nbgrader.api import (
    Comment,
    Grade,
    Gradebook,
    Student,
    SubmittedAssignment,
    SubmittedNotebook,
)

from attnkit.course import db_url
from helpers.written import load, resample
from helpers.written_store import ASSIGNMENT, QUESTION, gradebook_state


def labelled_answers(count: int, prefix: str = "s") -> tuple[dict[str, str], dict[str, int]]:
    """``count`` students' answers to ps1's written question, drawn from the labelled
    synthetic class (both halves, lightly edited: ``helpers.written.resample``), and the
    points their authors gave each; student ids ``s0000``, ``s0001``, ..."""
    texts, points = resample(load(QUESTION), count)
    students = [f"{prefix}{i:04d}" for i in range(count)]
    return dict(zip(students, texts, strict=True)), dict(zip(students, points, strict=True))


def enter_class(root: Path, written: dict[str, str], assignment: str = ASSIGNMENT,
                question: str = QUESTION) -> list[Path]:
    """Each of ``written``'s students handed in ``assignment``, autograded with every test
    passed and their answer to ``question`` awaiting a TA; returns the notebooks written."""
    released = root / "release" / assignment
    notebooks = {p.stem: json.loads(p.read_text()) for p in released.glob("*.ipynb")}
    paths = []
    for student, text in written.items():
        for name, nb in notebooks.items():
            for cell in nb["cells"]:
                if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == question:
                    cell["source"] = text
            path = root / "autograded" / student / assignment / f"{name}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(nb))
            paths.append(path)
    with Gradebook(db_url(root)) as gb:
        record = gb.find_assignment(assignment)
        cells = {nb.name: (nb.id, [(c.id, c.name, c.max_score, c.cell_type == "code")
                                   for c in nb.grade_cells],
                           [c.id for c in nb.solution_cells]) for nb in record.notebooks}
        known = {s.id for s in gb.students}
        engine = gb.db.get_bind()
        assignment_id = record.id
    subs = {s: uuid.uuid4().hex for s in written}
    notebook_rows, grades, comments = [], [], []
    for sub in subs.values():
        for notebook_id, graded, solutions in cells.values():
            row = uuid.uuid4().hex
            notebook_rows.append({"id": row, "notebook_id": notebook_id, "assignment_id": sub,
                                  "flagged": False})
            grades += [{"id": uuid.uuid4().hex, "notebook_id": row, "cell_id": cell,
                        "auto_score": max_score if code and name != question else None,
                        "needs_manual_grade": not code or name == question}
                       for cell, name, max_score, code in graded]
            comments += [{"id": uuid.uuid4().hex, "notebook_id": row, "cell_id": cell}
                         for cell in solutions]
    with engine.begin() as conn:
        new = [{"id": s} for s in written if s not in known]
        if new:
            conn.execute(sa.insert(Student.__table__), new)
        conn.execute(sa.insert(SubmittedAssignment.__table__), [
            {"id": sub, "assignment_id": assignment_id, "student_id": s}
            for s, sub in subs.items()])
        conn.execute(sa.insert(SubmittedNotebook.__table__), notebook_rows)
        conn.execute(sa.insert(Grade.__table__), grades)
        conn.execute(sa.insert(Comment.__table__), comments)
    engine.dispose()
    return paths


def scores(root: Path, assignment: str = ASSIGNMENT, question: str = QUESTION
           ) -> dict[str, tuple[float | None, str | None, bool]]:
    """Student -> (manual score, manual comment, needs a manual grade) of ``question``, read
    with nbgrader's API."""
    return gradebook_state(db_url(root), assignment, question)

"""Scratch gradebooks of written answers, made with nbgrader's own API: an assignment with one
notebook and ps1's written question, every student's answer awaiting a TA. What the rubric,
claim and concurrency tests and ``benchmarks/rubric_rescore.py`` grade."""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from nbgrader.api import (
    Comment,
    Grade,
    Gradebook,
    Student,
    SubmittedAssignment,
    SubmittedNotebook,
)

ASSIGNMENT = "ps1_self_attention"
QUESTION = "ps1_positional_answer"
POINTS = 2.0


def scratch_gradebook(db_url: str, count: int, assignment: str = ASSIGNMENT) -> list[str]:
    """``count`` students with a submission of ``assignment`` each, no score yet; returns
    their ids. The assignment and its cells through nbgrader's API (its first opening of a
    database takes seconds: copy an opened one), the students' rows in bulk, as
    ``Gradebook.add_submission`` writes them."""
    students = [f"s{i:04d}" for i in range(count)]
    with Gradebook(db_url) as gb:
        record = gb.add_assignment(assignment)
        notebook = gb.add_notebook(assignment, assignment)
        graded = gb.add_grade_cell(QUESTION, assignment, assignment, max_score=POINTS,
                                   cell_type="markdown")
        solution = gb.add_solution_cell(QUESTION, assignment, assignment)
        ids = record.id, notebook.id, graded.id, solution.id
        known = {s.id for s in gb.students}
        engine = gb.db.get_bind()
    subs = {s: (uuid.uuid4().hex, uuid.uuid4().hex) for s in students}
    with engine.begin() as conn:
        new = [{"id": s} for s in students if s not in known]
        if new:
            conn.execute(sa.insert(Student.__table__), new)
        conn.execute(sa.insert(SubmittedAssignment.__table__), [
            {"id": a, "assignment_id": ids[0], "student_id": s} for s, (a, _) in subs.items()])
        conn.execute(sa.insert(SubmittedNotebook.__table__), [
            {"id": n, "notebook_id": ids[1], "assignment_id": a, "flagged": False}
            for a, n in subs.values()])
        conn.execute(sa.insert(Grade.__table__), [
            {"id": uuid.uuid4().hex, "notebook_id": n, "cell_id": ids[2],
             "needs_manual_grade": True} for _, n in subs.values()])
        conn.execute(sa.insert(Comment.__table__), [
            {"id": uuid.uuid4().hex, "notebook_id": n, "cell_id": ids[3]}
            for _, n in subs.values()])
    return students


def gradebook_state(db_url: str, assignment: str = ASSIGNMENT, question: str = QUESTION
                    ) -> dict[str, tuple[float | None, str | None, bool]]:
    """Student -> (manual score, manual comment, needs a manual grade), read by nbgrader."""
    with Gradebook(db_url) as gb:
        found = {}
        for sub in gb.find_assignment(assignment).submissions:
            nb = sub.notebooks[0]
            grade = gb.find_grade(question, nb.name, assignment, sub.student.id)
            comment = gb.find_comment(question, nb.name, assignment, sub.student.id)
            found[sub.student.id] = (grade.manual_score, comment.manual_comment,
                                     grade.needs_manual_grade)
        return found


def set_by_hand(db_url: str, student: str, score: float | None, comment: str | None = None,
                assignment: str = ASSIGNMENT) -> None:
    """What formgrader's score and comment boxes do (its API handlers, line for line)."""
    with Gradebook(db_url) as gb:
        grade = gb.find_grade(QUESTION, assignment, assignment, student)
        grade.manual_score = score
        grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
        if comment is not None:
            gb.find_comment(QUESTION, assignment, assignment, student).manual_comment = comment
        gb.db.commit()


def dump(db_url: str) -> dict[str, list[tuple]]:
    """Every row of every table, sorted: to show that something changed nothing."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            meta = sa.MetaData()
            meta.reflect(conn)
            return {name: sorted((tuple(map(repr, row)) for row in conn.execute(
                sa.select(table))), key=repr) for name, table in meta.tables.items()}
    finally:
        engine.dispose()

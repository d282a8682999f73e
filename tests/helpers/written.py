"""A scratch gradebook of written answers, made with nbgrader's own API: one assignment, one
notebook, ps1's written question, every student's answer awaiting a TA. What the rubric,
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
NOTEBOOK = "ps1_self_attention"
QUESTION = "ps1_positional_answer"
POINTS = 2.0


def scratch_gradebook(db_url: str, count: int) -> list[str]:
    """``count`` students with a submission each (no score yet); returns their ids.

    The assignment and its cells through nbgrader's API; the students' rows in bulk, as
    ``Gradebook.add_submission`` would write them (it takes seconds per hundred).
    """
    students = [f"s{i:04d}" for i in range(count)]
    with Gradebook(db_url) as gb:
        assignment = gb.add_assignment(ASSIGNMENT)
        notebook = gb.add_notebook(NOTEBOOK, ASSIGNMENT)
        graded = gb.add_grade_cell(QUESTION, NOTEBOOK, ASSIGNMENT, max_score=POINTS,
                                   cell_type="markdown")
        solution = gb.add_solution_cell(QUESTION, NOTEBOOK, ASSIGNMENT)
        ids = assignment.id, notebook.id, graded.id, solution.id
        engine = gb.db.get_bind()
    subs = {s: (uuid.uuid4().hex, uuid.uuid4().hex) for s in students}
    with engine.begin() as conn:
        conn.execute(sa.insert(Student.__table__), [{"id": s} for s in students])
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


def manual_scores(db_url: str) -> dict[str, float | None]:
    """Student -> nbgrader's manual score on the question."""
    with Gradebook(db_url) as gb:
        return {g.student.id: g.manual_score for g in gb.db.query(Grade)
                if g.name == QUESTION and g.assignment.name == ASSIGNMENT}


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

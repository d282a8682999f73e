"""The kit's tables for written answers, beside nbgrader's in the gradebook's database
(SQLite or PostgreSQL), and the statements that read and write both in one transaction.

* ``attnkit_rubric_item``: the rubric items of each (assignment, grade id);
* ``attnkit_written_answer``: per answer the kit has written, its revision (what a write
  must have seen), the TA's note and who graded it last, and when;
* ``attnkit_rubric_applied``: which items each answer has;
* ``attnkit_claim``: who is grading which group of answers, until when (``claims``);
* ``attnkit_answer_group``: answers a TA moved out of the group the grouping gave them,
  and the group they are in now (``page``);
* ``attnkit_grouping`` and ``attnkit_grouped_answer``: each question's grouping, its version
  and what it grouped, and every answer's group (``groupings``): every server process, and the
  next one after a restart, shows the same groups.

The score and the comment a student gets stay nbgrader's own (``Grade.manual_score``,
``Comment.manual_comment``), so its feedback and exports need nothing of the kit. Every
change of a TA's score is recorded in the regrade audit's table, with who made it.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from nbgrader.api import (
    Assignment,
    BaseCell,
    Comment,
    Grade,
    GradeCell,
    Notebook,
    SubmittedAssignment,
    SubmittedNotebook,
)
from sqlalchemy.dialects import postgresql

from attnkit.pipeline import audit
from attnkit.written.model import Item, Mark, Outcome, same

METADATA = sa.MetaData()
ITEMS = sa.Table(
    "attnkit_rubric_item", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("assignment", sa.String(128), nullable=False),
    sa.Column("grade_id", sa.String(128), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("points", sa.Float, nullable=False),
    sa.Column("comment", sa.Text),
    sa.Column("changed_by", sa.String(128)),
    sa.Column("changed_at", sa.DateTime),
    sa.UniqueConstraint("assignment", "grade_id", "position",
                        name="attnkit_rubric_item_position"),
)
ANSWERS = sa.Table(
    "attnkit_written_answer", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("assignment", sa.String(128), nullable=False),
    sa.Column("notebook", sa.String(128), nullable=False),
    sa.Column("student", sa.String(128), nullable=False),
    sa.Column("grade_id", sa.String(128), nullable=False),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("note", sa.Text),
    sa.Column("graded_by", sa.String(128)),  # the TA who last graded it
    sa.Column("graded_at", sa.DateTime),
    sa.Column("changed_by", sa.String(128)),  # the last to change it: a TA, or an item's edit
    sa.Column("changed_at", sa.DateTime),
    sa.UniqueConstraint("assignment", "notebook", "student", "grade_id",
                        name="attnkit_written_answer_key"),
)
APPLIED = sa.Table(
    "attnkit_rubric_applied", METADATA,
    sa.Column("answer_id", sa.Integer, sa.ForeignKey(ANSWERS.c.id), primary_key=True),
    sa.Column("item_id", sa.Integer, sa.ForeignKey(ITEMS.c.id), primary_key=True),
    sa.Index("attnkit_rubric_applied_item", "item_id"),
)
CLAIMS = sa.Table(
    "attnkit_claim", METADATA,
    sa.Column("assignment", sa.String(128), primary_key=True),
    sa.Column("grade_id", sa.String(128), primary_key=True),
    sa.Column("group_key", sa.String(256), primary_key=True),
    sa.Column("ta", sa.String(128), nullable=False),
    sa.Column("claimed_at", sa.DateTime, nullable=False),
    sa.Column("expires_at", sa.DateTime, nullable=False),
)

MOVES = sa.Table(
    "attnkit_answer_group", METADATA,
    sa.Column("assignment", sa.String(128), primary_key=True),
    sa.Column("grade_id", sa.String(128), primary_key=True),
    sa.Column("student", sa.String(128), primary_key=True),
    sa.Column("group_key", sa.String(256), nullable=False),
    sa.Column("moved_by", sa.String(128)),
    sa.Column("moved_at", sa.DateTime),
)

GROUPINGS = sa.Table(
    "attnkit_grouping", METADATA,
    sa.Column("assignment", sa.String(128), primary_key=True),
    sa.Column("grade_id", sa.String(128), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),  # one more each time it is made again
    sa.Column("handed_in", sa.String(512), nullable=False),  # the submissions it was checked on
    sa.Column("digest", sa.String(64), nullable=False),  # of the answers' texts it grouped
    sa.Column("made_at", sa.DateTime),
)
GROUPED = sa.Table(
    "attnkit_grouped_answer", METADATA,
    sa.Column("assignment", sa.String(128), primary_key=True),
    sa.Column("grade_id", sa.String(128), primary_key=True),
    sa.Column("student", sa.String(128), primary_key=True),
    sa.Column("group_key", sa.String(256), nullable=False),
    sa.Column("rank", sa.Integer, nullable=False),  # the group's place, largest first
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Column("blank", sa.Boolean, nullable=False),
)

now = audit.now  # UTC, naive, as the audit stores it


@functools.cache
def engine(db_url: str) -> sa.Engine:
    """One engine per database, once the kit's tables (and the audit's) exist in it."""
    bind = audit.with_table(sa.create_engine(db_url))
    try:
        METADATA.create_all(bind, checkfirst=True)
    except sa.exc.DBAPIError:  # two processes created them at the same moment
        if not all(sa.inspect(bind).has_table(t) for t in METADATA.tables):
            raise
    return bind


def in_use(db_url: str) -> bool:
    """Whether the kit's tables are in the database, asked without creating them (a report
    only reads the gradebook)."""
    probe = sa.create_engine(db_url)
    try:
        return sa.inspect(probe).has_table(ITEMS.name)
    finally:
        probe.dispose()


def lock(conn: sa.Connection, table: sa.Table) -> None:
    """Serialise the kit's writers for the rest of the transaction, so that what a write
    checks is still true when it writes: PostgreSQL locks ``table`` against other writers
    (readers go on); on SQLite a write statement takes the database's write lock."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"LOCK TABLE {table.name} IN EXCLUSIVE MODE")
    else:
        first = next(iter(table.columns))
        conn.execute(sa.update(table).where(sa.false()).values({first: first}))


# ------------------------------------------------------------------ reading


def items(conn: sa.Connection, assignment: str, grade_id: str) -> list[Item]:
    """The question's rubric items, by position."""
    rows = conn.execute(sa.select(ITEMS).where(
        ITEMS.c.assignment == assignment, ITEMS.c.grade_id == grade_id)
        .order_by(ITEMS.c.position))
    return [to_item(r) for r in rows]


def to_item(row: sa.Row) -> Item:
    return Item(row.id, row.assignment, row.grade_id, row.position, row.text, row.points,
                row.comment)


def marks(conn: sa.Connection, assignment: str, grade_id: str,
          students: Iterable[str] | None = None) -> dict[str, Mark]:
    """Every submitted answer to the question: student -> Mark, in one query (an answer's
    row once per rubric item it has, joined to the item)."""
    rows: dict[str, list[sa.Row]] = {}
    given = {"a_": assignment, "q_": grade_id} | (
        {} if students is None else {"s_": list(students)})
    for r in conn.execute(_marks_query(students is not None), given):
        rows.setdefault(r.student_id, []).append(r)
    found = {}
    for student, mine in rows.items():
        r = mine[0]
        applied = sorted((Item(i.item_id, assignment, grade_id, i.position, i.text, i.points,
                               i.item_comment) for i in mine if i.item_id is not None),
                         key=lambda i: i.position)
        found[student] = Mark(
            student, r.notebook, float(r.max_score or 0), r.auto_score, r.manual_score,
            bool(r.needs_manual_grade), r.auto_comment, r.manual_comment, tuple(applied),
            r.note, r.revision or 0, r.graded_by, r.graded_at, r.changed_by, r.changed_at,
            r.grade_row, r.comment_row, r.answer_id)
    return found


@functools.cache
def _marks_query(by_student: bool) -> sa.Select:
    """``marks``' statement, built once (its values are bound: ``a_``, ``q_``, ``s_``):
    building it costs more than running it for a group."""
    grade, comment, cell = Grade.__table__, Comment.__table__, BaseCell.__table__.alias("cell")
    scell = BaseCell.__table__.alias("solution_cell")
    cells, nb, snb = GradeCell.__table__, Notebook.__table__, SubmittedNotebook.__table__
    sub, asg = SubmittedAssignment.__table__, Assignment.__table__
    query = (
        sa.select(sub.c.student_id, nb.c.name.label("notebook"), grade.c.id.label("grade_row"),
                  grade.c.auto_score, grade.c.manual_score, grade.c.needs_manual_grade,
                  cells.c.max_score, comment.c.id.label("comment_row"), comment.c.auto_comment,
                  comment.c.manual_comment, ANSWERS.c.id.label("answer_id"), ANSWERS.c.revision,
                  ANSWERS.c.note, ANSWERS.c.graded_by, ANSWERS.c.graded_at,
                  ANSWERS.c.changed_by, ANSWERS.c.changed_at, ITEMS.c.id.label("item_id"),
                  ITEMS.c.position, ITEMS.c.text, ITEMS.c.points,
                  ITEMS.c.comment.label("item_comment"))
        .select_from(
            grade.join(cell, grade.c.cell_id == cell.c.id).join(cells, cells.c.id == cell.c.id)
            .join(snb, grade.c.notebook_id == snb.c.id).join(nb, snb.c.notebook_id == nb.c.id)
            .join(sub, snb.c.assignment_id == sub.c.id).join(asg, sub.c.assignment_id == asg.c.id)
            .outerjoin(scell, sa.and_(scell.c.notebook_id == cell.c.notebook_id,
                                      scell.c.name == cell.c.name,
                                      scell.c.type == "SolutionCell"))
            .outerjoin(comment, sa.and_(comment.c.cell_id == scell.c.id,
                                        comment.c.notebook_id == snb.c.id))
            .outerjoin(ANSWERS, sa.and_(ANSWERS.c.assignment == asg.c.name,
                                        ANSWERS.c.notebook == nb.c.name,
                                        ANSWERS.c.student == sub.c.student_id,
                                        ANSWERS.c.grade_id == cell.c.name))
            .outerjoin(APPLIED, APPLIED.c.answer_id == ANSWERS.c.id)
            .outerjoin(ITEMS, ITEMS.c.id == APPLIED.c.item_id))
        .where(asg.c.name == sa.bindparam("a_"), cell.c.name == sa.bindparam("q_")))
    if by_student:
        query = query.where(sub.c.student_id.in_(sa.bindparam("s_", expanding=True)))
    return query


def tally(conn: sa.Connection, assignment: str, grade_id: str
          ) -> list[tuple[str | None, bool, bool, int]]:
    """``marks`` counted in the database: (who last graded it through the kit, whether
    nbgrader has a manual score, whether it awaits a TA, how many answers), for the
    question's progress, asked on every step of a TA's."""
    rows = conn.execute(_tally_query(), {"a_": assignment, "q_": grade_id})
    return [(by, bool(has), bool(needs), n) for by, has, needs, n in rows]


@functools.cache
def _tally_query() -> sa.Select:
    grade, cell, cells = Grade.__table__, BaseCell.__table__, GradeCell.__table__
    nb, snb = Notebook.__table__, SubmittedNotebook.__table__
    sub, asg = SubmittedAssignment.__table__, Assignment.__table__
    scored = grade.c.manual_score.is_not(None)
    return (
        sa.select(ANSWERS.c.graded_by, scored, grade.c.needs_manual_grade, sa.func.count())
        .select_from(
            grade.join(cell, grade.c.cell_id == cell.c.id).join(cells, cells.c.id == cell.c.id)
            .join(snb, grade.c.notebook_id == snb.c.id).join(nb, snb.c.notebook_id == nb.c.id)
            .join(sub, snb.c.assignment_id == sub.c.id).join(asg, sub.c.assignment_id == asg.c.id)
            .outerjoin(ANSWERS, sa.and_(ANSWERS.c.assignment == asg.c.name,
                                        ANSWERS.c.notebook == nb.c.name,
                                        ANSWERS.c.student == sub.c.student_id,
                                        ANSWERS.c.grade_id == cell.c.name)))
        .where(asg.c.name == sa.bindparam("a_"), cell.c.name == sa.bindparam("q_"))
        .group_by(ANSWERS.c.graded_by, scored, grade.c.needs_manual_grade))


def waiting(conn: sa.Connection, assignment: str, grade_id: str,
            students: Iterable[str] | None = None) -> set[str]:
    """The students (of ``students``, default all) whose answer to the question awaits a TA:
    ``marks`` cut to one column, for "next ungraded", which asks on every step."""
    given = {"a_": assignment, "q_": grade_id} | (
        {} if students is None else {"s_": list(students)})
    return set(conn.execute(_waiting_query(students is not None), given).scalars())


@functools.cache
def _waiting_query(by_student: bool) -> sa.Select:
    grade, cell = Grade.__table__, BaseCell.__table__
    snb, sub, asg = (SubmittedNotebook.__table__, SubmittedAssignment.__table__,
                     Assignment.__table__)
    query = (
        sa.select(sub.c.student_id)
        .select_from(grade.join(cell, grade.c.cell_id == cell.c.id)
                     .join(snb, grade.c.notebook_id == snb.c.id)
                     .join(sub, snb.c.assignment_id == sub.c.id)
                     .join(asg, sub.c.assignment_id == asg.c.id))
        .where(asg.c.name == sa.bindparam("a_"), cell.c.name == sa.bindparam("q_"),
               cell.c.type == "GradeCell", grade.c.needs_manual_grade.is_(True)))
    if by_student:
        query = query.where(sub.c.student_id.in_(sa.bindparam("s_", expanding=True)))
    return query


# ------------------------------------------------------------------ writing


@dataclass(frozen=True)
class Write:
    """One answer's new state: its items, note and what nbgrader shows."""

    mark: Mark
    items: tuple[Item, ...]
    note: str | None
    outcome: Outcome

    @property
    def changes_gradebook(self) -> bool:
        return not (same(self.outcome.manual_score, self.mark.manual_score)
                    and self.outcome.manual_comment == self.mark.manual_comment)

    @property
    def changes_anything(self) -> bool:
        return (self.changes_gradebook or self.note != self.mark.note
                or {i.id for i in self.items} != {i.id for i in self.mark.items})


def write(conn: sa.Connection, assignment: str, grade_id: str, writes: Sequence[Write],
          ta: str, why: str, grading: bool = True) -> None:
    """Store ``writes`` in bulk statements: nbgrader's scores and comments, the kit's rows
    (a revision more for each), the items applied, and an audit row per changed score.
    ``grading``: ``ta`` graded these answers (not so when an item's edit re-scored them)."""
    writes = [w for w in writes if w.changes_anything]
    if not writes:
        return
    stamp = now()
    grade, comment = Grade.__table__, Comment.__table__
    scored = [w for w in writes if not same(w.outcome.manual_score, w.mark.manual_score)]
    if scored:
        update_rows(conn, grade, "id", [
            {"id": w.mark.grade_row, "manual_score": w.outcome.manual_score,
             "needs_manual_grade": w.outcome.manual_score is None and w.mark.auto_score is None}
            for w in scored])
    said = [w for w in writes if w.mark.comment_row
            and w.outcome.manual_comment != w.mark.manual_comment]
    if said:
        update_rows(conn, comment, "id", [
            {"id": w.mark.comment_row, "manual_comment": w.outcome.manual_comment}
            for w in said])
    new = [w for w in writes if w.mark.answer_id is None]
    if new:
        conn.execute(sa.insert(ANSWERS), [
            {"assignment": assignment, "notebook": w.mark.notebook, "student": w.mark.student,
             "grade_id": grade_id, "revision": 0} for w in new])
    ids = _answer_ids(conn, assignment, grade_id, [w.mark.student for w in writes])
    who = {"changed_by": ta, "changed_at": stamp}
    if grading:
        who |= {"graded_by": ta, "graded_at": stamp}
    update_rows(conn, ANSWERS, "id", [{"id": ids[w.mark.student], "note": w.note}
                                      for w in writes],
                {"revision": ANSWERS.c.revision + 1, **who})
    moved = [w for w in writes if {i.id for i in w.items} != {i.id for i in w.mark.items}]
    if moved:
        conn.execute(sa.delete(APPLIED).where(
            APPLIED.c.answer_id.in_([ids[w.mark.student] for w in moved])))
        rows = [{"answer_id": ids[w.mark.student], "item_id": i.id} for w in moved
                for i in w.items]
        if rows:
            conn.execute(sa.insert(APPLIED), rows)
    record(conn, assignment, grade_id, [w for w in writes if w.changes_gradebook], ta, why,
           stamp)


def update_rows(conn: sa.Connection, table: sa.Table, key: str, rows: Sequence[dict],
                extra: dict | None = None) -> None:
    """Each row's other fields (and ``extra``'s values) set on ``table``'s row whose ``key``
    column is the row's ``key``. On PostgreSQL one statement joined to the rows as arrays
    (``unnest``): one plan and one parameter per column, where an executemany costs a
    statement per row."""
    names = [n for n in rows[0] if n != key]
    extra = extra or {}
    if conn.dialect.name != "postgresql":
        conn.execute(sa.update(table).where(table.c[key] == sa.bindparam("key_")).values(
            {n: sa.bindparam(f"{n}_") for n in names} | extra),
            [{"key_": r[key], **{f"{n}_": r[n] for n in names}} for r in rows])
        return
    arrays = []
    for n in [key, *names]:
        kind = postgresql.ARRAY(table.c[n].type)
        arrays.append(sa.cast(sa.bindparam(f"{n}_", [r[n] for r in rows], type_=kind), kind))
    given = sa.func.unnest(*arrays).table_valued(key, *names).render_derived(name="given")
    conn.execute(sa.update(table).where(table.c[key] == given.c[key]).values(
        {n: given.c[n] for n in names} | extra))


def _answer_ids(conn: sa.Connection, assignment: str, grade_id: str,
                students: list[str]) -> dict[str, int]:
    rows = conn.execute(sa.select(ANSWERS.c.student, ANSWERS.c.id).where(
        ANSWERS.c.assignment == assignment, ANSWERS.c.grade_id == grade_id))
    wanted = set(students)
    return {student: id_ for student, id_ in rows if student in wanted}


def record(conn: sa.Connection, assignment: str, grade_id: str, writes: Sequence[Write],
           ta: str, why: str, stamp: object) -> None:
    """A regrade-audit row per answer whose score or comment changed: the old and new
    manual score, who changed it and why (the auto score is the same before and after)."""
    run = uuid.uuid4().hex[:12]
    rows = [{"run": run, "recorded_at": stamp, "assignment": assignment,
             "notebook": w.mark.notebook, "student": w.mark.student, "cell": grade_id,
             "max_score": w.mark.max_score, "old_auto": w.mark.auto_score,
             "new_auto": w.mark.auto_score, "manual": w.outcome.manual_score,
             "old_manual": w.mark.manual_score, "changed_by": ta, "changed": why[:64]}
            for w in writes]
    if rows:
        conn.execute(sa.insert(audit.TABLE), rows)

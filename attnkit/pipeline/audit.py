"""The regrade audit, recorded as grading runs: what changed, for whom, and why.

``AuditedSaveAutoGrades`` takes the place of nbgrader's ``SaveAutoGrades``, so stock
``nbgrader autograde`` and ``attnkit autograde`` both record, per student and graded cell, a
row of the table ``attnkit_regrade``: the auto score before and after, the TA's manual score
(which nbgrader keeps, marking the cell for review), when, and the fingerprints of the check and
of the submission (``attnkit.pipeline.fingerprint``).

The table sits beside nbgrader's, which it never alters, in the gradebook's database (SQLite
or PostgreSQL), so workers sharing a gradebook share the audit. The run's summary is here,
below ``attnkit.review``, because the grading commands print it.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import sys
import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from nbgrader.api import BaseCell, Grade, Gradebook, MissingEntry
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import SaveAutoGrades

from attnkit.course import db_url as course_db_url
from attnkit.pipeline.fingerprint import COURSE_CONFIG, check_hash, submission_hash

RUN = uuid.uuid4().hex[:12]  # this process's grading run (stock `nbgrader autograde`)
RUN_ENV = "ATTNKIT_REGRADE_RUN"  # `attnkit autograde` names its run for all its workers
METADATA = sa.MetaData()
TABLE = sa.Table(
    "attnkit_regrade", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run", sa.String(32), nullable=False),
    sa.Column("recorded_at", sa.DateTime, nullable=False),
    sa.Column("assignment", sa.String(128), nullable=False),
    sa.Column("notebook", sa.String(128), nullable=False),
    sa.Column("student", sa.String(128), nullable=False),
    sa.Column("cell", sa.String(128), nullable=False),
    sa.Column("max_score", sa.Float),
    sa.Column("old_auto", sa.Float),
    sa.Column("new_auto", sa.Float),
    sa.Column("manual", sa.Float),  # the TA's score, kept by nbgrader over the new auto score
    sa.Column("check_hash", sa.String(64)),
    sa.Column("submission_hash", sa.String(64)),
    sa.Column("changed", sa.String(64)),  # "check", "submission", both, or "" vs the last row
    # a TA's score changed through the kit's rubrics (attnkit.written): who, and from what
    sa.Column("changed_by", sa.String(128)),  # None for a grading run
    sa.Column("old_manual", sa.Float),
    sa.Index("attnkit_regrade_lookup", "assignment", "student", "notebook", "cell"),
)


@functools.cache
def engine(db_url: str) -> sa.Engine:
    """One engine per database for the audit's own connections (summaries, reports)."""
    return with_table(sa.create_engine(db_url))


_TABLES: set[str] = set()  # databases whose audit table this process has seen


def with_table(bind: sa.Engine | sa.Connection) -> sa.Engine | sa.Connection:
    """``bind``, once the audit table exists beside nbgrader's (created on first use)."""
    url = (bind.engine if isinstance(bind, sa.Connection) else bind).url
    key = url.render_as_string(hide_password=False)
    if key not in _TABLES:
        try:
            METADATA.create_all(bind, checkfirst=True)
        except sa.exc.DBAPIError:  # several grading workers created it at the same moment
            if not sa.inspect(bind).has_table(TABLE.name):
                raise
        _add_columns(bind)
        _TABLES.add(key)
    return bind


ADDED = ("changed_by", "old_manual")  # columns a gradebook's older audit table lacks


def _add_columns(bind: sa.Engine | sa.Connection) -> None:
    """Add the columns the table gained since it was created in this gradebook."""
    have = {c["name"] for c in sa.inspect(bind).get_columns(TABLE.name)}
    for name in (n for n in ADDED if n not in have):
        column = TABLE.c[name]
        kind = column.type.compile(dialect=bind.dialect)
        try:
            with (contextlib.nullcontext(bind) if isinstance(bind, sa.Connection)
                  else bind.begin()) as conn:
                conn.exec_driver_sql(f"ALTER TABLE {TABLE.name} ADD COLUMN {name} {kind}")
        except sa.exc.DBAPIError:  # another process added it at the same moment
            if name not in {c["name"] for c in sa.inspect(bind).get_columns(TABLE.name)}:
                raise


# ------------------------------------------------------------------ recording


def _grades(gb: Gradebook, notebook: str, assignment: str, student: str
            ) -> dict[str, tuple[float | None, float | None, float]]:
    """Each graded cell's auto score, manual score and points, in one query (walking
    ``sub.grades`` loads every grade's cell and points lazily: two queries a cell)."""
    try:
        sub = gb.find_submission_notebook(notebook, assignment, student)
    except MissingEntry:
        return {}
    rows = (gb.db.query(BaseCell.name, Grade.auto_score, Grade.manual_score, Grade.max_score)
            .join(Grade.cell).filter(Grade.notebook_id == sub.id))
    return {name: (auto, manual, points) for name, auto, manual, points in rows}


class AuditedSaveAutoGrades(SaveAutoGrades):
    """nbgrader's ``SaveAutoGrades``, recording every graded cell in the regrade audit."""

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        info = resources["nbgrader"]
        notebook, assignment, student = info["notebook"], info["assignment"], info["student"]
        with Gradebook(info["db_url"]) as gb:
            before = _grades(gb, notebook, assignment, student)
        nb, resources = super().preprocess(nb, resources)
        sources = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
                   if c.metadata.get("nbgrader", {}).get("grade")}
        config = Path(CourseDirectory(config=self.config).root, COURSE_CONFIG)
        with Gradebook(info["db_url"]) as gb:
            after = _grades(gb, notebook, assignment, student)
            rows = [{"cell": cell, "max_score": points,
                     "old_auto": before.get(cell, (None,))[0], "new_auto": auto,
                     "manual": manual,
                     "check_hash": check_hash(cell, sources.get(cell, ""), points, config)}
                    for cell, (auto, manual, points) in after.items() if cell in sources]
            try:
                found = record(gb.db.connection(), assignment, notebook, student,
                               submission_hash(nb), rows)
                gb.db.commit()
            except sa.exc.SQLAlchemyError as error:  # the grades are saved; the audit is not
                gb.db.rollback()
                self.log.error("regrade audit NOT recorded for %s/%s: %s", student, notebook,
                               error)
                return nb, resources
        for row in found:
            self.log.warning("regrade %s %s/%s: %s", student, notebook, row["cell"],
                             describe_change(row))
        return nb, resources


def now() -> datetime:
    """UTC, naive, as the table stores it."""
    return datetime.now(UTC).replace(tzinfo=None)


def record(db: str | sa.Connection, assignment: str, notebook: str, student: str,
           submission: str, rows: list[dict]) -> list[dict]:
    """Store one grading of one notebook; returns the rows whose auto score changed. ``db``:
    a URL, or the connection of the gradebook being graded into (the audit then opens no
    connection of its own; the caller commits)."""
    stamp, run = now(), os.environ.get(RUN_ENV) or RUN
    with (contextlib.nullcontext(with_table(db)) if isinstance(db, sa.Connection)
          else engine(db).begin()) as conn:
        last = {}
        for row in conn.execute(
                sa.select(TABLE.c.cell, TABLE.c.check_hash, TABLE.c.submission_hash)
                .where(TABLE.c.assignment == assignment, TABLE.c.notebook == notebook,
                       TABLE.c.student == student, TABLE.c.changed_by.is_(None))
                .order_by(TABLE.c.id)):
            last[row.cell] = (row.check_hash, row.submission_hash)
        full = []
        for row in rows:
            previous = last.get(row["cell"])
            what = []
            if previous and previous[0] != row["check_hash"]:
                what.append("check")
            if previous and previous[1] != submission:
                what.append("submission")
            full.append({**row, "run": run, "recorded_at": stamp, "assignment": assignment,
                         "notebook": notebook, "student": student,
                         "submission_hash": submission, "changed": "+".join(what)})
        if full:
            conn.execute(sa.insert(TABLE), full)
    return [r for r in full if is_change(r)]


# ------------------------------------------------------------------ the run's summary


@dataclass(frozen=True)
class Change:
    when: datetime
    run: str
    notebook: str
    student: str
    cell: str
    max_score: float | None
    old: float | None
    new: float | None
    manual: float | None
    changed: str

    @property
    def delta(self) -> float:
        """Change of the score that counts: none while a TA's manual score stands."""
        if self.manual is not None:
            return 0.0
        return (self.new or 0.0) - (self.old or 0.0)


def is_change(row: dict) -> bool:
    return row["old_auto"] is not None and (row["new_auto"] or 0.0) != row["old_auto"]


def describe_change(row: dict) -> str:
    why = row.get("changed") or "neither check nor submission"
    text = f"{row['old_auto']:g} -> {row['new_auto'] or 0:g} (changed: {why})"
    if row.get("manual") is not None:
        text += f"; the TA's manual score {row['manual']:g} stands (needs review)"
    return text


def changes(db_url: str, assignment: str, since: datetime | None = None,
            run: str | None = None) -> list[Change]:
    """Regrades that changed an auto score, oldest first."""
    query = sa.select(TABLE).where(TABLE.c.assignment == assignment,
                                   TABLE.c.old_auto.is_not(None)).order_by(TABLE.c.id)
    if since is not None:
        query = query.where(TABLE.c.recorded_at >= since)
    if run is not None:
        query = query.where(TABLE.c.run == run)
    with engine(db_url).connect() as conn:
        rows = [r._asdict() for r in conn.execute(query)]
    return [Change(r["recorded_at"], r["run"], r["notebook"], r["student"], r["cell"],
                   r["max_score"], r["old_auto"], r["new_auto"], r["manual"], r["changed"] or "")
            for r in rows if is_change(r)]


def summary(found: list[Change]) -> str:
    """'3 students changed: 2 up, 1 down' and the cells a TA's score still covers."""
    per_student: dict[str, float] = defaultdict(float)
    for c in found:
        per_student[c.student] += c.delta
    up = sum(1 for d in per_student.values() if d > 0)
    down = sum(1 for d in per_student.values() if d < 0)
    same = len(per_student) - up - down
    text = (f"{len(per_student)} student{'s' if len(per_student) != 1 else ''} changed: "
            f"{up} up, {down} down" + (f", {same} unchanged in total" if same else ""))
    kept = [c for c in found if c.manual is not None]
    if kept:
        text += (f"\n{len(kept)} cell{'s' if len(kept) != 1 else ''} kept a TA's manual score "
                 "although the autograder's changed (marked for review in formgrader): "
                 + ", ".join(f"{c.student}/{c.cell} (TA {c.manual:g}, auto {c.old:g} -> "
                             f"{c.new or 0:g})" for c in kept))
    why = defaultdict(set)
    for c in found:
        why[c.changed or "neither"].add(c.cell)
    if found:
        text += "\nwhat changed: " + "; ".join(
            f"{k}: {', '.join(sorted(v))}" for k, v in sorted(why.items()))
    return text


def print_summary(db_url: str, assignment: str, since: datetime | None = None,
                  run: str | None = None) -> None:
    try:
        found = changes(db_url, assignment, since=since, run=run)
    except sa.exc.DBAPIError as error:  # at exit the gradebook may be gone (a scratch course)
        print(f"{assignment} regrade summary unavailable: {error.orig}", file=sys.stderr)
        return
    if found:
        print(f"{assignment} regrade: {summary(found)}", file=sys.stdout, flush=True)


_printed: set[str] = set()


def post_convert_hook(root: str | Path, assignment: str, student: str,
                      notebooks: list[str]) -> None:
    """``c.Autograde.post_convert_hook`` for stock ``nbgrader autograde``: the run's summary
    is printed once when the command ends (``attnkit autograde`` prints its own)."""
    if os.environ.get(RUN_ENV):  # a run of the kit's own (autograde, serve) says it itself
        return
    if assignment not in _printed:
        _printed.add(assignment)
        db_url = course_db_url(Path(root))
        atexit.register(lambda: print_summary(db_url, assignment, run=RUN))

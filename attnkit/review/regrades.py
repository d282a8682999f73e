"""The regrade audit: what changed, for whom, and why, each time a submission is graded again.

``AuditedSaveAutoGrades`` takes the place of nbgrader's ``SaveAutoGrades`` in
``c.Autograde.autograde_preprocessors``, so stock ``nbgrader autograde`` (formgrader's
button) and ``attnkit autograde`` both record, per student and graded cell, one row in the
table ``attnkit_regrade``: the auto score before and after, the TA's manual score if there is
one, when, and two fingerprints that say what changed:

* the **check**: SHA-256 of the graded cell's source (hidden part included, as nbgrader
  restores it), its points, and the hidden check's definition: the source text and values of
  the check object, its cases, its known-wrong variants and every function of the kit they
  call, followed by name through the code; the text, not the module that holds it, so moving
  a check to another module does not change its fingerprint and changing a tolerance does;
* the **submission**: SHA-256 of the student's code cells.

The table lives in the gradebook's own database (SQLite or PostgreSQL) beside nbgrader's
tables, which it never alters: nbgrader's schema and migrations stay as they are, and every
grading worker writing to a shared PostgreSQL gradebook writes its audit there too.

nbgrader keeps a TA's manual score when it autogrades again (``Grade.score`` is the manual
score when there is one) and marks the cell for review; the audit says so loudly: the row
keeps the manual score, and the summary names each cell whose autograder score changed
under a TA's score.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import csv
import functools
import hashlib
import inspect
import linecache
import os
import re
import sys
import textwrap
import types
import uuid
from collections import defaultdict
from dataclasses import dataclass, fields, is_dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from nbgrader.api import BaseCell, Grade, Gradebook, MissingEntry
from nbgrader.preprocessors import SaveAutoGrades

from attnkit.course import coursedir
from attnkit.pages import render

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
    sa.Index("attnkit_regrade_lookup", "assignment", "student", "notebook", "cell"),
)


@functools.cache
def engine(db_url: str) -> sa.Engine:
    """One engine per database for reading the audit (reports, exports, summaries)."""
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
        _TABLES.add(key)
    return bind


# ------------------------------------------------------------------ fingerprints


def _describe(obj: Any, seen: set[int], out: list[str]) -> None:
    """Append a stable text of ``obj``: source of functions and classes (and of the kit's
    functions they name), values of data. Module paths are left out on purpose."""
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, (types.FunctionType, types.MethodType)):
        fn = obj.__func__ if isinstance(obj, types.MethodType) else obj
        try:
            out.append(_source(fn))
        except (OSError, TypeError):
            out.append(repr(fn.__code__.co_code))
        for value in (fn.__defaults__ or ()):
            _describe(value, seen, out)
        for cell in (fn.__closure__ or ()):
            try:
                _describe(cell.cell_contents, seen, out)
            except ValueError:
                continue
        for name in sorted(_names(fn.__code__)):
            value = fn.__globals__.get(name)
            if _ours(value) or isinstance(value, (int, float, str, bytes, tuple, frozenset)):
                out.append(f"{name}=")
                _describe(value, seen, out)
    elif isinstance(obj, functools.partial):
        out.append("partial")
        _describe(obj.func, seen, out)
        _describe(obj.args, seen, out)
        _describe(obj.keywords, seen, out)
    elif is_dataclass(obj) and not isinstance(obj, type):
        out.append(type(obj).__name__)
        for f in fields(obj):
            out.append(f"{f.name}:")
            _describe(getattr(obj, f.name), seen, out)
    elif isinstance(obj, dict):
        for key in sorted(obj, key=repr):
            out.append(f"{key!r}:")
            _describe(obj[key], seen, out)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = sorted(obj, key=repr) if isinstance(obj, (set, frozenset)) else obj
        out.append(type(obj).__name__)
        for item in items:
            _describe(item, seen, out)
    elif isinstance(obj, type) and _ours(obj):
        try:
            out.append(_class_source(obj))
        except (OSError, TypeError):
            out.append(obj.__qualname__)
    elif hasattr(obj, "tolist"):  # numpy arrays and scalars
        out.append(repr(obj.tolist()))
    else:
        out.append(ADDRESS.sub("", repr(obj)))


ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")  # reprs of objects name their address


def _source(fn: types.FunctionType) -> str:
    """A function's source; for a lambda whose body goes on to the next lines (as a course
    config's ``reference=lambda a: ...`` may), all of it: ``inspect`` stops at its first."""
    code = inspect.unwrap(fn).__code__  # as inspect does: the source is the wrapped function's
    return _code_source(code, code.co_filename)


@functools.cache
def _code_source(code: types.CodeType, filename: str) -> str:
    """Kept for the life of the process: ``inspect`` tokenizes the file for every function,
    about 1 ms each, and a check names dozens. Equal code objects of one file (same
    bytecode, constants, names and line numbers) have the same source lines; the filename
    is part of the key because code equality leaves it out."""
    lines, start = inspect.getsourcelines(code)
    last = _last_line(code)
    if start and last >= start + len(lines):
        lines = linecache.getlines(filename)[start - 1:last]
    return textwrap.dedent("".join(lines))


@functools.cache
def _class_source(cls: type) -> str:
    """A class's source, kept for the life of the process (``inspect`` parses its whole
    module each time); a class is its own key, by identity."""
    return textwrap.dedent(inspect.getsource(cls))


def _last_line(code: types.CodeType) -> int:
    """The last line of ``code`` and of the code nested in it (comprehensions, lambdas)."""
    nested = [_last_line(c) for c in code.co_consts if isinstance(c, types.CodeType)]
    return max([line for *_, line in code.co_lines() if line] + nested, default=0)


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _ours(value: Any) -> bool:
    """The kit's own functions and classes (followed), not numpy's or the standard library's."""
    module = getattr(value, "__module__", "") or ""
    return (isinstance(value, (types.FunctionType, type))
            and (module == "attnkit" or module.startswith("attnkit.")))


def check_objects(grade_id: str) -> list[Any]:
    """What defines the graded cell ``grade_id``: its ``Check`` (inputs, probe, reference,
    known-wrong variants, tolerance) and the judge, or its mark scheme."""
    from attnkit.judge import registry, verdicts

    # a copy: ``_describe`` skips what it has seen by identity, and the probe's own id must
    # be described whether or not the caller's string is that very object
    found: list[Any] = [grade_id.encode().decode()]
    if grade_id in registry.checks():
        found += [registry.checks()[grade_id], verdicts.judge]
    if grade_id in registry.written():
        found.append(registry.written()[grade_id])
    return found


def check_definition(grade_id: str) -> str:
    """The text of ``check_objects(grade_id)``, walked afresh on every call, so it follows
    whatever the course's config replaced or patched; the sources it reads are cached."""
    out: list[str] = []
    _describe(check_objects(grade_id), set(), out)
    return "\n".join(out)


def read_sources() -> None:
    """Describe the kit's own checks, so that a process forked after this (a grading worker,
    from the worker server) starts with their sources read (0.1 CPU-s it need not spend)."""
    from attnkit.judge import registry

    for grade_id in [*registry.checks(), *registry.written()]:
        check_definition(grade_id)


def check_hash(grade_id: str, cell_source: str, points: float | None) -> str:
    text = f"{cell_source}\n--points {points}\n--check\n{check_definition(grade_id)}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def submission_hash(nb: Any) -> str:
    """The student's code: solution cells and cells they added, in order."""
    digest = hashlib.sha256()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and (meta.get("solution") or not meta.get("grade")):
            digest.update(cell.source.encode() + b"\x00")
    return digest.hexdigest()[:16]


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
        with Gradebook(info["db_url"]) as gb:
            after = _grades(gb, notebook, assignment, student)
            rows = [{"cell": cell, "max_score": points,
                     "old_auto": before.get(cell, (None,))[0], "new_auto": auto,
                     "manual": manual,
                     "check_hash": check_hash(cell, sources.get(cell, ""), points)}
                    for cell, (auto, manual, points) in after.items() if cell in sources]
            try:
                changes = record(gb.db.connection(), assignment, notebook, student,
                                 submission_hash(nb), rows)
                gb.db.commit()
            except sa.exc.SQLAlchemyError as error:  # the grades are saved; the audit is not
                gb.db.rollback()
                self.log.error("regrade audit NOT recorded for %s/%s: %s", student, notebook,
                               error)
                return nb, resources
        for row in changes:
            self.log.warning("regrade %s %s/%s: %s", student, notebook, row["cell"],
                             describe_change(row))
        return nb, resources


def run_id() -> str:
    return os.environ.get(RUN_ENV) or RUN


def now() -> datetime:
    """UTC, naive, as the table stores it."""
    return datetime.now(UTC).replace(tzinfo=None)


def record(db: str | sa.Connection, assignment: str, notebook: str, student: str,
           submission: str, rows: list[dict]) -> list[dict]:
    """Store one grading of one notebook; returns the rows whose auto score changed. ``db``:
    a URL, or the connection of the gradebook being graded into (the audit then opens no
    connection of its own; the caller commits)."""
    stamp = now()
    with (contextlib.nullcontext(with_table(db)) if isinstance(db, sa.Connection)
          else engine(db).begin()) as conn:
        last = {}
        for row in conn.execute(
                sa.select(TABLE.c.cell, TABLE.c.check_hash, TABLE.c.submission_hash)
                .where(TABLE.c.assignment == assignment, TABLE.c.notebook == notebook,
                       TABLE.c.student == student).order_by(TABLE.c.id)):
            last[row.cell] = (row.check_hash, row.submission_hash)
        full = []
        for row in rows:
            previous = last.get(row["cell"])
            what = []
            if previous and previous[0] != row["check_hash"]:
                what.append("check")
            if previous and previous[1] != submission:
                what.append("submission")
            full.append({**row, "run": run_id(), "recorded_at": stamp, "assignment": assignment,
                         "notebook": notebook, "student": student,
                         "submission_hash": submission, "changed": "+".join(what)})
        if full:
            conn.execute(sa.insert(TABLE), full)
    return [r for r in full if is_change(r)]


# ------------------------------------------------------------------ reading


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
    eng = engine(db_url)
    query = sa.select(TABLE).where(TABLE.c.assignment == assignment,
                                   TABLE.c.old_auto.is_not(None)).order_by(TABLE.c.id)
    if since is not None:
        query = query.where(TABLE.c.recorded_at >= since)
    if run is not None:
        query = query.where(TABLE.c.run == run)
    with eng.connect() as conn:
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


# ------------------------------------------------------------------ hooks and pages


_printed: set[str] = set()


def post_convert_hook(root: str | Path, assignment: str, student: str,
                      notebooks: list[str]) -> None:
    """``c.Autograde.post_convert_hook`` for stock ``nbgrader autograde``: the run's summary
    is printed once when the command ends (``attnkit autograde`` prints its own)."""
    if os.environ.get(RUN_ENV):  # a run of the kit's own (autograde, serve) says it itself
        return
    if assignment not in _printed:
        _printed.add(assignment)
        db_url = _db_url(Path(root))
        atexit.register(lambda: print_summary(db_url, assignment, run=RUN))


def print_summary(db_url: str, assignment: str, since: datetime | None = None,
                  run: str | None = None) -> None:
    try:
        found = changes(db_url, assignment, since=since, run=run)
    except sa.exc.DBAPIError as error:  # at exit the gradebook may be gone (a scratch course)
        print(f"{assignment} regrade summary unavailable: {error.orig}", file=sys.stderr)
        return
    if found:
        print(f"{assignment} regrade: {summary(found)}", file=sys.stdout, flush=True)


def _db_url(root: Path) -> str:
    return coursedir(root).db_url


def section(db_url: str, assignment: str) -> str:
    """The report's "Regrades" section (HTML, from a Jinja template)."""
    found = changes(db_url, assignment)
    runs: dict[str, list[Change]] = defaultdict(list)
    for c in found:
        runs[c.run].append(c)
    groups = [{"when": cs[0].when.strftime("%Y-%m-%d %H:%M UTC"), "summary": summary(cs)}
              for cs in sorted(runs.values(), key=lambda cs: cs[0].when, reverse=True)]
    rows = [{"when": c.when.strftime("%Y-%m-%d %H:%M"), "student": c.student, "cell": c.cell,
             "old": f"{c.old:g}", "new": f"{c.new or 0:g}",
             "points": "" if c.max_score is None else f"{c.max_score:g}",
             "direction": "up" if (c.new or 0) > (c.old or 0) else "down",
             "changed": c.changed or "neither (the grading seed or the environment)",
             "manual": None if c.manual is None else f"{c.manual:g}"}
            for c in reversed(found)]
    return render("regrades.html.j2", groups=groups, rows=rows[:200], more=max(0, len(rows) - 200))


def export_rows(db_url: str, assignment: str | None = None) -> list[dict]:
    eng = engine(db_url)
    query = sa.select(TABLE).order_by(TABLE.c.id)
    if assignment:
        query = query.where(TABLE.c.assignment == assignment)
    with eng.connect() as conn:
        return [r._asdict() for r in conn.execute(query)]


def write_export(db_url: str, out: Path, assignment: str | None = None) -> Path:
    """Every recorded grading (not only changes), as CSV."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = export_rows(db_url, assignment)
    columns = [c.name for c in TABLE.columns if c.name != "id"]
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "recorded_at": row["recorded_at"].isoformat(
                timespec="seconds")})
    return out


def add_export_arguments(kinds: argparse._SubParsersAction) -> None:
    """``attnkit export regrades``, a kind beside the grade tables of ``attnkit export``."""
    audit = kinds.add_parser(
        "regrades", help="the regrade audit: every grading of every cell, old and new score",
        description="One CSV row per graded cell per grading: old and new auto score, the "
                    "TA's manual score, when, and fingerprints of the check and submission.")
    audit.add_argument("--out", type=Path, default=None,
                       help="CSV file (default: <root>/exports/regrades.csv)")
    audit.add_argument("--assignment", default=None, help="only this assignment")
    audit.set_defaults(func=export_main)


def export_main(args: argparse.Namespace) -> int:
    root = Path(args.root)
    out = write_export(_db_url(root), args.out or root / "exports" / "regrades.csv",
                       args.assignment)
    print(f"wrote {out}")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Print the regrade audit's summary of one assignment."
    parser.add_argument("assignment")
    parser.add_argument("--all", action="store_true",
                        help="every regrade so far (default: the latest run that changed a score)")


def main(args: argparse.Namespace) -> int:
    found = changes(_db_url(Path(args.root)), args.assignment)
    if found and not args.all:
        latest = max(found, key=lambda c: c.when).run
        found = [c for c in found if c.run == latest]
    print(f"{args.assignment}: {summary(found)}" if found
          else f"{args.assignment}: no regrade changed a score")
    for c in found:
        print(f"  {c.when:%Y-%m-%d %H:%M} {c.student} {c.cell}: "
              + describe_change({"old_auto": c.old, "new_auto": c.new, "manual": c.manual,
                                 "changed": c.changed}))
    return 0


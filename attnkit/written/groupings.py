"""A question's grouping, kept in the gradebook's database (``store.GROUPINGS`` and
``store.GROUPED``) and cached in the server's process.

The table is the truth: a second server process, the next one after a restart, or the hub's
shared grading service read the same groups from it instead of grouping the class again, so
the keys the TAs' moves and claims name stay valid. Each process keeps its copy and checks it
on every request with one query (the submissions' count, latest hand-in and first and last id,
and the grouping's version). The class is grouped again only when the answers changed: a new
hand-in or a re-autograde whose texts differ from those grouped.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from nbgrader.api import Assignment, SubmittedAssignment

from attnkit.course import coursedir
from attnkit.written import answers, groups, store
from attnkit.written.model import Mark
from attnkit.written.store import GROUPED, GROUPINGS

GROUPED_KEY = "g-"  # key prefix of a group of the grouping's: its representative's id

_TEXTS: dict[tuple[str, str], tuple[int, str | None]] = {}  # (notebook, grade id) -> mtime, text


def texts(root: Path, assignment: str, grade_id: str,
          marks: dict[str, Mark]) -> dict[str, str | None]:
    """Student -> their answer's text, each notebook read again only when it changed."""
    cd = coursedir(root)
    found = {}
    for student, mark in marks.items():
        path = Path(cd.format_path(cd.autograded_directory, student, assignment)) / \
            f"{mark.notebook}.ipynb"
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            mtime = -1
        known = _TEXTS.get((str(path), grade_id))
        if known is None or known[0] != mtime:
            known = mtime, answers.answer_text(cd, assignment, mark.notebook, student, grade_id)
            _TEXTS[str(path), grade_id] = known
        found[student] = known[1]
    return found


@functools.lru_cache(maxsize=64)
def _grouping(texts: tuple[str, ...]) -> groups.Grouping:
    return groups.group_answers(list(texts))


@dataclass(frozen=True)
class Base:
    """The grouping of one question's answers, before any TA moved one, as the table holds
    it (``version``), with the answers' texts the page renders."""

    version: int
    texts: dict[str, str | None]  # student -> the answer's text, in the class's order
    keys: tuple[str, ...]  # the grouping's groups, largest first
    home: dict[str, str]  # student -> their group's key
    confidence: dict[str, float]  # student -> how sure the grouping is of them
    blank: frozenset[str]  # the keys of groups of blank answers


@dataclass(frozen=True)
class Header:
    """The table's word on a question's grouping: which, made on what."""

    version: int
    handed_in: str
    digest: str


_BASES: dict[tuple[str, str, str], Base] = {}


def _where(table: sa.Table, assignment: str, grade_id: str) -> tuple[sa.ColumnElement, ...]:
    return table.c.assignment == assignment, table.c.grade_id == grade_id


def probe(conn: sa.Connection, assignment: str, grade_id: str) -> tuple[str, Header | None]:
    """In one query: which submissions the gradebook holds (how many, the latest hand-in
    time, which ``nbgrader autograde`` sets, the first and last row id), and the table's
    grouping of the question. An answer's text changes only with a new hand-in, so this is
    what a kept grouping is checked against on every request, instead of every notebook."""
    row = conn.execute(_probe_query(), {"a_": assignment, "q_": grade_id}).one()
    handed = "|".join(str(v) for v in row[:4])
    found = None if row[4] is None else Header(int(row[4]), row[5], row[6])
    return handed, found


@functools.cache
def _probe_query() -> sa.Select:
    """``probe``'s statement, built once, its values bound (``a_``, ``q_``)."""
    sub, asg = SubmittedAssignment.__table__, Assignment.__table__
    header = sa.select(GROUPINGS).where(GROUPINGS.c.assignment == sa.bindparam("a_"),
                                        GROUPINGS.c.grade_id == sa.bindparam("q_")).subquery()
    return (
        sa.select(sa.func.count(sub.c.id), sa.func.max(sub.c.timestamp), sa.func.min(sub.c.id),
                  sa.func.max(sub.c.id), sa.func.max(header.c.version),
                  sa.func.max(header.c.handed_in), sa.func.max(header.c.digest))
        .select_from(sa.outerjoin(asg, sub, sub.c.assignment_id == asg.c.id)
                     .outerjoin(header, sa.true()))
        .where(asg.c.name == sa.bindparam("a_")))


def digest(found: dict[str, str | None]) -> str:
    """Of the answers' texts, student by student: what a grouping was made of."""
    hashed = hashlib.sha256()
    for student, text in sorted(found.items()):
        hashed.update(f"{student}\x00{'' if text is None else text}\x01".encode())
    return hashed.hexdigest()


def base(root: Path, db_url: str, assignment: str, grade_id: str, conn: sa.Connection,
         files: bool = False) -> Base:
    """The question's grouping: this process's copy while the table's version and the
    submissions are the same; else the table's; else (new answers, or none grouped yet)
    made and written. ``files``: look at the notebooks' texts too (a whole page's load)."""
    cache = db_url, assignment, grade_id
    handed, header = probe(conn, assignment, grade_id)
    kept = _BASES.get(cache)
    if header is not None and header.handed_in == handed and not files:
        if kept is None or kept.version != header.version:
            kept = _load(root, conn, assignment, grade_id, header.version)
        _BASES[cache] = kept
        return kept
    marks = store.marks(conn, assignment, grade_id)
    found = texts(root, assignment, grade_id, marks)
    found = {s: found[s] for s in sorted(found)}
    made = digest(found)
    if header is not None and header.digest == made:  # the same answers: the same groups
        if header.handed_in != handed:
            _note_handed_in(conn, assignment, grade_id, handed)
        if kept is None or kept.version != header.version:
            kept = _load(root, conn, assignment, grade_id, header.version, found)
        _BASES[cache] = kept
        return kept
    rows = _rows(assignment, grade_id, found)  # outside any lock: it takes seconds
    version, wrote = _make(db_url, assignment, grade_id, rows, handed, made)
    kept = _from_rows(version, found, rows) if wrote else _load(
        root, conn, assignment, grade_id, version, found)
    _BASES[cache] = kept
    return kept


def _note_handed_in(conn: sa.Connection, assignment: str, grade_id: str, handed: str) -> None:
    """The submissions changed but not the answers: the grouping stands, checked on them."""
    conn.execute(sa.update(GROUPINGS).where(*_where(GROUPINGS, assignment, grade_id))
                 .values(handed_in=handed))
    conn.commit()


def _load(root: Path, conn: sa.Connection, assignment: str, grade_id: str, version: int,
          found: dict[str, str | None] | None = None) -> Base:
    """The table's grouping, with the answers' texts (read from the notebooks if not given)."""
    rows = conn.execute(sa.select(GROUPED).where(*_where(GROUPED, assignment, grade_id))
                        .order_by(GROUPED.c.student)).mappings().all()
    if found is None:
        found = texts(root, assignment, grade_id, store.marks(conn, assignment, grade_id))
    return _from_rows(version, {s: found.get(s) for s in sorted(found)}, rows)


def _rows(assignment: str, grade_id: str, found: dict[str, str | None]) -> list[dict]:
    """The grouping of ``found``'s answers as the table's rows, in the class's order."""
    students = list(found)
    grouping = _grouping(tuple(t or "" for t in found.values()))
    keys = [GROUPED_KEY + students[g.representative] for g in grouping.groups]
    return [{"assignment": assignment, "grade_id": grade_id, "student": s,
             "group_key": keys[grouping.group_of[i]], "rank": grouping.group_of[i],
             "confidence": grouping.confidence[i],
             "blank": grouping.groups[grouping.group_of[i]].blank}
            for i, s in enumerate(students)]


def _from_rows(version: int, found: dict[str, str | None], rows: Sequence[Mapping]) -> Base:
    """The Base of a grouping's rows: read from the table, or just written by ``_make``."""
    return Base(version, found, tuple(dict.fromkeys(r["group_key"] for r in sorted(
                    rows, key=lambda r: r["rank"]))),
                {r["student"]: r["group_key"] for r in rows},
                {r["student"]: r["confidence"] for r in rows},
                frozenset(r["group_key"] for r in rows if r["blank"]))


def _make(db_url: str, assignment: str, grade_id: str, rows: list[dict], handed: str,
          made: str) -> tuple[int, bool]:
    """Write the grouping's ``rows`` as the next version, unless another process wrote the
    grouping of the same answers meanwhile. Returns the version, and whether it
    is the one written here."""
    with store.engine(db_url).begin() as conn:
        store.lock(conn, GROUPINGS)
        header = conn.execute(sa.select(GROUPINGS).where(
            *_where(GROUPINGS, assignment, grade_id))).one_or_none()
        if header is not None and header.digest == made:
            return header.version, False
        version = 1 if header is None else header.version + 1
        conn.execute(sa.delete(GROUPED).where(*_where(GROUPED, assignment, grade_id)))
        if rows:
            conn.execute(sa.insert(GROUPED), rows)
        values = {"version": version, "handed_in": handed, "digest": made,
                  "made_at": store.now()}
        if header is None:
            conn.execute(sa.insert(GROUPINGS).values(assignment=assignment, grade_id=grade_id,
                                                     **values))
        else:
            conn.execute(sa.update(GROUPINGS).where(*_where(GROUPINGS, assignment, grade_id))
                         .values(**values))
    return version, True

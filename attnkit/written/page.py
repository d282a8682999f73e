"""What the grade-by-question page shows: one written question's answers in groups, each
rendered as the kit's other pages render student markdown, with the rubric, the claims and
the progress. The server (``server.py``) only turns requests into these calls.

A group is named by a key that survives a reload: ``g-<student>`` for a group of the
grouping's (its representative's id), ``a-<student>`` for an answer a TA took out to grade
alone. Answers a TA moved keep their place in a table of the kit's (``store.MOVES``), so
every TA's page shows the same groups.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from markupsafe import Markup

from attnkit.course import coursedir
from attnkit.course import db_url as course_db_url
from attnkit.pipeline import maths
from attnkit.pipeline.allowlist import markdown_problems
from attnkit.pipeline.sanitize import inert_markdown
from attnkit.written import answers, claims, groups, rubric, store
from attnkit.written.answers import Answer, Question
from attnkit.written.model import Item
from attnkit.written.store import MOVES

ALONE = "a-"  # key prefix of an answer graded alone
GROUPED = "g-"  # key prefix of a group of the grouping's

@functools.lru_cache(maxsize=8192)
def answer_html(text: str | None) -> Markup:
    """A student's answer as formgrader's and the feedback's pages show a markdown cell:
    active content made inert (``NeutraliseActiveContent``'s rewrite), maths as MathML."""
    if text is None:
        return Markup('<p class="missing">No autograded notebook for this answer.</p>')
    source = inert_markdown(text) if markdown_problems(text) else text
    return Markup(maths.render(source, heading_offset=3, anchors=False))


_TEXTS: dict[tuple[str, str], tuple[int, str | None]] = {}  # (notebook, grade id) -> mtime, text


def class_answers(root: Path, assignment: str, grade_id: str) -> list[Answer]:
    """``answers.answers``, each notebook read again only when it changed: the page asks on
    every step, and a class's notebooks are most of the time."""
    cd = coursedir(root)
    with store.engine(course_db_url(root)).connect() as conn:
        marks = store.marks(conn, assignment, grade_id)
    found = []
    for student, mark in sorted(marks.items()):
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
        found.append(Answer(student, grade_id, known[1], mark))
    return found


@functools.lru_cache(maxsize=64)
def _grouping(texts: tuple[str, ...]) -> groups.Grouping:
    return groups.group_answers(list(texts))


@dataclass(frozen=True)
class Shown:
    """One answer as the page lists it."""

    answer: Answer
    html: Markup
    confidence: float

    @property
    def positions(self) -> list[int]:
        return sorted(i.position for i in self.answer.items)


@dataclass(frozen=True)
class Group:
    """Answers a TA grades at once; ``number`` is its place on the page, from 1."""

    key: str
    number: int
    answers: tuple[Shown, ...]
    confidence: float
    blank: bool = False
    claimed_by: str | None = None

    @property
    def alone(self) -> bool:
        return self.key.startswith(ALONE)

    @property
    def graded(self) -> int:
        return sum(s.answer.graded for s in self.answers)

    @property
    def students(self) -> list[str]:
        return [s.answer.student for s in self.answers]


@dataclass(frozen=True)
class View:
    """Everything the page shows of one question."""

    question: Question
    items: list[Item]
    groups: list[Group]
    progress: claims.Progress
    stamp: str  # ``stamp()`` read before the rest: a change in between reloads once more


def stamp(root: Path, assignment: str, grade_id: str) -> str:
    """What ``View.stamp`` depends on, read from the database alone (no notebook, no
    grouping): asked every few seconds by every TA's page."""
    db_url = course_db_url(root)
    with store.engine(db_url).connect() as conn:
        marks = store.marks(conn, assignment, grade_id)
        moved = conn.execute(sa.select(MOVES.c.student, MOVES.c.group_key).where(
            MOVES.c.assignment == assignment, MOVES.c.grade_id == grade_id)
            .order_by(MOVES.c.student)).all()
        items = store.items(conn, assignment, grade_id)
    held = sorted((c.key, c.ta) for c in claims.claims(db_url, assignment, grade_id))
    parts = [f"{i.id}:{i.position}:{i.points}:{i.text}:{i.comment}" for i in items]
    parts += [f"{s}={m.version}" for s, m in sorted(marks.items())]
    parts += [f"{s}>{k}" for s, k in moved] + [f"{k}@{ta}" for k, ta in held]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def question(root: Path, assignment: str, grade_id: str) -> Question:
    for found in answers.questions(root, assignment):
        if found.grade_id == grade_id:
            return found
    raise LookupError(f"{assignment} has no written question {grade_id!r}")


def view(root: Path, assignment: str, grade_id: str) -> View:
    """The question, its rubric, its answers in groups and how far their grading is."""
    db_url = course_db_url(root)
    before = stamp(root, assignment, grade_id)
    asked = question(root, assignment, grade_id)
    shown = arrange(root, assignment, grade_id)
    items = rubric.items(db_url, assignment, grade_id)
    progress = claims.progress(db_url, assignment, [grade_id])[0]
    return View(asked, items, shown, progress, before)


def arrange(root: Path, assignment: str, grade_id: str) -> list[Group]:
    """The answers in groups: largest first, an answer taken out to grade alone just after
    the group it left."""
    db_url = course_db_url(root)
    found = class_answers(root, assignment, grade_id)
    grouping = _grouping(tuple(a.text or "" for a in found))
    with store.engine(db_url).connect() as conn:
        moved = {r.student: r.group_key for r in conn.execute(sa.select(MOVES).where(
            MOVES.c.assignment == assignment, MOVES.c.grade_id == grade_id))}
    held = {c.key: c.ta for c in claims.claims(db_url, assignment, grade_id)}
    keys = [GROUPED + found[g.representative].student for g in grouping.groups]
    members: dict[str, list[int]] = {k: [] for k in keys}
    after: dict[str, list[str]] = {k: [] for k in keys}  # alone answers, after their group
    for i, answer in enumerate(found):
        home = keys[grouping.group_of[i]]
        target = moved.get(answer.student, home)
        if target.startswith(ALONE) or target not in members:
            target = ALONE + answer.student
            after[home].append(target)
            members[target] = []
        members[target].append(i)
    order = [k for key in keys for k in (key, *after[key]) if members[k]]
    shown = []
    for number, key in enumerate(order, start=1):
        rows = tuple(Shown(found[i], answer_html(found[i].text), grouping.confidence[i])
                     for i in members[key])
        blank = key in keys and grouping.groups[keys.index(key)].blank
        shown.append(Group(key, number, rows, sum(r.confidence for r in rows) / len(rows),
                           blank, held.get(key)))
    return shown


def next_group(root: Path, assignment: str, grade_id: str, ta: str,
               shown: Sequence[Group] | None = None) -> str | None:
    """Claim for ``ta`` the first group still to grade that no other TA holds."""
    shown = shown if shown is not None else arrange(root, assignment, grade_id)
    return claims.next_ungraded(course_db_url(root), assignment, grade_id,
                                [g.key for g in shown], ta,
                                {g.key: g.students for g in shown})


def move(root: Path, assignment: str, grade_id: str, student: str, key: str, ta: str) -> str:
    """Put ``student``'s answer into the group ``key`` (or alone, for any ``a-`` key);
    returns the key it is now under."""
    key = ALONE + student if key.startswith(ALONE) else key
    if not key.startswith((GROUPED, ALONE)):
        raise ValueError(f"no group {key!r}")
    where = (MOVES.c.assignment == assignment, MOVES.c.grade_id == grade_id,
             MOVES.c.student == student)
    with store.engine(course_db_url(root)).begin() as conn:
        conn.execute(sa.delete(MOVES).where(*where))
        conn.execute(sa.insert(MOVES).values(assignment=assignment, grade_id=grade_id,
                                             student=student, group_key=key, moved_by=ta,
                                             moved_at=store.now()))
    return key

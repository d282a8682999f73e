"""What the grade-by-question page shows: one written question's answers in groups, each
rendered as the kit's other pages render student markdown, with the rubric, the claims and
the progress. The server (``server.py``) only turns requests into these calls.

A group is named by a key that survives a reload: ``g-<student>`` for a group of the
grouping's (its representative's id), ``a-<student>`` for an answer a TA took out to grade
alone. The grouping is kept in the kit's tables (``groupings``) and the answers a TA moved
in another (``store.MOVES``), so every TA's page, in any server process, shows the same
groups.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from markupsafe import Markup

from attnkit.course import db_url as read_db_url
from attnkit.pipeline import maths
from attnkit.pipeline.allowlist import markdown_problems
from attnkit.pipeline.sanitize import inert_markdown
from attnkit.written import answers, claims, groupings, rubric, store
from attnkit.written.answers import Answer, Question
from attnkit.written.groupings import GROUPED_KEY, Base
from attnkit.written.model import Item
from attnkit.written.store import MOVES

ALONE = "a-"  # key prefix of an answer graded alone
GROUPED = GROUPED_KEY  # key prefix of a group of the grouping's

_URLS: dict[str, tuple[float, int, str]] = {}  # root -> when read, config's mtime, db_url
URL_TTL = 10.0  # seconds: Jupyter's own config files are read again this often


def course_db_url(root: Path) -> str:
    """``attnkit.course.db_url``, kept while the course's ``nbgrader_config.py`` is the same
    (and ``URL_TTL`` seconds at most): reading the config takes longer than a TA's step."""
    try:
        mtime = (Path(root) / "nbgrader_config.py").stat().st_mtime_ns
    except OSError:
        mtime = -1
    kept = _URLS.get(str(root))
    if kept is not None and kept[1] == mtime and time.monotonic() - kept[0] < URL_TTL:
        return kept[2]
    url = read_db_url(root)
    _URLS[str(root)] = time.monotonic(), mtime, url
    return url


@functools.lru_cache(maxsize=8192)
def answer_html(text: str | None) -> Markup:
    """A student's answer as formgrader's and the feedback's pages show a markdown cell:
    active content made inert (``NeutraliseActiveContent``'s rewrite), maths as MathML."""
    if text is None:
        return Markup('<p class="missing">No autograded notebook for this answer.</p>')
    source = inert_markdown(text) if markdown_problems(text) else text
    return Markup(maths.render(source, heading_offset=3, anchors=False))


def class_answers(root: Path, assignment: str, grade_id: str) -> list[Answer]:
    """``answers.answers``, each notebook read again only when it changed."""
    with store.engine(course_db_url(root)).connect() as conn:
        marks = store.marks(conn, assignment, grade_id)
    texts = groupings.texts(root, assignment, grade_id, marks)
    return [Answer(student, grade_id, texts[student], mark)
            for student, mark in sorted(marks.items())]


def base(root: Path, assignment: str, grade_id: str, conn: sa.Connection,
         files: bool = False) -> Base:
    """The question's grouping as the database holds it (``groupings.base``)."""
    return groupings.base(root, str(course_db_url(root)), assignment, grade_id, conn, files)


def moves(conn: sa.Connection, assignment: str, grade_id: str) -> dict[str, str]:
    """Student -> the group key a TA moved their answer to."""
    return {r.student: r.group_key for r in conn.execute(
        sa.select(MOVES.c.student, MOVES.c.group_key).where(
            MOVES.c.assignment == assignment, MOVES.c.grade_id == grade_id))}


def layout(kept: Base, moved: dict[str, str]) -> dict[str, list[str]]:
    """Group key -> its students, in the page's order: largest group first, an answer taken
    out to grade alone just after the group it left."""
    members: dict[str, list[str]] = {k: [] for k in kept.keys}
    after: dict[str, list[str]] = {k: [] for k in kept.keys}  # alone answers, after their group
    for student, home in kept.home.items():
        target = moved.get(student, home)
        if target.startswith(ALONE) or target not in after:
            target = ALONE + student
            after[home].append(target)
            members[target] = []
        members[target].append(student)
    return {k: members[k] for key in kept.keys for k in (key, *after[key]) if members[k]}


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

    @property
    def sig(self) -> str:
        """Changes when anything the group's part of the page shows does: a page that has
        it the same needs nothing of it."""
        parts = [self.key, str(self.number), str(self.claimed_by), str(self.blank),
                 f"{self.confidence:.4f}"]
        for s in self.answers:
            a = s.answer
            parts.append(f"{a.student}|{a.version}|{s.positions}|{a.mark.graded_by}|"
                         f"{a.score}|{a.max_score}|{a.graded}|{a.hand_scored}|"
                         f"{s.confidence:.4f}|{a.text}")
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class View:
    """Everything the page shows of one question."""

    question: Question
    items: list[Item]
    groups: list[Group]
    progress: claims.Progress
    stamp: str  # ``stamp()`` read before the rest: a change in between reloads once more

    @property
    def rubric_sig(self) -> str:
        return rubric_sig(self.items)


def stamp(root: Path, assignment: str, grade_id: str) -> str:
    """What ``View.stamp`` depends on, read from the database alone (no notebook; the
    grouping's version, not the grouping): asked every few seconds by every TA's page."""
    db_url = course_db_url(root)
    with store.engine(db_url).connect() as conn:
        marks = store.marks(conn, assignment, grade_id)
        moved = conn.execute(sa.select(MOVES.c.student, MOVES.c.group_key).where(
            MOVES.c.assignment == assignment, MOVES.c.grade_id == grade_id)
            .order_by(MOVES.c.student)).all()
        items = store.items(conn, assignment, grade_id)
        grouped = conn.execute(sa.select(store.GROUPINGS.c.version).where(
            store.GROUPINGS.c.assignment == assignment,
            store.GROUPINGS.c.grade_id == grade_id)).scalar()
        held = sorted((c.key, c.ta) for c in claims.live(conn, assignment, grade_id))
    parts = [f"grouping {grouped}"]
    parts += [f"{i.id}:{i.position}:{i.points}:{i.text}:{i.comment}" for i in items]
    parts += [f"{s}={m.version}" for s, m in sorted(marks.items())]
    parts += [f"{s}>{k}" for s, k in moved] + [f"{k}@{ta}" for k, ta in held]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def rubric_sig(items: Iterable[Item]) -> str:
    """Changes when the rubric's part of the page would."""
    parts = [f"{i.id}:{i.position}:{i.points}:{i.text}:{i.comment}" for i in items]
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


def arrange(root: Path, assignment: str, grade_id: str,
            keys: Iterable[str] | None = None) -> list[Group]:
    """The answers in groups, in the page's order (``layout``); with ``keys``, only those
    groups (with their place on the page), read from the database alone: what a step of a
    TA's changed."""
    with store.engine(course_db_url(root)).connect() as conn:
        kept = base(root, assignment, grade_id, conn, files=keys is None)
        members = layout(kept, moves(conn, assignment, grade_id))
        return _groups(conn, kept, members, assignment, grade_id, keys)


def _groups(conn: sa.Connection, kept: Base, members: dict[str, list[str]], assignment: str,
            grade_id: str, keys: Iterable[str] | None,
            held: dict[str, str] | None = None) -> list[Group]:
    wanted = list(members) if keys is None else [k for k in dict.fromkeys(keys)
                                                   if k in members]
    students = None if keys is None else [s for k in wanted for s in members[k]]
    marks = store.marks(conn, assignment, grade_id, students) if students != [] else {}
    if held is None:
        held = {c.key: c.ta for c in claims.live(conn, assignment, grade_id)}
    number = {k: i for i, k in enumerate(members, start=1)}
    shown = []
    for key in wanted:
        rows = tuple(Shown(Answer(s, grade_id, kept.texts.get(s), marks[s]),
                           answer_html(kept.texts.get(s)), kept.confidence[s])
                     for s in members[key] if s in marks)
        if rows:
            shown.append(Group(key, number[key], rows,
                               sum(r.confidence for r in rows) / len(rows),
                               key in kept.blank, held.get(key)))
    return shown


def step(root: Path, assignment: str, grade_id: str, ta: str, students: Iterable[str] = (),
         claim: bool = False, shown: Mapping[str, str] | None = None
         ) -> tuple[str | None, list[Group], claims.Progress]:
    """What a TA's step changed on their page, read in one go: with ``claim``, the next
    group to grade first claimed for ``ta`` (as ``next_group``); then the groups of
    ``students`` (answers just written) and of the claim, those whose holder is not what the
    page shows (``shown``: key -> TA), and the question's progress."""
    with store.engine(course_db_url(root)).connect() as conn:
        kept = base(root, assignment, grade_id, conn)
        members = layout(kept, moves(conn, assignment, grade_id))
        if claim:  # commits the claim, and knows the live claims after it
            key, live = claims.take_next(conn, assignment, grade_id, list(members), ta, members)
        else:
            key, live = None, claims.live(conn, assignment, grade_id)
        held = {c.key: c.ta for c in live}
        shown = shown or {}
        wanted = set(students)
        keys = [*([key] if key else []),
                *(k for k, found in members.items() if wanted.intersection(found)),
                *(k for k in {*held, *shown} if held.get(k) != (shown.get(k) or None))]
        found = _groups(conn, kept, members, assignment, grade_id, keys, held) if keys else []
        progress = claims.count(conn, assignment, grade_id, live)
    return key, found, progress


def next_group(root: Path, assignment: str, grade_id: str, ta: str,
               shown: Sequence[Group] | None = None) -> str | None:
    """Claim for ``ta`` the first group still to grade that no other TA holds. Reads the
    kept grouping, the moves and the waiting answers' students from the database: no
    notebook and no answer's mark."""
    if shown is not None:
        members = {g.key: g.students for g in shown}
    else:
        with store.engine(course_db_url(root)).connect() as conn:
            kept = base(root, assignment, grade_id, conn)
            members = layout(kept, moves(conn, assignment, grade_id))
    return claims.next_ungraded(course_db_url(root), assignment, grade_id, list(members), ta,
                                members)


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

"""Rubric items per written question, and grading answers with them.

Applying items writes nbgrader's own manual score and comment (``model`` says how items
score and what the student reads). Changing an item re-scores, in one transaction, every
answer that has it. A score given by hand that the rubric would not give is kept and
flagged, never overwritten. Every write to answers names the version of each answer it saw
(``Mark.version``): if another TA graded one since, nothing is written and ``Conflict`` says
who and when, so a TA never overwrites a grade unseen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

import sqlalchemy as sa

from attnkit.written import store
from attnkit.written.model import POSITIONS, Item, Mark, outcome
from attnkit.written.store import ANSWERS, APPLIED, ITEMS, Write

UNSET = object()  # change_item: leave the comment as it is


@dataclass(frozen=True)
class Changed:
    """An answer graded by someone else since the TA saw it."""

    student: str
    by: str | None  # None: changed in formgrader, which records no name
    when: datetime | None
    how: str = "graded"  # or "re-scored": an edit of a rubric item it has

    def __str__(self) -> str:
        if self.by is None:
            return f"{self.student}: changed in formgrader"
        return f"{self.student}: {self.how} by {self.by} at {self.when:%Y-%m-%d %H:%M:%S} UTC"


class Conflict(Exception):
    """Answers changed since the TA saw them; nothing was written."""

    def __init__(self, changed: list[Changed]) -> None:
        self.changed = changed
        super().__init__("graded by someone else since you saw "
                         + ("it" if len(changed) == 1 else "them") + ": "
                         + "; ".join(map(str, changed)))


class RubricError(ValueError):
    """A request that names no such answer or item, or a score out of range."""


@dataclass(frozen=True)
class Graded:
    """What a write did: the answers whose score or comment changed, those that kept a hand
    score the rubric disagrees with, and every answer's version to name in the next write."""

    changed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)


# ------------------------------------------------------------------ items


def items(db_url: str, assignment: str, grade_id: str) -> list[Item]:
    """The question's rubric items, by position."""
    with store.engine(db_url).connect() as conn:
        return store.items(conn, assignment, grade_id)


def add_item(db_url: str, assignment: str, grade_id: str, text: str, points: float, ta: str,
             comment: str | None = None, position: int | None = None) -> Item:
    """A new item at ``position`` (default: the first free one of 1-9)."""
    if not text.strip():
        raise RubricError("a rubric item needs a text")
    with store.engine(db_url).begin() as conn:
        store.lock(conn, ITEMS)
        taken = {i.position for i in store.items(conn, assignment, grade_id)}
        free = [p for p in POSITIONS if p not in taken]
        if position is None and not free:
            raise RubricError(f"{grade_id} has nine rubric items already")
        position = free[0] if position is None else position
        if position not in POSITIONS or position in taken:
            raise RubricError(f"position {position} is taken or not one of 1-9")
        conn.execute(sa.insert(ITEMS).values(
            assignment=assignment, grade_id=grade_id, position=position, text=text.strip(),
            points=float(points), comment=comment or None, changed_by=ta,
            changed_at=store.now()))
        return next(i for i in store.items(conn, assignment, grade_id)
                    if i.position == position)


def change_item(db_url: str, item_id: int, ta: str, text: str | None = None,
                points: float | None = None, comment: str | None | object = UNSET) -> Graded:
    """Change an item's text, points or comment and re-score every answer that has it."""
    with store.engine(db_url).begin() as conn:
        store.lock(conn, ANSWERS)
        old = _item(conn, item_id)
        values = {"text": text.strip() if text is not None else old.text,
                  "points": float(points) if points is not None else old.points,
                  "comment": (comment or None) if comment is not UNSET else old.comment}
        if not values["text"]:
            raise RubricError("a rubric item needs a text")
        having = _having(conn, old)  # read before the change: what the rubric gave them
        conn.execute(sa.update(ITEMS).where(ITEMS.c.id == item_id).values(
            **values, changed_by=ta, changed_at=store.now()))
        new = _item(conn, item_id)
        what = [k for k in values if values[k] != getattr(old, k)]
        return _rescore(conn, old, having,
                        lambda m: tuple(new if i.id == item_id else i for i in m.items),
                        ta, f"rubric item {old.position} {'+'.join(what) or 'saved'}")


def remove_item(db_url: str, item_id: int, ta: str) -> Graded:
    """Remove an item from the rubric and from every answer, re-scoring them."""
    with store.engine(db_url).begin() as conn:
        store.lock(conn, ANSWERS)
        old = _item(conn, item_id)
        graded = _rescore(conn, old, _having(conn, old),
                          lambda m: tuple(i for i in m.items if i.id != item_id),
                          ta, f"rubric item {old.position} removed")
        conn.execute(sa.delete(APPLIED).where(APPLIED.c.item_id == item_id))
        conn.execute(sa.delete(ITEMS).where(ITEMS.c.id == item_id))
        return graded


def _item(conn: sa.Connection, item_id: int) -> Item:
    row = conn.execute(sa.select(ITEMS).where(ITEMS.c.id == item_id)).first()
    if row is None:
        raise RubricError(f"no rubric item {item_id}")
    return store.to_item(row)


def _having(conn: sa.Connection, item: Item) -> list[Mark]:
    return [m for m in store.marks(conn, item.assignment, item.grade_id).values()
            if any(i.id == item.id for i in m.items)]


def _rescore(conn: sa.Connection, item: Item, having: list[Mark],
             new_items: Callable[[Mark], tuple[Item, ...]], ta: str, why: str) -> Graded:
    """``having`` (the answers that have ``item``), their items replaced by
    ``new_items(mark)``, re-scored."""
    writes = []
    for mark in having:
        chosen = new_items(mark)
        writes.append(Write(mark, chosen, mark.note, outcome(mark, chosen, mark.note)))
    store.write(conn, item.assignment, item.grade_id, writes, ta, why, grading=False)
    return Graded([w.mark.student for w in writes if w.changes_gradebook],
                  [w.mark.student for w in writes if w.outcome.kept_score])


# ------------------------------------------------------------------ answers


def apply(db_url: str, assignment: str, grade_id: str, seen: Mapping[str, str], ta: str,
          add: Iterable[int] = (), remove: Iterable[int] = (),
          note: str | None = None) -> Graded:
    """Add and remove items (by position) on a set of answers, a group's or one: ``seen`` maps
    each student to the version of their answer the TA saw. ``note``, when given, replaces
    each answer's note to the student."""
    add, remove = set(add), set(remove)
    with store.engine(db_url).begin() as conn:
        store.lock(conn, ANSWERS)
        current = _current(conn, assignment, grade_id, seen)
        by_position = _positions(conn, assignment, grade_id, add | remove)
        writes = []
        for student in seen:
            mark = current[student]
            chosen = [i for i in mark.items if i.position not in remove]
            chosen += [by_position[p] for p in sorted(add - {i.position for i in chosen})]
            kept_note = mark.note if note is None else note
            writes.append(Write(mark, tuple(chosen), kept_note,
                                outcome(mark, chosen, kept_note, new_note=note is not None)))
        return _written(conn, assignment, grade_id, writes, ta, "rubric applied")


def grade(db_url: str, assignment: str, grade_id: str, student: str, version: str, ta: str,
          positions: Iterable[int], note: str | None = None,
          score: float | None = None) -> Graded:
    """Set one answer's items (by position) and note. ``score``: a score given by hand outside
    the rubric (kept and flagged from then on); without it the rubric's."""
    with store.engine(db_url).begin() as conn:
        store.lock(conn, ANSWERS)
        return set_marks(conn, assignment, grade_id, {student: (version, set(positions), note,
                                                                score)}, ta, "graded")


def set_marks(conn: sa.Connection, assignment: str, grade_id: str,
              wanted: Mapping[str, tuple[str, set[int], str | None, float | None]], ta: str,
              why: str) -> Graded:
    """``grade`` for many answers in the caller's locked transaction (the CSV import):
    student -> (version seen, positions, note, hand score or None)."""
    current = _current(conn, assignment, grade_id, {s: v for s, (v, *_) in wanted.items()})
    by_position = _positions(conn, assignment, grade_id,
                             set().union(*(p for _, p, _, _ in wanted.values())))
    writes = [plan(current[student], tuple(by_position[p] for p in sorted(positions)), note,
                   score) for student, (_, positions, note, score) in wanted.items()]
    return _written(conn, assignment, grade_id, writes, ta, why)


def plan(mark: Mark, chosen: tuple[Item, ...], note: str | None,
         score: float | None = None) -> Write:
    """What setting an answer's items, note and (hand) score would write."""
    if score is not None and not 0 <= score <= mark.max_score:
        raise RubricError(f"{mark.student}: score {score:g} is not within 0 and "
                          f"{mark.max_score:g}")
    return Write(mark, chosen, note, outcome(mark, chosen, note, score, new_note=True))


def _current(conn: sa.Connection, assignment: str, grade_id: str,
             seen: Mapping[str, str]) -> dict[str, Mark]:
    """The answers named in ``seen``; ``Conflict`` if any changed since its version."""
    current = store.marks(conn, assignment, grade_id, seen)
    missing = sorted(set(seen) - set(current))
    if missing:
        raise RubricError(f"no answer to {assignment}/{grade_id} from {', '.join(missing)}")
    changed = [changed_since(current[s], v) for s, v in seen.items()
               if current[s].version != v]
    if changed:
        raise Conflict(changed)
    return current


def changed_since(mark: Mark, version: str) -> Changed:
    """Who changed ``mark`` since it was at ``version``: through the kit, or formgrader."""
    if version.partition("-")[0] != str(mark.revision):
        how = "graded" if mark.changed_at == mark.graded_at else "re-scored"
        return Changed(mark.student, mark.changed_by or "someone", mark.changed_at, how)
    return Changed(mark.student, None, None)


def _positions(conn: sa.Connection, assignment: str, grade_id: str,
               wanted: set[int]) -> dict[int, Item]:
    by_position = {i.position: i for i in store.items(conn, assignment, grade_id)}
    unknown = sorted(wanted - set(by_position))
    if unknown:
        raise RubricError(f"{grade_id} has no rubric item at "
                          + ", ".join(map(str, unknown)))
    return by_position


def _written(conn: sa.Connection, assignment: str, grade_id: str, writes: list[Write],
             ta: str, why: str) -> Graded:
    store.write(conn, assignment, grade_id, writes, ta, why)
    students = [w.mark.student for w in writes]
    after = store.marks(conn, assignment, grade_id, students)
    return Graded([w.mark.student for w in writes if w.changes_gradebook],
                  [w.mark.student for w in writes if w.outcome.kept_score],
                  {s: after[s].version for s in students})


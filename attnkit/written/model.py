"""What a rubric item is, how items score an answer, what the student reads, and the version
a write must name. Pure: the tables are ``store``'s.

The scoring model is additive, as Gradescope's "positive scoring" with its default bounds:
an answer's score is the sum of the points of the items applied to it, kept within 0 and the
question's points. An item may have negative points (a penalty beside credit items). An
answer with no item applied has no rubric score: it is ungraded, unless a score was given by
hand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from attnkit.gradedata import fmt_score

POSITIONS = range(1, 10)  # an item's key on the grading page
EPSILON = 1e-9


@dataclass(frozen=True)
class Item:
    """One rubric item of one written question."""

    id: int
    assignment: str
    grade_id: str
    position: int  # 1-9: the key that applies it
    text: str  # what the TA sees and the student reads
    points: float  # added to the answer's score; negative: a penalty
    comment: str | None = None  # said to every student who gets the item


@dataclass(frozen=True)
class Mark:
    """One student's answer to one question as the gradebook holds it: nbgrader's score and
    comment, and the kit's own record (items applied, the TA's note, who graded it)."""

    student: str
    notebook: str
    max_score: float
    auto_score: float | None
    manual_score: float | None
    needs_manual_grade: bool
    auto_comment: str | None
    manual_comment: str | None
    items: tuple[Item, ...] = ()
    note: str | None = None  # the TA's own comment, after the items'
    revision: int = 0  # the kit's writes to this answer so far
    graded_by: str | None = None  # the TA who last graded it through the kit
    graded_at: datetime | None = None
    changed_by: str | None = None  # the last to change it through the kit: a TA or an item's edit
    changed_at: datetime | None = None
    grade_row: str = ""  # nbgrader's Grade.id
    comment_row: str | None = None  # nbgrader's Comment.id
    answer_id: int | None = None  # the kit's row

    @property
    def rubric_score(self) -> float | None:
        return rubric_score((i.points for i in self.items), self.max_score)

    @property
    def score(self) -> float | None:
        """The score nbgrader counts; None while the answer awaits a TA."""
        if self.manual_score is not None:
            return self.manual_score
        return None if self.needs_manual_grade else (self.auto_score or 0.0)

    @property
    def comment(self) -> str | None:
        return self.manual_comment if self.manual_comment is not None else self.auto_comment

    @property
    def hand_scored(self) -> bool:
        """A manual score the rubric would not give: typed in formgrader, or imported."""
        return self.manual_score is not None and not same(self.manual_score, self.rubric_score)

    @property
    def hand_commented(self) -> bool:
        """A manual comment that is not the rubric's: typed in formgrader."""
        return bool(self.manual_comment) and self.manual_comment != compose(self.items, self.note)

    @property
    def version(self) -> str:
        """What a write names: the kit's revision, and nbgrader's score and comment, so that a
        change made in formgrader counts as much as one made through the kit."""
        seen = f"{self.manual_score!r}\x00{self.manual_comment!r}".encode()
        return f"{self.revision}-{hashlib.sha256(seen).hexdigest()[:8]}"


def same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) < EPSILON


def rubric_score(points: Iterable[float], max_score: float) -> float | None:
    """The sum of the applied items' points within [0, max_score]; None when none applies."""
    given = list(points)
    if not given:
        return None
    return min(max(sum(given), 0.0), max_score)


def signed(points: float) -> str:
    return ("+" if points >= 0 else "-") + fmt_score(abs(points))


def compose(items: Iterable[Item], note: str | None) -> str | None:
    """The comment the student reads: a line per item applied (its points, text and comment),
    then the TA's note. None when there is neither."""
    lines = [f"{signed(i.points)} {i.text}" + (f": {i.comment}" if i.comment else "")
             for i in sorted(items, key=lambda i: i.position)]
    parts = ["\n".join(lines)] if lines else []
    if note and note.strip():
        parts.append(note.strip())
    return "\n\n".join(parts) or None


@dataclass(frozen=True)
class Outcome:
    """What a write leaves in nbgrader's gradebook for one answer."""

    manual_score: float | None
    manual_comment: str | None
    kept_score: bool  # a hand score the rubric disagrees with, kept
    kept_comment: bool


def outcome(mark: Mark, items: Iterable[Item], note: str | None,
            score: float | None = None, new_note: bool = False) -> Outcome:
    """The score and comment ``mark`` gets with ``items`` and ``note``. ``score``: a score
    given by hand by a TA who saw the answer's current one; ``new_note``: ``note`` was typed
    by such a TA. Without them, a hand score (or hand comment) already there is kept, never
    overwritten by the rubric."""
    items = tuple(items)
    if score is not None:
        manual, kept = score, False
    elif mark.hand_scored:
        manual, kept = mark.manual_score, True
    else:
        manual, kept = rubric_score((i.points for i in items), mark.max_score), False
    if mark.hand_commented and not new_note:
        return Outcome(manual, mark.manual_comment, kept, True)
    return Outcome(manual, compose(items, note), kept, False)

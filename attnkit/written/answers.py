"""An assignment's written questions and each student's answer to one, as a TA grades them.

A written question is a manually graded answer cell: a grade cell that is also a solution
cell (autograded test cells and tasks are not). The answer's text is the cell's source in the
student's autograded notebook, what formgrader shows; its score and comment are nbgrader's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import MissingEntry
from nbgrader.coursedir import CourseDirectory

from attnkit.course import coursedir, open_gradebook
from attnkit.course import db_url as course_db_url
from attnkit.written import store
from attnkit.written.model import Item, Mark


class UnknownAssignment(LookupError):
    """The gradebook has no such assignment."""


@dataclass(frozen=True)
class Question:
    """One written question of an assignment."""

    assignment: str
    notebook: str
    grade_id: str
    max_score: float
    mark_scheme: str  # what the kit tells TAs to look for; "" when it has none


@dataclass(frozen=True)
class Answer:
    """One student's answer to one written question."""

    student: str
    grade_id: str
    text: str | None  # None: no autograded notebook, or no such cell in it
    mark: Mark  # nbgrader's score and comment, the kit's items, note and version

    @property
    def score(self) -> float | None:
        return self.mark.score

    @property
    def max_score(self) -> float:
        return self.mark.max_score

    @property
    def comment(self) -> str | None:
        return self.mark.comment

    @property
    def items(self) -> tuple[Item, ...]:
        return self.mark.items

    @property
    def graded(self) -> bool:
        return not self.mark.needs_manual_grade

    @property
    def hand_scored(self) -> bool:
        """Scored by hand outside the rubric (formgrader, or a score typed by a TA)."""
        return self.mark.hand_scored

    @property
    def version(self) -> str:
        """Name it in the next write to this answer (``rubric.apply``, ``rubric.grade``)."""
        return self.mark.version


def questions(root: Path, assignment: str) -> list[Question]:
    """The assignment's written questions, in the order its notebooks show them."""
    from attnkit.judge import registry

    cd = coursedir(root)
    schemes = registry.written()
    found = []
    with open_gradebook(root) as gb:
        try:
            record = gb.find_assignment(assignment)
        except MissingEntry:
            raise UnknownAssignment(f"assignment {assignment!r} is not in the gradebook") \
                from None
        for nb in sorted(record.notebooks, key=lambda n: n.name):
            answers = {c.name for c in nb.solution_cells}
            order = _cell_order(cd, assignment, nb.name)
            cells = sorted((c for c in nb.grade_cells if c.name in answers),
                           key=lambda c: (order.get(c.name, len(order)), c.name))
            found += [Question(assignment, nb.name, c.name, float(c.max_score),
                               getattr(schemes.get(c.name), "mark_scheme", "")) for c in cells]
    names = [q.grade_id for q in found]
    if len(set(names)) != len(names):
        raise ValueError(f"{assignment}: two notebooks use the same grade id for a written "
                         "answer; the kit names a question by its grade id")
    return found


def answers(root: Path, assignment: str, grade_id: str,
            students: Iterable[str] | None = None) -> list[Answer]:
    """Every submitted answer to the question (or ``students``'), by student id."""
    with store.engine(course_db_url(root)).connect() as conn:
        marks = store.marks(conn, assignment, grade_id, students)
    cd = coursedir(root)
    return [Answer(student, grade_id, answer_text(cd, assignment, mark.notebook, student,
                                                  grade_id), mark)
            for student, mark in sorted(marks.items())]


def answer_text(cd: CourseDirectory, assignment: str, notebook: str, student: str,
                grade_id: str) -> str | None:
    """The cell's source in the student's autograded notebook."""
    path = Path(cd.format_path(cd.autograded_directory, student, assignment)) / f"{notebook}.ipynb"
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
        if isinstance(cell, dict) and cell.get("metadata", {}).get("nbgrader", {}).get(
                "grade_id") == grade_id:
            source = cell.get("source", "")
            return "".join(source) if isinstance(source, list) else str(source)
    return None


def _cell_order(cd: CourseDirectory, assignment: str, notebook: str) -> dict[str, int]:
    """Grade id -> its place in the release (or source) notebook."""
    for step in (cd.release_directory, cd.source_directory):
        path = Path(cd.format_path(step, ".", assignment)) / f"{notebook}.ipynb"
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError, AttributeError):
            continue
        ids = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in cells
               if isinstance(c, dict)]
        return {grade_id: i for i, grade_id in enumerate(ids) if grade_id}
    return {}

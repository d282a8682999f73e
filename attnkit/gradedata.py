"""The graded assignment as the instructor's tools read it: its graded cells, each student's
marks, and why a submission did not grade. Its own module, below the report and the review,
so that both use it and neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# problem kinds: the first four mean nothing was graded, the rest that grading was partial
INVALID, MISSING, NOT_GRADED, NOT_AUTOGRADED = ("invalid notebook", "missing notebook",
                                                 "not graded", "not autograded yet")
CRASHED, TIMED_OUT, UNREADABLE, OUTDATED = ("kernel died", "timeout",
                                            "unreadable autograded notebook",
                                            "resubmitted after grading")

GRADED, FAILED, WAITING = "graded", "failed to grade", "not autograded yet"


@dataclass(frozen=True)
class Cell:
    """One graded cell of the assignment."""

    notebook: str
    name: str
    kind: str  # "auto" (a test cell) or "manual" (a written answer or task a TA grades)
    max_score: float
    label: str  # how tables and figures name it

    @property
    def key(self) -> tuple[str, str]:
        return self.notebook, self.name


@dataclass
class Mark:
    """One student's grade on one cell."""

    score: float | None  # None while a written answer awaits a TA
    max_score: float
    auto_score: float | None
    manual_score: float | None
    needs_manual_grade: bool
    verdict: dict | None = None  # the hidden check's verdict, from the cell metadata
    error: str | None = None  # the first error the cell showed when autograded
    comment: str | None = None  # the TA's (or autograder's) comment from the gradebook

    @property
    def graded_by(self) -> str:
        if self.manual_score is not None:
            return "manual"
        return "auto" if self.auto_score is not None else ""

    @property
    def full(self) -> bool:
        if self.verdict is not None:
            return float(self.verdict.get("score", 0)) >= float(self.verdict.get("points", 0))
        return self.score is not None and self.score >= self.max_score

    @property
    def hint(self) -> str:
        if self.verdict is not None:
            return str(self.verdict.get("message") or "")
        return self.error or ""


@dataclass(frozen=True)
class Problem:
    """Why (part of) a submission did not grade."""

    student: str
    notebook: str  # file name, or "" for the whole submission
    kind: str
    detail: str


@dataclass
class Submission:
    student: str
    status: str  # GRADED, FAILED or WAITING
    score: float = 0.0
    max_score: float = 0.0
    penalty: float = 0.0
    marks: dict[tuple[str, str], Mark] = field(default_factory=dict)

    @property
    def final_score(self) -> float:
        """The score with the late penalty taken off, as ``nbgrader export`` gives it."""
        return max(0.0, self.score - self.penalty)

    @property
    def pending(self) -> int:
        return sum(1 for m in self.marks.values() if m.needs_manual_grade)


@dataclass
class AssignmentData:
    name: str
    course_id: str
    db: str
    cells: list[Cell]
    max_score: float
    submissions: dict[str, Submission]  # every student who handed something in
    problems: list[Problem]
    absent: list[str]  # in the gradebook's student list, with no submission
    db_url: str = ""  # where the regrade audit is (attnkit.review.regrades)
    course_root: Path | None = None  # where the grading service's journal is (attnkit.serve)

    @property
    def graded(self) -> list[Submission]:
        return [s for _, s in sorted(self.submissions.items()) if s.status == GRADED]

    @property
    def auto_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.kind == "auto"]

    def problems_of(self, student: str) -> list[Problem]:
        return [p for p in self.problems if p.student == student]


def fmt_score(value: float | None, places: int = 4) -> str:
    """A score as people write it: 2, 0.5, 5.79 (no trailing zeros)."""
    if value is None:
        return ""
    text = f"{round(value, places):f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text

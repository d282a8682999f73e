"""The Dask task that takes one submission from inbound to released feedback, in a worker.

Every step is nbgrader's own and idempotent, so a task cut short (the service or its worker
killed) is simply run again: collect for this student with nbgrader's rule, the kit's intake,
``autograde`` unless this very submission's grades are already saved, ``generate_feedback``
and ``release_feedback`` for this student only.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.utils import temp_attrs
from traitlets.utils.importstring import import_item

from attnkit.grading import grader
from attnkit.pipeline import intake
from attnkit.serve.exchange import SECRET, CollectOne
from attnkit.serve.journal import FAILED, GRADED, JOURNAL, NOT_COUNTED, SUPERSEDED
from attnkit.upstream.gradebook import shared_engine

MARKS = JOURNAL.parent / "graded"  # one file per student and assignment: the secret graded
# matplotlib's inline backend with no figure format: a plot is made but not drawn (a figure
# is a third of a notebook's grading time) and shows as its text, which the page replaces
NO_PLOTS = ("--InlineBackend.figure_formats=[]",)


def kernel_arguments(plots: bool) -> tuple[str, ...]:
    """The grading kernel's extra arguments, with or without drawing plots."""
    return () if plots else NO_PLOTS


@dataclass
class Result:
    """What became of one submission; ``counted`` names the submission nbgrader's rule picked
    when it was not this one."""

    state: str
    reason: str | None = None
    score: float | None = None
    max_score: float | None = None
    released: float | None = None
    counted: float | None = None
    resumed: bool = False  # its grades were saved by an attempt cut short after that


def process(root: str, db_url: str, kernel: str | None, name: str, student: str,
            assignment: str, plots: bool, secret: bytes, times: dict[str, float]) -> Result:
    """Collect, grade and release feedback for submission ``name`` (with its plots drawn,
    or not), weighing the student's hand-ins at the times the service gave them
    (``times``) and keeping the secret it read (``secret``); never raises for a bad
    submission."""
    with grader._LOCK, shared_engine():
        api = grader._worker_api(root, db_url, kernel, kernel_arguments(plots))
        _marking(api)
        coursedir = api.coursedir
        with temp_attrs(coursedir, assignment_id=assignment, student_id=student):
            collect = CollectOne(times, secret, coursedir=coursedir,
                                 authenticator=api.authenticator, parent=api)
            collect.update = True
            try:
                collect.init_src()
                chosen = collect.chosen()
                if chosen != name:
                    counted = collect.src_records[0]["seconds"] if chosen else None
                    return Result(SUPERSEDED if counted and counted > times[name]
                                  else NOT_COUNTED, reason=f"nbgrader's rule counts {chosen}",
                                  counted=counted)
                collect.init_dest()
                collect.collect(collect.src_records[0])
            except Exception as error:  # noqa: BLE001 - the student is told why
                return Result(FAILED, reason=f"collect: {type(error).__name__}: {error}"[:300])
        submitted = Path(coursedir.format_path(coursedir.submitted_directory, student,
                                               assignment))
        intake.prepare(Path(root), assignment, student)
        resumed = _graded(_mark(root, student, assignment), (submitted / SECRET).read_text())
        if not resumed:
            result = api.autograde(assignment, student, force=True, create=False)
            reason = (grader.missing_grades(coursedir, assignment, student)
                      if result["success"] else grader.failure_reason(result))
            if reason is not None:
                return Result(FAILED, reason=reason)
        result = api.generate_feedback(assignment, student, force=True)
        if not result["success"]:
            return Result(FAILED, reason="feedback: " + grader.failure_reason(result))
        result = api.release_feedback(assignment, student)
        if not result["success"]:
            return Result(FAILED, reason="release: " + grader.failure_reason(result))
        released = time.time()
        with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
            record = gb.find_submission(assignment, student)
            return Result(GRADED, score=record.score, max_score=record.max_score,
                          released=released, resumed=resumed)


def _graded(marks: Path, secret: str) -> bool:
    """Whether this very submission's autograde finished (``_marking``'s mark holds its
    secret)."""
    try:
        return marks.read_text() == secret
    except OSError:
        return False


def _marking(api) -> None:
    """Make the API's autograde, once it has written every notebook (after ``SaveAutoGrades``),
    leave a mark with the submission's secret in ``.attnkit/serve/graded/``, before any hook
    of the course's own. The notebooks alone prove nothing: nbgrader writes each one twice,
    sanitized first."""
    course_hook = api.config.Autograde.get("post_convert_hook")
    if getattr(course_hook, "marks_graded", False):
        return
    if isinstance(course_hook, str):
        course_hook = import_item(course_hook)
    coursedir = api.coursedir

    def marked(assignment: str, student: str, notebooks: list[str]) -> None:
        autograded = Path(coursedir.format_path(coursedir.autograded_directory, student,
                                                assignment))
        mark = _mark(coursedir.root, student, assignment)
        mark.parent.mkdir(parents=True, exist_ok=True)
        tmp = mark.with_name(f".{mark.name}.tmp")
        tmp.write_text((autograded / SECRET).read_text())
        tmp.replace(mark)
        if course_hook:
            course_hook(assignment=assignment, student=student, notebooks=notebooks)

    marked.marks_graded = True
    config = copy.deepcopy(api.config)
    config.Autograde.post_convert_hook = marked
    api.config = config


def _mark(root: str, student: str, assignment: str) -> Path:
    return Path(root) / MARKS / f"{student}+{assignment}"

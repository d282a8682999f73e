"""The worker side of ``attnkit autograde``: the Dask tasks that grade in a long-lived worker
process, and what they answer when a submission fails.

Dask sends these functions by reference, so a worker imports this module to run them (a
local worker has it already: ``attnkit.grading.worker`` imports the grader).
"""

from __future__ import annotations

import logging
import re
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.validator import MissingIDFieldWarning
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import is_grade, is_solution
from sqlalchemy.exc import SAWarning

from attnkit import sandbox
from attnkit.course import load_config
from attnkit.grading.settings import forks_warm, pipeline_config
from attnkit.upstream.gradebook import shared_engine


@dataclass
class Outcome:
    """A worker's answer for one submission: reason is None if it was graded."""

    student: str
    reason: str | None
    log: str = ""


_LOCK = threading.Lock()  # one submission at a time per process: chdir, env and seed are global
_APIS: dict[tuple, NbGraderAPI] = {}
_configured: tuple | None = None  # the course whose config last ran in this process


def _worker_api(course_root: str, db_url: str, kernel: str | None,
                kernel_arguments: tuple[str, ...] = ()) -> NbGraderAPI:
    """This process's grading API for a course, built again if its config file changed."""
    config_file = Path(course_root) / "nbgrader_config.py"
    stamp = config_file.stat().st_mtime_ns if config_file.exists() else None
    global _configured
    key = (course_root, db_url, kernel, kernel_arguments, stamp)
    if key not in _APIS:
        for noise in (MissingIDFieldWarning, SAWarning):  # nbgrader's, printed per worker
            warnings.filterwarnings("ignore", category=noise)
        config = load_config(Path(course_root))
        config.CourseDirectory.db_url = db_url
        config.merge(pipeline_config(config, kernel, kernel_arguments))
        api = NbGraderAPI(config=config)
        api.log_level = logging.WARNING
        _APIS[key] = api
    elif _configured != (course_root, stamp):
        # the checks are the process's, not the API's: another course's config ran since
        load_config(Path(course_root))
    _configured = (course_root, stamp)
    return _APIS[key]


def warm_up(course_root: str, db_url: str, kernel: str | None,
            kernel_arguments: list[tuple[str, ...]]) -> None:
    """Dask task: build this worker's grading APIs and connect to its warm-kernel server (the
    run's, or one of its own), so that a long-running service's first submissions grade as
    fast as the rest."""
    with _LOCK:
        for arguments in kernel_arguments:
            api = _worker_api(course_root, db_url, kernel, arguments)
        if forks_warm(kernel, api.config):
            sandbox.Forkserver.start()


def grade_submission(course_root: str, assignment: str, student: str, db_url: str,
                     kernel: str | None) -> Outcome:
    """Dask task: autograde one submission in this process; a bad submission never raises."""
    with _LOCK, shared_engine():  # nbgrader's ~9 gradebooks per notebook share one engine
        api = _worker_api(course_root, db_url, kernel)
        result = api.autograde(assignment, student, force=True, create=False)
        if result["success"]:
            reason = missing_grades(api.coursedir, assignment, student)
        else:
            reason = failure_reason(result)
        text = "" if reason is None else (result.get("log") or "") + (result.get("error") or "")
        return Outcome(student, reason, text)


_EXCEPTION_LINE = re.compile(r"^ {0,4}([A-Za-z_][\w.]*)(: .*)?$")


def failure_reason(result: dict) -> str:
    """The last exception in nbgrader's captured log, as ``Name: message``."""
    lines = (result.get("log") or "").splitlines() + (result.get("error") or "").splitlines()
    found = [m for m in map(_EXCEPTION_LINE.match, lines)
             if m and m.group(2) and "NbGraderException" not in m.group(1)]
    if found:
        name, message = found[-1].groups()
        return f"{name.rsplit('.', 1)[-1]}{message}"[:300]
    errors = [line for line in lines if line.startswith("[ERROR]")]
    return (errors[0] if errors else "autograde failed without an error message")[:300]


def missing_grades(coursedir: CourseDirectory, assignment: str, student: str) -> str | None:
    """Why a "successful" submission lacks an autograded notebook or a test score, if it does."""
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            return "no submission in the gradebook after grading"
        for notebook in submission.notebooks:
            path = Path(coursedir.format_path(coursedir.autograded_directory, student,
                                              assignment)) / f"{notebook.name}.ipynb"
            if not path.exists():
                return f"no autograded notebook {path}"
            tests = {cell.metadata.nbgrader["grade_id"] for cell in nbformat.read(path, 4).cells
                     if is_grade(cell) and not is_solution(cell)}
            ungraded = sorted(g.name for g in notebook.grades
                              if g.name in tests and g.auto_score is None)
            if ungraded:
                return f"test cells left ungraded in {notebook.name}: {', '.join(ungraded)}"
    return None

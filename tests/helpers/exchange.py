"""A scratch course wired to a real nbgrader exchange folder, and students who submit to it and
fetch their feedback through nbgrader's own exchange classes (what the Assignments tab runs)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default import ExchangeFetchFeedback, ExchangeSubmit

from attnkit.course import db_url, load_config
from attnkit.samples import Sample, build_submission

COURSE = "self-attention"


def exchange_course(base: Path, assignments: list[str], extra_config: str = "") -> Path:
    """A copy of the course under ``base/course`` whose exchange is ``base/exchange``, with
    ``assignments`` released to it (``nbgrader release_assignment``)."""
    from helpers.course import copy_course  # tests/ is on sys.path for pytest and the benchmark

    root = copy_course(base / "course")
    exchange = base / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    with (root / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.Exchange.root = {str(exchange)!r}\n"
                     f"c.HandInPolicy.single_account = True  # every hand-in is ours\n"
                     f"{extra_config}\n")
    api = NbGraderAPI(config=load_config(root))
    for assignment in assignments:
        result = api.release_assignment(assignment)
        assert result["success"], result.get("log", "") + result.get("error", "")
    return root


def right(root: Path, assignment: str) -> nbformat.NotebookNode:
    """The release with the master solutions filled in."""
    name = f"{assignment}.ipynb"
    return build_submission(root / "source" / assignment / name,
                            root / "release" / assignment / name, Sample("right"))


def place(home: Path, assignment: str, nb: nbformat.NotebookNode) -> None:
    """Put ``nb`` in the student's working copy of ``assignment``."""
    folder = home / assignment
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{assignment}.ipynb")


def _exchange(app_class: type, root: Path, base: Path, student: str, assignment: str):
    """One of nbgrader's exchange apps run as ``student`` would run it, from
    ``base/home/STUDENT`` with a cache of their own; returns the app."""
    config = load_config(root)
    config.Exchange.cache = str(base / "cache" / student)
    coursedir = CourseDirectory(config=config)
    coursedir.student_id, coursedir.assignment_id = student, assignment
    app = app_class(coursedir=coursedir, authenticator=Authenticator(config=config),
                    config=config)
    app.assignment_dir = str(base / "home" / student)
    app.start()
    return app


_ROSTER: set[tuple[Path, str]] = set()


def enrol(root: Path, student: str) -> None:
    """Put ``student`` on the course's roster (once), as the instructor would: hand-ins of
    students off the roster are not taken in."""
    from attnkit.grading.grader import _alembic_on_path

    if (root, student) in _ROSTER:
        return
    with _alembic_on_path(), Gradebook(db_url(root)) as gb:
        gb.update_or_create_student(student)
    _ROSTER.add((root, student))


def submit(root: Path, base: Path, student: str, assignment: str) -> str:
    """``nbgrader submit`` of ``base/home/STUDENT/ASSIGNMENT`` as ``student`` (on the roster);
    returns the inbound folder's name."""
    enrol(root, student)
    return _exchange(ExchangeSubmit, root, base, student, assignment).assignment_filename


def fetch_feedback(root: Path, base: Path, student: str, assignment: str) -> dict[str, str]:
    """``nbgrader fetch_feedback`` as ``student``: the fetched pages by submission timestamp."""
    _exchange(ExchangeFetchFeedback, root, base, student, assignment)
    folder = base / "home" / student / assignment / "feedback"
    return {} if not folder.is_dir() else {
        stamp: (folder / stamp / f"{assignment}.html").read_text()
        for stamp in os.listdir(folder) if (folder / stamp / f"{assignment}.html").exists()}

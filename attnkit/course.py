"""Whole-course operations through nbgrader's own API: release, feedback, the grade table;
and where a course keeps its gradebook and reports, for every tool that reads them."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from jupyter_core.paths import jupyter_config_path
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from sqlalchemy.engine import make_url
from tqdm import tqdm
from traitlets.config import Config, PyFileConfigLoader
from traitlets.config.loader import ConfigFileNotFound


def load_config(root: Path) -> Config:
    """The ``nbgrader_config.py`` files stock nbgrader reads: Jupyter's config dirs, the course.
    Each load starts from the kit's own checks, so a config that replaces one applies once."""
    from attnkit.judge import registry

    registry.reset()
    config = Config()
    for directory in [*reversed(jupyter_config_path()), str(root)]:
        with contextlib.suppress(ConfigFileNotFound):
            config.merge(PyFileConfigLoader("nbgrader_config.py", path=directory).load_config())
    config.CourseDirectory.root = str(root)
    return config


def coursedir(root: Path) -> CourseDirectory:
    return CourseDirectory(config=load_config(root), root=str(root))


def open_gradebook(root: Path) -> Gradebook:
    """The course's gradebook; refuses to create an empty SQLite file where none is."""
    cd = coursedir(root)
    url = make_url(cd.db_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        if not Path(url.database).is_file():
            raise SystemExit(f"no gradebook at {url.database}: run `nbgrader generate_assignment`"
                             " and `nbgrader autograde` first")
    return Gradebook(cd.db_url, cd.course_id)


def default_out(root: Path, assignment: str) -> Path:
    """Where an assignment's report and similarity pages go unless told otherwise."""
    return Path(root) / "reports" / assignment


@contextlib.contextmanager
def course_api(root: Path, **overrides: object) -> Iterator[NbGraderAPI]:
    """An NbGraderAPI on the course at ``root`` (working directory set to it)."""
    config = load_config(root)
    for key, value in overrides.items():
        section, name = key.split(".")
        config[section][name] = value
    coursedir = CourseDirectory(config=config, root=str(root))
    previous = os.getcwd()
    os.chdir(root)
    try:
        yield NbGraderAPI(coursedir=coursedir, config=config)
    finally:
        os.chdir(previous)


def assignments(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "source").iterdir() if p.is_dir()
                  and any(p.glob("*.ipynb")))


def db_url(root: Path) -> str:
    return coursedir(root).db_url


def release(root: Path, names: list[str] | None = None) -> None:
    """``nbgrader generate_assignment`` for each assignment; raises on failure."""
    with course_api(root) as api:
        for name in tqdm(names or assignments(root), desc="generate", unit="assignment"):
            result = api.generate_assignment(name, force=True)
            if not result["success"]:
                raise RuntimeError(f"generate_assignment {name} failed:\n{result['error']}"
                                   f"\n{result['log']}")


def feedback(root: Path, assignment: str) -> list[str]:
    """``nbgrader generate_feedback`` for every autograded student; returns failures."""
    students = sorted(p.name for p in (root / "autograded").iterdir()
                      if (p / assignment).is_dir())
    failed = []
    with course_api(root) as api:
        for student in tqdm(students, desc=f"feedback {assignment}", unit="student"):
            if not api.generate_feedback(assignment, student, force=True)["success"]:
                failed.append(student)
    return failed


def grade_table(root: Path) -> tuple[list[str], dict[str, dict[str, tuple[float, float]]]]:
    """Scores per student and assignment: {student: {assignment: (score, max)}}."""
    names = assignments(root)
    table: dict[str, dict[str, tuple[float, float]]] = {}
    with Gradebook(db_url(root)) as gb:
        for student in gb.students:
            for name in names:
                try:
                    sub = gb.find_submission(name, student.id)
                except MissingEntry:
                    continue
                table.setdefault(student.id, {})[name] = (sub.score, sub.max_score)
    return names, table

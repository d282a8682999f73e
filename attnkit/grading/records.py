"""What ``attnkit autograde`` finds and keeps before and after the fan-out: the submissions and
their fingerprints, the gradebook's rows, and a record of each submission's last grading.

The coordinator creates the gradebook schema, the assignment and the students before any
task starts, so workers never race to create them. A submission's record (its fingerprint,
or its failure log) lives in ``.attnkit/autograde/ASSIGNMENT/`` and says whether an unchanged
submission may be skipped next time.
"""

from __future__ import annotations

import contextlib
import copy
import glob
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from attnkit.grading.settings import GradingError
from attnkit.grading.task import failure_reason

STATE_DIR = Path(".attnkit") / "autograde"

log = logging.getLogger("attnkit.grading.grader")  # the command's logger, whichever part logs


def submissions(coursedir: CourseDirectory, assignment: str) -> dict[str, Path]:
    """Every submission of ``assignment``, by student id."""
    pattern = coursedir.format_path(coursedir.submitted_directory, "*", assignment)
    found = {Path(path).parent.name: Path(path) for path in glob.glob(pattern)
             if os.path.isdir(path)}
    excluded = set(filter(None, coursedir.student_id_exclude.split(",")))
    return {student: path for student, path in sorted(found.items()) if student not in excluded}


def fingerprint(path: Path) -> str:
    """A digest of every file in a submission."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(path)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


@contextlib.contextmanager
def _alembic_on_path() -> Iterator[None]:
    """nbgrader runs ``alembic`` from PATH when it creates a gradebook."""
    old = os.environ.get("PATH", "")
    if shutil.which("alembic") is None:
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{old}"
    try:
        yield
    finally:
        os.environ["PATH"] = old


def prepare_gradebook(config: Config, assignment: str,
                      students: list[str]) -> tuple[set[str], list[str]]:
    """Create the schema, the assignment (from source/ if the gradebook lacks it) and the
    students; return who already has a submission in the gradebook, and the notebooks."""
    coursedir = CourseDirectory(config=config)
    with _alembic_on_path(), Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        if gb.engine.dialect.name == "sqlite":
            # Write-ahead logging: workers read while another writes, and a write holds the
            # lock only while it commits. Kept by the file; SQLite itself must not be on NFS.
            with gb.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA journal_mode=WAL")
        from attnkit.pipeline import audit

        with gb.engine.begin() as connection:  # the audit's table, before workers race for it
            audit.with_table(connection)
        with contextlib.suppress(MissingEntry):
            if gb.find_assignment(assignment).notebooks:
                return _create_students(gb, assignment, students)
    log.warning("Adding %s to the gradebook from %s", assignment, coursedir.source_directory)
    with tempfile.TemporaryDirectory(prefix="attnkit-release-") as scratch:
        scratch_config = copy.deepcopy(config)
        scratch_config.CourseDirectory.release_directory = scratch  # leave release/ alone
        result = NbGraderAPI(config=scratch_config).generate_assignment(assignment, force=True)
    if not result["success"]:
        raise GradingError(f"cannot add {assignment} to the gradebook: {failure_reason(result)}")
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        return _create_students(gb, assignment, students)


def _create_students(gb: Gradebook, assignment: str,
                     students: list[str]) -> tuple[set[str], list[str]]:
    known = {s.id for s in gb.students}
    for student in students:
        if student not in known:
            gb.add_student(student)
    record = gb.find_assignment(assignment)
    return {s.student.id for s in record.submissions}, [nb.name for nb in record.notebooks]


class _State:
    """Per-submission records in ``.attnkit/autograde/ASSIGNMENT/``: fingerprints, failure logs."""

    def __init__(self, coursedir: CourseDirectory, assignment: str) -> None:
        self.dir = Path(coursedir.root) / STATE_DIR / assignment
        self.db = hashlib.sha256(coursedir.db_url.encode()).hexdigest()[:16]

    def unchanged(self, student: str, digest: str) -> bool:
        path = self.dir / f"{student}.json"
        with contextlib.suppress(OSError, ValueError):
            return json.loads(path.read_text()) == {"digest": digest, "db": self.db}
        return False

    def graded(self, student: str, digest: str) -> None:
        self._write(f"{student}.json", json.dumps({"digest": digest, "db": self.db}))
        (self.dir / f"{student}.log").unlink(missing_ok=True)

    def failed(self, student: str, text: str) -> Path:
        (self.dir / f"{student}.json").unlink(missing_ok=True)
        return self._write(f"{student}.log", text)

    def _write(self, name: str, text: str) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / name
        tmp = path.with_name(f".{name}.{os.getpid()}")
        tmp.write_text(text)
        tmp.replace(path)
        return path

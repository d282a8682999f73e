"""Parallel autograding on Dask distributed: ``attnkit autograde ASSIGNMENT``.

Each submission (student, assignment) is one Dask task. Workers are long-lived
processes, one task at a time each, that grade in-process through nbgrader's
own API (``NbGraderAPI.autograde``: the ``Autograde`` converter with the
course's preprocessors); only the kernels are subprocesses. The course's
pipeline gets grading-only settings (``pipeline_config``): a kernel that fails
to start is started again, its stdout stays off the terminal, and it is killed
instead of shut down gracefully once its notebook has run (nothing is graded
after that; about 0.4 s per notebook).

Before fanning out, the coordinator creates the gradebook schema, the
assignment and the students, so workers never race to create them. A
submission whose files are unchanged since it was last graded into the same
gradebook is skipped unless ``force``; every other one ends either graded (its
grades in the gradebook and its autograded notebook on disk) or failed with a
reason, its log kept in ``.attnkit/autograde/ASSIGNMENT/STUDENT.log``.
"""
# ruff: noqa: E402 - third-party imports follow the lazy_iri hook below

from __future__ import annotations

import argparse
import contextlib
import copy
import glob
import hashlib
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from attnkit import upstream

upstream.skip_iri_grammar()  # before nbformat is imported

import nbformat
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from nbformat.validator import MissingIDFieldWarning
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.converters import Autograde
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import Execute
from nbgrader.utils import is_grade, is_solution
from sqlalchemy.exc import SAWarning
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from attnkit import sandbox
from attnkit.course import load_config
from attnkit.grading.cluster import default_workers, local_cluster
from attnkit.pipeline import intake
from attnkit.upstream.execution import GradingExporter, KernelStart, PromptClient
from attnkit.upstream.gradebook import shared_engine

KERNEL_ENV = "ATTNKIT_KERNEL"
STATE_DIR = Path(".attnkit") / "autograde"

log = logging.getLogger(__name__)


class GradingError(Exception):
    """The run cannot start (no kernel, no assignment, ...); nothing was graded."""


@dataclass
class Summary:
    """What one ``autograde`` run did, by student id."""

    assignment: str
    graded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    repaired: dict[str, list[str]] = field(default_factory=dict)  # by intake, before grading
    seconds: float = 0.0

    def report(self, timed: bool = True) -> str:
        """A few lines for the terminal (``timed``: with the run's time and rate)."""
        rate = f", {len(self.graded) / self.seconds:.2f} notebooks/s" if self.graded else ""
        lines = [f"{self.assignment}: graded {len(self.graded)}, skipped {len(self.skipped)}, "
                 f"failed {len(self.failed)}" + (f" in {self.seconds:.1f} s{rate}" if timed
                                                 else "")]
        lines += [f"  repaired {student}: {why}" for student, whys in self.repaired.items()
                  for why in whys]
        lines += [f"  FAILED {student}: {self.reasons[student]}" for student in self.failed]
        return "\n".join(lines)


@dataclass
class Outcome:
    """A worker's answer for one submission: reason is None if it was graded."""

    student: str
    reason: str | None
    log: str = ""


# -- configuration ---------------------------------------------------------------------------

def _pipeline(config: Config) -> list[type]:
    """The classes of ``Autograde.autograde_preprocessors``."""
    if "autograde_preprocessors" in config.Autograde:
        entries = config.Autograde.autograde_preprocessors
    else:
        entries = Autograde.class_traits()["autograde_preprocessors"].default()
    return [import_item(entry) if isinstance(entry, str) else entry for entry in entries]


# IPython in a grading kernel writes no input history database: about 2 ms less per cell
# (``In`` and ``_ih`` still work)
GRADING_KERNEL_ARGUMENTS = ("--HistoryManager.enabled=False",)


def pipeline_config(config: Config, kernel: str | None,
                    kernel_arguments: tuple[str, ...] = ()) -> Config:
    """Grading-only settings: every Execute preprocessor gets ``KernelStart``, kills its
    kernel when done, starts it with ``GRADING_KERNEL_ARGUMENTS`` and ``kernel_arguments``
    after the course's own and, if ``kernel`` is given, runs that kernel; sandboxed kernels
    are forked from a warm server unless the course says otherwise."""
    extra = Config()
    classes = []
    for cls in _pipeline(config):
        if issubclass(cls, Execute):
            if upstream.enabled("kernel_retry"):
                cls = type(f"Grading{cls.__name__}", (KernelStart, cls),
                           {"__module__": __name__, "__doc__": cls.__doc__})
            extra[cls.__name__] = Config(shutdown_kernel="immediate")
            if kernel:
                extra[cls.__name__].kernel_name = kernel
            course = config[cls.__name__].get("extra_arguments", [])
            extra[cls.__name__].extra_arguments = [*course, *GRADING_KERNEL_ARGUMENTS,
                                                   *kernel_arguments]
        classes.append(cls)
    extra.Autograde.autograde_preprocessors = classes
    if upstream.enabled("validate_once"):
        extra.Autograde.exporter_class = GradingExporter
    extra.Autograde.pre_convert_hook = None  # the coordinator has run intake already
    extra.merge(kernel_start_config(config))
    return extra


def kernel_start_config(config: Config) -> Config:
    """How the kit starts kernels: a prompt client and, unless the course turns it off,
    sandboxed kernels forked warm."""
    extra = Config()
    if upstream.enabled("prompt_client"):
        extra.AsyncKernelManager.client_factory = PromptClient
    if "warm_start" not in config.SandboxProvisioner:
        extra.SandboxProvisioner.warm_start = upstream.enabled("warm_kernels")
    return extra


def kernel_name(config: Config, kernel: str | None) -> str:
    """The kernel the pipeline's Execute preprocessor will start ("" = the notebook's own)."""
    if kernel:
        return kernel
    executes = [cls for cls in _pipeline(config) if issubclass(cls, Execute)]
    return executes[0](config=config).kernel_name if executes else ""


# -- the worker side -------------------------------------------------------------------------

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


# -- the coordinator -------------------------------------------------------------------------

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


def forks_warm(kernel: str | None, config: Config) -> bool:
    """Whether grading under the course's ``config`` forks its kernels from a warm-kernel
    server (``sandbox.forks_warm`` with the kit's defaults for starting kernels)."""
    merged = copy.deepcopy(config)
    merged.merge(kernel_start_config(config))
    return sandbox.forks_warm(kernel_name(config, kernel), merged)


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int, config: Config, kernel: str | None):
    """A client of ``scheduler``, or of a local cluster of ``workers`` whose kernels come from
    one warm-kernel server they share."""
    from distributed import Client

    if scheduler:
        if not scheduler.startswith("tls://"):
            log.warning("the scheduler %s does not speak TLS: anyone who reaches it runs code "
                        "as its workers (README: \"A Dask cluster\")", scheduler)
        with Client(scheduler, set_as_default=False) as client:
            yield client
        return
    with contextlib.ExitStack() as stack:
        serving = None
        if forks_warm(kernel, config):  # first: it imports while the cluster starts
            serving = stack.enter_context(sandbox.Forkserver.share(ready=False))
        cluster = stack.enter_context(local_cluster(workers))
        if serving:
            serving()  # before any worker asks it for a kernel
        yield stack.enter_context(Client(cluster, set_as_default=False))


def preflight(config: Config, kernel: str | None) -> str:
    """The name of the kernel that will grade ("" = each notebook's own), once it is known to
    be installed and, if sandboxed, able to start: otherwise a ``GradingError`` with the remedy,
    before anything is graded (a class of zeros caused by the machine is never recorded)."""
    name = kernel_name(config, kernel or os.environ.get(KERNEL_ENV) or None)
    if not name:
        return name
    try:
        spec = KernelSpecManager(config=config).get_kernel_spec(name)
    except NoSuchKernel:
        raise GradingError(f"kernel {name!r} is not installed (run `make env` or "
                           f"`attnkit install-kernels`), or choose another with --kernel or "
                           f"${KERNEL_ENV}") from None
    provisioner = spec.metadata.get("kernel_provisioner", {}).get("provisioner_name")
    if provisioner == sandbox.PROVISIONER_NAME and not sandbox.opted_out(config):
        problem = sandbox.check_sandbox()
        if problem:
            raise GradingError(f"the sandboxed grading kernel {name!r} cannot start: {problem}. "
                               f"Nothing was graded. {sandbox.OPT_OUT_HINT}")
    return name


def autograde(course_root: Path, assignment: str, **options) -> Summary:
    """Autograde every submission of one assignment; see ``autograde_all``."""
    return autograde_all(course_root, [assignment], **options)[0]


def autograde_all(course_root: Path, assignments: list[str], *, workers: int | None = None,
                  scheduler: str | None = None, force: bool = False,
                  students: list[str] | None = None, progress: bool = True,
                  kernel: str | None = None) -> list[Summary]:
    """Autograde every submission of ``assignments`` (or of ``students``) on Dask, all of them
    on one cluster; one summary per assignment, each with the run's time.

    ``scheduler`` is the address of a running Dask scheduler whose workers see the course
    directory at the same path; without it a local cluster of ``workers`` processes (default:
    one per core) is started. ``kernel`` (default: $ATTNKIT_KERNEL, else the config's) names
    the kernel that runs the notebooks.
    """
    if workers is not None and workers < 1:
        raise GradingError(f"--workers must be at least 1, not {workers}")
    from attnkit.pipeline.audit import RUN_ENV

    os.environ[RUN_ENV] = uuid.uuid4().hex[:12]  # one regrade run, whichever worker grades
    start = time.perf_counter()
    root = Path(course_root).resolve()
    config = load_config(root)
    name = preflight(config, kernel)
    jobs = [_plan(root, config, assignment, students, force) for assignment in assignments]
    todo = sum(len(job.todo) for job in jobs)
    if todo:
        _fan_out(jobs, root, config, name or None, scheduler,
                 min(workers or default_workers(), todo), progress)
    for job in jobs:
        job.summary.seconds = time.perf_counter() - start
    return [job.summary for job in jobs]


@dataclass
class _Job:
    """One assignment's part of a run."""

    summary: Summary
    state: _State
    todo: list[str]
    digests: dict[str, str]


def _plan(root: Path, config: Config, assignment: str, students: list[str] | None,
          force: bool) -> _Job:
    """Intake, gradebook rows and fingerprints: which submissions of ``assignment`` to grade."""
    coursedir = CourseDirectory(config=config)
    found = submissions(coursedir, assignment)
    wanted = list(found) if students is None else list(dict.fromkeys(students))
    summary = Summary(assignment)
    for student in wanted:
        if student not in found:
            summary.failed.append(student)
            summary.reasons[student] = "no submission in " + coursedir.format_path(
                coursedir.submitted_directory, student, assignment)
    wanted = [s for s in wanted if s in found]
    state = _State(coursedir, assignment)
    if not wanted:
        return _Job(summary, state, [], {})

    in_gradebook, notebooks = prepare_gradebook(config, assignment, wanted)
    for student in wanted:  # unreadable, misnamed or missing notebooks still get graded
        repairs = intake.prepare(root, assignment, student)
        if repairs:
            summary.repaired[student] = [f"{r.notebook}: {r.reason}" for r in repairs]
    digests = {student: fingerprint(found[student]) for student in wanted}
    todo = []
    for student in wanted:
        autograded = Path(coursedir.format_path(coursedir.autograded_directory, student,
                                                assignment))
        if (not force and student in in_gradebook and state.unchanged(student, digests[student])
                and all((autograded / f"{nb}.ipynb").exists() for nb in notebooks)):
            summary.skipped.append(student)
        else:
            todo.append(student)
    return _Job(summary, state, todo, digests)


def _fan_out(jobs: list[_Job], root: Path, config: Config, kernel: str | None,
             scheduler: str | None, workers: int, progress: bool) -> None:
    """Grade every job's ``todo`` on Dask, one task per submission, recording each outcome as
    it lands."""
    from distributed import as_completed
    from tqdm import tqdm

    run = uuid.uuid4().hex[:8]
    total = sum(len(job.todo) for job in jobs)
    label = jobs[0].summary.assignment if len(jobs) == 1 else f"{len(jobs)} assignments"
    db_url = CourseDirectory(config=config).db_url
    with _client(scheduler, workers, config, kernel) as client, \
            tqdm(total=total, desc=label, unit="nb", disable=not progress,
                 dynamic_ncols=True) as bar:
        futures = {client.submit(grade_submission, str(root), job.summary.assignment, student,
                                 db_url, kernel, pure=False,
                                 key=f"autograde-{run}-{job.summary.assignment}-{student}"):
                   (job, student) for job in jobs for student in job.todo}
        failed = 0
        for future in as_completed(futures, loop=client.loop):
            job, student = futures[future]
            try:
                outcome = future.result()
            except Exception as error:  # noqa: BLE001 - a lost worker or task is a failure
                outcome = Outcome(student, f"{type(error).__name__}: {error}"[:300],
                                  repr(error))
            if outcome.reason is None:
                job.state.graded(student, job.digests[student])
                job.summary.graded.append(student)
            else:
                path = job.state.failed(student, outcome.log)
                job.summary.failed.append(student)
                job.summary.reasons[student] = f"{outcome.reason} (log: {path})"
                failed += 1
            bar.set_postfix(failed=failed, refresh=False)
            bar.update()


# -- command line ----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``attnkit autograde``."""
    parser.add_argument("assignments", nargs="+", metavar="assignment",
                        help="assignment id, e.g. ps1_self_attention (several: one cluster "
                             "grades them all)")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes of the local cluster (default: one per core)")
    parser.add_argument("--scheduler", default=None,
                        help="address of a running Dask scheduler (its workers must see the "
                             "course directory at the same path)")
    parser.add_argument("--force", action="store_true",
                        help="regrade submissions that are unchanged since they were graded")
    parser.add_argument("--student", action="append", dest="students", metavar="ID",
                        help="grade only this student (repeatable)")
    parser.add_argument("--kernel", default=None,
                        help=f"kernel that runs the notebooks (default: ${KERNEL_ENV}, "
                             "else the course config's)")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bar")


def main(args: argparse.Namespace) -> int:
    """Run ``attnkit autograde`` in ``args.root`` (the CLI's --root; default: the current
    directory): 0 if every submission was graded or skipped, else 1."""
    from attnkit.pipeline import audit

    started = audit.now()
    try:
        summaries = autograde_all(getattr(args, "root", Path.cwd()), args.assignments,
                                  workers=args.workers, scheduler=args.scheduler,
                                  force=args.force, students=args.students,
                                  progress=args.progress, kernel=args.kernel)
    except GradingError as error:
        print(f"attnkit autograde: {error}", file=sys.stderr)
        return 2
    for summary in summaries:
        print(summary.report(timed=len(summaries) == 1))
    db_url = CourseDirectory(config=load_config(Path(getattr(args, "root", Path.cwd())))).db_url
    for summary in summaries:
        audit.print_summary(db_url, summary.assignment, since=started)
    if len(summaries) > 1:
        graded, seconds = sum(len(s.graded) for s in summaries), summaries[0].seconds
        print(f"all: graded {graded} in {seconds:.1f} s, {graded / seconds:.2f} notebooks/s")
    return 1 if any(s.failed for s in summaries) else 0

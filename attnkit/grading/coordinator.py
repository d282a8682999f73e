"""The coordinator of ``attnkit autograde``: plan which submissions of each assignment to grade,
hand them to a Dask cluster one task per submission, and record each outcome as it lands.

All assignments of a run share one cluster, so its workers and their warm kernels start once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from attnkit import sandbox
from attnkit.course import load_config
from attnkit.grading.cluster import default_workers, local_cluster
from attnkit.grading.records import _State, fingerprint, prepare_gradebook, submissions
from attnkit.grading.settings import GradingError, forks_warm, preflight
from attnkit.grading.task import Outcome, grade_submission
from attnkit.pipeline import intake

log = logging.getLogger("attnkit.grading.grader")  # the command's logger, whichever part logs


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


@contextlib.contextmanager
def _client(scheduler: str | None, workers: int, config: Config,
            kernel: str | None) -> Iterator:
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
    one per core and one more) is started. ``kernel`` (default: $ATTNKIT_KERNEL, else the
    config's) names the kernel that runs the notebooks.
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

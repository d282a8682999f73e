"""``attnkit serve``: grade each submission as it arrives in nbgrader's exchange and release its
feedback to that student, so ``fetch_feedback`` (the Assignments tab) shows it seconds later.

The coordinator (this process) watches the course's inbound folder, keeps the journal
(``journal.py``), applies the rate limit and hands each submission to a Dask worker
(``task.py``) on the same cluster code as ``attnkit autograde``: warm workers, sandboxed
kernels forked warm, or a running scheduler. A student's submissions of one assignment are
handled one at a time, oldest first; which of them counts is nbgrader's collect rule, applied
in the worker.
"""

from __future__ import annotations

import argparse
import fcntl
import logging
import os
import signal
import sys
import threading
import time
import uuid
from collections import defaultdict
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory
from traitlets import Enum, Float, Int, Unicode
from traitlets.config import LoggingConfigurable

from attnkit import course
from attnkit.grading import grader
from attnkit.grading.cluster import default_workers
from attnkit.review import regrades
from attnkit.serve.exchange import Inbound, utc
from attnkit.serve.journal import (
    FAILED,
    GRADED,
    NOT_COUNTED,
    PENDING,
    QUEUED,
    SUPERSEDED,
    Journal,
    Row,
)
from attnkit.serve.task import Result, kernel_arguments, process

log = logging.getLogger("attnkit.serve")
STUCK_WORKERS = 4  # workers beyond `active`, for gradings stuck in loops


def _period(seconds: float) -> str:
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return unit if count == 1 else f"{count} {unit}s"
    return f"{seconds:g} seconds"


class GradeOnSubmit(LoggingConfigurable):
    """The service's settings; set them in ``nbgrader_config.py`` as ``c.GradeOnSubmit.*``."""

    rate_limit = Int(6, help="Submissions graded per student and assignment within "
                             "rate_period; later ones wait in the queue.").tag(config=True)
    rate_period = Float(3600.0, help="The rate limit's window, in seconds.").tag(config=True)
    poll_interval = Float(0.25, help="Seconds between looks at the inbound folder.").tag(
        config=True)
    active = Int(0, help="Gradings that may run at once at full CPU priority (0: two per "
                         "core and one; with a scheduler, all its workers).").tag(config=True)
    stuck_after = Float(3.0, help="Seconds after which a grading stops counting against "
                                  "active: by then a kernel stuck in a loop runs at the least "
                                  "CPU priority (ResilientExecute.step_aside_after), so it "
                                  "holds a worker but hardly a core.").tag(config=True)
    workers = Int(0, help="Worker processes of the local cluster (0: active and four more, "
                          "for stuck gradings, so a few endless loops do not leave the rush "
                          "with fewer workers).").tag(config=True)
    scheduler = Unicode("", help="Address of a running Dask scheduler to grade on instead "
                                 "(its workers must see the course at the same path).").tag(
        config=True)
    kernel = Unicode("", help="Kernel that runs the notebooks (default: the course's).").tag(
        config=True)
    plots = Enum(("always", "when idle", "never"), "when idle",
                 help="Whether feedback on submit draws the notebook's plots (about a third "
                      "of a notebook's grading time): always, never, or when idle: no "
                      "other submission waits and at most half of active are grading."
                 ).tag(config=True)
    max_attempts = Int(3, help="A submission whose grading was cut short (the service or a "
                               "worker killed) this many times fails.").tag(config=True)

    def __init__(self, root: Path, assignments: list[str] | None = None, **kwargs) -> None:
        self.root = Path(root).resolve()
        self.course_config = course.load_config(self.root)
        super().__init__(config=self.course_config, **kwargs)
        self.assignments = assignments or course.assignments(self.root)
        self.coursedir = CourseDirectory(config=self.course_config)
        self.inbound = Inbound(self.course_config)
        self.journal = Journal(self.root)
        self.stop = threading.Event()
        self.woken = threading.Event()  # set by stop and by every finished task
        self.running: dict[str, object] = {}  # name -> future
        self._warming: list = []  # the spares' warm-ups, held so Dask keeps their tasks
        self.students: set[str] = set()
        self.others: set[str] = set()  # submissions of assignments this service leaves alone

    # -- the loop ---------------------------------------------------------------------------

    def lock(self) -> None:
        """One service per course: hold ``.attnkit/serve/lock`` while running (the kernel
        releases it however the process ends)."""
        path = self.journal.path.with_name("lock")
        self._lock = open(path, "a+")  # noqa: SIM115 - held until the process ends
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.seek(0)
            raise grader.GradingError(f"another `attnkit serve` runs for this course (pid "
                                      f"{self._lock.read().strip() or '?'}; {path})") from None
        self._lock.truncate(0)
        self._lock.write(str(os.getpid()))
        self._lock.flush()

    def serve(self, idle_exit: bool = False) -> None:
        """Grade until ``stop`` is set (or, with ``idle_exit``, until nothing is waiting)."""
        self.lock()
        kernel = grader.preflight(self.course_config, self.kernel or None) or None
        recovered = self.journal.recover()
        if recovered:
            log.warning("resuming %d submission(s) whose grading was cut short", recovered)
        for assignment in self.assignments:
            grader.prepare_gradebook(self.course_config, assignment, [])
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            self.students = {s.id for s in gb.students}
        workers = self.workers or self._active() + STUCK_WORKERS  # of a local cluster
        # one regrade run for the service's session: its workers record the audit, and the
        # stock command's end-of-run summary (a post-convert hook) stays quiet in them
        os.environ.setdefault(regrades.RUN_ENV, f"serve-{uuid.uuid4().hex[:8]}")
        with grader._client(self.scheduler or None, workers, self.course_config,
                            kernel) as client:
            if not self.scheduler:
                client.wait_for_workers(workers, timeout=120)
            self.warm_up(client, kernel)
            log.info("serving %s from %s with %s", ", ".join(self.assignments),
                     self.inbound.path, self.scheduler or f"{workers} local workers")
            while not self.stop.is_set():
                self.scan()
                self.finish_done()
                self.dispatch(client, kernel)
                if idle_exit and not self.running and not self.journal.rows(PENDING, QUEUED):
                    break
                self._wait()
            self.finish_done()  # what finished while stopping is recorded, not redone

    def warm_up(self, client, kernel: str | None) -> None:
        """Have ``active`` workers build their grading APIs and connect to the warm-kernel
        server, then the spare ones while the service serves: the first submissions, or those
        that waited through a restart, start on warm workers as soon as possible."""
        workers = list(client.scheduler_info()["workers"])
        first = self._active(sum(client.nthreads().values()))
        for future in self._warm(client, kernel, workers[:first]):
            if future.exception() is not None:
                log.warning("a worker could not warm up (it will when it grades): %s",
                            future.exception())
        self._warming = self._warm(client, kernel, workers[first:])

    def _warm(self, client, kernel: str | None, addresses: list[str]) -> list:
        modes = {"always": [True], "when idle": [True, False], "never": [False]}[self.plots]
        arguments = [kernel_arguments(plots) for plots in modes]
        return [client.submit(grader.warm_up, str(self.root), self.coursedir.db_url, kernel,
                              arguments, workers=[address], pure=False,
                              key=f"warm-up-{address}") for address in addresses]

    def _wait(self) -> None:
        """Until the next look at inbound, a finished task, or stop."""
        self.woken.wait(self.poll_interval)
        self.woken.clear()

    def scan(self) -> None:
        """Journal every newly completed submission; answer unreadable ones at once."""
        found, unreadable = self.inbound.complete(self.journal.known() | self.others)
        for record in found:
            if record.assignment not in self.assignments:
                self.others.add(record.name)  # the instructor collects it; no page of ours
                continue
            if self.journal.add(record.name, record.student, record.assignment,
                                record.submitted):
                log.info("new submission %s", record.name)
                refused = self.inbound.impostor(record)
                if refused:
                    self._notify_finish(record.name, FAILED, f"not graded: {refused}")
        for name in unreadable:
            if self.journal.add(name, name.split("+")[0], "?", 0.0):
                self._notify_finish(name, FAILED, "the submission's folder name is not "
                                    "nbgrader's student+assignment+timestamp")

    def dispatch(self, client, kernel: str | None) -> None:
        """Start the oldest waiting submission of every student and assignment that has none
        running, unless the rate limit says when it may start instead, while a worker is free
        and fewer than ``active`` gradings are younger than ``stuck_after`` (the queue stays in
        the journal, where ``serve-status`` counts it, not in Dask's); with plots drawn if
        ``plots`` says so ("when idle": in a rush most notebooks go without)."""
        waiting: dict[tuple[str, str], list[Row]] = defaultdict(list)
        for row in self.journal.rows(PENDING, QUEUED):
            waiting[(row.student, row.assignment)].append(row)
        if not waiting:
            return
        now = time.time()
        running = [self.journal.get(name) for name in self.running]
        threads = sum(client.nthreads().values())
        fresh = sum(now - row.started < self.stuck_after for row in running)
        limit = self._active(threads)
        free = max(min(threads - len(running), limit - fresh), 0)
        busy = {(row.student, row.assignment) for row in running}
        ready, later = [], 0  # may start now; will want a worker after a running one
        for key, rows in sorted(waiting.items(), key=lambda item: item[1][0].seen):
            if key in busy:
                later += 1
                continue
            row = rows[0]
            if row.attempts >= self.max_attempts:
                self._notify_finish(row.name, FAILED, f"grading was cut short {row.attempts} "
                                    f"times (the grading service or its worker stopped)")
                continue
            starts = self.journal.gradings_since(*key, now - self.rate_period)
            if len(starts) >= self.rate_limit:
                self._queue(rows, starts[-self.rate_limit] + self.rate_period)
                continue
            ready.append(row)
        idle = len(ready) + later <= free and fresh + len(ready) <= max(limit // 2, 1)
        plots = self.plots == "always" or (self.plots == "when idle" and idle)
        for row in ready[:free]:
            self._start(client, kernel, row, plots)

    def _active(self, threads: int = 0) -> int:
        """``active``, or its default: two per core and one on the local cluster, all
        ``threads`` of a scheduler's."""
        if self.active:
            return self.active
        return threads if self.scheduler else 2 * default_workers() + 1

    def _start(self, client, kernel: str | None, row: Row, plots: bool) -> None:
        if row.student not in self.students:
            with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
                gb.update_or_create_student(row.student)
            self.students.add(row.student)
        self.journal.start(row.name)
        self.running[row.name] = client.submit(
            process, str(self.root), self.coursedir.db_url, kernel, row.name, row.student,
            row.assignment, plots, pure=False, key=f"serve-{row.name}-{row.attempts + 1}")
        self.running[row.name].add_done_callback(lambda _: self.woken.set())

    def _queue(self, rows: list[Row], when: float) -> None:
        for row in rows:
            if row.state == QUEUED and row.not_before == when:
                continue
            self.inbound.notice(row.name, QUEUED, submitted=row.submitted, not_before=when,
                                assignment=row.assignment, limit=self.rate_limit,
                                period=_period(self.rate_period))
            self.journal.queue(row.name, when, f"rate limit: queued until {utc(when)}")
            log.info("queued %s until %s", row.name, utc(when))

    def finish_done(self) -> None:
        for name, future in list(self.running.items()):
            if not future.done():
                continue
            del self.running[name]
            try:
                result: Result = future.result()
            except Exception as error:  # noqa: BLE001 - a lost worker fails one submission
                result = Result(FAILED, reason=f"{type(error).__name__}: {error}"[:300])
            row = self.journal.get(name)
            if result.state == GRADED:
                self.journal.finish(name, GRADED, result.released, score=result.score,
                                    max_score=result.max_score)
                log.info("graded %s: %g / %g%s", name, result.score, result.max_score,
                         " (its grades were saved before the service stopped)"
                         if result.resumed else "")
            elif result.state in (SUPERSEDED, NOT_COUNTED) and result.counted:
                self.inbound.notice(name, result.state, submitted=row.submitted,
                                    counted=result.counted, assignment=row.assignment)
                self.journal.finish(name, result.state, time.time(), reason=result.reason)
            else:
                self._notify_finish(name, FAILED, result.reason or "unknown")

    def _notify_finish(self, name: str, state: str, reason: str) -> None:
        row = self.journal.get(name)
        self.inbound.notice(name, state, submitted=row.submitted, reason=reason,
                            assignment=row.assignment)
        self.journal.finish(name, state, time.time(), reason=reason)
        log.warning("%s %s: %s", state, name, reason)


# -- command line ----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("assignments", nargs="*", metavar="assignment",
                        help="assignments to grade on submit (default: every one in source/)")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes of the local cluster (default: "
                             "c.GradeOnSubmit.workers, else two per core and one)")
    parser.add_argument("--scheduler", default=None, help="address of a running Dask "
                        "scheduler (its workers must see the course directory at the same path)")
    parser.add_argument("--until-idle", action="store_true",
                        help="exit once every submission in inbound has its feedback")


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    log.setLevel(logging.INFO)
    overrides = {k: v for k, v in (("workers", args.workers), ("scheduler", args.scheduler))
                 if v is not None}
    try:
        service = GradeOnSubmit(args.root, args.assignments, **overrides)
    except OSError as error:
        print(f"attnkit serve: {error}", file=sys.stderr)
        return 2
    if not service.inbound.path.is_dir():
        print(f"attnkit serve: no inbound folder {service.inbound.path}: set c.Exchange.root and "
              f"c.CourseDirectory.course_id, and release an assignment "
              f"(`nbgrader release_assignment`) first", file=sys.stderr)
        return 2
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: (service.stop.set(), service.woken.set()))
    try:
        service.serve(idle_exit=args.until_idle)
    except grader.GradingError as error:
        print(f"attnkit serve: {error}", file=sys.stderr)
        return 2
    return 0

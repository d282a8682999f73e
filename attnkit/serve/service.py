"""``attnkit serve``: grade each submission as it arrives in nbgrader's exchange and release its
feedback to that student, so ``fetch_feedback`` (the Assignments tab) shows it seconds later.

The coordinator (this process) watches the course's inbound folder (``arrivals.py``), keeps
the journal (``journal.py``), applies the rate limit and hands each submission to a Dask worker
(``dispatch.py``, ``task.py``) on the same cluster code as ``attnkit autograde``: warm workers,
sandboxed kernels forked warm, or a running scheduler. A student's submissions of one
assignment are handled one at a time, oldest first; which of them counts is nbgrader's collect
rule, applied in the worker. This module holds the service's settings and its loop.
"""

from __future__ import annotations

import argparse
import fcntl
import logging
import os
import signal
import sys
import threading
import uuid
from pathlib import Path

from nbgrader.coursedir import CourseDirectory
from traitlets import Enum, Float, Int, Unicode
from traitlets.config import LoggingConfigurable

from attnkit import course
from attnkit.grading import grader
from attnkit.pipeline import audit
from attnkit.serve.arrivals import Arrivals
from attnkit.serve.dispatch import Dispatch
from attnkit.serve.dispatch import _period as _period
from attnkit.serve.exchange import Inbound
from attnkit.serve.journal import PENDING, QUEUED, Journal
from attnkit.serve.quiet import Throttled
from attnkit.serve.task import kernel_arguments

__all__ = ["STUCK_WORKERS", "GradeOnSubmit", "add_arguments", "main"]

log = logging.getLogger("attnkit.serve")
STUCK_WORKERS = 4  # workers beyond `active`, for gradings stuck in loops


# scan() comes from Arrivals, dispatch() and finish_done() from Dispatch
class GradeOnSubmit(Arrivals, Dispatch, LoggingConfigurable):
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
    hand_in_limit = Int(30, help="Hand-ins of one student taken in per hand_in_period; "
                                 "later ones wait in inbound, unread (no secret read, no "
                                 "journal row, no page), until the period allows them."
                        ).tag(config=True)
    hand_in_period = Float(3600.0, help="The hand-in limit's window, in seconds.").tag(
        config=True)
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
        self.students: set[str] = set()  # the roster
        self._roster_read = 0.0
        self.others: set[str] = set()  # submissions of assignments this service leaves alone
        self.ignored: set[str] = set()  # entries that are no hand-in, looked at once
        self.quiet = Throttled(log)  # what any student can plant is said a few times a minute
        self.later: dict[str, tuple[float, float]] = {}  # name -> (next look, delay)
        self._names: list[str] | None = None  # inbound's last listing

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
        self._read_roster()
        workers = self.workers or self._active() + STUCK_WORKERS  # of a local cluster
        # one regrade run for the service's session: its workers record the audit, and the
        # stock command's end-of-run summary (a post-convert hook) stays quiet in them
        os.environ.setdefault(audit.RUN_ENV, f"serve-{uuid.uuid4().hex[:8]}")
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

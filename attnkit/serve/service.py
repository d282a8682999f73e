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

from nbgrader.coursedir import CourseDirectory
from traitlets import Enum, Float, Int, Unicode
from traitlets.config import LoggingConfigurable

from attnkit import course
from attnkit.deploy.handin import SAFE_ID, Refused, parse_stamp, roster, shown
from attnkit.grading import grader
from attnkit.grading.cluster import default_workers
from attnkit.pipeline import audit
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
from attnkit.serve.quiet import Throttled
from attnkit.serve.task import Result, kernel_arguments, process

log = logging.getLogger("attnkit.serve")
STUCK_WORKERS = 4  # workers beyond `active`, for gradings stuck in loops
ROSTER_REFRESH = 1.0  # seconds between reads of the roster when an unknown id shows up
LOOK_AGAIN = 30.0  # at most this many seconds between looks at a folder not yet complete


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

    def scan(self) -> None:
        """Journal every newly completed hand-in, each in its own guard; answer unreadable
        ones at once. Folders not yet complete are looked at again less and less often."""
        now = time.time()
        names = self.inbound.names()
        if names is not self._names:  # forget what is gone, look at everything new
            self._names = names
            present = set(names)
            self.ignored &= present
            self.others &= present
            self.later = {n: when for n, when in self.later.items() if n in present}
        else:  # the same listing: only the folders due for another look
            names = [n for n, (when, _) in self.later.items() if when <= now]
        known = self.journal.known()
        budget: dict[str, int] = {}  # folders of each student this scan may still open
        for name in names:
            if name in known or name in self.ignored or name in self.others or \
                    self.later.get(name, (0.0, 0.0))[0] > now:
                continue
            try:
                self._look(name, now, budget)
            except Exception as error:  # noqa: BLE001 - one entry never stops the service
                self.ignored.add(name)
                self.quiet.warning("ignored %s: %s", shown(name), shown(
                    f"{type(error).__name__}: {error}", 300))

    def _look(self, name: str, now: float, budget: dict[str, int]) -> None:
        parts = name.rsplit("+", 3)
        if len(parts) < 3 or not self._on_roster(parts[0]):
            self._defer(name, now, 60.0)  # nothing of an id off the roster is printed
            return
        student, assignment = parts[0], parts[1]
        if assignment not in self.assignments:
            self.others.add(name)  # the instructor collects it; no page of ours
            return
        if student not in budget:
            budget[student] = self.hand_in_limit - self.journal.added_since(
                student, now - self.hand_in_period)
        if budget[student] <= 0:  # the cap, before any work is spent on the folder
            self._defer(name, now, 60.0)
            return
        budget[student] -= 1
        try:
            hand_in = self.inbound.open(name, self.students)
        except Refused as why:  # a link, not a folder, another account's: no hand-in at all
            self.ignored.add(name)
            self.quiet.warning("ignored %s: %s", shown(name), why)
            return
        with hand_in:
            if not hand_in.complete():
                self._defer(name, now, LOOK_AGAIN)  # nbgrader submit is still copying
                return
            reasons, secret, stamp, notebooks, claimed = [], None, None, [], None
            try:
                secret = self.inbound.secret(hand_in)
                notebooks = self.inbound.notebooks(hand_in)
            except Refused as why:
                reasons.append(str(why))
            try:
                claimed = hand_in.claimed()
                stamp = self.inbound.timestamp(hand_in)
                parse_stamp(stamp, "its timestamp.txt")
            except Refused as why:
                reasons.append(str(why))
            bound = min(hand_in.info.st_ctime, now)
            submitted = bound if claimed is None else self.inbound.policy.bounded(claimed, bound)
        flagged = claimed is None or abs(claimed - submitted) > self.poll_interval
        if not self.journal.add(name, student, assignment, submitted, seen=now,
                                claimed=claimed, flagged=flagged, secret=secret, stamp=stamp,
                                notebooks=notebooks):
            return
        log.info("new submission %s%s", shown(name), f" (its own time differs: counted as "
                 f"handed in at {utc(submitted)})" if flagged and claimed is not None else "")
        if reasons:
            self._notify_finish(name, FAILED, "not graded: " + "; ".join(reasons))

    def _defer(self, name: str, now: float, longest: float) -> None:
        delay = min(max(self.later.get(name, (0.0, 0.0))[1] * 2, self.poll_interval), longest)
        self.later[name] = (now + delay, delay)

    def _on_roster(self, student: str) -> bool:
        if not SAFE_ID.fullmatch(student):
            return False
        if student not in self.students and time.time() - self._roster_read > ROSTER_REFRESH:
            self._read_roster()
        return student in self.students

    def _read_roster(self) -> None:
        self.students = roster(self.coursedir)
        self._roster_read = time.time()

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
            if row.secret_text is None or row.student not in self.students:
                self._notify_finish(row.name, FAILED, "not graded: its secret was not kept "
                                    "or its student is no longer on the roster")
                continue
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
            try:
                self._start(client, kernel, row, plots)
            except Exception as error:  # noqa: BLE001 - one hand-in never stops the service
                self.running.pop(row.name, None)
                self._notify_finish(row.name, FAILED, f"{type(error).__name__}: {error}"[:300])

    def _active(self, threads: int = 0) -> int:
        """``active``, or its default: two per core and one on the local cluster, all
        ``threads`` of a scheduler's."""
        if self.active:
            return self.active
        return threads if self.scheduler else 2 * default_workers() + 1

    def _start(self, client, kernel: str | None, row: Row, plots: bool) -> None:
        times = {r.name: r.submitted for r in self.journal.hand_ins(row.student, row.assignment)
                 if r.secret_text and not (r.state == FAILED and r.started is None)}
        self.journal.start(row.name)
        self.running[row.name] = client.submit(
            process, str(self.root), self.coursedir.db_url, kernel, row.name, row.student,
            row.assignment, plots, row.secret, times, pure=False,
            key=f"serve-{row.name}-{row.attempts + 1}")
        self.running[row.name].add_done_callback(lambda _: self.woken.set())

    def _queue(self, rows: list[Row], when: float) -> None:
        for row in rows:
            if row.state == QUEUED and row.not_before == when:
                continue
            self._notice(row, QUEUED, not_before=when, limit=self.rate_limit,
                         period=_period(self.rate_period))
            self.journal.queue(row.name, when, f"rate limit: queued until {utc(when)}")
            log.info("queued %s until %s", shown(row.name), utc(when))

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
                log.info("graded %s: %g / %g%s", shown(name), result.score, result.max_score,
                         " (its grades were saved before the service stopped)"
                         if result.resumed else "")
            elif result.state in (SUPERSEDED, NOT_COUNTED) and result.counted:
                self._notice(row, result.state, counted=result.counted)
                self.journal.finish(name, result.state, time.time(), reason=result.reason)
            else:
                self._notify_finish(name, FAILED, result.reason or "unknown")

    def _notify_finish(self, name: str, state: str, reason: str) -> None:
        """Finish a hand-in, its page released if one can be: the row ends whatever the
        page does, so no row can come back to fail the same way."""
        row = self.journal.get(name)
        self._notice(row, state, reason=reason)
        self.journal.finish(name, state, time.time(), reason=reason)
        log.warning("%s %s: %s", state, shown(name), shown(reason, 300))

    def _notice(self, row: Row, outcome: str, **details: object) -> None:
        notebooks = [n for n in (row.notebooks or "").split("\n") if n]
        try:
            self.inbound.notice(row.secret_text, notebooks, outcome, submitted=row.submitted,
                                assignment=row.assignment, **details)
        except Exception as error:  # noqa: BLE001 - a page is not worth the service
            log.warning("no page for %s: %s", shown(row.name), shown(str(error), 300))


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

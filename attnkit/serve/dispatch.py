"""How ``attnkit serve`` hands waiting submissions to Dask workers and records what became of
each, with a page for its student.

The queue is the journal's, not Dask's (``serve-status`` counts it there): a submission starts
once a worker is free, no other grading of its student and assignment runs, and the rate
limit allows.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from pathlib import Path

from nbgrader.coursedir import CourseDirectory

from attnkit.deploy.handin import shown
from attnkit.grading.cluster import cores
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
from attnkit.serve.task import Result, process

log = logging.getLogger("attnkit.serve")


def _period(seconds: float) -> str:
    """The rate limit's window as a page says it: "hour", "10 minutes", "90 seconds"."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return unit if count == 1 else f"{count} {unit}s"
    return f"{seconds:g} seconds"


class Dispatch:
    """``GradeOnSubmit``'s gradings (a mixin: the service holds the state below)."""

    root: Path
    coursedir: CourseDirectory
    inbound: Inbound
    journal: Journal
    students: set[str]  # the roster
    running: dict[str, object]  # name -> future
    woken: threading.Event  # set by every finished task
    rate_limit: int
    rate_period: float
    active: int
    stuck_after: float
    scheduler: str
    plots: str
    max_attempts: int

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
        return threads if self.scheduler else 2 * cores() + 1

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

"""``attnkit serve-status``: what the grading service has done, from its journal; and the same
as a section of the instructor's report page (``report_section``)."""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

from attnkit.deploy.handin import shown
from attnkit.serve.exchange import _pages, utc
from attnkit.serve.journal import (
    FAILED,
    GRADED,
    GRADING,
    JOURNAL,
    NOT_COUNTED,
    PENDING,
    QUEUED,
    SUPERSEDED,
    Journal,
)


@dataclass
class Status:
    """Counts by state, the failures with their reasons, and submit-to-feedback latency of
    the graded submissions, in seconds."""

    running: bool  # a journal exists
    waiting: int = 0  # pending or queued by the rate limit
    queued: int = 0  # of which queued by the rate limit
    grading: int = 0
    graded: int = 0
    superseded: int = 0
    not_counted: int = 0
    failed: list[dict] = field(default_factory=list)  # student, assignment, submitted, reason
    p50: float | None = None
    p95: float | None = None
    max: float | None = None

    @property
    def queue_length(self) -> int:
        return self.waiting + self.grading


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


def status(root: Path) -> Status:
    if not (Path(root) / JOURNAL).exists():
        return Status(running=False)
    journal = Journal(root)
    try:
        rows = journal.rows()
    finally:
        journal.close()
    states = [row.state for row in rows]
    latency = sorted(row.finished - row.submitted for row in rows
                     if row.state == GRADED and row.finished)
    return Status(
        running=True, waiting=states.count(PENDING) + states.count(QUEUED),
        queued=states.count(QUEUED), grading=states.count(GRADING), graded=states.count(GRADED),
        superseded=states.count(SUPERSEDED), not_counted=states.count(NOT_COUNTED),
        failed=[{"student": r.student, "assignment": r.assignment,
                 "submitted": utc(r.submitted), "reason": r.reason}
                for r in rows if r.state == FAILED],
        p50=percentile(latency, 50), p95=percentile(latency, 95),
        max=latency[-1] if latency else None)


def report_section(root: Path) -> str:
    """The report page's "Feedback on submit" section (HTML, everything escaped)."""
    return _pages.get_template("serve_status.html.j2").render(status=status(root))


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def main(args: argparse.Namespace) -> int:
    now = status(args.root)
    if args.json:
        print(json.dumps({**asdict(now), "queue_length": now.queue_length}, indent=1))
        return 0
    if not now.running:
        print("the grading service has not run in this course (no .attnkit/serve/journal.db)")
        return 1
    print(f"queue {now.queue_length} (grading {now.grading}, waiting {now.waiting}, "
          f"of which {now.queued} held by the rate limit)")
    print(f"graded {now.graded}, failed {len(now.failed)}, superseded {now.superseded}, "
          f"not counted {now.not_counted}")
    print(f"submit to feedback: p50 {_seconds(now.p50)}, p95 {_seconds(now.p95)}, "
          f"max {_seconds(now.max)}")
    for failure in now.failed:
        print(f"  FAILED {shown(failure['student'])} {shown(failure['assignment'])} "
              f"({failure['submitted']}): {shown(failure['reason'] or '', 300)}")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the status as JSON")


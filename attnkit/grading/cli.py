"""``attnkit autograde ASSIGNMENT...``: its options, and the run's summary on the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nbgrader.coursedir import CourseDirectory

from attnkit.course import load_config
from attnkit.grading.coordinator import autograde_all
from attnkit.grading.settings import KERNEL_ENV, GradingError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``attnkit autograde``."""
    parser.add_argument("assignments", nargs="+", metavar="assignment",
                        help="assignment id, e.g. ps1_self_attention (several: one cluster "
                             "grades them all)")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes of the local cluster (default: one per core "
                             "and one more)")
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

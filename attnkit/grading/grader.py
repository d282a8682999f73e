"""Parallel autograding on Dask distributed: ``attnkit autograde ASSIGNMENT``.

Each submission (student, assignment) is one Dask task. Workers are long-lived
processes, one task at a time each, that grade in-process through nbgrader's
own API (``NbGraderAPI.autograde``: the ``Autograde`` converter with the
course's preprocessors); only the kernels are subprocesses. The course's
pipeline gets grading-only settings (``pipeline_config``): a kernel that fails
to start is started again, its stdout stays off the terminal, and it is killed
instead of shut down gracefully once its notebook has run (nothing is graded
after that).

Before fanning out, the coordinator creates the gradebook schema, the
assignment and the students, so workers never race to create them. A
submission whose files are unchanged since it was last graded into the same
gradebook is skipped unless ``force``; every other one ends either graded (its
grades in the gradebook and its autograded notebook on disk) or failed with a
reason, its log kept in ``.attnkit/autograde/ASSIGNMENT/STUDENT.log``.

This module is the command's one import: the parts live in ``settings`` (the
course's config for grading, the kernel's preflight), ``task`` (the worker
side), ``records`` (submissions, gradebook rows, per-submission records),
``coordinator`` (planning and the fan-out) and ``cli`` (the command line).
"""

from __future__ import annotations

from attnkit.course import load_config
from attnkit.grading.cli import add_arguments, main
from attnkit.grading.coordinator import Summary, autograde, autograde_all
from attnkit.grading.coordinator import _client as _client
from attnkit.grading.records import _alembic_on_path as _alembic_on_path
from attnkit.grading.records import prepare_gradebook
from attnkit.grading.settings import (
    KERNEL_ENV,
    GradingError,
    kernel_start_config,
    pipeline_config,
    preflight,
)
from attnkit.grading.task import _LOCK as _LOCK
from attnkit.grading.task import _worker_api as _worker_api
from attnkit.grading.task import failure_reason, grade_submission, missing_grades, warm_up

# the private names imported "as" themselves are kept here for attnkit.serve and the tests
__all__ = [
    "KERNEL_ENV", "GradingError", "Summary", "add_arguments", "autograde", "autograde_all",
    "failure_reason", "grade_submission", "kernel_start_config", "load_config", "main",
    "missing_grades", "pipeline_config", "preflight", "prepare_gradebook", "warm_up",
]

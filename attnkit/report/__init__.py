"""``attnkit report ASSIGNMENT``: the instructor's view of one graded assignment.

Reads the nbgrader gradebook, the hidden checks' verdicts that ``JudgeProbes``
leaves in the autograded notebooks' cell metadata, and the ``submitted/`` and
``autograded/`` folders, and writes one self-contained HTML page (inline CSS,
figures embedded as base64 PNG and also saved beside it under ``figures/``):

* the distribution of the students' scores, and of each graded cell's scores;
* the pass rate of every autograded check (the share of students with full points);
* the most frequent misconceptions the checks named across the class;
* the submissions that failed to grade, and why;
* how far manual grading of the written answers has got.

Only submissions that were autograded count in the figures and the rates; the
ones that failed to grade are listed with their reason instead. A short text
summary goes to stdout.

One layer per module, each importing only those listed before it:

* ``attnkit.gradedata``: the data model, shared with ``attnkit.review``;
* ``data``: reading the gradebook and the notebooks, and the numbers drawn from them;
* ``figures``: the figures;
* ``page``: the page and the text summary, given other tools' sections as callables;
* ``cli``: the command, the one module above ``attnkit.review`` and ``attnkit.serve``:
  it hands their sections to the page.

``export`` (``attnkit export``) reads through ``data``. The command's names (``build``,
``write``, ``main``...) are in ``attnkit.report.cli``, so importing the package does not load
``attnkit.review`` or ``attnkit.serve``.
"""

from attnkit.gradedata import (
    CRASHED,
    FAILED,
    GRADED,
    INVALID,
    MISSING,
    NOT_AUTOGRADED,
    OUTDATED,
    TIMED_OUT,
    WAITING,
    AssignmentData,
    Cell,
    Mark,
    Submission,
    fmt_score,
)
from attnkit.report.data import (
    collect,
    hints,
    manual_progress,
    pass_rates,
)

__all__ = [
    "CRASHED", "FAILED", "GRADED", "INVALID", "MISSING", "NOT_AUTOGRADED", "OUTDATED", "TIMED_OUT",
    "WAITING", "AssignmentData", "Cell", "Mark", "Submission", "collect", "fmt_score", "hints",
    "manual_progress", "pass_rates",
]

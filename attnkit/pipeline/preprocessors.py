"""nbgrader preprocessors that make autograding trustworthy, by the names configs import.

``nbgrader_config.py`` (and a course's own config, as classes or as
``"attnkit.pipeline.preprocessors.X"`` strings) names them here; each family lives in a module
of its own, in nbgrader's style of a small class per step:

* ``execute``: ``ResilientExecute`` runs the notebook like nbgrader's ``Execute``, but picks
  the grading seed for the hidden checks and survives kernel death.
* ``judging``: ``RequireRegisteredChecks`` refuses a release the kit would not judge;
  ``JudgeProbes`` scores every hidden-check cell outside the student's kernel.
* ``markschemes``: ``AddMarkSchemes`` for TAs, ``ClearMarkSchemes`` before feedback.
* ``restore``: ``DropEmptyGradeMetadata`` and ``RestoreDeletedCells`` before ``OverwriteCells``.
* ``hidden``: ``ScrubHiddenOutputs`` and ``ClearHiddenTestsInTestCells`` for feedback.
* ``cells``: what they share with feedback and the report (``VERDICT``, ``is_test_cell``).
"""

from __future__ import annotations

from attnkit.pipeline.cells import KERNEL_DIED, VERDICT, error_output, is_test_cell
from attnkit.pipeline.execute import (
    CRASHED,
    GARBLED,
    TIMED_OUT,
    UNRESPONSIVE,
    ResilientExecute,
    course_salt,
    grading_seed,
)
from attnkit.pipeline.hidden import (
    HIDDEN_SHOWN,
    ClearHiddenTestsInTestCells,
    ScrubHiddenOutputs,
    hidden_lines,
)
from attnkit.pipeline.judging import _UNDRAWN as _UNDRAWN
from attnkit.pipeline.judging import (
    JudgeProbes,
    RequireRegisteredChecks,
    describe_error,
    is_undrawn_plot,
    unregistered,
)
from attnkit.pipeline.markschemes import MARK_SCHEME, AddMarkSchemes, ClearMarkSchemes
from attnkit.pipeline.restore import (
    FORGED,
    RESTORED,
    DropEmptyGradeMetadata,
    RestoreDeletedCells,
)
from attnkit.pipeline.restore import _noted as _noted

__all__ = [
    "CRASHED", "FORGED", "GARBLED", "HIDDEN_SHOWN", "KERNEL_DIED", "MARK_SCHEME", "RESTORED",
    "TIMED_OUT", "UNRESPONSIVE", "VERDICT", "AddMarkSchemes", "ClearHiddenTestsInTestCells",
    "ClearMarkSchemes", "DropEmptyGradeMetadata", "JudgeProbes", "RequireRegisteredChecks",
    "ResilientExecute", "RestoreDeletedCells", "ScrubHiddenOutputs", "course_salt",
    "describe_error", "error_output", "grading_seed", "hidden_lines", "is_test_cell",
    "is_undrawn_plot", "unregistered",
]
# _UNDRAWN and _noted are imported above as well, for code that took them from here

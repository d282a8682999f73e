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

from attnkit.pipeline.cells import VERDICT, is_test_cell
from attnkit.pipeline.execute import (
    ResilientExecute,
    course_salt,
    grading_seed,
)
from attnkit.pipeline.hidden import (
    ClearHiddenTestsInTestCells,
    ScrubHiddenOutputs,
    hidden_lines,
)
from attnkit.pipeline.judging import _UNDRAWN as _UNDRAWN
from attnkit.pipeline.judging import (
    JudgeProbes,
    RequireRegisteredChecks,
    unregistered,
)
from attnkit.pipeline.markschemes import AddMarkSchemes, ClearMarkSchemes
from attnkit.pipeline.restore import (
    DropEmptyGradeMetadata,
    RestoreDeletedCells,
)
from attnkit.pipeline.restore import _noted as _noted

__all__ = [
    "VERDICT", "AddMarkSchemes", "ClearHiddenTestsInTestCells", "ClearMarkSchemes",
    "DropEmptyGradeMetadata", "JudgeProbes", "RequireRegisteredChecks", "ResilientExecute",
    "RestoreDeletedCells", "ScrubHiddenOutputs", "course_salt", "grading_seed", "hidden_lines",
    "is_test_cell", "unregistered",
]

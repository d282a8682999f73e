"""nbgrader configuration for the self-attention course kit.

Stock ``nbgrader`` commands (generate_assignment, autograde, generate_feedback,
formgrader, export) read this file; ``attnkit autograde`` reuses it.
"""

import functools
import os

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.converters import GenerateAssignment
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    GetGrades,
    IgnorePattern,
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
)

from attnkit import upstream
from attnkit.judge import registry
from attnkit.pipeline import audit, intake, maths
from attnkit.pipeline.feedback import (
    NBGRADER_TEMPLATES,
    TEMPLATES,
    FeedbackExporter,
    SummariseFeedback,
)
from attnkit.pipeline.preprocessors import (
    AddMarkSchemes,
    ClearHiddenTestsInTestCells,
    ClearMarkSchemes,
    DropEmptyGradeMetadata,
    JudgeProbes,
    RequireRegisteredChecks,
    ResilientExecute,
    RestoreDeletedCells,
    ScrubHiddenOutputs,
)
from attnkit.pipeline.sanitize import NeutraliseActiveContent

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file
# nbgrader runs this file up to three times in one process: start from the kit's own checks
# each time, so that a check replaced below (in registry.checks()) is replaced once
registry.reset()

HERE = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = "self-attention"
c.CourseDirectory.root = HERE
# SQLite with a busy timeout so several grading workers can write at once;
# point ATTNKIT_DB_URL at PostgreSQL for shared or clustered grading.
c.CourseDirectory.db_url = os.environ.get(
    "ATTNKIT_DB_URL", f"sqlite:///{os.path.join(HERE, 'gradebook.db')}?timeout=60"
)
c.CourseDirectory.assignment_id = ""
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]

# Releasing: a graded test cell the kit would not judge (no registered check) is refused.
c.GenerateAssignment.preprocessors = [
    RequireRegisteredChecks, *GenerateAssignment.class_traits()["preprocessors"].default()]

# Autograding: student kernels run in the bubblewrap sandbox over ZMQ ipc
# (no TCP port races); verdicts are computed here, outside the kernel.
c.Execute.kernel_name = os.environ.get("ATTNKIT_KERNEL", "attnkit-sandbox")
c.Execute.timeout = 30
c.Execute.interrupt_on_timeout = True
# Budgets per notebook, so one hand-in cannot hold a worker or fill its memory: all cells
# together get 120 s (then the rest are not run, each saying why); a cell prints at most 1 MiB
# per stream in the sandboxed kernel (cut there, with a note); the grader refuses unread any
# message from a kernel over 32 MiB and cuts that kernel off (attnkit/pipeline/budgets.py).
c.ResilientExecute.time_budget = 120
c.ResilientExecute.output_limit = 1 << 20
c.ResilientExecute.message_limit = 32 << 20
c.Execute.shutdown_kernel = "immediate"  # nothing runs after the last cell: don't wait for it
c.KernelManager.transport = "ipc"
# Sandboxed kernels fork from a server that has imported ipykernel, numpy and matplotlib once,
# for `attnkit autograde` and stock commands alike (formgrader's Autograde button); False
# starts each with bubblewrap, as nbgrader starts kernels. Off if that hook steps aside.
c.SandboxProvisioner.warm_start = upstream.applies("warm_kernels")
# Hidden inputs derive from a secret salt made once in .attnkit/seed-salt (never released).
c.ResilientExecute.salt_file = os.path.join(HERE, ".attnkit", "seed-salt")
# Stock `nbgrader autograde` (formgrader's Autograde button) repairs submissions as
# `attnkit intake` does: unreadable or misnamed notebooks, symbolic links.
c.Autograde.pre_convert_hook = functools.partial(intake.pre_convert_hook, HERE)
c.OverwriteCells.add_missing_cells = True
# Regrades: every graded cell's old and new score lands in the table attnkit_regrade of the
# gradebook's database (AuditedSaveAutoGrades below); stock `nbgrader autograde` prints the
# run's summary ("3 students changed: 2 up, 1 down") when it ends.
c.Autograde.post_convert_hook = functools.partial(audit.post_convert_hook, HERE)
c.LimitOutput.max_lines = 200
c.LimitOutput.max_traceback = 40
c.Autograde.sanitize_preprocessors = [
    ClearOutput,
    DeduplicateIds,
    DropEmptyGradeMetadata,
    RestoreDeletedCells,  # forged graded cells dropped, deleted cells put back
    OverwriteKernelspec,
    OverwriteCells,
    CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    ResilientExecute,
    JudgeProbes,
    NeutraliseActiveContent,  # student HTML/JavaScript made inert text for every page
    AddMarkSchemes,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    audit.AuditedSaveAutoGrades,  # nbgrader's SaveAutoGrades + the regrade audit
    AssignLatePenalties,
    CheckCellMetadata,
]
# Follow-through: a cell right given the student's own (wrong) helpers keeps this fraction of
# its points, the helper's mistake charged once, at the helper (docs/grading.md); 0 turns it off.
c.JudgeProbes.follow_through = 1.0

# Feedback: never show hidden test source, nor the TAs' mark schemes.
c.GenerateFeedback.preprocessors = [
    NeutraliseActiveContent,  # also for notebooks autograded before it existed
    GetGrades,
    ScrubHiddenOutputs,  # hidden lines a student's output copied (printing `In`, say)
    ClearHiddenTestsInTestCells,
    ClearMarkSchemes,
    SummariseFeedback,  # the summary on top: verdicts, points, hints, TA comments
    CSSHTMLHeaderPreprocessor,
]

# Pages (feedback, formgrader's grading view): maths becomes MathML when the page is
# written, not TeX for MathJax from a CDN, so pages read correctly offline; the kit's
# templates extend nbgrader's. Feedback has an exporter class of its own, as formgrader's
# HTMLExporter takes its template from c.HTMLExporter.
c.HTMLExporter.filters = maths.FILTERS
c.HTMLExporter.extra_template_basedirs = [TEMPLATES, NBGRADER_TEMPLATES]
c.HTMLExporter.extra_template_paths = [NBGRADER_TEMPLATES]
c.HTMLExporter.template_name = "attnkit_formgrade"
c.GenerateFeedback.exporter_class = FeedbackExporter
c.FeedbackExporter.template_name = "attnkit_feedback"
c.FeedbackExporter.extra_template_paths = [NBGRADER_TEMPLATES]

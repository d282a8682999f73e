"""What the kit's preprocessors write into a graded notebook and others read back.

Execution, judging, feedback and the report agree through these: the verdict's metadata key,
the error a replayed cell gets, and which cells are the assignment's test cells.
"""

from __future__ import annotations

import textwrap

from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade, is_solution
from traitlets import List

KERNEL_DIED = "KernelDied"  # ename of a cell skipped because it killed its kernel
VERDICT = "attnkit"  # cell metadata key of a hidden check's verdict in autograded notebooks


def error_output(ename: str, evalue: str) -> NotebookNode:
    """An error output whose 'traceback' is just the message, wrapped for reading."""
    return from_dict({"output_type": "error", "ename": ename, "evalue": evalue,
                      "traceback": [textwrap.fill(f"{ename}: {evalue}", width=96)]})


def is_test_cell(cell: NotebookNode) -> bool:
    """An autograded test cell: its source comes from the gradebook, never from the student."""
    return cell.cell_type == "code" and is_grade(cell) and not is_solution(cell)


def display_priority() -> List:
    """nbgrader's ``display_data_priority`` trait, as config: nbconvert's HTMLExporter sets
    ``NbConvertBase.display_data_priority``, which nbgrader's preprocessor base redeclares
    without ``config=True``, so each feedback preprocessor would warn that it does not know
    the option. nbgrader's own GetGrades declares it the same way."""
    return List(NbGraderPreprocessor.display_data_priority.default_value).tag(config=True)

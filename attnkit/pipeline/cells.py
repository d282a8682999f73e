"""What the kit's preprocessors write into a graded notebook and others read back.

Execution, judging, feedback and the report agree through these: the verdict's metadata key,
the error a replayed cell gets, and which cells are the assignment's test cells.
"""

from __future__ import annotations

import textwrap

from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.utils import is_grade, is_solution

KERNEL_DIED = "KernelDied"  # ename of a cell skipped because it killed its kernel
VERDICT = "attnkit"  # cell metadata key of a hidden check's verdict in autograded notebooks


def error_output(ename: str, evalue: str) -> NotebookNode:
    """An error output whose 'traceback' is just the message, wrapped for reading."""
    return from_dict({"output_type": "error", "ename": ename, "evalue": evalue,
                      "traceback": [textwrap.fill(f"{ename}: {evalue}", width=96)]})


def is_test_cell(cell: NotebookNode) -> bool:
    """An autograded test cell: its source comes from the gradebook, never from the student."""
    return cell.cell_type == "code" and is_grade(cell) and not is_solution(cell)

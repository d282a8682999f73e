"""Keeping hidden-test source out of students' feedback: from the test cells, and from any
output a student's code copied it into.
"""

from __future__ import annotations

import re

from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import Integer

from attnkit.pipeline.cells import display_priority, is_test_cell


class ClearHiddenTestsInTestCells(ClearHiddenTests):
    """nbgrader's ``ClearHiddenTests``, applied to the assignment's test cells only.

    A student's own cell that writes the markers (say a BEGIN line with no END) made
    nbgrader's version raise, and that student got no feedback at all; such text is the
    student's, so it is shown as written.

    A test cell's bare number result is nbgrader's partial credit (the hidden check's score):
    the page shows the score already, so the stray ``Out[n]: 1`` goes too.
    """

    display_data_priority = display_priority()

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        index: int) -> tuple[NotebookNode, dict]:
        if not is_test_cell(cell):
            return cell, resources
        cell.outputs = [o for o in cell.get("outputs", []) if not is_partial_credit(o)]
        return super().preprocess_cell(cell, resources, index)


def is_partial_credit(output: NotebookNode) -> bool:
    """An ``execute_result`` that is just a number: what nbgrader reads as a cell's score."""
    if output.get("output_type") != "execute_result":
        return False
    text = output.get("data", {}).get("text/plain", "")
    try:
        float("".join(text) if isinstance(text, list) else text)
    except ValueError:
        return False
    return True


HIDDEN_SHOWN = "[hidden test]"


def hidden_lines(cells: list[NotebookNode], begin: str = "BEGIN HIDDEN TESTS",
                 end: str = "END HIDDEN TESTS", min_length: int = 8) -> set[str]:
    """The stripped lines inside the hidden regions of the test cells among ``cells``: not
    the markers, nor lines shorter than ``min_length`` (such as ``)``)."""
    lines: set[str] = set()
    for cell in filter(is_test_cell, cells):
        inside = False
        for line in cell.source.splitlines():
            if begin in line:
                inside = True
            elif end in line:
                inside = False
            elif inside and len(line.strip()) >= min_length:
                lines.add(line.strip())
    return lines


class ScrubHiddenOutputs(ClearHiddenTests):
    """Remove hidden-test source from every output, before ``ClearHiddenTests`` removes it
    from the cells: a student cell printing ``In`` (IPython's input history) or reading files
    in the kernel's directory would otherwise copy the hidden lines into the feedback.

    A ``ClearHiddenTests`` for its delimiters only (``c.ClearHiddenTests`` sets both)."""

    display_data_priority = display_priority()

    min_length = Integer(8, help="Shorter hidden lines (such as `)`) are left alone").tag(
        config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        begin, end = self.begin_test_delimeter, self.end_test_delimeter
        words = sorted(hidden_lines(nb.cells, begin, end, self.min_length), key=len,
                       reverse=True)
        pattern = re.compile("|".join(map(re.escape, [*words, begin, end])))
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                self._scrub(output, pattern)
        return nb, resources

    @staticmethod
    def _scrub(output: NotebookNode, pattern: re.Pattern) -> None:
        def clean(text: object) -> object:
            if isinstance(text, list):
                return [clean(t) for t in text]
            return pattern.sub(HIDDEN_SHOWN, text) if isinstance(text, str) else text

        for key in ("text", "evalue", "traceback"):
            if key in output:
                output[key] = clean(output[key])
        for mime, value in output.get("data", {}).items():
            if mime.startswith("text/"):
                output["data"][mime] = clean(value)

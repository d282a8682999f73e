"""The written answers' mark schemes: shown to TAs under each answer in formgrader, and
removed again before students see their feedback.
"""

from __future__ import annotations

from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.preprocessors import NbGraderPreprocessor

from attnkit.judge.registry import mark_schemes
from attnkit.pipeline.cells import display_priority

MARK_SCHEME = "attnkit_mark_scheme"


class AddMarkSchemes(NbGraderPreprocessor):
    """Put each written answer's mark scheme under it, for TAs in formgrader."""

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        cells = []
        for cell in nb.cells:
            if cell.metadata.get(MARK_SCHEME):
                continue  # only the kit writes mark schemes
            cells.append(cell)
            scheme = mark_schemes().get(cell.metadata.get("nbgrader", {}).get("grade_id"))
            if scheme:
                cells.append(from_dict({"cell_type": "markdown", "source": scheme,
                                        "metadata": {MARK_SCHEME: True}}))
        nb.cells = cells
        return nb, resources


class ClearMarkSchemes(NbGraderPreprocessor):
    """Drop the TAs' mark schemes from students' feedback."""

    display_data_priority = display_priority()

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        nb.cells = [c for c in nb.cells if not c.metadata.get(MARK_SCHEME)]
        return nb, resources

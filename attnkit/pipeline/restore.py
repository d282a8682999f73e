"""Making a submission's nbgrader cells the assignment's before nbgrader's ``OverwriteCells``,
whose own repairs fail on forged, deleted or emptied cells and leave the submission ungraded.
"""

from __future__ import annotations

from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.api import Gradebook, SourceCell
from nbgrader.preprocessors import NbGraderPreprocessor


class DropEmptyGradeMetadata(NbGraderPreprocessor):
    """Remove the empty ``nbgrader`` metadata DeduplicateIds leaves on duplicated cells.

    nbgrader 0.9's OverwriteCells (with ``add_missing_cells``) fails with a KeyError on
    them, which would drop the whole submission.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        for cell in nb.cells:
            if cell.metadata.get("nbgrader") == {}:
                del cell.metadata["nbgrader"]
        return nb, resources


FORGED = ("**Grading note.** This cell claimed to be the graded cell {grade_id!r}, which is not "
          "part of this assignment, so it was not graded.\n\n")
RESTORED = ("**Grading note.** The cell {grade_id!r} was missing from the submission and was "
            "put back from the assignment.\n\n")


def _noted(cell_type: str, note: str, source: str) -> str:
    """``source`` with ``note`` on top, as a comment in code cells."""
    if cell_type == "code":
        note = "".join(f"# {line}\n" for line in note.replace("**", "").strip().splitlines())
    return note + source


class RestoreDeletedCells(NbGraderPreprocessor):
    """Make the submission's nbgrader cells exactly the assignment's, before ``OverwriteCells``.

    A cell claiming a grade id the gradebook does not know (forged) loses its nbgrader
    metadata; every source cell the student deleted (test, answer or locked helper cell) is
    put back after the nearest earlier cell still present. nbgrader's own
    ``add_missing_cells`` fails on both (a forged id: ``KeyError: 'grade_id'``; a deleted cell
    after a locked helper: ``KeyError``), which would leave the whole submission ungraded.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            source = gb.find_notebook(info["notebook"], info["assignment"])
            order = [cell.name for cell in source.source_cells]
            cells = {cell.name: cell for cell in source.source_cells}
            points = {cell.name: cell.max_score for cell in source.grade_cells}
            solutions = {cell.name for cell in source.solution_cells}
        present = {}
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader")
            if meta is None:
                continue
            grade_id = meta.get("grade_id")
            if grade_id not in cells or grade_id in present:
                del cell.metadata["nbgrader"]
                cell.source = _noted(cell.cell_type, FORGED.format(grade_id=grade_id),
                                     cell.source)
                continue
            present[grade_id] = cell
        for index, grade_id in enumerate(order):
            if grade_id in present:
                continue
            cell = self._restored(cells[grade_id], points.get(grade_id), grade_id in solutions)
            earlier = next((present[g] for g in reversed(order[:index]) if g in present), None)
            nb.cells.insert(nb.cells.index(earlier) + 1 if earlier is not None else 0, cell)
            present[grade_id] = cell
        return nb, resources

    @staticmethod
    def _restored(source_cell: SourceCell, points: float | None, solution: bool) -> NotebookNode:
        meta = {"grade": points is not None, "grade_id": source_cell.name,
                "locked": source_cell.locked, "solution": solution, "schema_version": 3}
        if points is not None:
            meta["points"] = points
        cell = {"cell_type": source_cell.cell_type, "metadata": {"nbgrader": meta},
                "source": _noted(source_cell.cell_type, RESTORED.format(grade_id=source_cell.name),
                                 source_cell.source)}
        if source_cell.cell_type == "code":
            cell.update(outputs=[], execution_count=None)
        return from_dict(cell)

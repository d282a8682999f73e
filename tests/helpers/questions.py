"""The questions of the course, read from its master notebooks, so that the test helpers'
per-question lists (hostile targets, the catalogue's skills) follow the notebooks instead of
being kept by hand.

A question is a graded test cell, the solution cell above it, what its hidden block hands to
``probe`` after the grade id, and the functions that solution cell defines.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import nbformat

from attnkit.pipeline.cells import is_test_cell


@dataclass(frozen=True)
class Question:
    test: str  # the test cell's grade id (= its check's id)
    code: str | None  # the grade id of the nearest solution code cell above it
    targets: tuple[str, ...]  # the names its hidden block passes to probe
    defs: tuple[tuple[str, str], ...]  # (name, parameters as in the def) of the solution cell

    @property
    def function(self) -> str | None:
        """The one function the probe is handed, defined by ``def`` in the solution cell."""
        names = dict(self.defs)
        return self.targets[0] if len(self.targets) == 1 and self.targets[0] in names else None

    @property
    def params(self) -> str:
        return dict(self.defs)[self.function] if self.function else ""


def master(root: Path, assignment: str) -> Path:
    return root / "source" / assignment / f"{assignment}.ipynb"


def _probed(source: str, grade_id: str) -> tuple[str, ...]:
    """What ``probe("<grade_id>", ...)`` is handed in ``source``, as names."""
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "probe" and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == grade_id):
            return tuple(ast.unparse(a) for a in node.args[1:])
    return ()


def _defs(source: str) -> tuple[tuple[str, str], ...]:
    return tuple((node.name, ast.unparse(node.args)) for node in ast.parse(source).body
                 if isinstance(node, ast.FunctionDef))


def questions(root: Path, assignment: str) -> list[Question]:
    """The assignment's autograded questions, in notebook order."""
    found, code, defs = [], None, ()
    for cell in nbformat.read(master(root, assignment), as_version=4).cells:
        nbgrader = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and nbgrader.get("solution"):
            code, defs = nbgrader["grade_id"], _defs(cell.source)
        elif is_test_cell(cell):
            grade_id = nbgrader["grade_id"]
            found.append(Question(grade_id, code, _probed(cell.source, grade_id), defs))
    return found


def single_function(root: Path, assignment: str) -> dict[str, tuple[str, str]]:
    """Test cell -> (solution cell, function name) for each question whose probe is handed
    one function that its solution cell defines."""
    return {q.test: (q.code, q.function) for q in questions(root, assignment)
            if q.function and q.code}

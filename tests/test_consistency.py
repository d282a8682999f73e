"""Every graded test cell is judged by a registered check, and releasing refuses one that is
not (no kernels: nbgrader's generate_assignment in-process)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, copy_course

from attnkit import course
from attnkit.cases import SPECS
from attnkit.checks import CHECKS
from attnkit.misconceptions import WRONG
from attnkit.preprocessors import is_test_cell, unregistered

MASTERS = sorted((ROOT / "source").glob("*/*.ipynb"))


def test_graded_cells_checks_and_probes_agree() -> None:
    cells = [c for path in MASTERS for c in nbformat.read(path, as_version=4).cells
             if is_test_cell(c)]
    ids = {c.metadata["nbgrader"]["grade_id"] for c in cells}
    assert ids == set(CHECKS) == set(SPECS)
    assert set(WRONG) <= ids
    assert [unregistered(c) for c in cells] == [None] * len(cells)


def test_release_refuses_an_unregistered_graded_cell_and_names_it(tmp_path: Path) -> None:
    """The defect: JudgeProbes skipped such a cell and nbgrader awarded its points whenever
    the visible asserts passed, so hard-coded answers scored."""
    root = copy_course(tmp_path / "course")
    master = root / "source" / "ps1_self_attention" / "ps1_self_attention.ipynb"
    nb = nbformat.read(master, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("assert softmax([0.0]) == 1.0", metadata={
        "nbgrader": {"grade": True, "solution": False, "locked": True, "points": 1,
                     "grade_id": "ps1_unregistered", "schema_version": 3}}))
    nbformat.write(nb, master)
    with pytest.raises(RuntimeError, match="no hidden check is registered for the graded test "
                                           "cell 'ps1_unregistered'"):
        course.release(root, ["ps1_self_attention"])


def test_pins_fit_the_declared_bounds() -> None:
    """requirements.txt (what is installed) satisfies pyproject.toml (what the kit supports,
    upper bounds where it relies on internals)."""
    import tomllib

    from packaging.requirements import Requirement

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = {Requirement(line).name.lower(): next(iter(Requirement(line).specifier)).version
            for line in (ROOT / "requirements.txt").read_text().splitlines() if "==" in line}
    for requirement in map(Requirement, declared):
        assert requirement.name.lower() in pins, f"{requirement.name} is not pinned"
        pinned = pins[requirement.name.lower()]
        assert requirement.specifier.contains(pinned), f"{requirement.name}=={pinned}"
        assert any(s.operator == "<" for s in requirement.specifier), requirement

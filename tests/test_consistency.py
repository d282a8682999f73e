"""One home per check: the master notebooks, the kernel's probes, the judge's checks, the
mark schemes and the catalogue agree; releasing refuses a graded cell the kit would not judge.
No kernels: notebooks run in-process, nbgrader's generate_assignment without executing."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest
from helpers.course import ROOT, copy_course, run

from attnkit import course
from attnkit.dev.validate import load_catalogue
from attnkit.judge.registry import assignments, checks, written
from attnkit.kernel.cases import probes
from attnkit.pipeline.preprocessors import VERDICT, JudgeProbes, is_test_cell, unregistered

HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*$",
                    re.MULTILINE | re.DOTALL)


def masters(root: Path) -> list[Path]:
    return sorted((root / "source").glob("*/*.ipynb"))


def registry_problems(root: Path) -> list[str]:
    """Every disagreement between the masters under ``root`` and the registries, each naming
    its cell or check: what a lecturer has to fix before releasing."""
    out = []
    modules, registered, answers = assignments(), checks(), written()
    tested, answered = set(), set()
    for master in masters(root):
        module = modules.get(master.parent.name)
        if module is None:
            out.append(f"{master.name}: no attnkit/judge/{master.parent.name}.py defines CHECKS")
        for cell in nbformat.read(master, as_version=4).cells:
            nbgrader = cell.metadata.get("nbgrader", {})
            grade_id = nbgrader.get("grade_id")
            if is_test_cell(cell):
                tested.add(grade_id)
                if problem := unregistered(cell):
                    out.append(f"{master.name}: {problem}")
                elif module is not None and grade_id not in module.CHECKS:
                    out.append(f"{master.name}: the check {grade_id!r} is defined in another "
                               "assignment's module")
            elif nbgrader.get("grade") and nbgrader.get("solution"):
                answered.add(grade_id)
                if grade_id not in answers:
                    out.append(f"{master.name}: the manually graded answer {grade_id!r} has no "
                               "Written(...) mark scheme")
    kernel = probes()
    out += [f"the check {g!r} has no graded test cell in source/"
            for g in sorted(set(registered) - tested)]
    out += [f"the probe {g!r} (attnkit/kernel) has no check (attnkit/judge)"
            for g in sorted(set(kernel) - set(registered))]
    out += [f"the check {g!r} is not built on attnkit/kernel's probe {g!r}"
            for g, c in registered.items() if kernel.get(g) is not c.probe]
    out += [f"the mark scheme {g!r} has no manually graded answer cell"
            for g in sorted(set(answers) - answered)]
    return out


def test_graded_cells_checks_and_probes_agree() -> None:
    """Grade ids of the masters' test cells == registered checks == probe ids (each hidden
    block probes its own cell's id); one judge and one kernel module per assignment."""
    assert registry_problems(ROOT) == []
    assert set(assignments()) == {m.parent.name for m in masters(ROOT)}
    assert set(checks()) == set(probes()) and len(checks()) >= 19


def test_an_unregistered_graded_cell_is_named(tmp_path: Path) -> None:
    root = copy_course(tmp_path / "course")
    add_unregistered_cell(root)
    problems = registry_problems(root)
    assert problems == ["ps1_self_attention.ipynb: no hidden check is registered for the graded "
                        "test cell 'ps1_unregistered'"], problems


def add_unregistered_cell(root: Path) -> None:
    master = root / "source" / "ps1_self_attention" / "ps1_self_attention.ipynb"
    nb = nbformat.read(master, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("assert softmax([0.0]) == 1.0", metadata={
        "nbgrader": {"grade": True, "solution": False, "locked": True, "points": 1,
                     "grade_id": "ps1_unregistered", "schema_version": 3}}))
    nbformat.write(nb, master)


def test_release_refuses_an_unregistered_graded_cell_and_names_it(tmp_path: Path) -> None:
    """The defect: JudgeProbes skipped such a cell and nbgrader awarded its points whenever
    the visible asserts passed, so hard-coded answers scored."""
    root = copy_course(tmp_path / "course")
    add_unregistered_cell(root)
    with pytest.raises(RuntimeError, match="no hidden check is registered for the graded test "
                                           "cell 'ps1_unregistered'"):
        course.release(root, ["ps1_self_attention"])
    stock = run(["nbgrader", "generate_assignment", "ps1_self_attention", "--force"], root,
                check=False)
    assert stock.returncode != 0
    assert "no hidden check is registered for the graded test cell 'ps1_unregistered'" in (
        stock.stdout + stock.stderr)


def test_autograde_scores_an_unregistered_cell_0_and_says_why() -> None:
    """Never the visible asserts: a cell the kit cannot judge scores 0, with the reason."""
    cell = nbformat.v4.new_code_cell("assert True", metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": 2,
        "grade_id": "ps1_unregistered", "schema_version": 3}})
    nb = nbformat.v4.new_notebook(cells=[cell])
    JudgeProbes().preprocess(nb, {"attnkit": {"seed": 0}})
    verdict = cell.metadata[VERDICT]
    assert verdict["score"] == 0.0 and verdict["points"] == 2.0
    assert "'ps1_unregistered'" in verdict["message"]
    assert cell.outputs[0]["output_type"] == "error"


def test_every_wrong_variant_has_a_catalogue_implementation() -> None:
    """A misconception nobody writes is untested: each ``Wrong`` name of a check needs a
    student-style implementation in attnkit/catalogue that declares it (variants shared by
    several checks, such as "wrong weight matrix", are one student mistake), and each check
    with variants needs a wrong implementation aimed at it."""
    entries = load_catalogue()
    declared = {(check, name) for e in entries for check, m in e.expect.items() if m
                for name in m.split("; ")}
    names = {name for _, name in declared}
    missing = sorted({(g, w.name) for g, c in checks().items() for w in c.wrong
                      if w.name not in names})
    assert not missing, f"(check, misconception) without a catalogue implementation: {missing}"
    unaimed = sorted(g for g, c in checks().items()
                     if c.wrong and not any(check == g for check, _ in declared))
    assert not unaimed, f"checks with variants but no wrong catalogue implementation: {unaimed}"


def namespaces(master: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Run the master notebook in-process, hidden blocks removed; after each graded test cell,
    yield its grade id and the notebook's variables."""
    import matplotlib.pyplot as plt

    variables: dict[str, Any] = {}
    for cell in nbformat.read(master, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            exec(compile(HIDDEN.sub("", cell.source), str(master), "exec"), variables)
        plt.close("all")
        if is_test_cell(cell):
            yield cell.metadata["nbgrader"]["grade_id"], variables


def equal(a: Any, b: Any) -> bool:
    """The same data: lists, tuples and dicts item by item, numbers to 1e-12."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
                and all(equal(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)) and a and isinstance(a[0], (dict, list, tuple, np.ndarray)):
        return (isinstance(b, (list, tuple)) and len(a) == len(b)
                and all(equal(x, y) for x, y in zip(a, b, strict=True)))
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0, atol=1e-12))


@pytest.mark.parametrize("master", masters(ROOT), ids=lambda p: p.parent.name)
def test_each_notebooks_data_is_its_checks_pinned_case(master: Path) -> None:
    """Case 0 of a check with ``pinned`` is what the notebook shows the student: each pinned
    expression, evaluated in the notebook after its test cell ran, equals that argument."""
    checked = 0
    for grade_id, variables in namespaces(master):
        probe = checks()[grade_id].probe
        cases = probe.cases(0)
        pinned = [c for c in cases if c.pinned]
        assert bool(pinned) == bool(probe.pinned), (
            f"{grade_id}: a pinned case needs Probe(pinned=...) and the other way round")
        assert not pinned or cases[0].pinned, f"{grade_id}: the pinned case is not case 0"
        if not pinned:
            continue
        args = pinned[0].args
        assert set(probe.pinned) == set(args), f"{grade_id}: pinned names {set(probe.pinned)}"
        for name, expression in probe.pinned.items():
            shown = eval(expression, variables)  # noqa: S307 - the course's own master notebook
            assert equal(args[name], shown), (
                f"{grade_id}: the pinned case's {name} differs from the notebook's {expression}")
        checked += 1
    assert checked, f"{master.name}: no check pins the notebook's data"


def test_pins_fit_the_declared_bounds() -> None:
    """requirements.txt (what is installed) satisfies pyproject.toml (what the kit supports,
    each bounded above by its next major release)."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    pins = {Requirement(line).name.lower(): next(iter(Requirement(line).specifier)).version
            for line in (ROOT / "requirements.txt").read_text().splitlines() if "==" in line}
    for requirement in map(Requirement, declared):
        assert requirement.name.lower() in pins, f"{requirement.name} is not pinned"
        pinned = pins[requirement.name.lower()]
        assert requirement.specifier.contains(pinned), f"{requirement.name}=={pinned}"
        assert any(s.operator == "<" for s in requirement.specifier), requirement

"""release/ is what ``nbgrader generate_assignment`` makes from source/, and leaks nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from helpers.course import ROOT, run

from attnkit import course as kit_course
from attnkit.samples import SOLUTION

pytestmark = pytest.mark.slow
SECRETS = re.compile(r"BEGIN SOLUTION|END SOLUTION|HIDDEN TESTS|attnkit|probe\(|MARK SCHEME")


def released_files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root / "release")): p.read_text()
            for p in sorted((root / "release").rglob("*")) if p.is_file()}


def test_release_matches_generate_assignment(course: Path) -> None:
    committed = released_files(course)
    for assignment in kit_course.assignments(course):
        run(["nbgrader", "generate_assignment", assignment, "--force"], course)
    regenerated = released_files(course)
    assert committed.keys() == regenerated.keys(), "run `make release` and commit release/"
    for name in committed:
        assert json.loads(committed[name]) == json.loads(regenerated[name]), (
            f"release/{name} is out of date with source/: run `make release` and commit it")


REGION = re.compile(r"### BEGIN (?:SOLUTION|HIDDEN TESTS)\n(.*?)### END[^\n]*", re.DOTALL)


def solution_lines(master: Path) -> set[str]:
    """Distinctive lines that only the master's solutions and hidden tests contain."""
    secret, public = set(), set()
    for cell in nbformat.read(master, as_version=4).cells:
        regions = REGION.findall(cell.source)
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "markdown":
            regions.append(SOLUTION.sub("", cell.source))
        else:
            public |= {line.strip() for line in REGION.sub("", cell.source).splitlines()}
        for region in regions:
            secret |= {line.strip() for line in region.splitlines() if len(line.strip()) > 12}
    return secret - public


@pytest.mark.parametrize("master", sorted(ROOT.glob("source/*/*.ipynb")), ids=lambda p: p.stem)
def test_release_leaks_no_solution_or_hidden_test(master: Path) -> None:
    release_dir = ROOT / "release" / master.parent.name
    assert release_dir.is_dir(), f"{master.parent.name} has no release: run `make release`"
    secrets = solution_lines(master)
    assert secrets, "the master has no solutions?"
    for path in release_dir.rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert not SECRETS.search(text), f"{path}: {SECRETS.search(text).group()}"
            leaked = [line for line in secrets if line in text]
            assert not leaked, f"{path} contains master-only lines: {leaked[:3]}"

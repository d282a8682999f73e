"""A demo class: fictional students whose submissions show complete, blank and typical work.

Each student's submission is the released notebook with some solution cells
filled in. A cell a student does not mention gets the master solution, so
every mistake is isolated; ``expect`` says what each test cell should then
score, as a fraction of its points (cells not listed score 1). The students
are the ``SAMPLES`` of each assignment's module in ``attnkit/judge/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from attnkit.judge import registry
from attnkit.judge.check import Sample

SOLUTION = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*$\n?", re.MULTILINE)


SAMPLES: dict[str, dict[str, Sample]] = registry.samples()


def solution_code(source: str) -> str:
    """A master solution cell without its solution markers."""
    return SOLUTION.sub("", source)


def build_submission(master: Path, release: Path, sample: Sample) -> nbformat.NotebookNode:
    """The release notebook with the sample student's (or the master's) code filled in."""
    nb = nbformat.read(release, as_version=4)
    if sample.blank:
        return nb
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source
                 for c in nbformat.read(master, as_version=4).cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = sample.code.get(grade_id, solution_code(solutions[grade_id]))
    return nb


def write_submissions(root: Path, assignments: list[str] | None = None) -> list[tuple[str, str]]:
    """Write every sample submission under ``root/submitted``; returns (student, assignment)."""
    written = []
    for assignment, students in SAMPLES.items():
        if assignments and assignment not in assignments:
            continue
        for master in sorted((root / "source" / assignment).glob("*.ipynb")):
            release = root / "release" / assignment / master.name
            for student, sample in students.items():
                out = root / "submitted" / student / assignment / master.name
                out.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(build_submission(master, release, sample), out)
                written.append((student, assignment))
    return sorted(set(written))

"""A sample of the misconception catalogue, end to end through ``attnkit autograde``.

Each sampled ps1 and ps5 implementation is pasted, as a student would, into the solution
cell of its skill; the submission is autograded in the sandbox like any other (the kit's
grading gives stock ``nbgrader autograde``'s scores: ``test_grader.py``). Wrong code
must lose points in that skill's cell, with its misconception named in the feedback;
correct code must keep full marks there.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
import pytest
from helpers.catalogue import ASSIGNMENTS, SKILLS, sample_entries, student_code
from helpers.course import copy_course, run
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.samples import Sample, build_submission

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=sorted(ASSIGNMENTS))
def catalogue_class(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> tuple[Path, str, list]:
    name = request.param
    root = copy_course(tmp_path_factory.mktemp("catalogue"))
    run(["nbgrader", "generate_assignment", name, "--force"], root)
    entries = sample_entries(name)
    master = root / "source" / name / f"{name}.ipynb"
    release = root / "release" / name / f"{name}.ipynb"
    for index, entry in enumerate(entries):
        check, code = student_code(entry)
        nb = build_submission(master, release, Sample(entry.name, {SKILLS[check][0]: code}))
        out = root / "submitted" / f"c{index:02d}" / name / f"{name}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(nb, out)
    run(["attnkit", "autograde", name, "--force"], root)
    run(["nbgrader", "generate_feedback", name, "--force"], root)
    return root, name, entries


def test_catalogue_sample_end_to_end(catalogue_class: tuple[Path, str, list]) -> None:
    root, name, entries = catalogue_class
    assert len(entries) >= 12 and not all(e.correct for e in entries) and any(
        e.correct for e in entries)
    problems = []
    with Gradebook(kit_course.db_url(root)) as gb:
        for index, entry in enumerate(entries):
            check = next(iter(entry.expect))
            student = f"c{index:02d}"
            grade = gb.find_grade(check, name, name, student)
            page = html.unescape((root / "feedback" / student / name / f"{name}.html").read_text())
            page = " ".join(re.sub(r"<[^>]+>", " ", page).split())
            wrong = entry.expect[check]
            full = grade.score == grade.max_score
            if wrong and (full or not all(p.lower() in page.lower() for p in entry.says)):
                problems.append(f"{entry.name}: {grade.score}/{grade.max_score}, hint missing")
            if not wrong and not full:
                problems.append(f"{entry.name} (correct) got {grade.score}/{grade.max_score}")
    assert not problems, problems

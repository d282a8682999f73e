"""A sample of the misconception catalogue, end to end through real ``nbgrader autograde``.

Each sampled ps1 and ps5 implementation is pasted, as a student would, into the solution
cell of its skill; the submission is autograded in the sandbox like any other. Wrong code
must lose points in that skill's cell, with its misconception named in the feedback;
correct code must keep full marks there.
"""

from __future__ import annotations

import html
import inspect
import re
import textwrap
from pathlib import Path

import nbformat
import pytest
from conftest import copy_course, run
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.dev.validate import load_catalogue
from attnkit.samples import Sample, build_submission

pytestmark = pytest.mark.slow
ASSIGNMENTS = {  # assignment -> {test cell -> (solution cell, the name the notebook calls)}
    "ps1_self_attention": {
        "ps1_softmax": ("ps1_softmax_code", "softmax"),
        "ps1_self_attention_loop": ("ps1_loop_code", "self_attention_loop"),
        "ps1_softmax_cols": ("ps1_softmax_cols_code", "softmax_cols"),
        "ps1_self_attention": ("ps1_self_attention_code", "self_attention"),
        "ps1_scaled_attention": ("ps1_scaled_code", "scaled_dot_product_self_attention"),
        "ps1_equivariance": ("ps1_equivariance_code", "check_equivariance"),
    },
    "ps5_masked_attention": {
        "ps5_causal_mask": ("ps5_causal_mask_code", "causal_mask"),
        "ps5_masked_softmax": ("ps5_masked_softmax_code", "masked_softmax_cols"),
        "ps5_masked_attention": ("ps5_masked_attention_code", "masked_self_attention"),
        "ps5_positional_encoding": ("ps5_positional_encoding_code", "positional_encoding"),
        "ps5_equivariance": ("ps5_equivariance_code", "equivariance_gaps"),
    },
}
SKILLS = {check: cells for skills in ASSIGNMENTS.values() for check, cells in skills.items()}
IMPORTS = "import math\nimport warnings\n\nimport numpy as np\nimport scipy.special\n\n"


def sample_entries(assignment: str) -> list:
    """Every other single-skill function of the assignment in the catalogue (wrong and correct)."""
    entries = [e for e in load_catalogue() if len(e.expect) == 1
               and next(iter(e.expect)) in ASSIGNMENTS[assignment]
               and inspect.isfunction(e.targets[0])]
    return entries[::2]


def source_of(function) -> str:
    source = textwrap.dedent(inspect.getsource(function))
    return re.sub(r"^@entry\(.*?\)\n", "", source, flags=re.DOTALL | re.MULTILINE)


def student_code(entry) -> tuple[str, str]:
    """The entry's function, the module helpers it may call, bound to the notebook's name."""
    check = next(iter(entry.expect))
    function = entry.targets[0]
    helpers = [source_of(f) for n, f in function.__globals__.items()
               if n.startswith("_") and inspect.isfunction(f)
               and f.__module__ == function.__module__]
    code = "\n".join([IMPORTS, *helpers, source_of(function)])
    return check, f"{code}\n{SKILLS[check][1]} = {function.__name__}\n"


@pytest.fixture(scope="module", params=sorted(ASSIGNMENTS))
def graded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
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
    run(["nbgrader", "autograde", name, "--force"], root)
    run(["nbgrader", "generate_feedback", name, "--force"], root)
    return root, name, entries


def test_catalogue_sample_end_to_end(graded: tuple[Path, str, list]) -> None:
    root, name, entries = graded
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

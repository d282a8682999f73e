"""The hostile-submission suite through real ``nbgrader autograde`` in the sandbox, and
again through ``attnkit autograde`` (warm kernels forked by the forkserver).

Prints the table (submission, expected outcome, actual outcome) and checks
every row, plus that no hidden-test text reaches any feedback page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import copy_course, run
from hostile import ALL, NB, SUITE, A, write_suite
from nbgrader.api import Gradebook

from attnkit import course as kit_course

pytestmark = pytest.mark.slow
HIDDEN = re.compile(r"from attnkit\.probe import probe|probe\(\"ps1_|HIDDEN TESTS")


@pytest.fixture(scope="module", params=["nbgrader", "attnkit"])
def graded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_course(tmp_path_factory.mktemp(f"hostile-{request.param}"))
    with (root / "nbgrader_config.py").open("a") as config:
        config.write("\nc.Execute.timeout = 10\n")
    run(["nbgrader", "generate_assignment", A, "--force"], root)
    write_suite(root)
    if request.param == "nbgrader":
        run(["attnkit", "intake", A], root)
    # both exit non-zero when a submission fails; the assertions below say which
    run([request.param, "autograde", A, "--force"], root, check=False)
    run(["nbgrader", "generate_feedback", A, "--force"], root, check=False)
    return root


def outcome(root: Path, student: str) -> tuple[dict[str, float], str]:
    """Each autograded cell's score as a fraction of its points, and the feedback page."""
    with Gradebook(kit_course.db_url(root)) as gb:
        sub = gb.find_submission(A, student)
        scores = {g.name: g.score / g.max_score for nb in sub.notebooks for g in nb.grades}
    page = root / "feedback" / student / A / NB.replace(".ipynb", ".html")
    return scores, page.read_text() if page.exists() else ""


def test_hostile_suite(graded: Path) -> None:
    rows, problems = [], []
    for hostile in SUITE:
        scores, page = outcome(graded, hostile.student)
        zeroed = sorted(c for c in ALL if scores.get(c) == 0)
        kept = all(scores.get(c) == 1 for c in ALL if c not in hostile.zero)
        shown = bool(re.search(hostile.reason, page, re.IGNORECASE))
        ok = set(hostile.zero) <= set(zeroed) and kept and bool(page) and shown
        expected = f"0 on {', '.join(hostile.zero) or 'nothing'}; others full"
        actual = (f"0 on {', '.join(zeroed) or 'nothing'}; "
                  f"{'feedback' if page else 'NO FEEDBACK'}"
                  + (f"; reason {'shown' if shown else 'MISSING'}" if hostile.reason else ""))
        rows.append((hostile.student, hostile.attack, expected, actual, "ok" if ok else "FAIL"))
        if not ok:
            problems.append(hostile.student)
    width = max(len(r[1]) for r in rows)
    print(f"\n{'submission':<24}{'attack':<{width + 2}}{'expected':<60}actual")
    for student, attack, expected, actual, verdict in rows:
        print(f"{student:<24}{attack:<{width + 2}}{expected:<60}{actual}  [{verdict}]")
    assert not problems, f"unexpected outcomes: {problems}"


def test_feedback_never_shows_hidden_tests(graded: Path) -> None:
    pages = list((graded / "feedback").rglob("*.html"))
    assert len(pages) == len(SUITE)
    for page in pages:
        found = HIDDEN.search(page.read_text())
        assert not found, f"{page}: {found.group()}"

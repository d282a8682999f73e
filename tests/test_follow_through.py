"""Follow-through credit through the real path: crafted ps2 hand-ins graded by ``attnkit
autograde`` (sandboxed kernels), then ``nbgrader generate_feedback``.

An honest student whose single head is scaled by sqrt(D) keeps the multi-head points and is
told why; three attackers try to buy follow-through and must not: a helper that returns
zeros, a right helper under a caller that stacks its heads in the wrong order, and a helper
that hands the caller back its own (wrong) answer. The course's setting and more attacks
are tested in-process in tests/test_carry.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from helpers.course import copy_course, run
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.judge.check import Sample
from attnkit.samples import build_submission

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

A = "ps2_multihead_attention"
HEAD, TWO, GENERAL = "ps2_single_head", "ps2_multihead_scaled", "ps2_multihead_general"

SQRT_D_HEAD = """\
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))
"""
ZERO_HEAD = """\
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return np.zeros((omega_v.shape[0], X.shape[1]))
"""
HEADS_IN_CALL_ORDER = """\
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    second = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    first = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    return omega_c @ np.vstack([second, first])
"""
# the head answers the caller's own (unmixed, wrong) result, solved back through omega_c
HANDED_BACK_HEAD = """\
_answer = []

def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    if _answer:
        return _answer.pop(0)
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))
"""
HANDED_BACK_CALLER = """\
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    mine = np.vstack([omega_v1 @ X, omega_v2 @ X])  # not attention at all
    blocks = np.linalg.solve(omega_c, mine)
    _answer[:] = [blocks[: len(blocks) // 2], blocks[len(blocks) // 2:]]
    single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    _answer.clear()
    return mine
"""

RAISING_HEAD = """\
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    raise ValueError("I did not finish this one")
"""
REVERSED_HEADS = HEADS_IN_CALL_ORDER.replace("np.vstack([second, first])",
                                             "np.vstack([first, second])[::-1]")

STUDENTS = {
    "honest": Sample("head scaled by sqrt(D), multi-head right given it",
                     {"ps2_single_head_code": SQRT_D_HEAD}),
    "zeros": Sample("attack: a head of zeros under multi-head code that mixes it",
                    {"ps2_single_head_code": ZERO_HEAD}),
    "order": Sample("attack: a right head, heads stacked in the order they were called",
                    {"ps2_multihead_scaled_code": HEADS_IN_CALL_ORDER}),
    "handback": Sample("attack: the head hands the caller back its own answer",
                       {"ps2_single_head_code": HANDED_BACK_HEAD,
                        "ps2_multihead_scaled_code": HANDED_BACK_CALLER}),
    "raising": Sample("a head that always raises under right multi-head code: judged on "
                      "working stand-ins", {"ps2_single_head_code": RAISING_HEAD}),
    "raising-wrong": Sample("attack: a head that always raises, to be judged on stand-ins, "
                            "under a caller that stacks its heads wrongly",
                            {"ps2_single_head_code": RAISING_HEAD,
                             "ps2_multihead_scaled_code": REVERSED_HEADS}),
}
# (single head, two heads, general) as fractions of each cell's points
EXPECT = {"honest": (0, 1, 1), "zeros": (0, 0, 0), "order": (1, 0, 1), "handback": (0, 0, 1),
          "raising": (0, 1, 1), "raising-wrong": (0, 0, 1)}


def scores(root: Path, student: str) -> tuple[float, ...]:
    with Gradebook(kit_course.db_url(root)) as gb:
        got = {g.name: g.score / g.max_score for nb in gb.find_submission(A, student).notebooks
               for g in nb.grades}
    return tuple(got[cell] for cell in (HEAD, TWO, GENERAL))


def submit(root: Path, students: dict[str, Sample]) -> None:
    master = root / "source" / A / f"{A}.ipynb"
    for student, sample in students.items():
        out = root / "submitted" / student / A / f"{A}.ipynb"
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(build_submission(master, root / "release" / A / master.name, sample), out)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_course(tmp_path_factory.mktemp("follow"))
    run(["nbgrader", "generate_assignment", A, "--force"], root)
    submit(root, STUDENTS)
    run(["attnkit", "autograde", A, "--workers", "2"], root)
    for student in ("honest", "raising"):
        run(["nbgrader", "generate_feedback", A, "--student", student, "--force"], root)
    return root


@pytest.mark.parametrize("student", list(STUDENTS))
def test_follow_through_is_earned_and_never_bought(graded: Path, student: str) -> None:
    assert scores(graded, student) == pytest.approx(EXPECT[student]), STUDENTS[student].about


def test_the_page_says_where_the_mistake_is_charged(graded: Path) -> None:
    page = (graded / "feedback" / "honest" / A / f"{A}.html").read_text()
    text = re.sub(r"<[^>]+>", "", page).replace("&#x60;", "`").replace("&#96;", "`")
    assert text.count("right given your `single_head_attention`") >= 2, text[:3000]
    assert "is charged there (ps2_single_head), not again here" in text
    page = (graded / "feedback" / "raising" / A / f"{A}.html").read_text()
    assert "working stand-ins for `single_head_attention`" in page.replace("&#x60;", "`")
    for attacker in set(STUDENTS) - {"honest", "raising"}:
        nb = json.loads((graded / "autograded" / attacker / A / f"{A}.ipynb").read_text())
        two = next(c["metadata"]["attnkit"] for c in nb["cells"]
                   if c["metadata"].get("nbgrader", {}).get("grade_id") == TWO)
        assert two["misconception"] != "follow-through" and two["score"] == 0, (attacker, two)

"""Follow-through credit in-process: the kernel's recording probe on student-style code, then
the judge's ``carry``. What it must give (a cell right given a wrong helper), what it must
refuse (every way to buy it), and the course's setting. The same attacks through
``attnkit autograde`` are in tests/test_follow_through.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from traitlets.config import Config

from attnkit.dev.charged import grade_all, kernel, targets
from attnkit.judge.carry import Charged, carry
from attnkit.judge.registry import checks
from attnkit.judge.verdicts import Verdict, drawn_cases, globals_read, judge
from attnkit.kernel.carry import origins
from attnkit.kernel.probe import encode, records
from attnkit.pipeline.preprocessors import JudgeProbes

SEED = 4
HEAD, TWO, GENERAL = "ps2_single_head", "ps2_multihead_scaled", "ps2_multihead_general"
HEAD_ARGS = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")

NOTEBOOK = """
def softmax_cols(S):
    e = np.exp(S - S.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)

def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))  # sqrt(D): wrong

def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.vstack([h1, h2])

def multihead_self_attention(X, heads, omega_c):
    return omega_c @ np.vstack([single_head_attention(X, **h) for h in heads])
"""
TARGETS = {HEAD: "single_head_attention", TWO: "multihead_scaled_self_attention",
           GENERAL: "multihead_self_attention"}


def space(*overrides: str) -> dict:
    out: dict = {"np": np}
    for code in (NOTEBOOK, *overrides):
        exec(code, out)  # noqa: S102 - the test's own student code
    return out


def graded(ns: dict, credit: float = 1.0) -> dict[str, Verdict]:
    """ps2's three cells graded in notebook order, as JudgeProbes does."""
    charged: dict[str, Charged] = {}
    out = {}
    for check, name in TARGETS.items():
        recs = records(check, (ns[name],), SEED)
        out[check], charged[check] = carry(check, SEED, recs, judge(check, SEED, recs, 3.0),
                                           charged, credit)
    return out


def scores(verdicts: dict[str, Verdict]) -> tuple[float, ...]:
    return tuple(verdicts[c].score for c in TARGETS)


def test_a_caller_right_given_a_wrong_helper_keeps_its_points() -> None:
    verdicts = graded(space())
    assert scores(verdicts) == (0.0, 3.0, 3.0)
    for check in (TWO, GENERAL):
        assert verdicts[check].misconception == "follow-through"
        assert verdicts[check].message.startswith("right given your `single_head_attention`")
        assert "scale sqrt(D)" in verdicts[check].message
        assert "charged there (ps2_single_head), not again here" in verdicts[check].message


def test_a_course_sets_the_fraction_or_turns_it_off() -> None:
    assert scores(graded(space(), credit=0.5)) == (0.0, 1.5, 1.5)
    assert "part of this cell's points" in graded(space(), credit=0.5)[TWO].message
    assert scores(graded(space(), credit=0.0)) == (0.0, 0.0, 0.0)
    assert JudgeProbes().follow_through == 1.0
    config = Config()
    config.JudgeProbes.follow_through = 0.25
    assert JudgeProbes(config=config).follow_through == 0.25


ATTACKS = {
    "a constant helper": """
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return np.ones((omega_v.shape[0], X.shape[1]))
""",
    "a helper of nan": """
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return np.full((omega_v.shape[0], X.shape[1]), np.nan)
""",
    "a helper that ignores its input": """
_fixed = np.random.default_rng(0).normal(size=(64, 64))
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return _fixed[: omega_v.shape[0], : X.shape[1]]
""",
    "a caller that ignores what its helper returns": """
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return np.zeros((omega_c.shape[0], X.shape[1]))
""",
    "a stateful helper that answers the caller differently": """
_calls = [0]
_right = single_head_attention
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    _calls[0] += 1
    return _right(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k) * _calls[0]
""",
    "a helper that always raises, a caller wrong with working ones": """
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    raise ValueError("no head today")

def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.vstack([h2, h1])
""",
    "a helper that raises on fresh inputs, a caller that ignores it elsewhere": """
_right = single_head_attention
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    if X.shape != (8, 6):
        raise ValueError("fresh sizes")
    return _right(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)

def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return np.zeros((omega_c.shape[0], X.shape[1]))
""",
    "a caller that raises after right helper calls": """
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    raise ValueError("not written yet")
""",
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_follow_through_cannot_be_bought(attack: str) -> None:
    verdicts = graded(space(ATTACKS[attack]))
    assert verdicts[TWO].score == 0.0, verdicts[TWO].message
    assert verdicts[TWO].misconception != "follow-through"


def test_a_right_caller_whose_helper_always_raises_is_judged_on_stand_ins() -> None:
    """No result of its own to go on: the caller is run on working stand-ins for its helper
    (random results of the right shape), and keeps its points only as the right maths on
    those; the helper's error is charged at the helper."""
    raising = """
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    raise ValueError("no head today")
"""
    verdicts = graded(space(raising))
    assert scores(verdicts) == (0.0, 3.0, 3.0), [v.message for v in verdicts.values()]
    assert "working stand-ins" in verdicts[TWO].message
    assert verdicts[TWO].misconception == "follow-through"


def test_a_right_helper_earns_a_wrong_caller_nothing() -> None:
    reversed_heads = """
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    return omega_c @ np.vstack([h2, h1])
"""
    right_head = """
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
"""
    verdicts = graded(space(right_head, reversed_heads))
    assert scores(verdicts) == (3.0, 0.0, 3.0)
    assert verdicts[TWO].misconception == "heads reversed"


def _forged(recs: list[dict], change) -> list[dict]:
    out = copy.deepcopy(recs)
    for record in out:
        change(record)
    return out


@pytest.mark.parametrize("forgery", ["no nudged run", "nudge dropped", "no calls",
                                     "constant stand-ins"])
def test_forged_records_earn_nothing(forgery: str) -> None:
    """A student who patches the probe in the kernel can only drop evidence, never add it."""
    ns = space()
    head = records(HEAD, (ns["single_head_attention"],), SEED)
    charged = {HEAD: carry(HEAD, SEED, head, judge(HEAD, SEED, head, 2.0), {})[1]}
    recs = records(TWO, (ns["multihead_scaled_self_attention"],), SEED)

    def change(record: dict) -> None:
        if forgery == "no nudged run":
            del record["nudged"]
        elif forgery == "nudge dropped":  # the nudged run reports the plain one
            record["nudged"] = {"value": record["value"], "calls": record["calls"]}
        elif forgery == "no calls":
            record["calls"] = []
        else:  # a crash claimed, and stand-ins of ones whose right caller is easy to give
            args = drawn_cases(checks()[TWO], SEED)[record["case"]].args
            heads = [[args["X"], *(args[f"{k}{h}"] for k in HEAD_ARGS)] for h in (1, 2)]
            ones = np.ones((args["omega_v1"].shape[0], args["X"].shape[1]))
            record["error"] = "ValueError: no head today"
            record["substituted"] = {
                "value": encode(args["omega_c"] @ np.vstack([ones, ones])),
                "calls": [{"helper": "single_head_attention", "args": encode(h),
                           "own": encode(ones), "value": encode(ones)} for h in heads]}

    forged = _forged(recs, change)
    verdict, _ = carry(TWO, SEED, forged, judge(TWO, SEED, forged, 3.0), charged)
    assert verdict.score == 0.0, verdict.message


# ------------------------------------------------------------------ the first blind class

BLIND = Path(__file__).resolve().parent / "data" / "blind" / "class1"
# bugs its writers said reach other cells, charged more than once before follow-through
CHARGED_ONCE_NOW = {("blind1_s6", "ps2_multihead_scaled"), ("blind1_s7", "ps5_masked_attention"),
                    ("blind1_s7", "ps5_equivariance"), ("blind1_s8", "ps1_self_attention"),
                    ("blind1_s8", "ps1_scaled_attention")}


def test_the_blind_class_is_carried_only_where_its_writers_said() -> None:
    """Follow-through in class 1 (hand-ins run in-process): every carried cell is one whose
    function a labelled bug's ``also_affects`` names, and the known ones are all carried."""
    labels = json.loads((BLIND / "labels.json").read_text())
    affected = {(b["student"], b["ps"], f) for b in labels for f in b.get("also_affects", [])}
    carried = set()
    for notebook in sorted(BLIND.glob("blind1_s*/*/*.ipynb")):
        student, assignment = notebook.parts[-3], notebook.parent.name
        functions = targets(assignment)
        verdicts = grade_all(assignment, kernel(assignment, notebook=notebook), SEED)
        for cell, verdict in verdicts.items():
            if verdict.misconception == "follow-through":
                carried.add((student, cell))
                assert any((student, assignment, f.split(".")[0]) in affected
                           for f in functions[cell].split(", ")) or any(
                    (student, assignment, f) in affected and f.startswith(functions[cell])
                    for _, _, f in affected), (student, cell, verdict.message)
    assert CHARGED_ONCE_NOW <= carried, carried


def test_a_requirement_the_caller_breaks_is_not_lifted_by_follow_through():
    from attnkit.judge.carry import _requirement_broken
    from attnkit.judge.verdicts import Verdict

    broken = Verdict("ps4_single_query", 1.0, 2.0, "...", misconception="results not 1-D")
    values = Verdict("ps4_single_query", 0.0, 2.0, "...", misconception="values differ")
    assert _requirement_broken("ps4_single_query", broken)
    assert not _requirement_broken("ps4_single_query", values)


def test_a_head_whose_naive_softmax_overflows_is_charged_once() -> None:
    """All-nan heads on the large-logit case are not "the same result whatever it is given"."""
    naive = """
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    e = np.exp(K.T @ Q / np.sqrt(Q.shape[0]))
    return V @ (e / e.sum(axis=0, keepdims=True))
"""
    verdicts = graded(space(naive))
    assert scores(verdicts) == (1.5, 3.0, 3.0), [v.message for v in verdicts.values()]
    assert all(verdicts[c].misconception == "follow-through" for c in (TWO, GENERAL))


# a head that raises on fresh sizes only (the notebook's N read from a global)
FRESH_RAISE = """
_right = single_head_attention
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    if X.shape[1] != 6:
        raise IndexError("the notebook's N = 6")
    return _right(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
"""


def test_a_caller_that_lets_its_helpers_error_through_is_charged_once() -> None:
    """A head that raises on fresh sizes only (the notebook's N read from a global): the
    callers pass its error on there, and are right given it on the notebook's data."""
    verdicts = graded(space(FRESH_RAISE))
    assert verdicts[HEAD].score == 0.0
    for check in (TWO, GENERAL):
        assert verdicts[check].score == 3.0, verdicts[check].message
        assert "raised an error" in verdicts[check].message


def test_a_caller_wrong_past_a_helper_that_raises_is_charged_at_itself() -> None:
    """The head raises on fresh sizes, hiding what the caller does with its result there;
    run on working stand-ins for the head, the caller's own mistake (heads stacked in
    reverse order, except for the notebook's two) shows, and is charged at the caller."""
    reversed_past_two = """
def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, **h) for h in heads]
    if len(heads) == 2:  # right on the notebook's two heads only
        return omega_c @ np.vstack(outs)
    return omega_c @ np.vstack(outs[::-1])
"""
    verdicts = graded(space(FRESH_RAISE, reversed_past_two))
    assert verdicts[TWO].score == 3.0, verdicts[TWO].message
    assert verdicts[GENERAL].score < 3.0, verdicts[GENERAL].message
    assert "own steps are wrong too" in verdicts[GENERAL].message
    assert "working stand-ins for your `single_head_attention`" in verdicts[GENERAL].message


def test_a_saturating_softmax_is_not_taken_for_a_fixed_answer() -> None:
    """A softmax shifted by its smallest score returns [1, 0] (and nan patterns on large
    logits) for different scores, as the right one does there: the loop is still carried
    (class 2, s5, on its grading seed)."""
    min_shift = """
def softmax(items_in):
    z = np.array(items_in, dtype=float)
    e = np.exp(z - np.min(z))
    return e / np.sum(e)
"""
    verdicts = grade_all("ps1_self_attention", kernel("ps1_self_attention", min_shift),
                         1503145545)
    assert verdicts["ps1_softmax"].misconception == "smallest score subtracted"
    loop = verdicts["ps1_self_attention_loop"]
    assert loop.full and loop.misconception == "follow-through", loop.message


PS4_COLUMN_SCORES = """
def get_scores(matrix, vector):
    return matrix @ vector.reshape(-1, 1)  # a T x 1 column: the 1-D requirement broken

def scale_scores(scores, n):
    return scores / np.sqrt(n)

def get_attention_weights(scores):
    e = np.exp(scores - np.max(scores))
    return e / e.sum()

def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights.T @ hidden_encoder_matrix

def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    weights = get_attention_weights(scale_scores(get_scores(tokens @ W_K, q), W_K.shape[1]))
    return weights, get_context_vector(weights, tokens @ W_V)
"""


def test_a_shape_passed_on_from_a_helper_is_charged_at_the_helper() -> None:
    """Column scores make the caller's weights a column too: the 1-D requirement is charged
    once, at get_scores, and the caller keeps its points."""
    ns = {"np": np}
    exec(PS4_COLUMN_SCORES, ns)  # noqa: S102 - the test's own student code
    charged: dict[str, Charged] = {}
    cells = {"ps4_get_scores": "get_scores", "ps4_scale_scores": "scale_scores",
             "ps4_attention_weights": "get_attention_weights",
             "ps4_context_vector": "get_context_vector",
             "ps4_single_query": "single_query_attention"}
    out = {}
    for check, name in cells.items():
        recs = records(check, (ns[name],), SEED)
        out[check], charged[check] = carry(check, SEED, recs, judge(check, SEED, recs, 1.0),
                                           charged)
    assert out["ps4_get_scores"].misconception == "scores as a column"
    assert out["ps4_single_query"].full, out["ps4_single_query"].message
    assert "charged there (ps4_get_scores)" in out["ps4_single_query"].message


# ------------------------------------------------- a private helper shared by several cells

PS1 = "ps1_self_attention"
LOOP_WITH_PROJ = """
def _proj(x, omega, beta):
    return beta + omega.T @ x  # Omega transposed: the mistake, made once

def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [_proj(x, omega_q, beta_q) for x in all_x]
    ks = [_proj(x, omega_k, beta_k) for x in all_x]
    vs = [_proj(x, omega_v, beta_v) for x in all_x]
    out = []
    for q in qs:
        w = softmax([float((k.T @ q)[0, 0]) for k in ks])
        out.append(sum(wi * v for wi, v in zip(w, vs)))
    return out
"""
ATTENTION_WITH_PROJ = """
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (_proj(X, o, b) for o, b in ((omega_q, beta_q), (omega_k, beta_k),
                                           (omega_v, beta_v)))
    A = softmax_cols(K.T @ Q)
    return V @ A, A
"""
ATTENTION_OWN_TRANSPOSE = """
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = beta_q + omega_q.T @ X, beta_k + omega_k.T @ X, beta_v + omega_v.T @ X
    A = softmax_cols(K.T @ Q)
    return V @ A, A
"""


def ps1_cells(*cells: str) -> dict:
    """ps1's master code, then ``cells`` each compiled as IPython compiles one cell."""
    ns = kernel(PS1)
    for n, code in enumerate(cells):
        exec(compile(code, f"/tmp/ipykernel_0/{n}.py", "exec"), ns)  # noqa: S102
    return ns


def test_a_mistake_in_a_helper_borrowed_from_another_cell_is_charged_there_once() -> None:
    """``_proj``, defined beside ``self_attention_loop``, transposes Omega; ``self_attention``
    calls it from its own cell and is otherwise right: charged at the loop, once."""
    verdicts = grade_all(PS1, ps1_cells(LOOP_WITH_PROJ, ATTENTION_WITH_PROJ), SEED)
    loop, attention = verdicts["ps1_self_attention_loop"], verdicts["ps1_self_attention"]
    assert loop.score == 0.0 and loop.misconception not in (None, "values differ"), loop
    assert attention.full and attention.misconception == "follow-through", attention.message
    assert "`_proj`" in attention.message and "ps1_self_attention_loop" in attention.message


def test_the_same_mistake_written_again_in_another_cell_is_charged_there_too() -> None:
    verdicts = grade_all(PS1, ps1_cells(LOOP_WITH_PROJ, ATTENTION_OWN_TRANSPOSE), SEED)
    assert verdicts["ps1_self_attention_loop"].score == 0.0
    assert verdicts["ps1_self_attention"].score == 0.0, verdicts["ps1_self_attention"].message


def test_a_borrowed_helper_does_not_cover_a_second_mistake_of_the_cell() -> None:
    unscaled_twice = ATTENTION_WITH_PROJ.replace("softmax_cols(K.T @ Q)",
                                                 "softmax_cols(2 * K.T @ Q)")
    verdicts = grade_all(PS1, ps1_cells(LOOP_WITH_PROJ, unscaled_twice), SEED)
    assert verdicts["ps1_self_attention"].score == 0.0, verdicts["ps1_self_attention"].message


def test_the_probe_names_only_the_data_globals_a_cell_loads() -> None:
    """A global loaded by the target or a notebook helper it calls is named with what it
    holds; an attribute (``x.T``) is not the global ``T``, and a module or function is not
    data."""
    space: dict = {"np": np}
    exec(compile("T = 3\nh_e = np.ones((4, 3))\n"
                 "def helper(x):\n    return x.T @ h_e\n"
                 "def target(x):\n    return np.sum(helper(x))\n", "<cell>", "exec"), space)
    assert origins((space["target"],))["read"] == {"h_e": "4 x 3 array"}


def test_the_judge_keeps_only_well_formed_global_names() -> None:
    """The record comes from the student's kernel: names and descriptions that are not plain
    identifiers and shapes are dropped before a hint quotes them."""
    read = {"omega_c": "8 x 8 array", "<b>x</b>": "5", "N": "<script>", "D": "4"}
    assert globals_read([{"cells": {"read": read}}]) == {"omega_c": "8 x 8 array", "D": "4"}
    assert globals_read([{"cells": {"read": ["omega_c"]}}]) == {}


NAIVE_SOFTMAX = """
def softmax(items_in):
    e = np.exp(np.asarray(items_in, dtype=float))  # no maximum subtracted: overflows
    return e / e.sum()
"""
FLAT_LOOP = """
def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [beta_q + omega_q @ x for x in all_x]
    ks = [beta_k + omega_k @ x for x in all_x]
    vs = [beta_v + omega_v @ x for x in all_x]
    out = []
    for q in qs:
        w = softmax([float((k.T @ q)[0, 0]) for k in ks])
        out.append(sum(wi * v for wi, v in zip(w, vs)).ravel())  # (D,): the cell's own slip
    return out
"""
MATRIX_TO_SOFTMAX = """
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    A = softmax(K.T @ Q)  # the 1-D softmax on the N x N scores: flattened
    return V @ A, A
"""


def test_a_requirement_is_charged_alone_when_the_values_are_the_helpers() -> None:
    """1-D outputs (the loop's own requirement, half the point) from a softmax that overflows
    (the softmax's mistake): the loop is charged the requirement only, and told where the
    overflow is charged."""
    verdicts = grade_all(PS1, ps1_cells(NAIVE_SOFTMAX, FLAT_LOOP), SEED)
    loop = verdicts["ps1_self_attention_loop"]
    assert not verdicts["ps1_softmax"].full
    assert loop.score == 0.5 * loop.points, loop.message
    assert loop.message.startswith("the values are right"), loop.message
    assert "charged there (ps1_softmax)" in loop.message
    assert "overflow" not in loop.misconception, loop.misconception


def test_a_crash_after_a_softmax_flattened_the_scores_names_the_call() -> None:
    verdicts = grade_all(PS1, ps1_cells(MATRIX_TO_SOFTMAX), SEED)
    attention = verdicts["ps1_self_attention"]
    assert attention.score == 0.0
    assert "3 x 3 score matrix to your `softmax`" in attention.message, attention.message
    assert "softmax_cols" in attention.message

"""Unit tests of the grader's half: decode, same, judge on malformed or hostile probe records,
and the partial-credit rules."""

from __future__ import annotations

import base64
import math

import numpy as np
import pytest

from attnkit.judge import reference as ref
from attnkit.judge.misconceptions import Raised, describe, run_variant
from attnkit.judge.ps4_encoder_decoder_attention import DIMENSIONS
from attnkit.judge.registry import checks
from attnkit.judge.verdicts import Verdict, _finite, decode, judge, same
from attnkit.kernel.probe import encode
from attnkit.kernel.probe import records as probe_records

SEED = 5
CHECKS = checks()
WRONG = {grade_id: check.wrong for grade_id, check in CHECKS.items() if check.wrong}


def softmax(items_in):
    z = np.asarray(items_in, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


def naive_softmax(items_in):
    e = np.exp(np.asarray(items_in, dtype=float))
    return e / e.sum()


def records(check: str, *targets, seed: int = SEED) -> list[dict]:
    """What the probe of ``check`` would display for ``targets``."""
    return probe_records(check, targets, seed)


def value_records(check: str, outputs: list, seed: int = SEED) -> list[dict]:
    return [{"check": check, "seed": seed, "call": "c0", "case": i, "value": encode(v)}
            for i, v in enumerate(outputs)]


def expected(check: str, seed: int = SEED) -> list:
    return [CHECKS[check].reference(c.args) for c in CHECKS[check].cases(seed)]


# ------------------------------------------------------------------ decode


@pytest.mark.parametrize("value", [
    np.arange(6.0).reshape(2, 3), np.float32(1.5), 3, True, [np.ones(2), np.zeros((1, 3))],
    (np.eye(2), [1.0, 2.0]), np.array([np.inf, -np.inf, np.nan]), np.zeros((0, 4))])
def test_decode_inverts_encode(value):
    back = decode(encode(value))
    if isinstance(value, (list, tuple)):
        assert isinstance(back, list) and len(back) == len(value)
    assert same(back, value)


def test_decode_keeps_bits():
    x = np.array([0.1, 1e-300, 1e300, -0.0])
    assert np.array_equal(decode(encode(x)), x)


@pytest.mark.parametrize("payload, error", [
    ("not a dict", ValueError),
    (None, ValueError),
    ([1, 2], ValueError),
    ({"shape": [3], "b64": base64.b64encode(b"\0" * 16).decode()}, ValueError),  # 2 floats, 3
    ({"shape": [2], "b64": "!!!not base64!!!"}, ValueError),
    ({"shape": [-2], "b64": ""}, ValueError),
    ({"shape": ["x"], "b64": ""}, ValueError),
    ({"b64": ""}, KeyError),
    ({"shape": [1]}, KeyError),
    ({"shape": None, "b64": ""}, TypeError),
    ({"items": [{"shape": [1], "b64": 7}]}, TypeError),
])
def test_decode_rejects_malformed_payloads(payload, error):
    with pytest.raises(error):
        decode(payload)


# ------------------------------------------------------------------ same


def test_same_tolerance_is_relative_and_scaled():
    want = np.array([1.0, 2.0, 1000.0])
    assert same(want * (1 + 5e-5), want)
    assert not same(want * (1 + 1e-3), want)
    assert same(np.array([1e-9, 1.0]), np.array([0.0, 1.0]))  # atol scales with the largest
    assert not same(np.array([1e-3, 1.0]), np.array([0.0, 1.0]))


def test_same_ignores_size_one_axes_but_not_transposes():
    v = np.arange(3.0)
    assert same(v.reshape(3, 1), v) and same(v.reshape(1, 3), v)
    M = np.arange(6.0).reshape(2, 3)
    assert not same(M.T, M)
    assert not same(np.arange(4.0), v)


def test_same_lists_tuples_and_stacked_arrays():
    parts = [np.ones((2, 1)), np.zeros((2, 1))]
    assert same(tuple(parts), parts) and same(list(parts), tuple(parts))
    assert same(np.stack(parts), parts)  # np.array(list of outputs) counts as the list
    assert same(parts, np.hstack(parts).T)  # a list against an array: stacked first
    assert not same(parts[:1], parts)
    assert not same(np.ones(3), [np.ones(3)] * 2)
    assert same((4, 2), (4, 2)) and same(np.array([4, 2]), (4, 2)) and not same((2, 4), (4, 2))


def test_same_handles_nan_inf_ragged_none_and_exceptions():
    assert same(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert not same(np.array([np.inf, 1.0]), np.array([np.nan, 1.0]))
    assert not same([np.ones(2), np.ones(3)], np.ones((2, 2)))  # ragged: no crash
    assert not same("text", np.ones(2))
    assert same(None, None) and not same(None, np.ones(1)) and not same(np.ones(1), None)
    assert same(Raised("ValueError: a"), Raised("IndexError: b"))
    assert not same(Raised("ValueError: a"), np.ones(2))
    assert not same(np.ones(2), Raised("ValueError: a"))


# ------------------------------------------------------------------ judge: hostile records


def test_correct_records_score_full_marks():
    v = judge("ps1_softmax", SEED, records("ps1_softmax", softmax), 2.0)
    assert isinstance(v, Verdict) and v.full and v.score == 2.0 and v.passed == [True] * 9


@pytest.mark.parametrize("hostile", [[], None, "records"])
def test_judge_without_records_says_the_check_did_not_run(hostile):
    v = judge("ps1_softmax", SEED, hostile, 1.0)
    assert v.score == 0 and "did not run" in v.message


def _forged(good: list[dict]) -> list[list]:
    """Every way a kernel can add to, reorder or reuse one call's correct records."""
    other = records("ps1_softmax", softmax)  # a second, correct call
    return [
        [None, *good], [*good, "x"], [{"check": "ps3_softmax", "case": 0, "value": "junk"}, *good],
        [*good, {**good[0], "case": 17}], [*good, good[-1]],          # extra, duplicate
        good[:1] + good,                                              # duplicate first case
        [good[1], good[0], *good[2:]],                                # out of order
        other[:1] + good[1:],                                         # another call's record
        [dict(r, seed=SEED + 1) for r in good],                       # another seed's
        [{k: v for k, v in r.items() if k != "call"} for r in good],  # no call id
        [dict(r, case=True if r["case"] == 1 else r["case"]) for r in good],
        [dict(r, case=str(r["case"])) for r in good],
    ]


def test_forged_extra_duplicate_or_reordered_records_score_zero():
    good = records("ps1_softmax", softmax)
    assert judge("ps1_softmax", SEED, good, 1.0).full
    for forged in _forged(good):
        v = judge("ps1_softmax", SEED, forged, 1.0)
        assert v.score == 0 and v.misconception == "tampered", forged


def test_judge_missing_case_scores_zero():
    good = records("ps1_softmax", softmax)
    v = judge("ps1_softmax", SEED, good[:2], 1.0)
    assert v.score == 0 and "stopped before case" in v.message


def test_a_forger_displaying_first_loses_even_when_the_real_probe_runs():
    """A pre_run_cell hook displays right-looking records, then the real probe runs."""
    good = records("ps1_softmax", softmax)
    forged = [dict(r, call="f0") for r in good]
    assert judge("ps1_softmax", SEED, forged + good, 1.0).score == 0


def test_equivariance_answers_depend_on_the_seed():
    answers = {tuple(CHECKS["ps1_equivariance"].reference(c.args)
                     for c in CHECKS["ps1_equivariance"].cases(seed)) for seed in range(20)}
    assert len(answers) > 5


@pytest.mark.parametrize("value", [
    {"shape": [3], "b64": base64.b64encode(b"\0" * 8).decode()},   # wrong size
    {"shape": [1], "b64": "%%%"},                                   # bad base64
    {"shape": [1]},                                                 # missing data
    "0.09, 0.24, 0.66",                                             # not an object
    [0.09, 0.24, 0.66],                                             # plain JSON list
    42,
    None,
    {"items": 5},
    {"items": [{"shape": [10**12], "b64": ""}]},                    # absurd shape
])
def test_unreadable_values_score_zero_without_crashing(value):
    recs = records("ps1_softmax", softmax)
    recs[1] = dict(recs[1], value=value)
    v = judge("ps1_softmax", SEED, recs, 1.0)
    assert v.score == 0 and "unreadable result" in v.message


def test_deeply_nested_payload_cannot_crash_the_grader():
    value: dict = {"shape": [1], "b64": base64.b64encode(b"\0" * 8).decode()}
    for _ in range(5000):
        value = {"items": [value]}
    recs = records("ps1_softmax", softmax)
    recs[0] = dict(recs[0], value=value)
    v = judge("ps1_softmax", SEED, recs, 1.0)
    assert v.score == 0


def test_malformed_but_decodable_results_are_explained_not_crashed():
    ragged = {"items": [encode([np.ones(2), np.ones(3)]), encode(np.ones(1))]}
    recs = records("ps1_self_attention", lambda *a: ref.self_attention(*a))
    recs[0] = dict(recs[0], value=ragged)
    v = judge("ps1_self_attention", SEED, recs, 2.0)
    assert v.score == 0 and v.message
    init = records("ps3_init", _Layer)
    init[0] = dict(init[0], value={"items": [ragged] * 5})
    v = judge("ps3_init", SEED, init, 4.0)
    assert v.score == 0 and v.message


def test_errors_are_reported_with_the_case():
    def broken(items_in):
        raise ZeroDivisionError("oops")
    v = judge("ps1_softmax", SEED, records("ps1_softmax", broken), 1.0)
    assert v.score == 0 and v.misconception == "error"
    assert "ZeroDivisionError: oops" in v.message and "pinned [1, 2, 3]" in v.message


def test_a_missing_return_is_named():
    v = judge("ps1_softmax", SEED, records("ps1_softmax", lambda items_in: None), 1.0)
    assert v.score == 0 and "return" in v.message and "None" in v.message


def test_crash_on_fresh_inputs_only_is_called_hard_coded():
    def global_size(items_in):
        if len(items_in) != 3:
            raise ValueError("operands could not be broadcast together")
        return softmax(items_in)
    v = judge("ps1_softmax", SEED, records("ps1_softmax", global_size), 1.0)
    assert v.misconception == "hard-coded" and "notebook's data" in v.message


# ------------------------------------------------------------------ partial credit


def test_known_mistake_keeps_its_credit():
    v = judge("ps1_softmax", SEED, records("ps1_softmax", naive_softmax), 3.0)
    assert v.misconception == "no max subtraction" and v.score == 1.5
    assert not v.full and v.passed == [True, True, True, False, True, True, True, False, False]


def test_a_softmax_shifted_by_its_smallest_score_is_named_at_its_own_cell():
    """z - min z keeps every exponent >= 0: scores 800 apart overflow at the softmax cell."""
    def min_shifted(items_in):
        z = np.asarray(items_in, dtype=float)
        e = np.exp(z - z.min())
        return e / e.sum()
    v = judge("ps1_softmax", SEED, records("ps1_softmax", min_shifted), 1.0)
    assert v.misconception == "smallest score subtracted" and v.score == 0.5, v.message
    assert "subtracted the smallest score" in v.message and "Subtract the largest" in v.message


def test_unnamed_overflow_on_large_logits_only_keeps_half():
    outputs = expected("ps4_attention_weights")
    large = next(i for i, c in enumerate(checks()["ps4_attention_weights"].cases(SEED)) if c.large)
    outputs[large] = np.full_like(outputs[large], np.inf)  # inf, not the naive variant's nan
    v = judge("ps4_attention_weights", SEED, value_records("ps4_attention_weights", outputs), 1.0)
    assert v.misconception == "overflow" and v.score == 0.5


def test_nan_on_ordinary_inputs_scores_zero():
    outputs = expected("ps4_attention_weights")
    outputs[1] = np.full_like(outputs[1], np.nan)
    v = judge("ps4_attention_weights", SEED, value_records("ps4_attention_weights", outputs), 1.0)
    assert v.score == 0 and v.misconception == "not finite"


def test_wrong_shape_and_wrong_values_are_told_apart():
    outputs = expected("ps4_get_scores")
    shaped = [np.append(o, 0.0) for o in outputs]
    v = judge("ps4_get_scores", SEED, value_records("ps4_get_scores", shaped), 1.0)
    assert v.misconception == "wrong shape" and "shape (5,)" in v.message
    off = [o + np.arange(o.size) for o in outputs]
    v = judge("ps4_get_scores", SEED, value_records("ps4_get_scores", off), 1.0)
    assert v.misconception == "values differ" and "largest difference" in v.message


def test_weights_that_do_not_sum_to_one_are_explained():
    outputs = [2 * o for o in expected("ps3_softmax")]
    v = judge("ps3_softmax", SEED, value_records("ps3_softmax", outputs), 3.0)
    assert v.misconception == "not normalised" and "row sums" in v.message and v.score == 0


def test_per_case_checks_score_the_fraction_right_and_name_each_mistake():
    right = [DIMENSIONS[n] for n in ("head_W_shape", "concat_shape", "W_O_shape")]
    v = judge("ps4_dimensions", SEED, value_records("ps4_dimensions", right), 3.0)
    assert v.full
    worksheet = [(4, 4), (4, 4), (4, 4)]
    v = judge("ps4_dimensions", SEED, value_records("ps4_dimensions", worksheet), 3.0)
    assert v.score == 1.0 and v.passed == [False, False, True]
    assert v.misconception == "head weights = full matrix; concatenated weights"
    odd = [(4, 2), (9, 9), (4, 4)]
    v = judge("ps4_dimensions", SEED, value_records("ps4_dimensions", odd), 3.0)
    assert v.score == 2.0 and v.misconception == "values differ"
    assert "concat_shape is not right" in v.message


def test_per_case_error_costs_only_its_case():
    recs = records("ps4_dimensions", (4, 2), "three by four", (4, 4))
    assert "error" in recs[1]
    v = judge("ps4_dimensions", SEED, recs, 3.0)
    assert v.score == 2.0 and "concat_shape" in v.message


def test_scores_are_rounded_to_hundredths():
    wrong = [(4, 4), (3, 4), (4, 4)]
    v = judge("ps4_dimensions", SEED, value_records("ps4_dimensions", wrong), 1.0)
    assert v.score == 0.67


class _Layer:
    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.randn(dims, dims) for _ in range(4))


class _SmallLayer(_Layer):
    def __init__(self, dims):
        super().__init__(dims)
        self.W_q, self.W_k, self.W_v, self.W_o = (0.1 * W for W in
                                                  (self.W_q, self.W_k, self.W_v, self.W_o))


def test_statistical_check_passes_good_init_and_names_bad_init():
    assert judge("ps3_init", SEED, records("ps3_init", _Layer), 4.0).full
    v = judge("ps3_init", SEED, records("ps3_init", _SmallLayer), 4.0)
    assert v.score == 0 and v.misconception == "init std 0.1" and "0.100" in v.message


# ------------------------------------------------------------------ the variants themselves


@pytest.mark.parametrize("check", [c for c in WRONG if CHECKS[c].statistical is None])
def test_every_variant_is_wrong_somewhere_and_hints_are_filled(check):
    """A variant equal to the reference on every case could never be told apart."""
    cases = CHECKS[check].cases(SEED)
    want = [CHECKS[check].reference(c.args) for c in cases]
    for wrong in WRONG[check]:
        outs = [run_variant(wrong.fn, c.args) for c in cases]
        assert any(o is not None and not same(o, w) for o, w in zip(outs, want, strict=True)), \
            (check, wrong.name)
        for c in cases:
            message = wrong.message(describe(c))
            assert "{" not in message and "(?)" not in message, message


OVERFLOWS = [(check, wrong) for check, ws in WRONG.items() for wrong in ws
             if wrong.name in ("unstable softmax", "no max subtraction")]


@pytest.mark.parametrize(("check", "wrong"), OVERFLOWS, ids=[f"{c}-{w.name}" for c, w in OVERFLOWS])
def test_a_naive_exp_overflows_on_every_seed(check, wrong):
    """Seeds come from a random course salt: a large-logits case that fails to overflow for one
    seed in a hundred hands a naive np.exp full marks in a class of hundreds."""
    escapes = []
    seeds = [*range(1000), *np.random.default_rng(0).integers(2**32, size=1500).tolist(),
             680988685]  # a 32-bit seed on which ps3's large case once stayed below 710
    for seed in seeds:
        for case in (c for c in CHECKS[check].cases(seed) if c.large):
            out = run_variant(wrong.fn, case.args)  # numpy's overflow warnings silenced
            if out is not None and not isinstance(out, Raised) and _finite(out):
                escapes.append((seed, case.name))
    assert not escapes, escapes[:5]


def test_describe_gives_sizes_and_roots():
    case = CHECKS["ps2_multihead_scaled"].cases(SEED)[0]
    facts = describe(case)
    assert (facts["D"], facts["N"], facts["H"], facts["Dq"]) == (8, 6, 2, 4)
    assert facts["sqrt_D"] == f"{math.sqrt(8):.4g}" and facts["sqrt_Dq"] == "2"


# ------------------------------------------------------------------ stated requirements


def test_the_numpy_only_case_hides_scipy_for_its_call_only():
    """scipy bound in the notebook's globals is refused during the audit case, then restored."""
    import sys

    from scipy.special import softmax as scipy_softmax

    notebook = {"np": np, "softmax": scipy_softmax}
    exec("def get_attention_weights(scores):\n    return softmax(scores)\n", notebook)
    v = judge("ps4_attention_weights", SEED,
              records("ps4_attention_weights", notebook["get_attention_weights"]), 1.0)
    assert v.misconception == "scipy used" and v.score == 0.5, v.message
    assert "numpy only (no scipy)" in v.message
    assert notebook["softmax"] is scipy_softmax and sys.modules["scipy.special"] is not None


def test_a_broken_requirement_and_wrong_values_are_both_named():
    def float_mask_without_diagonal(N):
        return np.triu(np.ones((N, N)), k=1)
    v = judge("ps5_causal_mask", SEED, records("ps5_causal_mask", float_mask_without_diagonal),
              1.0)
    assert v.misconception == "diagonal masked; mask not boolean" and v.score == 0.0
    assert "Also:" in v.message and "boolean" in v.message


def test_shapes_are_judged_on_right_values_only():
    """A wrong answer of another shape hears about its values, not about the column shape."""
    def wrong_flat_outputs(all_x, *params):
        return [np.zeros(len(x)) for x in all_x]
    v = judge("ps1_self_attention_loop", SEED,
              records("ps1_self_attention_loop", wrong_flat_outputs), 2.0)
    assert v.misconception == "values differ", v.message


def test_split_heads_must_return_a_list_as_section_7_states():
    def stacked(W, n):
        return np.array(np.hsplit(W, n))
    v = judge("ps4_split_heads", SEED, records("ps4_split_heads", stacked), 2.0)
    assert v.misconception == "blocks not a list" and v.score == 1.0, v.message
    assert "a list of the h column blocks" in v.message
    v = judge("ps4_split_heads", SEED, records("ps4_split_heads", np.hsplit), 2.0)
    assert v.full, v.message


def test_single_query_results_must_be_1d_as_section_5_states():
    def row_query(query_token, tokens, W_Q, W_K, W_V):
        q = np.expand_dims(query_token @ W_Q, axis=0)  # 1 x d_k
        scores = q @ (tokens @ W_K).T / np.sqrt(W_K.shape[1])
        w = np.exp(scores - scores.max())
        w = w / w.sum()
        return w, w @ (tokens @ W_V)
    v = judge("ps4_single_query", SEED, records("ps4_single_query", row_query), 2.0)
    assert v.misconception == "results not 1-D" and v.score == 1.0, v.message
    assert "(1, 3)" in v.message and "weights of shape (T,)" in v.message


def test_each_wrong_part_of_a_per_case_cell_is_named_a_float_keeps_half_its_share():
    recs = records("ps4_dimensions", (4, 4 / 2), (4, 4), (4, 4))
    v = judge("ps4_dimensions", SEED, recs, 3.0)
    assert v.score == 1.5 and v.misconception == "shape not ints; concatenated weights"
    assert "head_W_shape = (4, 2.0) holds a float" in v.message and "concat_shape" in v.message
    v = judge("ps4_dimensions", SEED, records("ps4_dimensions", (4, 2), (3, 4), (4, 4)), 3.0)
    assert v.full


# ------------------------------------------------------------------ hints that name the mistake


def test_an_inverse_permutation_is_told_from_a_one_sided_comparison():
    def inverse(f, X, perm):
        return bool(np.allclose(f(X[:, perm]), f(X)[:, np.argsort(perm)]))

    def one_side(f, X, perm):
        return bool(np.allclose(f(X[:, perm]), f(X)))
    v = judge("ps1_equivariance", SEED, records("ps1_equivariance", inverse), 1.0)
    assert v.misconception == "inverse permutation" and "np.argsort(perm)" in v.message
    v = judge("ps1_equivariance", SEED, records("ps1_equivariance", one_side), 1.0)
    assert v.misconception == "one side not permuted", v.message


def test_scores_divided_by_2n_name_the_precedence_of_the_power():
    v = judge("ps4_scale_scores", SEED, records("ps4_scale_scores", lambda s, n: s / n**1/2), 1.0)
    assert v.misconception == "divided by 2n" and "binds tighter" in v.message, v.message


def test_head_2_in_data_cell_order_and_a_dropped_last_head_are_named():
    ns = {"np": np}
    exec("""
def softmax_cols(S):
    e = np.exp(S - S.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)

def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))

def two(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
        omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_q2, omega_k2, omega_v2, beta_q2, beta_k2, beta_v2)
    return omega_c @ np.vstack([h1, h2])

def general(X, heads, omega_c):
    out = single_head_attention(X, **heads[0])
    for i in range(1, len(heads) - 1):
        out = np.vstack([out, single_head_attention(X, **heads[i])])
    return omega_c @ out
""", ns)  # noqa: S102 - the test's own student code
    v = judge("ps2_multihead_scaled", SEED, records("ps2_multihead_scaled", ns["two"]), 1.0)
    assert v.misconception == "head 2: arguments in q, k, v order", v.message
    assert "omega_v2, omega_q2, omega_k2" in v.message
    v = judge("ps2_multihead_general", SEED, records("ps2_multihead_general", ns["general"]), 1.0)
    assert v.misconception == "last head dropped" and "last head" in v.message, v.message


def test_two_notebook_globals_in_masked_attention_are_both_named():
    """causal_mask(N) and np.sqrt(D) with the notebook's N = 5 and D = 4: a case with N = 5
    and D_q = 2 shows the scale, the other fresh sizes the mask."""
    def globals_n_d(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
        Q, K, V = omega_q @ X + beta_q, omega_k @ X + beta_k, omega_v @ X + beta_v
        S = np.where(np.triu(np.ones((5, 5), dtype=bool)), K.T @ Q / np.sqrt(4), -np.inf)
        e = np.exp(S - S.max(axis=0, keepdims=True))
        A = e / e.sum(axis=0, keepdims=True)
        return V @ A, A
    v = judge("ps5_masked_attention", SEED, records("ps5_masked_attention", globals_n_d), 2.0)
    assert v.misconception == "scale fixed at 2; notebook's N for the mask", v.message
    assert v.message.startswith("two mistakes") and "causal_mask(X.shape[1])" in v.message


def test_two_mistakes_of_one_family_compose_once_even_with_unhashable_parameters():
    from attnkit.judge.wrong import pairs, variant

    def family(args, scale=1.0, shift=(0,)):
        return np.asarray(args["x"]) * scale + shift[0]

    scaled = variant("scaled", family, "the scale is wrong", scale=2.0)
    shifted = variant("shifted", family, "the shift is wrong: you keep half the points",
                      credit=0.5, shift=(1,))
    rescaled = variant("rescaled", family, "another scale", scale=3.0)
    found = pairs((scaled, shifted, rescaled))
    assert [(one.name, other.name) for _, one, other in found] == [
        ("scaled", "shifted"), ("shifted", "rescaled")]  # two scales do not compose
    both = found[0][0]
    assert both.fn({"x": [1.0]}).tolist() == [3.0] and both.credit == 0.0
    assert both.hint == "two mistakes. First, the scale is wrong. Second, the shift is wrong"
    assert pairs((scaled, shifted, rescaled)) is found  # composed once per worker
    listed = variant("listed", family, "a listed shift", shift=[5])  # unhashable parameter
    assert [b.fn({"x": [1.0]}).tolist() for b, _, _ in pairs((scaled, listed))] == [[7.0]]

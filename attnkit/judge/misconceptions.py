"""Known-wrong variants, the parts every assignment shares: ``Wrong``, the maths and hints.

A variant computes what a particular misconception would return on a check's
inputs (or raises where that mistake would crash). When a failing answer
matches a variant on every case, the feedback shows that variant's hint, with
the numbers of the first case it got wrong filled in (``{D}``, ``{Dq}``,
``{sqrt_Dq}``... see ``describe``). Answers that match no variant are
explained by invariants; those explanations carry one of the ``GENERIC`` names.

A check's own variants are listed in its ``Check(wrong=[...])`` in the
assignment's module (``attnkit/judge/<assignment>.py``); every name needs a
student-style implementation in ``attnkit/dev/catalogue/<assignment>.py``
(``tests/test_consistency.py`` and ``python -m attnkit.dev.validate`` prove it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from attnkit.judge.variants import (  # noqa: F401 - the variant maths, imported from here
    UDL_PARAMS,
    Swap,
    attention_variant,
    divisor,
    global_softmax,
    in_order,
    layer_variant,
    loop_variant,
    multihead_variant,
    naive_softmax,
    one_max_softmax,
    projections,
    query_variant,
    softmax_of,
    udl_attention,
)
from attnkit.judge.wrong import Raised, Wrong, run_variant, variant
from attnkit.kernel.cases import Args, Case

__all__ = ["GENERIC", "Raised", "Wrong", "run_variant", "variant"]  # and the maths below

# Names of the explanations that come from invariants rather than from a variant.
GENERIC = {
    "hard-coded": "right on the notebook's data only: globals, typed-in sizes or answers",
    "error": "the code raised an exception",
    "wrong shape": "the result has the wrong shape",
    "overflow": "inf or nan on large logits only",
    "not finite": "inf or nan",
    "not normalised": "softmax weights that do not sum to 1",
    "wrong answer": "a wrong True/False answer",
    "statistics": "random weights with the wrong distribution",
    "values differ": "right shape, wrong numbers",
}


# ------------------------------------------------------------------ facts for hints


def _num(value: float) -> str:
    return f"{value:.4g}"


def describe(case: Case) -> dict[str, Any]:
    """The sizes of a case, for the hints: D, N, Dq, H, dims, n, T, d, d_k, d_v and roots,
    and the first fully masked column of a ``mask`` (``empty``)."""
    a = case.args
    f: dict[str, Any] = {"case": case.name}
    if "X" in a and np.ndim(a["X"]) == 2:
        f["D"], f["N"] = np.shape(a["X"])
    if "all_x" in a:
        f["D"], f["N"] = len(a["all_x"][0]), len(a["all_x"])
    for key in ("omega_q", "omega_q1"):
        if key in a:
            f["Dq"] = np.shape(a[key])[0]
    if "omega_q1" in a:
        f["H"] = 2
    if "heads" in a:
        f["H"], f["Dq"] = len(a["heads"]), np.shape(a["heads"][0]["omega_q"])[0]
    if "dims" in a:
        f["dims"] = a["dims"]
    for key in ("D", "N"):  # sizes passed as arguments (positional_encoding(D, N))
        if key in a and np.ndim(a[key]) == 0:
            f[key] = int(a[key])
    if "mask" in a:  # the first column with no allowed entry
        empty = np.flatnonzero(~np.asarray(a["mask"], dtype=bool).any(axis=0))
        f["empty"] = int(empty[0]) if empty.size else "none"
    if "x" in a:
        f["n"] = np.shape(a["x"])[0]
    for key in ("tokens", "matrix", "hidden_encoder_matrix"):
        if key in a:
            f["T"], f["d"] = np.shape(a[key])
    if "W_K" in a:
        f["d_k"] = np.shape(a["W_K"])[1]
    if "W_V" in a:
        f["d_v"] = np.shape(a["W_V"])[1]
    if "n" in a:
        f["n"] = a["n"]
    if "W" in a:
        f["rows"], f["cols"] = np.shape(a["W"])
        f["block"] = f["cols"] // a["n"]
    for key in ("items_in", "data_in", "scores") + (("X",) if "X" in a and "omega_q" not in a
                                                    and "heads" not in a else ()):
        if key in a:
            f["zmax"] = f"{float(np.max(a[key])):.0f}"
            f["zmin"] = f"{float(np.min(a[key])):.0f}"
            f["zspan"] = f"{float(np.ptp(a[key])):.0f}"
    scores = _raw_scores(a)
    if scores is not None:
        f["smax"] = f"{float(np.max(np.abs(scores))):.0f}"
    for key in ("D", "N", "Dq", "dims", "n", "d", "d_k"):
        if key in f:
            f[f"sqrt_{key}"] = _num(math.sqrt(f[key]))
            f[f"inv_sqrt_{key}"] = _num(1 / math.sqrt(f[key]))
    return f


def _raw_scores(a: Args) -> np.ndarray | None:
    """The largest dot products a case feeds the softmax (before any scaling)."""
    with np.errstate(all="ignore"):
        if "omega_q" in a and ("X" in a or "all_x" in a):
            X = a["X"] if "X" in a else np.hstack(a["all_x"])
            return (a["beta_k"] + a["omega_k"] @ X).T @ (a["beta_q"] + a["omega_q"] @ X)
        if "omega_q1" in a:
            X = a["X"]
            return (a["beta_k1"] + a["omega_k1"] @ X).T @ (a["beta_q1"] + a["omega_q1"] @ X)
        if "heads" in a:
            h, X = a["heads"][0], a["X"]
            return (h["beta_k"] + h["omega_k"] @ X).T @ (h["beta_q"] + h["omega_q"] @ X)
        if "W_q" in a and "x" in a:
            return (a["x"] @ a["W_q"]) @ (a["x"] @ a["W_k"]).T
        if "W_K" in a:
            return (a["tokens"] @ a["W_K"]) @ (a["query_token"] @ a["W_Q"])
    return None


# ------------------------------------------------------------------ hints

_ROLE = {"q": "queries", "k": "keys", "v": "values"}


def swaps(family: Callable[..., Any], omega: str, beta: str | None, equation: str,
          letters: str = "qkv") -> list[Wrong]:
    """Every role computed with another role's matrix (with or without its bias), or, where
    there are biases, the queries or values with another role's bias only: a copied line
    where one letter was not changed. Variants of ``family``: they compose with its others.

    ``omega`` and ``beta`` name the matrices with {} for the letter, spelt as in
    ``letters`` (the notebook's spelling: "QKV" for W_Q, W_K, W_V).
    """
    out = []
    spell = dict(zip("qkv", letters, strict=True))
    for role in "qkv":
        for source in "qkv":
            if source == role:
                continue
            for with_bias in ((False, True) if beta else (False,)):
                used = omega.format(spell[source]) + (
                    f" and {beta.format(spell[source])}" if beta and with_bias else "")
                right = omega.format(spell[role]) + (
                    f" and {beta.format(spell[role])}" if beta else "")
                hint = (f"your {_ROLE[role]} were computed with {used}: the {_ROLE[role]} use "
                        f"{right} ({equation}); look for a copied line where one letter was "
                        "not changed")
                out.append(variant("wrong weight matrix", family, hint,
                                   swap=(role, source, with_bias)))
            if beta and role != "k":  # the keys' bias adds one number per column of
                out.append(variant(  # scores, which the column softmax ignores
                    "wrong bias", family,
                    f"your {_ROLE[role]} add {beta.format(spell[source])}: the {_ROLE[role]} "
                    f"are {beta.format(spell[role])} + {omega.format(spell[role])} X "
                    f"({equation}); look for a copied line where the bias's letter was not "
                    "changed", bias_swap=(role, source)))
    return out


OVERFLOW = ("on {case} the scores reach {smax}: np.exp overflows to inf and inf / inf gives "
             "nan. Use a softmax that subtracts the maximum first (softmax(z) = "
             "softmax(z - max z), so nothing else changes): you keep half the points")

ONE_MAX_COLS = ("your result matches a softmax shifted by one maximum for the whole matrix "
                "(np.max(scores) with no axis): where a column sits far below that maximum "
                "(large scores), np.exp underflows to 0 in every entry of it and 0 / 0 = nan. "
                "Subtract each column's own maximum, np.max(scores, axis=0, keepdims=True): you "
                "keep half the points")
ONE_MAX_ROWS = ONE_MAX_COLS.replace("column", "row").replace("axis=0", "axis=-1")

SCALE_UDL = {
    "none": "your attention is not scaled: divide K^T Q by sqrt(D_q) before the softmax "
            "(eq. 12.9); for '{case}', D_q = {Dq}, so divide by sqrt({Dq}) = {sqrt_Dq}",
    "sqrt_D": "on {case}, your result matches attention divided by sqrt(D) = sqrt({D}) = "
              "{sqrt_D}, the size of one input; eq. 12.9 divides by sqrt(D_q) = sqrt({Dq}) = "
              "{sqrt_Dq}, where D_q is the size of one query (the rows of Q, Q.shape[0])",
    "D": "your result matches attention divided by D = {D}; eq. 12.9 divides by the square "
         "root of the query size, sqrt(D_q) = sqrt({Dq}) = {sqrt_Dq}",
    "Dq": "your result matches attention divided by D_q = {Dq} itself; eq. 12.9 divides by "
          "its square root, sqrt({Dq}) = {sqrt_Dq}",
    "sqrt_N": "your result matches attention divided by sqrt(N) = sqrt({N}) = {sqrt_N}, the "
              "number of tokens; eq. 12.9 divides by sqrt(D_q) = sqrt({Dq}) = {sqrt_Dq}, the "
              "size of one query: Q.shape[0], not Q.shape[1]",
    "two_Dq": "you divided K^T Q by 2 x D_q = 2 x {Dq}, not by sqrt(D_q) = sqrt({Dq}) = "
              "{sqrt_Dq}: ** binds tighter than /, so S / D_q ** 1/2 is (S / D_q) / 2. Write "
              "D_q ** 0.5 (or ** (1/2)) or np.sqrt(Q.shape[0]) (eq. 12.9)",
    "two": "you divided by 2 = sqrt(4), the notebook's value, for every input; for "
           "'{case}', D_q = {Dq}, so divide by sqrt({Dq}) = {sqrt_Dq}: compute it from the "
           "arguments (np.sqrt(Q.shape[0]))",
    "half_Dq": "you divided K^T Q by D_q ** 1/2, which Python reads as (D_q ** 1) / 2 = D_q / 2 "
               "(= {Dq} / 2 on '{case}'), not sqrt(D_q) = sqrt({Dq}) = {sqrt_Dq}: ** binds "
               "tighter than /, and the two agree only for D_q = 4. Write D_q ** 0.5 (or "
               "** (1/2)) or np.sqrt(Q.shape[0]) (eq. 12.9)",
    "four": "two mistakes in the scale. You divided by 4, the notebook's D (a global, or a "
            "number typed in), for every input, and with no square root: eq. 12.9 divides by "
            "sqrt(D_q), the square root of the size of one query, computed from the "
            "arguments: np.sqrt(Q.shape[0]) (2 on the notebook's data, other values on the "
            "hidden test's inputs)",
}
SCALE_NAMES = {"none": "no scaling", "sqrt_D": "scale sqrt(D)", "D": "scale D",
                "Dq": "no square root", "sqrt_N": "scale sqrt(N)", "two": "scale fixed at 2",
                "sqrt_half_D": "scale sqrt(D/2)", "two_Dq": "size ** 1/2 precedence",
                "sqrt_dv": "scale sqrt(d_v)", "four": "scale fixed at 4",
                "sqrt_eight": "scale fixed at sqrt(8)",
                "half_Dq": "size ** 1/2 as size / 2"}


AFTER_UDL = ("you divided after the softmax, so each column of weights sums to 1/sqrt(D_q) = "
              "{inv_sqrt_Dq} instead of 1; divide the scores K^T Q by sqrt(D_q) = {sqrt_Dq} "
              "before the softmax (eq. 12.9)")


def udl_common(family: Callable[..., Any]) -> list[Wrong]:
    """Mistakes any UDL attention function can make (tokens in columns)."""
    return [
        variant("softmax over rows", family,
                "each row of your N x N attention matrix sums to 1, but with tokens in columns "
                "column n holds the weights of output n and must sum to 1: apply the softmax "
                "down the columns (axis 0), as softmax_cols does", axis=1),
        variant("keys and queries swapped", family,
                "you compared queries and keys the wrong way round: you computed Q^T K, whose "
                "entry (m, n) is q_m . k_n, instead of K^T Q (eq. 12.8), whose entry (m, n) is "
                "k_m . q_n: the weights of output n come from output n's query against every "
                "input's key", order="QtK"),
        variant("biases forgotten", family,
                "your result matches attention without the biases: the queries, keys and "
                "values are beta_q + Omega_q X, beta_k + Omega_k X and beta_v + Omega_v X "
                "(eq. 12.6); numpy adds the bias column to every column of Omega X", biases=""),
        variant("value bias forgotten", family,
                "your result matches attention without beta_v: the values are "
                "V = beta_v + Omega_v X (eq. 12.6)", biases="qk"),
        variant("query bias forgotten", family,  # the keys' bias: no effect (see bias_forms)
                "your result matches attention without beta_q: the queries are "
                "Q = beta_q + Omega_q X (eq. 12.6)", biases="kv"),
        variant("weighted sum of inputs", family,
                "your outputs are weighted sums of the inputs X; they must be weighted sums of "
                "the values V = beta_v + Omega_v X (X' = V A, eqs. 12.7-12.8)", values="X"),
        variant("keys and values swapped", family,
                "your keys were computed with omega_v and beta_v and your values with omega_k "
                "and beta_k: keys and values are exchanged (a helper that returns Q, V, K, or "
                "K and V unpacked in the other order). K = beta_k + Omega_k X and V = beta_v + "
                "Omega_v X (eq. 12.6): return and unpack them in one order, Q, K, V",
                use="qvk"),
        variant("values times transposed weights", family,
                "you multiplied V by the transposed attention matrix (V @ A.T): output n then "
                "mixes the values with row n of A, but with tokens in columns column n of A, "
                "the one that sums to 1, holds output n's weights. X' = V A (eqs. 12.7-12.8)",
                weights_by="At"),
        *bias_forms(family),
        *(variant("projection transposed", family,
                  f"you multiplied X by {which} transposed (omega.T @ X): the "
                  f"{names} are beta + omega @ X (eq. 12.6), each Omega a D_out x D matrix "
                  "whose row d makes entry d of the projection. Use the matrix as given",
                  transposed=roles)
          for roles, which, names in (("qkv", "each Omega", "queries, keys and values"),
                                      ("q", "omega_q", "queries"), ("k", "omega_k", "keys"),
                                      ("v", "omega_v", "values"))),
        variant("last value left out", family,
                "each output leaves out the last value: the weighted sum runs over every "
                "input, m = 0 ... N - 1 (eq. 12.3), and range(N - 1) stops before N - 1. Sum "
                "over range(N) (or use V @ A)", drop="last"),
        variant("first value left out", family,
                "each output leaves out the first value, m = 0: the weighted sum runs over "
                "every input, m = 0 ... N - 1 (eq. 12.3); range(1, N) starts at the second. Sum "
                "over range(N) (or use V @ A)", drop="first"),
        variant("unstable softmax", family, OVERFLOW, 0.5, stable=False),
        variant("one maximum for the whole matrix", family, ONE_MAX_COLS, 0.5,
                stable="one max"),
        *swaps(family, "omega_{}", "beta_{}", "eq. 12.6"),
    ]


def bias_forms(family: Callable[..., Any]) -> list[Wrong]:
    """Every bias, or one role's, added as a row (beta.T) or as its first entry (beta[0]).
    Rows crash with one message whichever bias it is where the sizes agree: every bias is
    tried first and its hint says "a bias", not which."""
    out = []
    for roles in ("qkv", "q", "k", "v"):
        which = "each bias" if roles == "qkv" else f"beta_{roles}"
        row = "a bias" if roles == "qkv" else which
        out.append(variant(
            "bias added as a row", family,
            f"you added {row} as a row (beta.T, 1 x D): a bias is a D x 1 column, which numpy "
            "adds to every column of Omega X (eq. 12.6), while a row is added to every row "
            "and raises ValueError when Omega X is not square (on {case}, D x N = {D} x {N}). "
            "Add the column itself: beta + omega @ X", bias_as="row", bias_roles=roles))
        if roles == "qkv":
            out.append(variant(
                "bias inside the product", family,
                "you added each bias before multiplying, Omega (x + beta): the projection is "
                "beta + Omega x (eq. 12.6), the bias added after Omega maps x to the output "
                "size (with D_q != D, x + beta does not even line up)", bias_as="inside",
                bias_roles=roles))
        if roles == "k":  # one number added to every key shifts each column of scores by
            continue  # one number, which the column softmax ignores
        out.append(variant(
            "first bias entry only", family,
            f"you added the first entry of {which} (beta[0]) to every entry: a bias is a "
            "D x 1 column whose entry d goes to row d (eq. 12.6). Add the whole column, "
            "beta + omega @ X (numpy repeats it across the N columns)", bias_as="first",
            bias_roles=roles))
    return out


def scales(family: Callable[..., Any], hints: dict[str, str]) -> list[Wrong]:
    """The wrong scale factors, one ``Wrong`` per entry of ``hints``."""
    return [variant(SCALE_NAMES[scale], family, hint, scale=scale)
            for scale, hint in hints.items()]


def first(fn: Callable[..., tuple]) -> Callable[..., Any]:
    return lambda a, **kw: fn(a, **kw)[0]


def scaled(family: Callable[..., Any], scale: str) -> Callable[..., Any]:
    return partial(family, scale=scale)


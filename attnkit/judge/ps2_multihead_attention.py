"""Grader side of ps2_multihead_attention: its checks and demo class."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from attnkit.judge import reference as ref
from attnkit.judge.check import Check, Sample, by_id
from attnkit.judge.misconceptions import (
    AFTER_UDL,
    ONE_MAX_COLS,
    OVERFLOW,
    SCALE_UDL,
    UDL_PARAMS,
    Wrong,
    attention_variant,
    first,
    in_order,
    multihead_variant,
    scaled,
    scales,
    udl_attention,
    udl_common,
    variant,
)
from attnkit.judge.requirements import Requirement
from attnkit.kernel.cases import Args, Case
from attnkit.kernel.ps2_multihead_attention import PROBES as P


def _multihead(a: Args) -> Any:
    heads = [{k: a[f"{k}{h}"] for k in UDL_PARAMS} for h in (1, 2)]
    return ref.multihead_self_attention(a["X"], heads, a["omega_c"])


def _two_heads(a: Args) -> list[Args]:
    return [{k: a[f"{k}{h}"] for k in ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k",
                                        "beta_v")} for h in (1, 2)]


def _mh(a: Args, **kw: Any) -> np.ndarray:
    return multihead_variant(a["X"], _two_heads(a), a["omega_c"], **kw)


def _mh_general(a: Args, **kw: Any) -> Any:
    return _twice(a, multihead_variant(a["X"], a["heads"], a["omega_c"], **kw))


def _twice(a: Args, out: Any) -> Any:
    """What a right function gives on a case: on a ``twice`` case, the same result twice."""
    return [out, out] if a.get("twice") else out


def _differs(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
    """The two calls of a ``twice`` case returned different results."""
    for value, case in zip(got, cases, strict=True):
        if case.args.get("twice") and isinstance(value, list) and len(value) == 2:
            first, second = (np.asarray(v, dtype=float) for v in value)
            if first.shape != second.shape or not np.allclose(first, second, equal_nan=True):
                return f"on {case.name}, the second call returned other values than the first"
    return None


SAME_TWICE = Requirement(
    "changes its arguments", _differs,
    "the first call is right, but {found}: the first call changed something the second reads, "
    "its arguments (an in-place /= or *= on the heads' arrays, which are the caller's) or a "
    "global. Compute new arrays instead, e.g. Q = (beta_q + omega_q @ X) / np.sqrt(d_q): you "
    "keep half the points", audit=lambda c: bool(c.args.get("twice")), arguments=True)



_SCALE_HEADS = {
    "none": SCALE_UDL["none"],
    "sqrt_D": "your result matches attention divided by sqrt(D) = sqrt({D}) = {sqrt_D}; in "
              "multihead attention each head's queries have D_q = D/H = {D}/{H} = {Dq} "
              "entries, so divide by sqrt({Dq}) = {sqrt_Dq} (use Q.shape[0])",
    "D": "your result matches attention divided by D = {D}; each head divides by the square "
         "root of its own query size, sqrt(D/H) = sqrt({Dq}) = {sqrt_Dq}",
    "Dq": "your result matches attention divided by D/H = {Dq}; divide by its square root, "
          "sqrt({Dq}) = {sqrt_Dq} (eq. 12.9)",
}

_SCALE_HEADS["two"] = (
    "you divided by 2 = sqrt(H_D) = sqrt(4), the notebook's head size, for every input; for "
    "'{case}', D_q = {Dq}, so divide by sqrt({Dq}) = {sqrt_Dq}: take D_q from the arguments, "
    "Q.shape[0], not from the globals H_D or D")
_SCALE_HEADS["sqrt_eight"] = (
    "you divided by sqrt(8) = 2.828, the square root of the notebook's D = 8 (the global D, "
    "or a number typed in), for every input; for '{case}', each head's queries have D_q = "
    "{Dq} rows, so divide by sqrt({Dq}) = {sqrt_Dq}: take D_q from the arguments, Q.shape[0]")
_HALF_D = (
    "you divided by sqrt(D/2) = sqrt({D}/2): D_q computed as if there were always two heads "
    "(X.shape[0] / 2 or D / 2); for '{case}', D_q = {Dq}, the rows of this head's queries, so "
    "divide by sqrt({Dq}) = {sqrt_Dq}: use Q.shape[0]")

_EXTRA_HEAD: dict[str, str] = {}  # sizes a head alone is scaled by wrongly
_EXTRA_HEAD["sqrt_N"] = (
    "your result matches heads divided by sqrt(N) = sqrt({N}) = {sqrt_N}, the number of "
    "tokens; each head divides by sqrt(D_q) = sqrt({Dq}) = {sqrt_Dq}, the size of one of its "
    "queries: Q.shape[0], not Q.shape[1] or X.shape[1]")
_EXTRA_HEAD["two_Dq"] = (
    "your result matches heads divided by 2 x D_q = 2 x {Dq}, not by sqrt({Dq}) = {sqrt_Dq}: "
    "** binds tighter than /, so S / D_q ** 1/2 is (S / D_q) / 2. Write D_q ** 0.5 or "
    "np.sqrt(Q.shape[0]) (eq. 12.9)")
_SCALE_GENERAL = {**_SCALE_HEADS, "sqrt_half_D": _HALF_D}  # two heads: D/2 = D/H

_SCALE_HEAD = {
    **_SCALE_GENERAL, **_EXTRA_HEAD,
    "sqrt_D": "your result matches a head scaled by sqrt(D) = sqrt({D}) = {sqrt_D}, the input "
              "size; this head's queries have D_q = {Dq} rows (D/H, not D), so divide by "
              "sqrt({Dq}) = {sqrt_Dq}: use Q.shape[0]",
}

_SIDE_BY_SIDE = (
    "you joined the heads side by side (np.hstack: a {Dq} x (H N) matrix), so omega_c "
    "({D} x {D}) cannot multiply it and numpy raises ValueError. Stack them on top of each "
    "other, np.vstack (a {D} x {N} matrix, eq. 12.11), then multiply by omega_c")

_sa = first(attention_variant)


def _qkv_order(h: int) -> Wrong:
    n = h + 1
    return Wrong(
        f"head {n}: arguments in q, k, v order", partial(_mh_head, h=h, order="qkv"),
        f"your result matches passing head {n}'s matrices in the order q, k, v (the order of "
        "the data cell) to single_head_attention, whose parameters are (X, omega_v, omega_q, "
        f"omega_k, beta_v, beta_q, beta_k): the values were computed with omega_q{n}, the "
        f"queries with omega_k{n}, the keys with omega_v{n}. Pass them in the order v, q, k: "
        f"single_head_attention(X, omega_v{n}, omega_q{n}, omega_k{n}, beta_v{n}, beta_q{n}, "
        f"beta_k{n})")


def _borrowed(a: Args, head: int, key: str) -> np.ndarray:
    """Head ``head`` (1 or 2) computed with the other head's ``key`` (a copied line)."""
    other = 3 - head
    return _mh({**a, f"{key}{head}": a[f"{key}{other}"]})


def _borrowing() -> list[Wrong]:
    """One head's parameter reused for the other head, for each head and parameter (but
    beta_k, which adds one number to each column of scores: the column softmax ignores it)."""
    return [Wrong("another head's parameter", partial(_borrowed, head=h, key=k),
                  f"head {h} was computed with {k}{3 - h} instead of {k}{h}: the two heads "
                  "share every other parameter name, so look for a copied call where one "
                  "head number was not changed")
            for h in (1, 2) for k in UDL_PARAMS if k != "beta_k"]  # beta_k: softmax ignores it


_ROLES = {"q": "queries", "k": "keys", "v": "values"}

_TRANSPOSED_C = (
    "your result matches the stacked heads mixed by omega_c transposed (omega_c.T @ stack, "
    "which is what (stack.T @ omega_c).T computes): X' = omega_c [Sa_1; ...; Sa_H] (eq. 12.11), "
    "so multiply by omega_c itself, on the left: omega_c @ np.vstack(outputs)")
_ROWS_ORDER = (
    "your result has shape {N} x {D}: you computed stack.T @ omega_c, the tokens-in-rows "
    "product of problem sets 3 and 4. Here the tokens are columns: X' = omega_c [Sa_1; ...; "
    "Sa_H] (eq. 12.11), omega_c @ np.vstack(outputs), a {D} x {N} matrix")
_ON_THE_RIGHT = (
    "you multiplied the stack by omega_c on the right, stack @ omega_c: the stack is {D} x "
    "{N} and omega_c {D} x {D}, so the product runs only when N = D (numpy raised ValueError "
    "on '{case}'). X' = omega_c [Sa_1; ...; Sa_H] (eq. 12.11): omega_c mixes the rows of the "
    "stack from the left, omega_c @ np.vstack(outputs)")
_DICT_ORDER = (
    "your result matches passing each head's values in the order its dictionary holds them "
    "(*head.values()): a dictionary's order is the order its keys were written, which is not "
    "single_head_attention's (X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k), and on "
    "'{case}' a bias lands where a matrix belongs. Pass them by name: "
    "single_head_attention(X, **head), or head['omega_v'], head['omega_q'], ... in that order")


def _in_order(order: str, family: Any, which: str) -> Wrong:
    """``which`` head(s) passed their matrices in ``order`` to the (v, q, k) signature."""
    used = ", the ".join(f"{_ROLES[slot]} were computed with omega_{role}"
                     for slot, role in zip("vqk", order, strict=True) if slot != role)
    return variant("arguments in the wrong order", family,
                   f"your result matches passing {which} matrices to single_head_attention"
                   f"(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k) in the order "
                   f"{', '.join(order)}: the {used}. Pass them in the order v, q, k (or by "
                   "name, omega_q=..., omega_k=...)", order=order)


_ORDERS = ("vkq", "qvk", "kqv", "kvq")  # "vqk" is right; "qkv" has its own hint

_BIAS_ORDERS = ("vkq", "qvk", "qkv", "kvq", "kqv")  # "vqk" is right


def _biases_in(order: str, family: Any, which: str) -> Wrong:
    """Each head's biases alone passed in ``order`` to the v, q, k signature."""
    roles = {"v": "the values", "q": "the queries", "k": "the keys"}
    got = [f"{roles[slot]} got beta_{b}" for slot, b in zip("vqk", order, strict=True)
           if slot != b]
    name = "query and key biases swapped" if order == "vkq" else "biases in another order"
    return variant(name, family,
                   f"your result matches passing {which} biases in the order "
                   f"{', '.join('beta_' + b for b in order)} to single_head_attention(X, "
                   "omega_v, omega_q, omega_k, beta_v, beta_q, beta_k), so "
                   f"{', '.join(got[:-1])} and {got[-1]} (the matrices are in the right "
                   "order). Pass the biases in the order v, q, k, or by name",
                   bias_order=order)


_ROTATED = (
    "your heads are stacked in the order H, 1, 2, ..., H - 1: heads[i - 1] with i from 0 takes "
    "heads[-1], the last head, first (Python counts -1 from the end), so every head block sits "
    "one place down. Stack heads[i] for i in range(len(heads)) (or for head in heads), head 1 "
    "on top (eq. 12.11)")
_BOTH_QKV = (
    "your result matches passing both heads' matrices in the order q, k, v (the order of the "
    "data cell) to single_head_attention, whose parameters are (X, omega_v, omega_q, omega_k, "
    "beta_v, beta_q, beta_k): the values were computed with omega_q, the queries with omega_k, "
    "the keys with omega_v. Pass them in the order v, q, k: single_head_attention(X, omega_v1, "
    "omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)")

_FIRST_SKIPPED = (
    "your result leaves out heads[0], the first head: a loop over range(1, len(heads)) (heads "
    "numbered from 1 as in the text) starts at the second, because Python lists count from 0. "
    "On '{case}' the {H} heads stack into a {D} x {N} matrix; without the first the stack has "
    "fewer rows, so omega_c ({D} x {D}) cannot multiply it. Loop over the list itself: for "
    "head in heads")


def _mh_head(a: Args, h: int, order: str) -> np.ndarray:
    """Head ``h`` (0 for head 1) passed its matrices in ``order``."""
    heads = _two_heads(a)
    heads[h] = in_order(heads[h], order)
    return multihead_variant(a["X"], heads, a["omega_c"])


_LAST_DROPPED = (
    "your result leaves out the last head: on '{case}' the {H} heads stack into a {D} x {N} "
    "matrix, but you stacked {H} - 1 of them, so omega_c ({D} x {D}) cannot multiply the "
    "stack and numpy raises ValueError. Stack every head: loop over the list itself, for "
    "head in heads (range(len(heads)) ends at the last index, len(heads) - 1)")


CHECKS = by_id(
    Check(P["ps2_single_head"], lambda a: udl_attention(scaled=True)(a)[0],
          wrong=(
            *scales(_sa, _SCALE_HEAD),
            Wrong("scaled after softmax", lambda a: _sa(a, scale="sqrt_Dq", after=True),
                  AFTER_UDL),
            Wrong("returned the attention too",
                  lambda a: list(attention_variant(a, scale="sqrt_Dq")),
                  "you returned (X', attentions) as in problem set 1; single_head_attention "
                  "returns only the head's output, a D/H x N = {Dq} x {N} matrix"),
            *udl_common(scaled(_sa, "sqrt_Dq")),
          ),
          label="head"),
    Check(P["ps2_multihead_scaled"], _multihead,
          wrong=(
            *scales(_mh, _SCALE_HEADS),
            Wrong("heads reversed", lambda a: _mh(a, reverse=True),
                  "the heads are stacked in reverse order: head 1's output goes on top, "
                  "np.vstack([head1, head2]) (eq. 12.11)"),
            Wrong("output projection omitted", lambda a: _mh(a, mix="none"),
                  "your result is the {H} heads stacked into a {D} x {N} matrix but not mixed: "
                  "multiply the stack by omega_c, X' = omega_c [Sa_1; Sa_2] (eq. 12.11)"),
            Wrong("output projection per head", lambda a: _mh(a, mix="per head"),
                  "you mixed each head with its own diagonal block of omega_c; omega_c "
                  "({D} x {D}) mixes all the heads at once: "
                  "omega_c @ np.vstack([head1, head2])"),
            Wrong("heads joined along columns", lambda a: _mh(a, concat="cols"),
                  "you joined the heads side by side (np.hstack, axis=1) and reshaped to "
                  "{D} x {N}: "
                  "the reshape scrambles the tokens. Stack them vertically, np.vstack([head1, "
                  "head2]), so each column stays one token (eq. 12.11)"),
            Wrong("heads side by side", lambda a: _mh(a, concat="side"), _SIDE_BY_SIDE),
            variant("arguments in q, k, v order", _mh, _BOTH_QKV, order="qkv"),
            _qkv_order(1),
            _qkv_order(0),
            Wrong("unstable softmax", lambda a: _mh(a, stable=False), OVERFLOW, credit=0.5),
            Wrong("one maximum for the whole matrix", lambda a: _mh(a, stable="one max"),
                  ONE_MAX_COLS, credit=0.5),
            *_borrowing(),
            *(_in_order(o, partial(_mh_head, h=h), f"head {h + 1}'s") for h in (0, 1)
              for o in _ORDERS),
            *(_in_order(o, _mh, "both heads'") for o in _ORDERS),
            variant("omega_c transposed", _mh, _TRANSPOSED_C, mix="transposed"),
            variant("mixed in rows order", _mh, _ROWS_ORDER, mix="rows"),
            Wrong("omega_c on the right", partial(_mh, mix="right"), _ON_THE_RIGHT,
                  same_errors=True),
            *(_biases_in(o, _mh, "both heads'") for o in _BIAS_ORDERS),
          ),
          label="2 heads"),
    Check(P["ps2_multihead_general"], lambda a: _twice(a, ref.multihead_self_attention(
          a["X"], a["heads"], a["omega_c"])),
          wrong=(
            *scales(_mh_general, _SCALE_GENERAL),
            Wrong("heads reversed", lambda a: _mh_general(a, reverse=True),
                  "the heads are stacked in reverse order: stack head 1, head 2, ..., head H from "
                  "the top, in the order of the list `heads` (eq. 12.11)"),
            variant("heads rotated", _mh_general, _ROTATED, rotate=True),
            Wrong("output projection omitted", lambda a: _mh_general(a, mix="none"),
                  "your result is the {H} heads stacked into a {D} x {N} matrix but not mixed: "
                  "multiply the stack by omega_c (eq. 12.11)"),
            Wrong("output projection per head", lambda a: _mh_general(a, mix="per head"),
                  "you mixed each head with its own diagonal block of omega_c; omega_c "
                  "({D} x {D}) mixes all the heads at once: omega_c @ np.vstack(outputs)"),
            Wrong("heads joined along columns", lambda a: _mh_general(a, concat="cols"),
                  "you joined the heads side by side (axis=1) and reshaped to {D} x {N}: the "
                  "reshape scrambles the tokens. Stack them vertically with np.vstack (eq. 12.11)"),
            Wrong("last head dropped",  # a single head is kept: H = 1 is right
                  lambda a: _mh_general(a, count=max(1, len(a["heads"]) - 1)), _LAST_DROPPED,
                  same_errors=True),
            Wrong("heads side by side", lambda a: _mh_general(a, concat="side"),
                  _SIDE_BY_SIDE),
            variant("notebook's head count", _mh_general,
                    "your result uses heads[0] and heads[1] only (the notebook's H = 2), "
                    "whatever the list holds: on '{case}' `heads` has {H} heads. Loop over the "
                    "list itself: for head in heads (or range(len(heads)))", count=2),
            variant("notebook's head count", _mh_general,
                    "your result uses the first heads only, heads[:H] with the notebook's "
                    "H = 2, whatever the list holds: on '{case}' `heads` has {H} heads and only "
                    "2 of them are stacked. Loop over the list itself: for head in heads",
                    upto=2),
            variant("arguments in q, k, v order", _mh_general,
                    "your result matches passing each head's matrices in the order q, k, v "
                    "(the order of the data cell and of the dictionaries) to "
                    "single_head_attention, whose parameters are (X, omega_v, omega_q, omega_k, "
                    "beta_v, beta_q, beta_k): the values were computed with omega_q, the "
                    "queries with omega_k, the keys with omega_v. Pass them by name, "
                    "single_head_attention(X, **head), or in the order v, q, k", order="qkv"),
            Wrong("unstable softmax", lambda a: _mh_general(a, stable=False), OVERFLOW,
                  credit=0.5),
            Wrong("one maximum for the whole matrix", lambda a: _mh_general(a, stable="one max"),
                  ONE_MAX_COLS, credit=0.5),
            Wrong("first head skipped", lambda a: _mh_general(a, count=-1), _FIRST_SKIPPED,
                  same_errors=True),
            *(_in_order(o, _mh_general, "each head's") for o in _ORDERS),
            variant("heads' values in dictionary order", _mh_general, _DICT_ORDER,
                    order="dict"),
            variant("omega_c transposed", _mh_general, _TRANSPOSED_C, mix="transposed"),
            variant("mixed in rows order", _mh_general, _ROWS_ORDER, mix="rows"),
            Wrong("omega_c on the right", partial(_mh_general, mix="right"), _ON_THE_RIGHT,
                  same_errors=True),
            *(_biases_in(o, _mh_general, "each head's") for o in _BIAS_ORDERS),
          ),
          require=(SAME_TWICE,),
          label="H heads"),
)

SAMPLES: dict[str, Sample] = {
    "aisha": Sample("complete and correct"),
    "ben": Sample("handed in the blank notebook", blank=True),
    "chen": Sample(
        "each head scaled by sqrt(D) instead of sqrt(D/H); the multi-head cells, right given "
        "that head, keep their points (follow-through)",
        code={"ps2_single_head_code": """\
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))
"""},
        expect={"ps2_single_head": 0.0},
    ),
    "dara": Sample(
        "stacks head 2 above head 1",
        code={"ps2_multihead_scaled_code": """\
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.concatenate([h2, h1], axis=0)
"""},
        expect={"ps2_multihead_scaled": 0.0},
    ),
    "emil": Sample(
        "general version hard-wired to two heads",
        code={"ps2_multihead_general_code": """\
def multihead_self_attention(X, heads, omega_c):
    h1 = single_head_attention(X, heads[0]["omega_v"], heads[0]["omega_q"], heads[0]["omega_k"],
                               heads[0]["beta_v"], heads[0]["beta_q"], heads[0]["beta_k"])
    h2 = single_head_attention(X, heads[1]["omega_v"], heads[1]["omega_q"], heads[1]["omega_k"],
                               heads[1]["beta_v"], heads[1]["beta_q"], heads[1]["beta_k"])
    return omega_c @ np.vstack([h1, h2])
"""},
        expect={"ps2_multihead_general": 0.0},
    ),
}

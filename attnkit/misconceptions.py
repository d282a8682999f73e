"""Known-wrong variants of each skill, used to name a student's likely mistake.

Each variant computes what a particular misconception would return on a
check's inputs (or raises where that mistake would crash). When a failing
answer matches a variant on every case, the feedback shows that variant's
hint, with the numbers of the first case it got wrong filled in (``{D}``,
``{Dq}``, ``{sqrt_Dq}``... see ``describe``). Answers that match no variant
are explained by invariants; those explanations carry one of the ``GENERIC``
names.

Add a misconception by adding a ``Wrong`` to the check's list, and a
student-style implementation to ``tests/catalogue`` that declares the same
name: ``python -m attnkit.validate`` and ``tests/test_catalogue.py`` prove the
hint fires, and fail if any name here has no student implementation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from attnkit import reference as ref
from attnkit.cases import Args, Case, equivariance_function

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


class Raised:
    """Stands for an exception where a result was expected (student or variant)."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"Raised({self.message!r})"


class _Facts(dict):
    def __missing__(self, key: str) -> str:
        return "?"


@dataclass(frozen=True)
class Wrong:
    """One misconception of one check.

    ``fn`` returns what the mistake gives on a case's arguments (or raises
    where the mistake crashes). For per-case checks it may return None for
    cases it says nothing about. Statistical checks, whose outputs are random,
    use ``test(output, args)`` instead.
    """

    name: str
    fn: Callable[[Args], Any] | None
    hint: str
    credit: float = 0.0  # fraction of the cell's points this mistake keeps
    test: Callable[[Any, Args], bool] | None = None

    def message(self, facts: dict) -> str:
        return self.hint.format_map(_Facts(facts))


def run_variant(fn: Callable[[Args], Any], args: Args) -> Any:
    """A variant's output on one case, ``Raised`` where it raises."""
    with np.errstate(all="ignore"):
        try:
            return fn(args)
        except Exception as error:  # noqa: BLE001 - a crash is what some mistakes give
            return Raised(f"{type(error).__name__}: {error}")


# ------------------------------------------------------------------ facts for hints


def _num(value: float) -> str:
    return f"{value:.4g}"


def describe(case: Case) -> dict[str, Any]:
    """The sizes of a case, for the hints: D, N, Dq, H, dims, n, T, d, d_k and their roots."""
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
    for key in ("D", "N"):
        if key in a and np.ndim(a[key]) == 0:
            f[key] = int(a[key])
    if "mask" in a:
        empty = np.flatnonzero(~np.asarray(a["mask"], dtype=bool).any(axis=0))
        f["empty"] = int(empty[0]) if empty.size else "none"
    if "x" in a:
        f["n"] = np.shape(a["x"])[0]
    for key in ("tokens", "matrix", "hidden_encoder_matrix"):
        if key in a:
            f["T"], f["d"] = np.shape(a[key])
    if "W_K" in a:
        f["d_k"] = np.shape(a["W_K"])[1]
    if "n" in a:
        f["n"] = a["n"]
    if "W" in a:
        f["rows"], f["cols"] = np.shape(a["W"])
        f["block"] = f["cols"] // a["n"]
    for key in ("items_in", "data_in", "scores") + (("X",) if "X" in a and "omega_q" not in a
                                                    and "heads" not in a else ()):
        if key in a:
            f["zmax"] = f"{float(np.max(a[key])):.0f}"
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


# ------------------------------------------------------------------ variant maths


def naive_softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(np.asarray(z, dtype=float))
    return e / e.sum(axis=axis, keepdims=True)


def global_softmax(z: np.ndarray) -> np.ndarray:
    """Normalised over every entry at once."""
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


def _divisor(scale: str, *, D: int, Dq: int, N: int) -> float:
    return {"none": 1.0, "sqrt_Dq": math.sqrt(Dq), "sqrt_D": math.sqrt(D), "D": float(D),
            "Dq": float(Dq), "sqrt_N": math.sqrt(N), "two": 2.0}[scale]


Swap = tuple[str, str, bool]  # (role, matrix used instead, bias swapped too)


def attention_variant(a: Args, *, scale: str = "none", axis: int = 0, order: str = "KtQ",
                      biases: str = "qkv", values: str = "V", stable: bool = True,
                      after: bool = False, swap: Swap | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """UDL attention (tokens in columns) with one thing done wrong; returns (X', A)."""
    X = a["X"]
    matrix, bias = {"q": "q", "k": "k", "v": "v"}, {"q": "q", "k": "k", "v": "v"}
    if swap:
        role, source, with_bias = swap
        matrix[role] = source
        if with_bias:
            bias[role] = source

    def project(role: str) -> np.ndarray:
        b = a[f"beta_{bias[role]}"] if role in biases else 0.0
        return b + a[f"omega_{matrix[role]}"] @ X

    Q, K, V = project("q"), project("k"), project("v")
    S = K.T @ Q if order == "KtQ" else Q.T @ K
    divisor = _divisor(scale, D=X.shape[0], Dq=Q.shape[0], N=X.shape[1])
    soft = ref.softmax if stable else naive_softmax
    A = soft(S, axis=axis) / divisor if after else soft(S / divisor, axis=axis)
    return (X if values == "X" else V) @ A, A


def loop_variant(a: Args, **kw: Any) -> list[np.ndarray]:
    """The per-token version: a list of D x 1 outputs."""
    X_prime, _ = attention_variant({**a, "X": np.hstack(a["all_x"])}, **kw)
    return [X_prime[:, [n]] for n in range(X_prime.shape[1])]


def multihead_variant(X: np.ndarray, heads: list[Args], omega_c: np.ndarray, *,
                      scale: str = "sqrt_Dq", reverse: bool = False, mix: str = "all",
                      concat: str = "rows", stable: bool = True) -> np.ndarray:
    """Multihead attention (eqs. 12.10-12.11) with one thing done wrong."""
    outs = [attention_variant({"X": X, **h}, scale=scale, stable=stable)[0] for h in heads]
    if reverse:
        outs = outs[::-1]
    if concat == "cols":  # side by side, then reshaped to D x N
        stacked = np.hstack(outs).reshape(sum(o.shape[0] for o in outs), X.shape[1])
    else:
        stacked = np.vstack(outs)
    if mix == "none":
        return stacked
    if mix == "per head":  # each head mixed by its own diagonal block of omega_c
        ends = np.cumsum([o.shape[0] for o in outs])
        return np.vstack([omega_c[e - o.shape[0]:e, e - o.shape[0]:e] @ o
                          for o, e in zip(outs, ends, strict=True)])
    return omega_c @ stacked


def _two_heads(a: Args) -> list[Args]:
    return [{k: a[f"{k}{h}"] for k in ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k",
                                        "beta_v")} for h in (1, 2)]


def _mh(a: Args, **kw: Any) -> np.ndarray:
    return multihead_variant(a["X"], _two_heads(a), a["omega_c"], **kw)


def _mh_general(a: Args, **kw: Any) -> np.ndarray:
    return multihead_variant(a["X"], a["heads"], a["omega_c"], **kw)


def layer_variant(a: Args, *, scale: str = "sqrt_Dq", axis: int = -1, order: str = "QKt",
                  output: bool = True, values: str = "V", stable: bool = True,
                  after: bool = False, transposed: bool = False,
                  swap: Swap | None = None) -> np.ndarray:
    """The exam's layer (tokens in rows) with one thing done wrong."""
    x = a["x"]
    matrix = {"q": "q", "k": "k", "v": "v"}
    if swap:
        matrix[swap[0]] = swap[1]

    def project(role: str) -> np.ndarray:
        W = a[f"W_{matrix[role]}"]
        return x @ (W.T if transposed else W)

    Q, K, V = project("q"), project("k"), project("v")
    S = Q @ K.T if order == "QKt" else K @ Q.T
    divisor = _divisor(scale, D=a["W_q"].shape[0], Dq=a["W_q"].shape[0], N=x.shape[0])
    soft = ref.softmax if stable else naive_softmax
    A = soft(S, axis=axis) / divisor if after else soft(S / divisor, axis=axis)
    out = A @ (x if values == "x" else V)
    if not output:
        return out
    return out @ (a["W_o"].T if transposed else a["W_o"])


def query_variant(a: Args, *, scale: str = "sqrt_Dq", values: str = "V", stable: bool = True,
                  swap: Swap | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One query against all tokens (rows) with one thing done wrong: (weights, output)."""
    tokens = a["tokens"]
    W = {"q": a["W_Q"], "k": a["W_K"], "v": a["W_V"]}
    matrix = {"q": "q", "k": "k", "v": "v"}
    if swap:
        matrix[swap[0]] = swap[1]
    q = a["query_token"] @ W[matrix["q"]]
    K, V = tokens @ W[matrix["k"]], tokens @ W[matrix["v"]]
    divisor = _divisor(scale, D=tokens.shape[1], Dq=K.shape[1], N=tokens.shape[0])
    weights = (ref.softmax if stable else naive_softmax)(K @ q / divisor)
    return weights, weights @ (tokens if values == "tokens" else V)


def equivariance_variant(a: Args) -> bool:
    """Permutes only the input: compares f(X[:, perm]) with f(X)."""
    f, X, perm = equivariance_function(a), a["X"], list(a["perm"])
    return bool(np.allclose(f(X[:, perm]), f(X)))


def masked_softmax_variant(S: np.ndarray, mask: np.ndarray, *, fill: str = "-inf",
                           empty: str = "zero", after: bool = False, axis: int = 0,
                           stable: bool = True, invert: bool = False) -> np.ndarray:
    """The masked column softmax with one thing done wrong.

    ``fill`` is what the masked scores are replaced by; ``empty="raw"`` keeps whatever a
    fully masked column gives (nan for -inf, uniform weights for -1e9) instead of zeros.
    """
    S, mask = np.asarray(S, dtype=float), np.asarray(mask, dtype=bool)
    if invert:
        mask = ~mask
    if after:  # the softmax of every score, then the masked weights set to 0
        return np.where(mask, ref.softmax(S, axis=axis), 0.0)
    Z = np.where(mask, S, {"-inf": -np.inf, "zero": 0.0, "-1e9": -1e9}[fill])
    e = np.exp(Z - Z.max(axis=axis, keepdims=True)) if stable else np.exp(Z)
    W = e / e.sum(axis=axis, keepdims=True)
    if empty == "raw":
        return W
    return np.where(mask.any(axis=axis, keepdims=True), W, 0.0)


_MASKS = {"causal": lambda N: np.triu(np.ones((N, N), dtype=bool)),
          "transposed": lambda N: np.tril(np.ones((N, N), dtype=bool)),
          "strict": lambda N: np.triu(np.ones((N, N), dtype=bool), k=1),
          "none": lambda N: np.ones((N, N), dtype=bool)}


def masked_attention_variant(a: Args, *, mask: str = "causal", fill: str = "-inf",
                             empty: str = "zero", after: bool = False, scale: str = "sqrt_Dq",
                             axis: int = 0, order: str = "KtQ", biases: str = "qkv",
                             values: str = "V", stable: bool = True, swap: Swap | None = None
                             ) -> tuple[np.ndarray, np.ndarray]:
    """Causal UDL attention (tokens in columns) with one thing done wrong; returns (X', A)."""
    X = a["X"]
    matrix, bias = {"q": "q", "k": "k", "v": "v"}, {"q": "q", "k": "k", "v": "v"}
    if swap:
        role, source, with_bias = swap
        matrix[role] = source
        if with_bias:
            bias[role] = source

    def project(role: str) -> np.ndarray:
        b = a[f"beta_{bias[role]}"] if role in biases else 0.0
        return b + a[f"omega_{matrix[role]}"] @ X

    Q, K, V = project("q"), project("k"), project("v")
    S = (K.T @ Q if order == "KtQ" else Q.T @ K) / _divisor(
        scale, D=X.shape[0], Dq=Q.shape[0], N=X.shape[1])
    A = masked_softmax_variant(S, _MASKS[mask](X.shape[1]), fill=fill, empty=empty, after=after,
                               axis=axis, stable=stable)
    return (X if values == "X" else V) @ A, A


def positional_variant(a: Args, *, base: float = 10000.0, swap: bool = False,
                       exponent: str = "pair", start: int = 0, layout: str = "interleaved",
                       rows: bool = False, multiply: bool = False) -> np.ndarray:
    """Vaswani et al.'s sinusoidal encoding (D x N) with one thing done wrong."""
    D, N = int(a["D"]), int(a["N"])
    n = np.arange(start, start + N)[None, :]
    k = np.arange(D)[:, None]  # row index
    power = (k // 2) * 2 / D if exponent == "pair" else k / D
    wavelength = base ** power
    angle = n * wavelength if multiply else n / wavelength
    use_sin = (k % 2 == 0) if layout == "interleaved" else (k < D // 2)
    if layout == "halves":  # rows i and D/2 + i share frequency i
        angle = n / base ** ((k % (D // 2)) * 2 / D)
    if swap:
        use_sin = ~use_sin
    Pi = np.where(use_sin, np.sin(angle), np.cos(angle))
    return Pi.T if rows else Pi


def gaps_variant(a: Args, *, compare: str = "both", positions: str = "fixed") -> np.ndarray:
    """The three equivariance gaps (plain, causal, positional) measured wrongly."""
    X, perm = a["X"], list(a["perm"])
    Pi = positional_variant({"D": X.shape[0], "N": X.shape[1]})

    def plain(Z: np.ndarray) -> np.ndarray:
        return ref.self_attention(Z, *(a[k] for k in _UDL_ORDER), scaled=True)[0]

    def causal(Z: np.ndarray) -> np.ndarray:
        return ref.masked_self_attention(Z, *(a[k] for k in _UDL_ORDER))[0]

    inverse = list(np.argsort(perm))
    gaps = []
    for f, shift in ((plain, 0.0), (causal, 0.0), (plain, Pi)):
        moved = shift[:, perm] if positions == "moved" and np.ndim(shift) else shift
        left = f(X[:, perm] + moved)
        right = f(X + shift)
        right = {"both": right[:, perm], "input only": right, "inverse": right[:, inverse]}[
            compare]
        gaps.append(np.abs(left - right).max())
    return np.array(gaps)


_UDL_ORDER = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


# ------------------------------------------------------------------ hints

_ROLE = {"q": "queries", "k": "keys", "v": "values"}


def _swaps(variant: Callable[..., Any], omega: str, beta: str | None, equation: str,
           letters: str = "qkv") -> list[Wrong]:
    """One projection computed with another projection's matrix (a copied line).

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
                out.append(Wrong("wrong weight matrix",
                                 partial(variant, swap=(role, source, with_bias)), hint))
    return out


_OVERFLOW = ("on {case} the scores reach {smax}: np.exp overflows to inf and inf / inf gives "
             "nan. Use a softmax that subtracts the maximum first (softmax(z) = "
             "softmax(z - max z), so nothing else changes): you keep half the points")

_SCALE_UDL = {
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
    "two": "you divided by 2 = sqrt(4), the notebook's value, for every input; for "
           "'{case}', D_q = {Dq}, so divide by sqrt({Dq}) = {sqrt_Dq}: compute it from the "
           "arguments (np.sqrt(Q.shape[0]))",
}
_SCALE_NAMES = {"none": "no scaling", "sqrt_D": "scale sqrt(D)", "D": "scale D",
                "Dq": "no square root", "sqrt_N": "scale sqrt(N)", "two": "scale fixed at 2"}

_SCALE_HEADS = {
    "none": _SCALE_UDL["none"],
    "sqrt_D": "your result matches attention divided by sqrt(D) = sqrt({D}) = {sqrt_D}; in "
              "multihead attention each head's queries have D_q = D/H = {D}/{H} = {Dq} "
              "entries, so divide by sqrt({Dq}) = {sqrt_Dq} (use Q.shape[0])",
    "D": "your result matches attention divided by D = {D}; each head divides by the square "
         "root of its own query size, sqrt(D/H) = sqrt({Dq}) = {sqrt_Dq}",
    "Dq": "your result matches attention divided by D/H = {Dq}; divide by its square root, "
          "sqrt({Dq}) = {sqrt_Dq} (eq. 12.9)",
}

_SCALE_HEAD = {
    **_SCALE_HEADS,
    "sqrt_D": "your result matches a head scaled by sqrt(D) = sqrt({D}) = {sqrt_D}, the input "
              "size; this head's queries have D_q = {Dq} rows (D/H, not D), so divide by "
              "sqrt({Dq}) = {sqrt_Dq}: use Q.shape[0]",
}

_AFTER_UDL = ("you divided after the softmax, so each column of weights sums to 1/sqrt(D_q) = "
              "{inv_sqrt_Dq} instead of 1; divide the scores K^T Q by sqrt(D_q) = {sqrt_Dq} "
              "before the softmax (eq. 12.9)")


def _udl_common(variant: Callable[..., Any]) -> list[Wrong]:
    """Mistakes any UDL attention function can make (tokens in columns)."""
    return [
        Wrong("softmax over rows", lambda a: variant(a, axis=1),
              "each row of your N x N attention matrix sums to 1, but with tokens in columns "
              "column n holds the weights of output n and must sum to 1: apply the softmax "
              "down the columns (axis 0), as softmax_cols does"),
        Wrong("keys and queries swapped", lambda a: variant(a, order="QtK"),
              "you compared queries and keys the wrong way round: you computed Q^T K, whose "
              "entry (m, n) is q_m . k_n, instead of K^T Q (eq. 12.8), whose entry (m, n) is "
              "k_m . q_n: the weights of output n come from output n's query against every "
              "input's key"),
        Wrong("biases forgotten", lambda a: variant(a, biases=""),
              "your result matches attention without the biases: the queries, keys and values "
              "are beta_q + Omega_q X, beta_k + Omega_k X and beta_v + Omega_v X (eq. 12.6); "
              "numpy adds the bias column to every column of Omega X"),
        Wrong("value bias forgotten", lambda a: variant(a, biases="qk"),
              "your result matches attention without beta_v: the values are "
              "V = beta_v + Omega_v X (eq. 12.6)"),
        Wrong("weighted sum of inputs", lambda a: variant(a, values="X"),
              "your outputs are weighted sums of the inputs X; they must be weighted sums of "
              "the values V = beta_v + Omega_v X (X' = V A, eqs. 12.7-12.8)"),
        Wrong("unstable softmax", lambda a: variant(a, stable=False), _OVERFLOW, credit=0.5),
        *_swaps(variant, "omega_{}", "beta_{}", "eq. 12.6"),
    ]


def _scales(variant: Callable[..., Any], hints: dict[str, str]) -> list[Wrong]:
    """The wrong scale factors, one ``Wrong`` per entry of ``hints``."""
    return [Wrong(_SCALE_NAMES[scale], partial(variant, scale=scale), hint)
            for scale, hint in hints.items()]


def _first(fn: Callable[..., tuple]) -> Callable[..., Any]:
    return lambda a, **kw: fn(a, **kw)[0]


def _scaled(variant: Callable[..., Any], scale: str) -> Callable[..., Any]:
    return lambda a, **kw: variant(a, scale=scale, **kw)


# ------------------------------------------------------------------ ps3, ps4 hints

_SCALE_LAYER = {
    "none": "the scores are not scaled: divide Q K^T by sqrt(dims) = sqrt({dims}) = "
            "{sqrt_dims} before the softmax (pseudocode step 3)",
    "Dq": "you divided Q K^T by dims = {dims}; divide by its square root, sqrt({dims}) = "
          "{sqrt_dims}",
    "sqrt_N": "you divided by sqrt(n) = sqrt({n}) = {sqrt_n}, the number of tokens (x.shape[0]); "
              "divide by sqrt(dims) = sqrt({dims}) = {sqrt_dims}, the size of one query",
    "two": "you divided by 2 = sqrt(4), the notebook's dims, for every layer; for "
           "'{case}', dims = {dims}, so divide by sqrt({dims}) = {sqrt_dims} (use self.dims)",
}

_SCALE_QUERY = {
    "none": "the scores are not scaled: divide them by sqrt(d_k) = sqrt({d_k}) = {sqrt_d_k}, "
            "the size of one key (eq. 6)",
    "sqrt_D": "on {case}, you divided by sqrt(d) = sqrt({d}) = {sqrt_d}, the size of a token; "
              "divide by sqrt(d_k) = sqrt({d_k}) = {sqrt_d_k}, the size of one key "
              "(W_K.shape[1])",
    "Dq": "you divided the scores by d_k = {d_k}; divide by its square root, sqrt({d_k}) = "
          "{sqrt_d_k}",
}

_CONTEXT_BUG = (
    "your result matches sum(attention_weights * hidden_encoder_matrix), the worksheet's "
    "code: numpy broadcasts the T weights along the feature axis, so weight j scales column j "
    "(this only runs when T = d), then the rows are added. The context vector is the weighted "
    "sum over tokens, sum_j alpha_j h_j: attention_weights @ hidden_encoder_matrix, or "
    "(attention_weights[:, None] * hidden_encoder_matrix).sum(axis=0)")


def _split_reshape(a: Args) -> list[np.ndarray]:
    W, n = a["W"], a["n"]
    return list(W.reshape(n, W.shape[0], -1))


def _dims(answers: dict[str, tuple]) -> Callable[[Args], Any]:
    return lambda a: answers.get(a["name"])


def _weights(got: Any) -> np.ndarray:
    """W_q, W_k, W_v, W_o (the probe reports them first, then dims) as one flat array."""
    return np.concatenate([np.ravel(np.asarray(w, dtype=float)) for w in got[:4]])


def _identical(got: Any, a: Args) -> bool:
    return any(np.shape(got[i]) == np.shape(got[j]) and np.allclose(got[i], got[j])
               for i in range(4) for j in range(i + 1, 4))


# ------------------------------------------------------------------ ps5 hints

_AFTER_MASK = ("you applied the mask after the softmax: the softmax already gave weight to the "
               "masked entries, so once they are set to 0 each column sums to less than 1. "
               "Mask the scores before the softmax: put -inf where the mask is False, so "
               "exp(-inf) = 0 and the allowed weights alone sum to 1")
_ZERO_MASK = ("you replaced the masked scores by 0, but a score of 0 still gets weight "
              "exp(0) = 1 before normalising, so masked entries keep a share. Replace them by "
              "-inf (np.where(mask, scores, -np.inf)): exp(-inf) = 0")
_NAN_EMPTY = ("on {case}, column {empty} has no allowed entry: every score is -inf, its "
              "maximum is -inf and -inf - (-inf) = nan, so the whole column is nan (and nan "
              "spreads into everything computed from it). Give a fully masked column zero "
              "weights, e.g. np.where(mask.any(axis=0), weights, 0): you keep half the points")
_UNIFORM_EMPTY = ("on {case}, column {empty} has no allowed entry, and your weights there are "
                  "uniform: filling with a large negative number (-1e9) instead of -inf makes "
                  "every entry of that column equal, so it averages tokens it must not see. "
                  "A fully masked column gets zero weights: you keep half the points")
_MASK_T = ("your mask lets output n see the later inputs m > n and hides the earlier ones: "
           "it is transposed (np.tril instead of np.triu). With tokens in columns, entry (m, n) "
           "of K^T Q is k_m . q_n, input m against output n, so the allowed entries m <= n are "
           "on and above the diagonal: np.triu")
_STRICT = ("your mask also hides the diagonal (m < n instead of m <= n), so output n cannot "
           "see its own token and output 0 sees nothing at all. Each output attends to itself "
           "and the earlier tokens: np.triu(np.ones((N, N), dtype=bool)) keeps the diagonal "
           "(k=0)")
_PE_FACTS = "(first seen on '{case}')"


# ------------------------------------------------------------------ the catalogue

_sa = _first(attention_variant)

WRONG: dict[str, list[Wrong]] = {
    # ------------------------------------------------------------ ps1
    "ps1_softmax": [
        Wrong("no max subtraction", lambda a: naive_softmax(a["items_in"]),
              "on {case} the largest score is {zmax}: np.exp overflows to inf and inf / inf "
              "gives nan. Subtract the largest score before np.exp (softmax(z) = "
              "softmax(z - max z), so nothing else changes): you keep half the points",
              credit=0.5),
    ],
    "ps1_self_attention_loop": [
        Wrong("scaled", lambda a: loop_variant(a, scale="sqrt_Dq"),
              "this part is the unscaled attention of eqs. 12.2-12.5: do not divide the dot "
              "products by sqrt(D_q) = sqrt({Dq}) = {sqrt_Dq}"),
        *_udl_common(loop_variant),
    ],
    "ps1_softmax_cols": [
        Wrong("softmax over rows", lambda a: ref.softmax(a["data_in"], axis=1),
              "each row of your result sums to 1; softmax_cols must make each column sum to 1: "
              "take the max, the exp and the sum along axis 0 (with keepdims=True)"),
        Wrong("softmax over all entries", lambda a: global_softmax(a["data_in"]),
              "your whole matrix sums to 1: you divided by the sum of all its entries. Divide "
              "each column by its own sum: np.sum(..., axis=0, keepdims=True)"),
        Wrong("no max subtraction", lambda a: naive_softmax(a["data_in"], axis=0),
              "on {case} the largest entry is {zmax}: np.exp overflows to inf and inf / inf "
              "gives nan. Subtract each column's maximum first (it changes nothing else): "
              "you keep half the points", credit=0.5),
    ],
    "ps1_self_attention": [
        Wrong("scaled", lambda a: attention_variant(a, scale="sqrt_Dq"),
              "this part is the unscaled attention of eq. 12.8: do not divide K^T Q by "
              "sqrt(D_q) = sqrt({Dq}) = {sqrt_Dq} yet (that is the next part)"),
        *_udl_common(attention_variant),
    ],
    "ps1_scaled_attention": [
        *_scales(attention_variant, _SCALE_UDL),
        Wrong("scaled after softmax",
              lambda a: attention_variant(a, scale="sqrt_Dq", after=True), _AFTER_UDL),
        *_udl_common(_scaled(attention_variant, "sqrt_Dq")),
    ],
    "ps1_equivariance": [
        Wrong("one side not permuted", equivariance_variant,
              "you compared f(X[:, perm]) with f(X) (or f(X) with f(X)[:, perm]): only one "
              "side was permuted. Equivariance means f(X[:, perm]) equals f(X)[:, perm]: "
              "permute the input on one side and the output on the other"),
    ],
    # ------------------------------------------------------------ ps2
    "ps2_single_head": [
        *_scales(_sa, _SCALE_HEAD),
        Wrong("returned the attention too",
              lambda a: list(attention_variant(a, scale="sqrt_Dq")),
              "you returned (X', attentions) as in problem set 1; single_head_attention returns "
              "only the head's output, a D/H x N = {Dq} x {N} matrix"),
        *_udl_common(_scaled(_sa, "sqrt_Dq")),
    ],
    "ps2_multihead_scaled": [
        *_scales(_mh, _SCALE_HEADS),
        Wrong("heads reversed", lambda a: _mh(a, reverse=True),
              "the heads are stacked in reverse order: head 1's output goes on top, "
              "np.vstack([head1, head2]) (eq. 12.11)"),
        Wrong("output projection omitted", lambda a: _mh(a, mix="none"),
              "your result is the {H} heads stacked into a {D} x {N} matrix but not mixed: "
              "multiply the stack by omega_c, X' = omega_c [Sa_1; Sa_2] (eq. 12.11)"),
        Wrong("output projection per head", lambda a: _mh(a, mix="per head"),
              "you mixed each head with its own diagonal block of omega_c; omega_c "
              "({D} x {D}) mixes all the heads at once: omega_c @ np.vstack([head1, head2])"),
        Wrong("heads joined along columns", lambda a: _mh(a, concat="cols"),
              "you joined the heads side by side (np.hstack, axis=1) and reshaped to {D} x {N}: "
              "the reshape scrambles the tokens. Stack them vertically, np.vstack([head1, "
              "head2]), so each column stays one token (eq. 12.11)"),
        Wrong("unstable softmax", lambda a: _mh(a, stable=False), _OVERFLOW, credit=0.5),
    ],
    "ps2_multihead_general": [
        *_scales(_mh_general, _SCALE_HEADS),
        Wrong("heads reversed", lambda a: _mh_general(a, reverse=True),
              "the heads are stacked in reverse order: stack head 1, head 2, ..., head H from "
              "the top, in the order of the list `heads` (eq. 12.11)"),
        Wrong("output projection omitted", lambda a: _mh_general(a, mix="none"),
              "your result is the {H} heads stacked into a {D} x {N} matrix but not mixed: "
              "multiply the stack by omega_c (eq. 12.11)"),
        Wrong("output projection per head", lambda a: _mh_general(a, mix="per head"),
              "you mixed each head with its own diagonal block of omega_c; omega_c "
              "({D} x {D}) mixes all the heads at once: omega_c @ np.vstack(outputs)"),
        Wrong("heads joined along columns", lambda a: _mh_general(a, concat="cols"),
              "you joined the heads side by side (axis=1) and reshaped to {D} x {N}: the "
              "reshape scrambles the tokens. Stack them vertically with np.vstack (eq. 12.11)"),
        Wrong("unstable softmax", lambda a: _mh_general(a, stable=False), _OVERFLOW,
              credit=0.5),
    ],
    # ------------------------------------------------------------ ps3
    "ps3_softmax": [
        Wrong("softmax over columns", lambda a: ref.softmax(a["X"], axis=0),
              "each column of your result sums to 1; here each row is one set of scores and "
              "must sum to 1: take the max, the exp and the sum along axis=-1 with "
              "keepdims=True"),
        Wrong("softmax over all entries", lambda a: global_softmax(a["X"]),
              "your whole matrix sums to 1: you divided by the sum of all its entries. Divide "
              "each row by its own sum: np.sum(..., axis=-1, keepdims=True)"),
        Wrong("no max subtraction", lambda a: naive_softmax(a["X"], axis=-1),
              "on {case} the largest score is {zmax}: np.exp overflows to inf and inf / inf "
              "gives nan. Subtract each row's maximum first (it changes nothing else): you "
              "keep half the points", credit=0.5),
    ],
    "ps3_init": [
        Wrong("identical weights", None,
              "Create each of W_q, W_k, W_v, W_o with its own call to np.random.normal: "
              "`a = b = ...` or reusing one matrix makes the projections the same",
              test=_identical),
        Wrong("init std 0.1", None,
              "This is the exam's sample answer, np.random.randn(dims, dims) * 0.1; the "
              "pseudocode asks for N(0, 1): np.random.randn(dims, dims) or "
              "np.random.normal(0, 1, (dims, dims)), without the factor 0.1",
              test=lambda got, a: 0.07 < _weights(got).std() < 0.13
              and abs(_weights(got).mean()) < 0.05),
        Wrong("uniform init", None,
              "You used np.random.rand, which draws uniformly from [0, 1) (mean 0.5, "
              "standard deviation 0.29); N(0, 1) is np.random.randn (with an n) or "
              "np.random.normal",
              test=lambda got, a: _weights(got).min() >= 0 and _weights(got).max() < 1
              and 0.4 < _weights(got).mean() < 0.6),
    ],
    "ps3_forward": [
        *_scales(layer_variant, _SCALE_LAYER),
        Wrong("scaled after softmax", lambda a: layer_variant(a, after=True),
              "you divided after the softmax, so each row of weights sums to 1/sqrt(dims) = "
              "{inv_sqrt_dims} instead of 1; divide the scores Q K^T by sqrt(dims) = "
              "{sqrt_dims} before the softmax"),
        Wrong("softmax over columns", lambda a: layer_variant(a, axis=0),
              "each column of your n x n attention matrix sums to 1; with tokens in rows, row "
              "i holds the weights of output i and must sum to 1: softmax along axis=-1"),
        Wrong("keys and queries swapped", lambda a: layer_variant(a, order="KQt"),
              "you computed K Q^T, the transpose of the scores: with tokens in rows the "
              "scores are Q K^T (entry (i, j) = query i . key j), so row i, which is "
              "softmaxed, holds the weights of output i"),
        Wrong("output projection omitted", lambda a: layer_variant(a, output=False),
              "the result is not multiplied by W_o: the layer returns "
              "softmax(Q K^T / sqrt(dims)) V W_o (pseudocode step 5)"),
        Wrong("weighted sum of inputs", lambda a: layer_variant(a, values="x"),
              "your outputs are weighted sums of the tokens x; they must be weighted sums of "
              "the values V = x @ W_v"),
        Wrong("weights transposed", lambda a: layer_variant(a, transposed=True),
              "you multiplied by the transposed weights (x @ W.T, as in torch's Linear); with "
              "tokens in rows the pseudocode computes Q = x @ W_q, K = x @ W_k, V = x @ W_v "
              "and ends with @ W_o"),
        Wrong("unstable softmax", lambda a: layer_variant(a, stable=False), _OVERFLOW,
              credit=0.5),
        *_swaps(layer_variant, "W_{}", None, "pseudocode step 2"),
    ],
    # ------------------------------------------------------------ ps4
    "ps4_get_scores": [
        Wrong("elementwise product", lambda a: a["matrix"] * a["vector"],
              "you multiplied element by element (matrix * vector gives a {T} x {d} matrix); "
              "score j is the dot product of row j with the vector: matrix @ vector gives "
              "{T} scores"),
        Wrong("matrix transposed", lambda a: a["vector"] @ a["matrix"],
              "you computed vector @ matrix, which combines the columns of the matrix (and "
              "only runs when it is square); score j is row j . vector: matrix @ vector"),
    ],
    "ps4_scale_scores": [
        Wrong("no square root", lambda a: np.asarray(a["scores"]) / a["n"],
              "you divided by n = {n}; divide by its square root, sqrt({n}) = {sqrt_n} "
              "(eq. 2)"),
        Wrong("scale fixed at 2", lambda a: np.asarray(a["scores"]) / 2,
              "you divided by 2 = sqrt(4), the notebook's n, for every input; for '{case}', "
              "n = {n}, so divide by sqrt({n}) = {sqrt_n}: use np.sqrt(n)"),
    ],
    "ps4_attention_weights": [
        Wrong("no max subtraction", lambda a: naive_softmax(a["scores"]),
              "on {case} the largest score is {zmax}: np.exp overflows to inf and inf / inf "
              "gives nan. Subtract the largest score before np.exp (it changes nothing "
              "else): you keep half the points", credit=0.5),
    ],
    "ps4_context_vector": [
        Wrong("broadcast instead of weighted sum",
              lambda a: sum(a["attention_weights"] * a["hidden_encoder_matrix"]), _CONTEXT_BUG),
        Wrong("summed to a number",
              lambda a: np.sum(a["attention_weights"][:, None] * a["hidden_encoder_matrix"]),
              "you added up everything and got one number; sum the weighted states over the "
              "tokens only (axis=0) to get a vector of size d = {d}"),
        Wrong("rows weighted, not summed",
              lambda a: a["attention_weights"][:, None] * a["hidden_encoder_matrix"],
              "you weighted each state but did not add them up: sum the {T} weighted rows "
              "(axis=0) to get one vector of size d = {d}"),
    ],
    "ps4_single_query": [
        *_scales(query_variant, _SCALE_QUERY),
        Wrong("weighted sum of inputs", lambda a: query_variant(a, values="tokens"),
              "your output is a weighted sum of the tokens; it must be a weighted sum of the "
              "values V = tokens @ W_V (eq. 6)"),
        Wrong("unstable softmax", lambda a: query_variant(a, stable=False), _OVERFLOW,
              credit=0.5),
        *_swaps(query_variant, "W_{}", None, "eq. 5", letters="QKV"),
    ],
    "ps4_split_heads": [
        Wrong("reshape without transpose", _split_reshape,
              "W.reshape(n, rows, -1) does not cut W into column blocks: reshape reads the "
              "entries row by row. For '{case}', head i takes the {block} consecutive "
              "columns i*{block} to (i+1)*{block}: W[:, i*k:(i+1)*k] with k = {cols}/{n}, or "
              "np.split(W, n, axis=1)"),
        Wrong("split along rows", lambda a: np.split(a["W"], a["n"]),
              "np.split(W, n) cuts along the rows (axis 0) by default; the heads take blocks "
              "of columns: np.split(W, n, axis=1)"),
        Wrong("strided columns", lambda a: [a["W"][:, i::a["n"]] for i in range(a["n"])],
              "W[:, i::n] takes every n-th column; head i takes {block} consecutive columns, "
              "W[:, i*{block}:(i+1)*{block}] (for '{case}')"),
    ],
    "ps4_dimensions": [
        Wrong("head weights = full matrix", _dims({"head_W_shape": (4, 4)}),
              "head_W_shape: (4, 4) is the full W^Q before the split; each head's W^Q_i maps "
              "a token (d_model = 4) to that head's query of size d_k = d_model / h = 2"),
        Wrong("head weights = head output", _dims({"head_W_shape": (3, 2)}),
              "head_W_shape: (3, 2) is the shape of one head's output (T x d_k), not of its "
              "weight matrix, which maps d_model = 4 features to d_k = 2"),
        Wrong("head weights transposed", _dims({"head_W_shape": (2, 4)}),
              "head_W_shape: (2, 4) is transposed; tokens are rows, so X W^Q_i needs "
              "d_model = 4 rows and d_k = 2 columns"),
        Wrong("concatenated weights", _dims({"concat_shape": (4, 4)}),
              "concat_shape: (4, 4) is the weight blocks side by side; Concat joins the heads' "
              "outputs, each T x d_v = 3 x 2"),
        Wrong("heads stacked vertically", _dims({"concat_shape": (6, 2)}),
              "concat_shape: (6, 2) stacks the heads on top of each other; Concat puts them "
              "side by side, so each token's row gets h * d_v = 4 entries"),
        Wrong("W^O = output shape", _dims({"W_O_shape": (3, 4)}),
              "W_O_shape: (3, 4) is the shape of the layer's output (T x d_model); W^O maps "
              "the h * d_v = 4 concatenated features to d_model = 4"),
    ],
    # ------------------------------------------------------------ ps5
    "ps5_causal_mask": [
        Wrong("mask transposed", lambda a: _MASKS["transposed"](a["N"]), _MASK_T),
        Wrong("diagonal masked", lambda a: _MASKS["strict"](a["N"]), _STRICT),
    ],
    "ps5_masked_softmax": [
        Wrong("mask after the softmax",
              lambda a: masked_softmax_variant(a["scores"], a["mask"], after=True), _AFTER_MASK),
        Wrong("masked with 0 instead of -inf",
              lambda a: masked_softmax_variant(a["scores"], a["mask"], fill="zero", empty="raw"),
              _ZERO_MASK),
        Wrong("nan on a fully masked column",
              lambda a: masked_softmax_variant(a["scores"], a["mask"], empty="raw"), _NAN_EMPTY,
              credit=0.5),
        Wrong("uniform weights on a fully masked column",
              lambda a: masked_softmax_variant(a["scores"], a["mask"], fill="-1e9", empty="raw"),
              _UNIFORM_EMPTY, credit=0.5),
        Wrong("mask inverted",
              lambda a: masked_softmax_variant(a["scores"], a["mask"], invert=True),
              "your weights sit where the mask is False: True means 'may attend' (keep the "
              "score), False means 'masked' (score -inf). Use np.where(mask, scores, -np.inf), "
              "not np.where(mask, -np.inf, scores)"),
        Wrong("softmax over rows",
              lambda a: masked_softmax_variant(a["scores"], a["mask"], axis=1),
              "each row of your weights sums to 1; with tokens in columns each column holds "
              "the weights of one output and must sum to 1 (over its allowed entries): take "
              "the max, the exp and the sum along axis 0"),
        Wrong("no max subtraction",
              lambda a: masked_softmax_variant(a["scores"], a["mask"], stable=False),
              "on {case} the largest score is {zmax}: np.exp overflows to inf and inf / inf "
              "gives nan. Subtract each column's largest allowed score first (it changes "
              "nothing else): you keep half the points", credit=0.5),
    ],
    "ps5_masked_attention": [
        Wrong("mask after the softmax", lambda a: masked_attention_variant(a, after=True),
              _AFTER_MASK),
        Wrong("masked with 0 instead of -inf",
              lambda a: masked_attention_variant(a, fill="zero", empty="raw"), _ZERO_MASK),
        Wrong("mask transposed", lambda a: masked_attention_variant(a, mask="transposed"),
              _MASK_T),
        Wrong("diagonal masked",
              lambda a: masked_attention_variant(a, mask="strict", empty="raw"), _STRICT),
        Wrong("diagonal masked", lambda a: masked_attention_variant(a, mask="strict"), _STRICT),
        Wrong("no mask", lambda a: masked_attention_variant(a, mask="none"),
              "your result is plain scaled attention: every output sees every token, the later "
              "ones too. Output n may only attend to inputs m <= n: set the scores of the "
              "entries m > n to -inf before the softmax (masked_softmax_cols with "
              "causal_mask(N))"),
        Wrong("no scaling", lambda a: masked_attention_variant(a, scale="none"),
              _SCALE_UDL["none"]),
        *_udl_common(masked_attention_variant),
    ],
    "ps5_positional_encoding": [
        Wrong("sin and cos swapped", lambda a: positional_variant(a, swap=True),
              "your even rows hold cosines and your odd rows sines; Vaswani et al. put "
              "sin(n / 10000^(2i/D)) in row 2i and cos(n / 10000^(2i/D)) in row 2i + 1 "
              + _PE_FACTS),
        *(Wrong("wrong frequency base", partial(positional_variant, base=base),
                f"your frequencies use the base {base:g} instead of 10000: the angle of rows "
                "2i and 2i + 1 is n / 10000^(2i/D), so the wavelengths grow geometrically "
                "from 2 pi (rows 0 and 1) towards 10000 x 2 pi " + _PE_FACTS)
          for base in (1000.0, 100.0)),
        Wrong("row index as exponent", lambda a: positional_variant(a, exponent="row"),
              "your cosine rows use their own index in the exponent, 10000^((2i+1)/D); each "
              "pair of rows 2i and 2i + 1 shares one frequency, 1 / 10000^(2i/D) (the i in "
              "the formula counts pairs, not rows) " + _PE_FACTS),
        Wrong("positions from 1", lambda a: positional_variant(a, start=1),
              "your positions start at 1; the first token is position 0, so column 0 is "
              "sin(0) = 0 and cos(0) = 1 alternating: use np.arange(N) " + _PE_FACTS),
        Wrong("sin and cos in halves", lambda a: positional_variant(a, layout="halves"),
              "your sines fill the top half of the rows and your cosines the bottom half "
              "(the tensor2tensor layout); Vaswani et al. interleave them: row 2i is "
              "sin(n / 10000^(2i/D)) and row 2i + 1 is cos of the same angle (Pi[0::2] and "
              "Pi[1::2]) " + _PE_FACTS),
        Wrong("multiplied by the wavelength", lambda a: positional_variant(a, multiply=True),
              "you multiplied the position by 10000^(2i/D); the angle is the position divided "
              "by it, n / 10000^(2i/D), so higher rows turn more slowly " + _PE_FACTS),
        Wrong("tokens in rows", lambda a: positional_variant(a, rows=True),
              "your encoding is N x D = {N} x {D}, one row per position; in this course tokens "
              "are the columns of X, so Pi is D x N = {D} x {N} with position n in column n "
              "(X + Pi must add up)"),
    ],
    "ps5_equivariance": [
        Wrong("one side not permuted", partial(gaps_variant, compare="input only"),
              "you compared f(X[:, perm]) with f(X): only one side was permuted, so even "
              "plain attention shows a gap. Equivariance compares f(X[:, perm]) with "
              "f(X)[:, perm]"),
        Wrong("inverse permutation", partial(gaps_variant, compare="inverse"),
              "you permuted the output with the inverse permutation (np.argsort(perm)); "
              "f(X[:, perm]) must be compared with f(X)[:, perm], the same perm on both sides, "
              "and then plain attention's gap is 0"),
        Wrong("encoding permuted with the tokens", partial(gaps_variant, positions="moved"),
              "your positional gap is 0 because you permuted X + Pi as a whole, so each token "
              "took its encoding along. The encoding belongs to the positions: permute X only, "
              "f(X) = Sa[X + Pi], and compare f(X[:, perm]) with f(X)[:, perm]"),
    ],
}


def names() -> set[str]:
    """Every misconception the kit can name (variants and generic categories)."""
    return {w.name for wrongs in WRONG.values() for w in wrongs} | set(GENERIC)

"""Kernel side of ps1_self_attention: its checks' inputs and how they call the student's code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from attnkit.kernel.cases import (
    Args,
    Case,
    Probe,
    attention_params,
    by_id,
    far_apart,
    large_attention,
    named,
    seeded_rng,
    spiked,
)


def udl_tokens() -> tuple[list[np.ndarray], Args]:
    """The UDL 12.1 data: N=3 tokens of size D=4 (seed 3), parameters (seed 0)."""
    np.random.seed(3)
    all_x = [np.random.normal(size=(4, 1)) for _ in range(3)]
    np.random.seed(0)
    names = ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")
    shapes = ((4, 4),) * 3 + ((4, 1),) * 3
    params = {n: np.random.normal(size=s) for n, s in zip(names, shapes, strict=True)}
    return all_x, params



def ps1_softmax_cases(seed: int) -> list[Case]:
    """Lists and 1-D arrays, as section 1 allows: an array shows a softmax that shifts it
    in place."""
    rng = seeded_rng(seed, "ps1_softmax")
    return [
        Case("pinned [1, 2, 3]", {"items_in": [1.0, 2.0, 3.0]}, pinned=True),
        Case("7 random scores", {"items_in": rng.normal(0, 3, 7)}),
        Case("a single score", {"items_in": [float(rng.normal())]}),
        Case("logits near 1000", {"items_in": list(1000 + rng.normal(0, 2, 5))}, large=True),
        Case("scores 800 apart", {"items_in": rng.permutation(
            [*rng.normal(0, 2, 4), -800 + rng.normal()])}),
        Case("the lowest first, 800 below", {"items_in": [-800 + float(rng.normal()),
                                                          *rng.normal(0, 2, 4)]}),
        Case("the largest first, one 800 below", {"items_in": [
            5.0 + float(rng.normal()), *rng.normal(0, 2, 3), -800 + float(rng.normal())]}),
        Case("every score near -1000", {"items_in": list(-1000 + rng.normal(0, 2, 5))},
             large=True),
        Case("one score 1500 above the rest", {"items_in": list(
            spiked(seeded_rng(seed, "ps1_softmax_spike"), (1, 5), axis=1)[0])}, large=True),
    ]


def ps1_attention_cases(seed: int, check: str, rect_q: bool = False) -> list[Case]:
    """UDL data, then fresh D x N inputs; ``rect_q`` adds a case with D_q != D."""
    all_x, params = udl_tokens()
    X = np.hstack(all_x)
    cases = [Case("notebook data (D=4, N=3)", {"X": X, **params}, pinned=True)]
    rng = seeded_rng(seed, check)
    for D, N in ((3, 5), (5, 2)):
        cases.append(Case(f"fresh D={D}, N={N}", {"X": rng.normal(size=(D, N)),
                                                   **attention_params(rng, D)}))
    if rect_q:
        cases.append(Case("fresh D=5, N=4, D_q=2", {"X": rng.normal(size=(5, 4)),
                                                     **attention_params(rng, 5, Dq=2)}))
    D, N = 4, 6
    cases.append(Case(f"large logits D={D}, N={N}", large_attention(rng, D, N), large=True))
    return cases


def ps1_loop_cases(seed: int) -> list[Case]:
    out = []
    for case in ps1_attention_cases(seed, "ps1_self_attention_loop"):
        X = case.args["X"]
        args = {k: v for k, v in case.args.items() if k != "X"}
        args["all_x"] = [X[:, [n]] for n in range(X.shape[1])]
        out.append(Case(case.name, args, case.pinned, case.large))
    return out


def ps1_softmax_cols_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "ps1_softmax_cols")
    return [
        Case("pinned 3 x 3", {"data_in": np.array([[1.0, 2, 3], [0, 0, 0], [-1, 4, 1]])},
             pinned=True),
        Case("fresh 4 x 6", {"data_in": rng.normal(0, 2, (4, 6))}),
        Case("fresh 5 x 2", {"data_in": rng.normal(0, 2, (5, 2))}),
        Case("large logits 3 x 4", {"data_in": 800 + rng.normal(0, 5, (3, 4))}, large=True),
        Case("columns 900 apart, 3 x 4", {"data_in": far_apart(rng, (3, 4), axis=0)},
             large=True),
        Case("one score 1500 above the rest of its column, 4 x 3", {"data_in": spiked(
            seeded_rng(seed, "ps1_softmax_cols_spike"), (4, 3), axis=0)}, large=True),
    ]


EQUIVARIANT = ("token-wise map with a pooled context", "column sums on every token")
NOT_EQUIVARIANT = ("token-wise map of X + positions", "reverse tokens", "mix tokens")


def equivariance_cases(seed: int) -> list[Case]:
    """Five maps drawn and ordered by the seed, so the expected answers differ per student.

    The maps are built from data only (tanh, means, fixed matrices): nothing here computes
    softmax or attention, which the kernel may import and students are graded on.
    """
    rng = seeded_rng(seed, "ps1_equivariance")
    D, N = 4, 5
    data = {"A": rng.normal(size=(D, D)), "b": rng.normal(size=(D, 1)),
            "C": rng.normal(size=(D, D)), "P": rng.normal(size=(D, N)),
            "M": rng.normal(size=(N, N))}
    X = rng.normal(size=(D, N))
    kinds = [*EQUIVARIANT, *NOT_EQUIVARIANT]
    chosen = [kinds[i] for i in rng.choice(len(kinds), size=5, replace=False)]
    cases = []
    for kind in chosen:
        perm = list(rng.permutation(N))
        while (perm == sorted(perm) or perm == sorted(perm, reverse=True)
               or (kind == EQUIVARIANT[0] and all(perm[p] == i for i, p in enumerate(perm)))):
            perm = list(rng.permutation(N))  # the token-wise map: a perm its inverse is not
        cases.append(Case(kind, {"kind": kind, "X": X, "perm": perm, **data}))
    swap = list(range(N))  # a perm that undoes itself: its inverse is itself
    i, j = (int(k) for k in rng.choice(N, size=2, replace=False))
    swap[i], swap[j] = j, i
    cases.append(Case(f"{EQUIVARIANT[0]}, tokens {i} and {j} swapped",
                      {"kind": EQUIVARIANT[0], "X": X, "perm": swap, **data}))
    cases.append(rounding_case(seed, data, 1.0, "ps1_equivariance_rounding"))
    cases.append(rounding_case(seed, data, 1e6, "ps1_equivariance_large"))
    cases.append(later_column_case(seed, data))
    cases.append(small_difference_case(seed, data))
    return cases


SLIGHT = "token-wise map of X + tiny positions"  # not equivariant, barely


def small_difference_case(seed: int, data: Args) -> Case:
    """A map that is not equivariant by a small but real amount (its two sides differ by
    about 3e-4 on entries near 1): np.allclose's default tolerance says False, a tolerance
    of 1e-3 says True."""
    rng = seeded_rng(seed, "ps1_equivariance_slight")
    D, N = 4, 5
    X, perm = rng.normal(size=(D, N)), list(rng.permutation(N))
    if perm == sorted(perm):  # the identity moves nothing: roll it instead
        perm = perm[1:] + perm[:1]
    probe = {"kind": SLIGHT, **data, "eps": 1e-4}
    f = equivariance_function(probe)
    gap = float(np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])))
    eps = 1e-4 * 3e-4 / gap  # the map is nearly linear in eps this small
    return Case(f"{SLIGHT}, a difference near 3e-4",
                {"kind": SLIGHT, "X": X, "perm": perm, **data, "eps": eps})


LATER = "last two tokens swapped"  # not equivariant; a case of its own, after the drawn ones


def later_column_case(seed: int, data: Args) -> Case:
    """A map that is not equivariant, with a perm under which the first output column of both
    sides agrees and a later one does not: comparing only the first column says True."""
    rng = seeded_rng(seed, "ps1_equivariance_later")
    D, N = 4, 5
    X = rng.normal(size=(D, N))
    f = equivariance_function({"kind": LATER, **data})
    for _ in range(1000):
        perm = list(rng.permutation(N))
        left, right = f(X[:, perm]), f(X)[:, perm]
        if np.allclose(left[:, 0], right[:, 0]) and not np.allclose(left, right):
            return Case(f"{LATER}, first column unchanged",
                        {"kind": LATER, "X": X, "perm": perm, **data})
    raise ValueError("no perm in 1000 kept the first column and changed a later one")


def rounding_case(seed: int, data: Args, size: float, name: str) -> Case:
    """An equivariant map whose permuted sums round differently, on entries near ``size``:
    exact equality calls it not equivariant, and near 1e6 (one rounding step is 1e-10) a
    fixed absolute tolerance such as 1e-12 does too."""
    rng = seeded_rng(seed, name)
    kind, D, N = EQUIVARIANT[1], 4, 6
    f = equivariance_function({"kind": kind, **data})
    for _ in range(100):
        X, perm = size * rng.normal(size=(D, N)), list(rng.permutation(N))
        if np.any(f(X[:, perm]) != f(X)[:, perm]):
            break
    label = "entries near 1e6" if size > 1 else "sums that round differently"
    return Case(f"{kind}, {label}", {"kind": kind, "X": X, "perm": perm, **data})


def equivariance_function(args: Args) -> Callable[[np.ndarray], np.ndarray]:
    """The D x N -> D x N map a case asks about (only some are equivariant)."""
    A, b, C, P, M = (args[k] for k in ("A", "b", "C", "P", "M"))

    def tokenwise(X: np.ndarray) -> np.ndarray:
        return np.tanh(A @ X + b) + C @ X.mean(axis=1, keepdims=True)

    maps = {
        "token-wise map with a pooled context": tokenwise,
        "column sums on every token": lambda X: np.tile(X.sum(axis=1, keepdims=True),
                                                         (1, X.shape[1])),
        "token-wise map of X + positions": lambda X: tokenwise(X + P[:, : X.shape[1]]),
        SLIGHT: lambda X: tokenwise(X + args.get("eps", 0.0) * P[:, : X.shape[1]]),
        "reverse tokens": lambda X: X[:, ::-1],
        "mix tokens": lambda X: X @ M[: X.shape[1], : X.shape[1]],
        LATER: lambda X: X[:, [*range(X.shape[1] - 2), X.shape[1] - 1, X.shape[1] - 2]],
    }
    return maps[args["kind"]]


def attention_call(targets: tuple, a: Args) -> Any:
    (fn,) = targets
    return fn(a["X"], a["omega_v"], a["omega_q"], a["omega_k"], a["beta_v"], a["beta_q"],
              a["beta_k"])


def _equivariance_call(targets: tuple, a: Args) -> Any:
    return bool(targets[0](equivariance_function(a), a["X"].copy(), list(a["perm"])))



_QKV = ("X", "omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
_PARAMS = {k: k for k in _QKV[1:]}

PROBES = by_id(
    Probe("ps1_softmax", ps1_softmax_cases, lambda t, a: t[0](a["items_in"]),
          pinned={"items_in": "[1.0, 2.0, 3.0]"}),
    Probe("ps1_self_attention_loop", ps1_loop_cases, named("all_x", *_QKV[1:]),
          pinned={"all_x": "all_x", **_PARAMS}),
    Probe("ps1_softmax_cols", ps1_softmax_cols_cases, named("data_in"),
          pinned={"data_in": "scores"}),
    Probe("ps1_self_attention", lambda s: ps1_attention_cases(s, "ps1_self_attention"),
          attention_call, pinned={"X": "X", **_PARAMS}),
    Probe("ps1_scaled_attention", lambda s: ps1_attention_cases(s, "ps1_scaled", rect_q=True),
          attention_call, pinned={"X": "X", **_PARAMS}),
    Probe("ps1_equivariance", equivariance_cases, _equivariance_call),
)

"""Kernel side of ps5_masked_attention: its checks' inputs and how they call the student's code.

Inputs only: the masks here are random data fed to the student's masked softmax, never the
causal mask, a masked softmax or an encoding (those are what the student is graded on).
"""

from __future__ import annotations

import numpy as np

from attnkit.kernel.cases import (
    Args,
    Case,
    Probe,
    attention_params,
    by_id,
    large_attention,
    named,
    seeded_rng,
)

_QKV = ("X", "omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
_PARAMS = {k: k for k in _QKV}  # the notebook's data cell uses the same names
PERM = [2, 0, 4, 1, 3]  # the notebook's permutation of the five tokens


def ps5_data() -> Args:
    """The notebook's data: N=5 tokens of size D=4 in columns (seed 3), parameters (seed 0)."""
    np.random.seed(3)
    X = np.random.normal(size=(4, 5))
    np.random.seed(0)
    names = ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")
    shapes = ((4, 4),) * 3 + ((4, 1),) * 3
    return {"X": X, **{n: np.random.normal(size=s) for n, s in zip(names, shapes, strict=True)}}


def mask_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "ps5_causal_mask")
    return [Case("N=5 (the notebook)", {"N": 5}, pinned=True),
            Case("a single token, N=1", {"N": 1}),
            Case("N=3", {"N": 3}),
            *(Case(f"N={n}", {"N": int(n)})
              for n in rng.choice(np.arange(6, 12), 2, replace=False))]


def _some_mask(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """A random mask with one fully masked column and one column allowing a single entry."""
    mask = rng.random((rows, cols)) < 0.6
    empty, single = rng.choice(cols, 2, replace=False)
    mask[:, empty] = False
    mask[:, single] = False
    mask[rng.integers(rows), single] = True
    return mask


def masked_softmax_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "ps5_masked_softmax")
    scores = np.array([[1.0, 2, 3, 0], [0, 0, 0, 2], [-1, 4, 1, 1]])
    mask = np.array([[True, True, False, False], [False, True, True, False],
                     [True, False, True, False]])
    cases = [Case("pinned 3 x 4, last column fully masked", {"scores": scores, "mask": mask},
                  pinned=True)]
    for rows, cols in ((4, 6), (6, 3)):
        cases.append(Case(f"fresh {rows} x {cols}, one column fully masked",
                          {"scores": rng.normal(0, 2, (rows, cols)),
                           "mask": _some_mask(rng, rows, cols)}))
    cases.append(Case("fresh 5 x 5, causal mask", {"scores": rng.normal(0, 2, (5, 5)),
                                                   "mask": np.triu(np.ones((5, 5), bool))}))
    cases.append(Case("large logits 3 x 5", {"scores": 800 + rng.normal(0, 5, (3, 5)),
                                             "mask": _some_mask(rng, 3, 5)}, large=True))
    scores = rng.normal(0, 2, (4, 4))
    scores[3, 0] = 900.0  # masked: input 3 is later than output 0
    cases.append(Case("4 x 4 causal, a masked score of 900 in column 0",
                      {"scores": scores, "mask": np.triu(np.ones((4, 4), bool))}))
    return cases


def attention_cases(seed: int) -> list[Case]:
    """The notebook's data, then fresh D x N inputs (one with D_q != D), then large logits."""
    cases = [Case("notebook data (D=4, N=5)", ps5_data(), pinned=True)]
    rng = seeded_rng(seed, "ps5_masked_attention")
    for D, N, Dq in ((3, 6, 3), (5, 2, 5), (5, 4, 2)):
        cases.append(Case(f"fresh D={D}, N={N}" + (f", D_q={Dq}" if Dq != D else ""),
                          {"X": rng.normal(size=(D, N)), **attention_params(rng, D, Dq=Dq)}))
    causal = np.triu(np.ones((6, 6), dtype=bool))  # output n sees tokens m <= n
    cases.append(Case("large logits D=4, N=6", large_attention(rng, 4, 6, allowed=causal),
                      large=True))
    cases.append(Case("fresh D=3, N=5, D_q=2", {"X": rng.normal(size=(3, 5)),  # the notebook's N
                                                **attention_params(rng, 3, Dq=2)}))
    cases.append(Case("a future score 800 above the allowed ones, D=4, N=6",
                      future_above(seed, 4, 6), large=True))
    return cases


def future_above(seed: int, D: int, N: int) -> Args:
    """Large-logit inputs where some column has a masked (future) score more than 800 above
    every allowed score (a softmax taken before masking underflows there) and some allowed
    score passes 710 (a naive np.exp overflows)."""
    rng = seeded_rng(seed, "ps5_masked_attention_future")
    allowed = np.triu(np.ones((N, N), dtype=bool))
    for _ in range(1000):
        a = {"X": 25 * rng.normal(size=(D, N)), **attention_params(rng, D)}
        Q, K = a["beta_q"] + a["omega_q"] @ a["X"], a["beta_k"] + a["omega_k"] @ a["X"]
        S = K.T @ Q / np.sqrt(Q.shape[0])
        gap = np.where(allowed, -np.inf, S).max(axis=0) - np.where(allowed, S, -np.inf).max(axis=0)
        if gap.max() > 800 and S[allowed].max() > 720:  # a naive np.exp overflows too
            return a
    raise ValueError("no draw in 1000 put a future score 800 above the allowed ones")


def positional_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "ps5_positional_encoding")
    D, N = (int(v) for v in rng.choice([6, 10, 12], 2, replace=False))
    return [Case("D=4, N=5 (the notebook)", {"D": 4, "N": 5}, pinned=True),
            Case(f"D={D}, N={N}", {"D": D, "N": N}),
            Case("D=2, N=3", {"D": 2, "N": 3}),
            Case("D=16, N=50", {"D": 16, "N": 50})]


def equivariance_cases(seed: int) -> list[Case]:
    cases = [Case("notebook data, perm [2, 0, 4, 1, 3]", {**ps5_data(), "perm": PERM},
                  pinned=True)]
    rng = seeded_rng(seed, "ps5_equivariance")
    for D, N in ((4, 6), (6, 3), (2, 7)):
        perm = [int(p) for p in rng.permutation(N)]
        while perm == sorted(perm):
            perm = [int(p) for p in rng.permutation(N)]
        cases.append(Case(f"fresh D={D}, N={N}, perm {perm}",
                          {"X": rng.normal(size=(D, N)), "perm": perm,
                           **attention_params(rng, D)}))
    # D = N: a masked_self_attention that mixes D and N up still runs here, so a caller
    # right given it can show it (follow-through needs a case that does not crash)
    square = seeded_rng(seed, "ps5_equivariance_square")
    perm = [int(p) for p in square.permutation(4)]
    while perm == sorted(perm):
        perm = [int(p) for p in square.permutation(4)]
    cases.append(Case(f"fresh D=N=4, perm {perm}", {"X": square.normal(size=(4, 4)), "perm": perm,
                                                     **attention_params(square, 4)}))
    return cases


PROBES = by_id(
    Probe("ps5_causal_mask", mask_cases, named("N"), pinned={"N": "N"}),
    Probe("ps5_masked_softmax", masked_softmax_cases, named("scores", "mask"),
          pinned={"scores": "scores", "mask": "allowed"}),
    Probe("ps5_masked_attention", attention_cases, named(*_QKV), pinned=_PARAMS),
    Probe("ps5_positional_encoding", positional_cases, named("D", "N"),
          pinned={"D": "D", "N": "N"}),
    Probe("ps5_equivariance", equivariance_cases, named("X", "perm", *_QKV[1:]),
          pinned={**_PARAMS, "perm": "perm"}),
)

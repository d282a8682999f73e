"""Inputs for every graded check, and how each check calls the student's code.

This module runs inside the student's kernel (next to ``probe``), so it holds
inputs only: never an expected value. Case 0 of a check is the notebook's own
pinned data; the other cases are drawn fresh from the grading seed, with
rectangular shapes (N != D, n_q != n_k) and large logits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Args = dict[str, Any]


@dataclass(frozen=True)
class Case:
    name: str
    args: Args
    pinned: bool = False  # the notebook's visible data
    large: bool = False  # logits large enough to overflow a naive exp


@dataclass(frozen=True)
class Spec:
    cases: Callable[[int], list[Case]]
    call: Callable[[tuple, Args], Any]


# ---------------------------------------------------------------- shared data


def udl_tokens() -> tuple[list[np.ndarray], Args]:
    """The UDL 12.1 data: N=3 tokens of size D=4 (seed 3), parameters (seed 0)."""
    np.random.seed(3)
    all_x = [np.random.normal(size=(4, 1)) for _ in range(3)]
    np.random.seed(0)
    names = ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")
    shapes = ((4, 4),) * 3 + ((4, 1),) * 3
    params = {n: np.random.normal(size=s) for n, s in zip(names, shapes, strict=True)}
    return all_x, params


def udl_multihead() -> Args:
    """The UDL chapter-12 multihead data: N=6, D=8, H=2 (seeds 3 then 0)."""
    np.random.seed(3)
    X = np.random.normal(size=(8, 6))
    np.random.seed(0)
    args: Args = {"X": X}
    for h in (1, 2):
        for name in ("omega_q", "omega_k", "omega_v"):
            args[f"{name}{h}"] = np.random.normal(size=(4, 8))
        for name in ("beta_q", "beta_k", "beta_v"):
            args[f"{name}{h}"] = np.random.normal(size=(4, 1))
    args["omega_c"] = np.random.normal(size=(8, 8))
    return args


def worksheet() -> Args:
    """The encoder-decoder worksheet's tokens and weights."""
    h_e = np.array([[0.64, -0.27, 0.89, -0.12],
                    [-0.45, 0.33, 0.71, 0.08],
                    [0.19, -0.94, 0.56, 0.37],
                    [0.03, 0.85, -0.41, 0.76]])
    h_d = np.array([[0.58, -0.13, 0.94, 0.22],
                    [0.45, 0.11, -0.88, 0.67]])
    W_Q = np.array([[0.12, -0.87, 0.33, 0.45],
                    [0.76, 0.21, -0.34, 0.67],
                    [-0.55, 0.18, 0.29, -0.73],
                    [0.03, -0.99, 0.42, 0.11]])
    tokens = W_Q[[0, 1, 3]]  # "this", "is", "translation": the worksheet reuses W_Q's rows
    return {"h_e": h_e, "h_d": h_d, "W_Q": W_Q, "W_K": h_e.copy(), "W_V": np.array(
        [[0.58, -0.13, 0.94, 0.22],
         [-0.31, 0.66, -0.74, 0.09],
         [0.45, 0.11, -0.88, 0.67],
         [-0.92, 0.37, 0.28, -0.50]]), "tokens": tokens}


def attention_params(rng: np.random.Generator, D: int, Dq: int | None = None, Dv: int | None = None,
                     suffix: str = "") -> Args:
    """Column-convention weights: Omega (D_out x D), beta (D_out x 1)."""
    Dq = Dq or D
    Dv = Dv or D
    out = {}
    for name, rows in (("q", Dq), ("k", Dq), ("v", Dv)):
        out[f"omega_{name}{suffix}"] = rng.normal(size=(rows, D))
        out[f"beta_{name}{suffix}"] = rng.normal(size=(rows, 1))
    return out


def _rng(seed: int, check: str) -> np.random.Generator:
    return np.random.default_rng([seed, sum(map(ord, check))])


# ---------------------------------------------------------------- ps1


def ps1_softmax_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps1_softmax")
    return [
        Case("pinned [1, 2, 3]", {"items_in": [1.0, 2.0, 3.0]}, pinned=True),
        Case("7 random scores", {"items_in": list(rng.normal(0, 3, 7))}),
        Case("a single score", {"items_in": [float(rng.normal())]}),
        Case("logits near 1000", {"items_in": list(1000 + rng.normal(0, 2, 5))}, large=True),
    ]


def ps1_attention_cases(seed: int, check: str, rect_q: bool = False) -> list[Case]:
    """UDL data, then fresh D x N inputs; ``rect_q`` adds a case with D_q != D."""
    all_x, params = udl_tokens()
    X = np.hstack(all_x)
    cases = [Case("notebook data (D=4, N=3)", {"X": X, **params}, pinned=True)]
    rng = _rng(seed, check)
    for D, N in ((3, 5), (5, 2)):
        cases.append(Case(f"fresh D={D}, N={N}", {"X": rng.normal(size=(D, N)),
                                                   **attention_params(rng, D)}))
    if rect_q:
        cases.append(Case("fresh D=5, N=4, D_q=2", {"X": rng.normal(size=(5, 4)),
                                                     **attention_params(rng, 5, Dq=2)}))
    D, N = 4, 6
    cases.append(Case(f"large logits D={D}, N={N}", {"X": 25 * rng.normal(size=(D, N)),
                                                     **attention_params(rng, D)}, large=True))
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
    rng = _rng(seed, "ps1_softmax_cols")
    return [
        Case("pinned 3 x 3", {"data_in": np.array([[1.0, 2, 3], [0, 0, 0], [-1, 4, 1]])},
             pinned=True),
        Case("fresh 4 x 6", {"data_in": rng.normal(0, 2, (4, 6))}),
        Case("fresh 5 x 2", {"data_in": rng.normal(0, 2, (5, 2))}),
        Case("large logits 3 x 4", {"data_in": 800 + rng.normal(0, 5, (3, 4))}, large=True),
    ]


EQUIVARIANT = ("token-wise map with a pooled context", "column sums on every token")
NOT_EQUIVARIANT = ("token-wise map of X + positions", "reverse tokens", "mix tokens")


def equivariance_cases(seed: int) -> list[Case]:
    """Five maps drawn and ordered by the seed, so the expected answers differ per student.

    The maps are built from data only (tanh, means, fixed matrices): nothing here computes
    softmax or attention, which the kernel may import and students are graded on.
    """
    rng = _rng(seed, "ps1_equivariance")
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
        while perm == sorted(perm) or perm == sorted(perm, reverse=True):
            perm = list(rng.permutation(N))
        cases.append(Case(kind, {"kind": kind, "X": X, "perm": perm, **data}))
    return cases


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
        "reverse tokens": lambda X: X[:, ::-1],
        "mix tokens": lambda X: X @ M[: X.shape[1], : X.shape[1]],
    }
    return maps[args["kind"]]


def attention_call(targets: tuple, a: Args) -> Any:
    (fn,) = targets
    return fn(a["X"], a["omega_v"], a["omega_q"], a["omega_k"], a["beta_v"], a["beta_q"],
              a["beta_k"])


# ---------------------------------------------------------------- ps2


def ps2_multihead_cases(seed: int) -> list[Case]:
    cases = [Case("notebook data (D=8, N=6, H=2)", udl_multihead(), pinned=True)]
    rng = _rng(seed, "ps2_multihead_scaled")
    for D, N, scale in ((6, 4, 1.0), (4, 7, 1.0), (6, 5, 30.0)):
        args: Args = {"X": scale * rng.normal(size=(D, N))}
        for h in (1, 2):
            args.update(attention_params(rng, D, Dq=D // 2, Dv=D // 2, suffix=str(h)))
        args["omega_c"] = rng.normal(size=(D, D))
        cases.append(Case(f"fresh D={D}, N={N}" + (" large logits" if scale > 1 else ""),
                          args, large=scale > 1))
    return cases


def heads_of(args: Args, H: int) -> list[Args]:
    return [{k: args[f"{k}{h}"] for k in
             ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")}
            for h in range(1, H + 1)]


def ps2_general_cases(seed: int) -> list[Case]:
    pinned = udl_multihead()
    cases = [Case("notebook data (H=2)", {"X": pinned["X"], "heads": heads_of(pinned, 2),
                                          "omega_c": pinned["omega_c"]}, pinned=True)]
    rng = _rng(seed, "ps2_multihead_general")
    for D, N, H, scale in ((6, 4, 3, 1.0), (8, 5, 4, 1.0), (5, 3, 1, 1.0), (6, 7, 2, 30.0)):
        heads = [attention_params(rng, D, Dq=D // H, Dv=D // H) for _ in range(H)]
        cases.append(Case(f"fresh D={D}, N={N}, H={H}" + (" large logits" if scale > 1 else ""),
                          {"X": scale * rng.normal(size=(D, N)), "heads": heads,
                           "omega_c": rng.normal(size=(D, D))}, large=scale > 1))
    return cases


def ps2_head_cases(seed: int) -> list[Case]:
    pinned = udl_multihead()
    cases = [Case("notebook head 1 (D=8, N=6, D_q=4)",
                  {"X": pinned["X"], **heads_of(pinned, 1)[0]}, pinned=True)]
    rng = _rng(seed, "ps2_single_head")
    for D, N, Dq, scale in ((6, 4, 3, 1.0), (8, 3, 2, 1.0), (6, 5, 3, 30.0)):
        cases.append(Case(f"fresh D={D}, N={N}, D_q={Dq}",
                          {"X": scale * rng.normal(size=(D, N)),
                           **attention_params(rng, D, Dq=Dq, Dv=Dq)}, large=scale > 1))
    return cases


# ---------------------------------------------------------------- ps3


def ps3_softmax_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps3_softmax")
    return [
        Case("pinned 2 x 3", {"X": np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])}, pinned=True),
        Case("fresh 4 x 6", {"X": rng.normal(0, 2, (4, 6))}),
        Case("fresh 6 x 3", {"X": rng.normal(0, 2, (6, 3))}),
        Case("large logits 3 x 5", {"X": 900 + rng.normal(0, 5, (3, 5))}, large=True),
    ]


def layer_weights(rng: np.random.Generator, dims: int) -> Args:
    return {w: rng.normal(size=(dims, dims)) for w in ("W_q", "W_k", "W_v", "W_o")}


def ps3_layer_pinned() -> Args:
    """The notebook's worked example: dims=4, n=3, weights from seed 0."""
    np.random.seed(0)
    weights = {w: np.random.normal(size=(4, 4)) for w in ("W_q", "W_k", "W_v", "W_o")}
    return {"dims": 4, "x": np.random.random(size=(3, 4)), **weights}


def ps3_forward_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps3_forward")
    cases = [Case("notebook example (n=3, dims=4)", ps3_layer_pinned(), pinned=True)]
    for n, dims, scale in ((5, 3, 1.0), (2, 6, 1.0), (7, 4, 1.0), (4, 5, 40.0)):
        cases.append(Case(f"fresh n={n}, dims={dims}" + (" large logits" if scale > 1 else ""),
                          {"dims": dims, "x": scale * rng.normal(size=(n, dims)),
                           **layer_weights(rng, dims)}, large=scale > 1))
    return cases


def forward_call(targets: tuple, a: Args) -> Any:
    (cls,) = targets
    layer = cls(a["dims"])
    for w in ("W_q", "W_k", "W_v", "W_o"):
        setattr(layer, w, a[w].copy())
    return layer.forward(a["x"].copy())


def ps3_init_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps3_init")
    return [Case(f"dims={d}", {"dims": d, "seed": int(rng.integers(2**31))}) for d in (96, 5, 80)]


def init_call(targets: tuple, a: Args) -> Any:
    (cls,) = targets
    np.random.seed(a["seed"])
    layer = cls(a["dims"])
    return [getattr(layer, w) for w in ("W_q", "W_k", "W_v", "W_o", "dims")]


# ---------------------------------------------------------------- ps4


def ps4_scores_cases(seed: int) -> list[Case]:
    w = worksheet()
    rng = _rng(seed, "ps4_get_scores")
    return [Case("worksheet h_e . h_d[1]", {"matrix": w["h_e"], "vector": w["h_d"][1]},
                 pinned=True),
            Case("fresh 5 tokens x 3 dims", {"matrix": rng.normal(size=(5, 3)),
                                             "vector": rng.normal(size=3)}),
            Case("fresh 2 tokens x 6 dims", {"matrix": rng.normal(size=(2, 6)),
                                             "vector": rng.normal(size=6)})]


def ps4_scale_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps4_scale_scores")
    return [Case("worksheet scores, n=4", {"scores": np.array([-0.6053, -0.7374, -0.2628, 0.977]),
                                           "n": 4}, pinned=True),
            Case("fresh, n=9", {"scores": rng.normal(size=6), "n": 9}),
            Case("fresh, n=3", {"scores": rng.normal(size=2), "n": 3})]


def ps4_weights_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps4_attention_weights")
    return [Case("worksheet scaled scores",
                 {"scores": np.array([-0.30265, -0.3687, -0.1314, 0.4885])}, pinned=True),
            Case("fresh 6 scores", {"scores": rng.normal(0, 2, 6)}),
            Case("large scores", {"scores": 1000 + rng.normal(0, 3, 5)}, large=True)]


def ps4_context_cases(seed: int) -> list[Case]:
    w = worksheet()
    rng = _rng(seed, "ps4_context_vector")
    scaled = w["h_e"] @ w["h_d"][1] / 2.0  # the worksheet's scores / sqrt(4)
    weights = np.exp(scaled) / np.exp(scaled).sum()
    cases = [Case("worksheet encoder states", {"attention_weights": weights,
                                               "hidden_encoder_matrix": w["h_e"]}, pinned=True)]
    for T, d in ((5, 3), (2, 6), (3, 3)):
        cases.append(Case(f"fresh {T} tokens x {d} dims",
                          {"attention_weights": rng.dirichlet(np.ones(T)),
                           "hidden_encoder_matrix": rng.normal(size=(T, d))}))
    return cases


def ps4_single_query_cases(seed: int) -> list[Case]:
    w = worksheet()
    rng = _rng(seed, "ps4_single_query")
    cases = [Case("worksheet: query 'is'", {"query_token": w["tokens"][1], "tokens": w["tokens"],
                                            "W_Q": w["W_Q"], "W_K": w["W_K"], "W_V": w["W_V"]},
                  pinned=True)]
    for T, d, dk, large in ((5, 4, 3, False), (2, 6, 4, False), (4, 3, 5, False), (6, 4, 4, True)):
        tokens = rng.normal(size=(T, d))
        query = tokens[rng.integers(T)]
        W_Q, W_K, W_V = (rng.normal(size=(d, dk)) for _ in range(3))
        if large:  # rescale so the largest scaled score is 2000: a naive np.exp overflows
            scores = tokens @ W_K @ (query @ W_Q) / np.sqrt(dk)
            if scores.max() <= 0:
                W_Q, scores = -W_Q, -scores
            factor = np.sqrt(2000 / scores.max())
            tokens, query = factor * tokens, factor * query
        cases.append(Case(f"fresh {T} tokens, d={d}, d_k={dk}" + (" large logits" if large else ""),
                          {"query_token": query, "tokens": tokens, "W_Q": W_Q, "W_K": W_K,
                           "W_V": W_V}, large=large))
    return cases


def ps4_split_cases(seed: int) -> list[Case]:
    w = worksheet()
    rng = _rng(seed, "ps4_split_heads")
    return [Case("worksheet W_Q, n=2", {"W": w["W_Q"], "n": 2}, pinned=True),
            Case("fresh 6 x 6, n=3", {"W": rng.normal(size=(6, 6)), "n": 3}),
            Case("fresh 4 x 8, n=4", {"W": rng.normal(size=(4, 8)), "n": 4}),
            Case("fresh 5 x 6, n=2", {"W": rng.normal(size=(5, 6)), "n": 2})]


def ps4_dimension_cases(seed: int) -> list[Case]:
    return [Case(name, {"name": name}) for name in ("head_W_shape", "concat_shape", "W_O_shape")]


# ---------------------------------------------------------------- ps5


def ps5_data() -> Args:
    """The notebook's data: N=5 tokens of size D=4 in columns (seed 3), parameters (seed 0)."""
    np.random.seed(3)
    X = np.random.normal(size=(4, 5))
    np.random.seed(0)
    names = ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")
    shapes = ((4, 4),) * 3 + ((4, 1),) * 3
    return {"X": X, **{n: np.random.normal(size=s) for n, s in zip(names, shapes, strict=True)}}


PS5_PERM = [2, 0, 4, 1, 3]  # the notebook's permutation of the five tokens


def ps5_mask_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps5_causal_mask")
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


def ps5_masked_softmax_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps5_masked_softmax")
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
    return cases


def ps5_attention_cases(seed: int) -> list[Case]:
    """The notebook's data, then fresh D x N inputs (one with D_q != D), then large logits."""
    cases = [Case("notebook data (D=4, N=5)", ps5_data(), pinned=True)]
    rng = _rng(seed, "ps5_masked_attention")
    for D, N, Dq in ((3, 6, 3), (5, 2, 5), (5, 4, 2)):
        cases.append(Case(f"fresh D={D}, N={N}" + (f", D_q={Dq}" if Dq != D else ""),
                          {"X": rng.normal(size=(D, N)), **attention_params(rng, D, Dq=Dq)}))
    cases.append(Case("large logits D=4, N=6", {"X": 25 * rng.normal(size=(4, 6)),
                                                **attention_params(rng, 4)}, large=True))
    return cases


def ps5_positional_cases(seed: int) -> list[Case]:
    rng = _rng(seed, "ps5_positional_encoding")
    D, N = (int(v) for v in rng.choice([6, 10, 12], 2, replace=False))
    return [Case("D=4, N=5 (the notebook)", {"D": 4, "N": 5}, pinned=True),
            Case(f"D={D}, N={N}", {"D": D, "N": N}),
            Case("D=2, N=3", {"D": 2, "N": 3}),
            Case("D=16, N=50", {"D": 16, "N": 50})]


def ps5_equivariance_cases(seed: int) -> list[Case]:
    cases = [Case("notebook data, perm [2, 0, 4, 1, 3]", {**ps5_data(), "perm": PS5_PERM},
                  pinned=True)]
    rng = _rng(seed, "ps5_equivariance")
    for D, N in ((4, 6), (6, 3), (2, 7)):
        perm = [int(p) for p in rng.permutation(N)]
        while perm == sorted(perm):
            perm = [int(p) for p in rng.permutation(N)]
        cases.append(Case(f"fresh D={D}, N={N}, perm {perm}",
                          {"X": rng.normal(size=(D, N)), "perm": perm,
                           **attention_params(rng, D)}))
    return cases


def named(*keys: str) -> Callable[[tuple, Args], Any]:
    """Call the single target with the case's arguments in ``keys`` order."""
    def call(targets: tuple, a: Args) -> Any:
        return targets[0](*(a[k] for k in keys))
    return call


def _equivariance_call(targets: tuple, a: Args) -> Any:
    return bool(targets[0](equivariance_function(a), a["X"].copy(), list(a["perm"])))


def _multihead_call(targets: tuple, a: Args) -> Any:
    keys = [f"{k}{h}" for h in (1, 2) for k in
            ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")]
    return targets[0](a["X"], *(a[k] for k in keys), a["omega_c"])


def _general_call(targets: tuple, a: Args) -> Any:
    return targets[0](a["X"], [dict(h) for h in a["heads"]], a["omega_c"])


def _dimension_call(targets: tuple, a: Args) -> Any:
    names = ("head_W_shape", "concat_shape", "W_O_shape")
    return targets[names.index(a["name"])]


_QKV = ("X", "omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")

SPECS: dict[str, Spec] = {
    "ps1_softmax": Spec(ps1_softmax_cases, lambda t, a: t[0](list(a["items_in"]))),
    "ps1_self_attention_loop": Spec(ps1_loop_cases, named("all_x", *_QKV[1:])),
    "ps1_softmax_cols": Spec(ps1_softmax_cols_cases, named("data_in")),
    "ps1_self_attention": Spec(lambda s: ps1_attention_cases(s, "ps1_self_attention"),
                               attention_call),
    "ps1_scaled_attention": Spec(lambda s: ps1_attention_cases(s, "ps1_scaled", rect_q=True),
                                 attention_call),
    "ps1_equivariance": Spec(equivariance_cases, _equivariance_call),
    "ps2_single_head": Spec(ps2_head_cases, named(*_QKV)),
    "ps2_multihead_scaled": Spec(ps2_multihead_cases, _multihead_call),
    "ps2_multihead_general": Spec(ps2_general_cases, _general_call),
    "ps3_softmax": Spec(ps3_softmax_cases, named("X")),
    "ps3_init": Spec(ps3_init_cases, init_call),
    "ps3_forward": Spec(ps3_forward_cases, forward_call),
    "ps4_get_scores": Spec(ps4_scores_cases, named("matrix", "vector")),
    "ps4_scale_scores": Spec(ps4_scale_cases, named("scores", "n")),
    "ps4_attention_weights": Spec(ps4_weights_cases, named("scores")),
    "ps4_context_vector": Spec(ps4_context_cases,
                               named("attention_weights", "hidden_encoder_matrix")),
    "ps4_single_query": Spec(ps4_single_query_cases,
                             named("query_token", "tokens", "W_Q", "W_K", "W_V")),
    "ps4_split_heads": Spec(ps4_split_cases, named("W", "n")),
    "ps4_dimensions": Spec(ps4_dimension_cases, _dimension_call),
    "ps5_causal_mask": Spec(ps5_mask_cases, named("N")),
    "ps5_masked_softmax": Spec(ps5_masked_softmax_cases, named("scores", "mask")),
    "ps5_masked_attention": Spec(ps5_attention_cases, named(*_QKV)),
    "ps5_positional_encoding": Spec(ps5_positional_cases, named("D", "N")),
    "ps5_equivariance": Spec(ps5_equivariance_cases, named("X", "perm", *_QKV[1:])),
}

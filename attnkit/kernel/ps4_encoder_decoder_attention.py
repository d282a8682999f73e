"""Kernel side of ps4_encoder_decoder_attention: its checks' inputs, how they call the student."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from attnkit.kernel.cases import Args, Case, Probe, by_id, named, seeded_rng


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


def ps4_scores_cases(seed: int) -> list[Case]:
    w = worksheet()
    rng = seeded_rng(seed, "ps4_get_scores")
    return [Case("worksheet h_e . h_d[1]", {"matrix": w["h_e"], "vector": w["h_d"][1]},
                 pinned=True),
            Case("fresh 5 tokens x 3 dims", {"matrix": rng.normal(size=(5, 3)),
                                             "vector": rng.normal(size=3)}),
            Case("fresh 2 tokens x 6 dims", {"matrix": rng.normal(size=(2, 6)),
                                             "vector": rng.normal(size=6)})]


def ps4_scale_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "ps4_scale_scores")
    return [Case("worksheet scores, n=4", {"scores": np.array([-0.6053, -0.7374, -0.2628, 0.977]),
                                           "n": 4}, pinned=True),
            Case("fresh, n=9", {"scores": rng.normal(size=6), "n": 9}),
            Case("fresh, n=3", {"scores": rng.normal(size=2), "n": 3})]


def ps4_weights_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "ps4_attention_weights")
    return [Case("worksheet scaled scores",
                 {"scores": np.array([-0.30265, -0.3687, -0.1314, 0.4885])}, pinned=True),
            Case("fresh 6 scores", {"scores": rng.normal(0, 2, 6)}),
            Case("large scores", {"scores": 1000 + rng.normal(0, 3, 5)}, large=True),
            Case("fresh 4 scores, numpy only",
                 {"scores": rng.normal(0, 2, 4), "audit": True}),
            Case("widely spread large scores", {"scores": spread_scores(seed)}, large=True),
            Case("first score 900 below the rest", {"scores": one_far_below(seed, first=True)}),
            Case("one score 900 below the rest", {"scores": one_far_below(seed, first=False)})]


def one_far_below(seed: int, first: bool) -> np.ndarray:
    """Five scores near 0 and one about 900 below them, first or not: a softmax shifted by
    the first or the smallest score overflows (900 > 709) where one shifted by the mean or
    the maximum does not."""
    rng = seeded_rng(seed, f"ps4_attention_weights_below_{first}")
    rest = rng.normal(0, 2, 5)
    low = -900 + rng.normal(0, 3)
    if first:
        return np.concatenate([[low], rest])
    return np.insert(rest, 1 + int(rng.integers(4)), low)


def spread_scores(seed: int) -> np.ndarray:
    """Four scores near 1000 and one near -4000: the largest sits about 1000 above the mean,
    so np.exp overflows unless the maximum itself is subtracted."""
    rng = seeded_rng(seed, "ps4_attention_weights_spread")
    return rng.permutation(np.append(1000 + rng.normal(0, 3, 4), -4000 + rng.normal(0, 3)))


class _Refused:
    """Stands for a scipy module or function while a check runs with numpy only."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        raise ImportError(f"{self._name!r} is scipy's, hidden in this check")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ImportError(f"{self._name!r} is scipy's, hidden in this check")


def _is_scipy(value: Any) -> bool:
    try:
        name = value.__name__ if isinstance(value, ModuleType) else type(value).__module__
        name = getattr(value, "__module__", None) or name
    except Exception:  # noqa: BLE001 - any student object
        return False
    return isinstance(name, str) and (name == "scipy" or name.startswith("scipy."))


def numpy_only(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with scipy unavailable: imports fail, names bound to it raise."""
    hidden = {k: m for k, m in sys.modules.items() if k == "scipy" or k.startswith("scipy.")}
    names = getattr(fn, "__globals__", {})
    bound = {k: v for k, v in list(names.items()) if _is_scipy(v)}
    try:
        sys.modules.update(dict.fromkeys(hidden))
        names.update({k: _Refused(k) for k in bound})
        return fn(*args)
    finally:
        sys.modules.update(hidden)
        names.update(bound)


def _weights_call(targets: tuple, a: Args) -> Any:
    if a.get("audit"):
        return numpy_only(targets[0], a["scores"])
    return targets[0](a["scores"])


def ps4_context_cases(seed: int) -> list[Case]:
    w = worksheet()
    rng = seeded_rng(seed, "ps4_context_vector")
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
    rng = seeded_rng(seed, "ps4_single_query")
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
    # T = d_v: a context vector that only runs on square matrices runs; then d_v != d_k:
    # scaling by the values' size shows
    for T, d, dk, dv in ((4, 3, 4, 4), (5, 4, 3, 6)):
        tokens = rng.normal(size=(T, d))
        W_Q, W_K, W_V = (rng.normal(size=(d, k)) for k in (dk, dk, dv))
        cases.append(Case(f"fresh {T} tokens, d={d}, d_k={dk}" + (f", d_v={dv}" if dv != dk
                                                                   else ""), {
            "query_token": tokens[rng.integers(T)], "tokens": tokens, "W_Q": W_Q, "W_K": W_K,
            "W_V": W_V}))
    return cases


def ps4_split_cases(seed: int) -> list[Case]:
    w = worksheet()
    rng = seeded_rng(seed, "ps4_split_heads")
    return [Case("worksheet W_Q, n=2", {"W": w["W_Q"], "n": 2}, pinned=True),
            Case("fresh 6 x 6, n=3", {"W": rng.normal(size=(6, 6)), "n": 3}),
            Case("fresh 4 x 8, n=4", {"W": rng.normal(size=(4, 8)), "n": 4}),
            Case("fresh 5 x 6, n=2", {"W": rng.normal(size=(5, 6)), "n": 2})]


def ps4_dimension_cases(seed: int) -> list[Case]:
    return [Case(name, {"name": name}) for name in ("head_W_shape", "concat_shape", "W_O_shape")]



def _dimension_call(targets: tuple, a: Args) -> Any:
    names = ("head_W_shape", "concat_shape", "W_O_shape")
    return targets[names.index(a["name"])]


PROBES = by_id(
    Probe("ps4_get_scores", ps4_scores_cases, named("matrix", "vector"),
          pinned={"matrix": "h_e", "vector": "h_d[1]"}),
    Probe("ps4_scale_scores", ps4_scale_cases, named("scores", "n"),
          pinned={"scores": "scores", "n": "n"}),
    Probe("ps4_attention_weights", ps4_weights_cases, _weights_call,
          pinned={"scores": "scaled"}),
    Probe("ps4_context_vector", ps4_context_cases,
          named("attention_weights", "hidden_encoder_matrix"),
          pinned={"attention_weights": "alpha", "hidden_encoder_matrix": "h_e"}),
    Probe("ps4_single_query", ps4_single_query_cases,
          named("query_token", "tokens", "W_Q", "W_K", "W_V"),
          pinned={"query_token": "tokens[1]", "tokens": "tokens", "W_Q": "W_Q", "W_K": "W_K",
                  "W_V": "W_V"}),
    Probe("ps4_split_heads", ps4_split_cases, named("W", "n"), pinned={"W": "W_Q", "n": "2"}),
    Probe("ps4_dimensions", ps4_dimension_cases, _dimension_call),
)

"""Kernel side of ps3_attention_layer: its checks' inputs and how they call the student's code."""

from __future__ import annotations

from typing import Any

import numpy as np

from attnkit.kernel.cases import (
    Args,
    Case,
    Probe,
    by_id,
    far_apart,
    named,
    overflowing,
    seeded_rng,
    spiked,
)


def ps3_softmax_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "ps3_softmax")
    return [
        Case("pinned 2 x 3", {"X": np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])}, pinned=True),
        Case("fresh 4 x 6", {"X": rng.normal(0, 2, (4, 6))}),
        Case("fresh 6 x 3", {"X": rng.normal(0, 2, (6, 3))}),
        Case("large logits 3 x 5", {"X": 900 + rng.normal(0, 5, (3, 5))}, large=True),
        Case("rows 900 apart, 4 x 3", {"X": far_apart(rng, (4, 3), axis=1)}, large=True),
        Case("square 4 x 4, rows 900 apart",
             {"X": far_apart(seeded_rng(seed, "ps3_softmax_square"), (4, 4), axis=1)},
             large=True),
        Case("one score 1500 above the rest of its row, 3 x 4",
             {"X": spiked(seeded_rng(seed, "ps3_softmax_spike"), (3, 4), axis=1)}, large=True),
    ]


WEIGHTS = ("W_q", "W_k", "W_v", "W_o")


def layer_weights(rng: np.random.Generator, dims: int) -> Args:
    return {w: rng.normal(size=(dims, dims)) for w in WEIGHTS}


def ps3_layer_pinned() -> Args:
    """The notebook's worked example: dims=4, n=3, weights from seed 0."""
    np.random.seed(0)
    weights = {w: np.random.normal(size=(4, 4)) for w in ("W_q", "W_k", "W_v", "W_o")}
    return {"dims": 4, "x": np.random.random(size=(3, 4)), **weights}


def ps3_forward_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "ps3_forward")
    cases = [Case("notebook example (n=3, dims=4)", ps3_layer_pinned(), pinned=True)]
    for n, dims in ((5, 3), (2, 6), (7, 4)):
        cases.append(Case(f"fresh n={n}, dims={dims}", {"dims": dims,
                          "x": rng.normal(size=(n, dims)), **layer_weights(rng, dims)}))
    n, dims = 4, 5
    large = overflowing(lambda: {"dims": dims, "x": 40 * rng.normal(size=(n, dims)),
                                 **layer_weights(rng, dims)}, _scores)
    cases.append(Case(f"fresh n={n}, dims={dims} large logits", large, large=True))
    return cases


def _scores(a: Args) -> np.ndarray:
    """The layer's scaled scores Q K^T / sqrt(dims), tokens in rows."""
    return (a["x"] @ a["W_q"]) @ (a["x"] @ a["W_k"]).T / np.sqrt(a["dims"])


def forward_call(targets: tuple, a: Args) -> Any:
    """The student's forward on the case's weights. Where __init__ raises (its mistake is
    ps3_init's), the layer is made without it, with dims and the weights set as always.
    The layer's weights after the call are handed back in ``a``: the probe then sees a
    forward that changes them (a second call would differ) as it sees an overwritten
    argument."""
    (cls,) = targets
    try:
        layer = cls(a["dims"])
    except Exception:  # noqa: BLE001 - any crash of __init__: judge forward on its own
        layer = cls.__new__(cls)
        layer.dims = a["dims"]
    for w in WEIGHTS:
        setattr(layer, w, a[w])
    try:
        return layer.forward(a["x"])
    finally:
        a.update({w: getattr(layer, w, None) for w in WEIGHTS})


def ps3_init_cases(seed: int) -> list[Case]:
    """Three layer sizes, then dims=5 again after another np.random.seed: a layer that draws
    from np.random must change with it; last, dims=5 after the first seed again: it must come
    back."""
    rng = seeded_rng(seed, "ps3_init")
    cases = [Case(f"dims={d}", {"dims": d, "seed": int(rng.integers(2**31))}) for d in (96, 5, 80)]
    again = int(rng.integers(2**31))
    while again == cases[1].args["seed"]:
        again = int(rng.integers(2**31))
    cases.append(Case("dims=5 after another np.random.seed", {"dims": 5, "seed": again}))
    cases.append(Case("dims=5 after the first np.random.seed again",
                      {"dims": 5, "seed": cases[1].args["seed"], "repeat": True}))
    return cases


def init_call(targets: tuple, a: Args) -> Any:
    (cls,) = targets
    np.random.seed(a["seed"])
    layer = cls(a["dims"])
    return [getattr(layer, w) for w in ("W_q", "W_k", "W_v", "W_o", "dims")]



PROBES = by_id(
    Probe("ps3_softmax", ps3_softmax_cases, named("X"), pinned={"X": "scores"}),
    Probe("ps3_init", ps3_init_cases, init_call),
    Probe("ps3_forward", ps3_forward_cases, forward_call,
          pinned={"dims": "layer.dims", "x": "x", "W_q": "layer.W_q", "W_k": "layer.W_k",
                  "W_v": "layer.W_v", "W_o": "layer.W_o"}),
)

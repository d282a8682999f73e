"""Kernel side of ps2_multihead_attention: its checks' inputs, how they call the student."""

from __future__ import annotations

from typing import Any

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



def ps2_multihead_cases(seed: int) -> list[Case]:
    cases = [Case("notebook data (D=8, N=6, H=2)", udl_multihead(), pinned=True)]
    rng = seeded_rng(seed, "ps2_multihead_scaled")
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
    rng = seeded_rng(seed, "ps2_multihead_general")
    for D, N, H, scale in ((6, 4, 3, 1.0), (8, 5, 4, 1.0), (5, 3, 1, 1.0), (6, 7, 2, 30.0)):
        heads = [attention_params(rng, D, Dq=D // H, Dv=D // H) for _ in range(H)]
        cases.append(Case(f"fresh D={D}, N={N}, H={H}" + (" large logits" if scale > 1 else ""),
                          {"X": scale * rng.normal(size=(D, N)), "heads": heads,
                           "omega_c": rng.normal(size=(D, D))}, large=scale > 1))
    D, N, H = 6, 5, 2
    cases.append(Case(f"fresh D={D}, N={N}, H={H}, scores near 1", {
        "X": 0.3 * rng.normal(size=(D, N)),
        "heads": [attention_params(rng, D, Dq=D // H, Dv=D // H) for _ in range(H)],
        "omega_c": rng.normal(size=(D, D))}))
    D, N, H = 6, 4, 3
    cases.append(Case(f"fresh D={D}, N={N}, H={H}, called twice with the same heads",
                      {"X": rng.normal(size=(D, N)),
                       "heads": [attention_params(rng, D, Dq=D // H, Dv=D // H) for _ in range(H)],
                       "omega_c": rng.normal(size=(D, D)), "twice": True}))
    return cases


def ps2_head_cases(seed: int) -> list[Case]:
    pinned = udl_multihead()
    cases = [Case("notebook head 1 (D=8, N=6, D_q=4)",
                  {"X": pinned["X"], **heads_of(pinned, 1)[0]}, pinned=True)]
    rng = seeded_rng(seed, "ps2_single_head")
    for D, N, Dq in ((6, 4, 3), (8, 3, 2)):
        cases.append(Case(f"fresh D={D}, N={N}, D_q={Dq}",
                          {"X": rng.normal(size=(D, N)), **attention_params(rng, D, Dq=Dq, Dv=Dq)}))
    cases.append(Case("fresh D=6, N=5, D_q=3", large_attention(rng, 6, 5, Dq=3, Dv=3, scale=30.0),
                      large=True))
    cases.append(Case("fresh D=8, N=5, D_q=2, scores near 1",  # no softmax saturates here
                      {"X": 0.3 * rng.normal(size=(8, 5)), **attention_params(rng, 8, Dq=2, Dv=2)}))
    return cases



def _multihead_call(targets: tuple, a: Args) -> Any:
    keys = [f"{k}{h}" for h in (1, 2) for k in
            ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")]
    return targets[0](a["X"], *(a[k] for k in keys), a["omega_c"])


def _general_call(targets: tuple, a: Args) -> Any:
    """One call; on a ``twice`` case two calls with the same heads, both results."""
    heads = [dict(h) for h in a["heads"]]
    first = targets[0](a["X"], heads, a["omega_c"])
    if not a.get("twice"):
        return first
    return [np.array(first, dtype=float), targets[0](a["X"], heads, a["omega_c"])]


_QKV = ("X", "omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
_HEAD1 = {k: f"{k}1" for k in _QKV[1:]}
_TWO_HEADS = {k: k for k in ("X", "omega_c", *(f"{p}{h}" for h in (1, 2) for p in _QKV[1:]))}

PROBES = by_id(
    Probe("ps2_single_head", ps2_head_cases, named(*_QKV), pinned={"X": "X", **_HEAD1}),
    Probe("ps2_multihead_scaled", ps2_multihead_cases, _multihead_call, pinned=_TWO_HEADS),
    Probe("ps2_multihead_general", ps2_general_cases, _general_call,
          pinned={"X": "X", "heads": "heads", "omega_c": "omega_c"}),
)

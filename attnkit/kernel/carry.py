"""Kernel half of follow-through credit: what the student's caller passes its helpers and
what it gets back.

A caller such as ``multihead_scaled_self_attention`` reaches its helper
(``single_head_attention``) through the notebook's globals. While the probe runs the caller,
each helper named in ``HELPERS`` is swapped there for a stand-in that calls the student's own
helper and records the call: its arguments and what it returned. The caller is then run once
more with every helper's result nudged by noise: a caller that really uses its helpers'
results passes the nudge on, one that ignores them does not. Nothing here knows a right
answer; the judge replays the reference maths on the recorded calls
(``attnkit.judge.carry``).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

# caller's grade id -> the globals it may call whose results can carry a mistake forward
HELPERS: dict[str, tuple[str, ...]] = {
    "ps1_self_attention_loop": ("softmax",),
    "ps1_self_attention": ("softmax_cols", "softmax"),  # softmax: inside the student's
    "ps1_scaled_attention": ("softmax_cols", "softmax"),  # softmax_cols, if it calls it
    "ps2_multihead_scaled": ("single_head_attention",),
    "ps2_multihead_general": ("single_head_attention",),
    "ps3_forward": ("softmax",),
    "ps4_single_query": ("get_scores", "scale_scores", "get_attention_weights",
                         "get_context_vector"),
    "ps5_masked_attention": ("causal_mask", "masked_softmax_cols"),
    "ps5_equivariance": ("masked_self_attention", "positional_encoding"),
}
MAX_CALLS = 64  # recorded per run: a loop over tokens calls its softmax once per token


def namespace(target: Any) -> dict | None:
    """The globals the student's function (or the methods of a class) looks names up in."""
    if inspect.isfunction(target):
        return target.__globals__
    if inspect.isclass(target):
        methods = [v for v in vars(target).values() if inspect.isfunction(v)]
        return methods[0].__globals__ if methods else None
    return None


def nudged(value: Any, rng: np.random.Generator) -> Any:
    """``value`` moved by noise of its own size: floats shifted, booleans flipped, items each."""
    if isinstance(value, (list, tuple)):
        return type(value)(nudged(v, rng) for v in value)
    array = np.asarray(value)
    if array.dtype.kind == "b":
        return array ^ (rng.random(array.shape) < 0.3)
    if array.dtype.kind not in "iuf":
        return value
    spread = 0.5 * (1.0 + float(np.abs(array).max(initial=0.0)))
    return array + spread * rng.standard_normal(array.shape)


def _arguments(helper: Callable, args: tuple, kwargs: dict) -> list:
    """The call's arguments in the helper's parameter order (keywords bound by name)."""
    if not kwargs:
        return list(args)
    try:
        return list(inspect.signature(helper).bind(*args, **kwargs).arguments.values())
    except (TypeError, ValueError):
        return [*args, *kwargs.values()]


def stand_in(helper: Callable, name: str, calls: list, encode: Callable[[Any], dict],
             rng: np.random.Generator | None, depth: list[int] | None = None) -> Callable:
    """``helper`` recording each call in ``calls``; with ``rng``, its results nudged (only a
    call the caller made itself, not one a helper made inside another, whose depth is
    counted in ``depth``). A call that raises is recorded with its error (``raised``), then
    raises on."""
    depth = depth if depth is not None else [0]

    def call(*args: Any, **kwargs: Any) -> Any:
        depth[0] += 1
        try:
            own = helper(*args, **kwargs)
        except Exception as error:
            if len(calls) < MAX_CALLS:
                try:
                    calls.append({"helper": name,
                                  "args": encode(_arguments(helper, args, kwargs)),
                                  "raised": f"{type(error).__name__}: {error}"[:500]})
                except (TypeError, ValueError):
                    calls.append({"helper": name, "unrecorded": True})
            raise
        finally:
            depth[0] -= 1
        given = nudged(own, rng) if rng is not None and depth[0] == 0 else own
        if len(calls) < MAX_CALLS:
            try:
                calls.append({"helper": name, "args": encode(_arguments(helper, args, kwargs)),
                              "own": encode(own), "value": encode(given)})
            except (TypeError, ValueError):
                calls.append({"helper": name, "unrecorded": True})
        return given
    return call


@contextlib.contextmanager
def recording(check: str, targets: tuple, calls: list, encode: Callable[[Any], dict],
              rng: np.random.Generator | None = None) -> Iterator[None]:
    """Swap the caller's helpers for recording stand-ins while the block runs."""
    names = HELPERS.get(check, ())
    space = namespace(targets[0]) if targets else None
    saved = {n: space[n] for n in names if space is not None and callable(space.get(n))}
    depth = [0]
    try:
        for name, helper in saved.items():
            space[name] = stand_in(helper, name, calls, encode, rng, depth)
        yield
    finally:
        for name, helper in saved.items():
            space[name] = helper

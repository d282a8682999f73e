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
import dis
import hashlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

# caller's grade id -> the globals it may call whose results can carry a mistake forward
HELPERS: dict[str, tuple[str, ...]] = {
    "ps1_self_attention_loop": ("softmax",),
    "ps1_softmax_cols": ("softmax",),  # a softmax_cols that applies softmax column by column
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
MAX_FUNCTIONS = 200  # notebook functions followed from one cell's targets
MAX_READ = 8  # notebook globals a hint names per cell
CELL_FILES = ("ipykernel_", "<ipython-input")  # how IPython names the code of one cell


def namespace(target: Any) -> dict | None:
    """The globals the student's function (or the methods of a class) looks names up in."""
    if inspect.isfunction(target):
        return target.__globals__
    if inspect.isclass(target):
        methods = [v for v in vars(target).values() if inspect.isfunction(v)]
        return methods[0].__globals__ if methods else None
    return None


def nudged(value: Any, rng: np.random.Generator) -> Any:
    """``value`` moved by noise of its own size: floats shifted (exact zeros kept), some True
    turned False, items each."""
    if isinstance(value, (list, tuple)):
        return type(value)(nudged(v, rng) for v in value)
    array = np.asarray(value)
    if array.dtype.kind == "b":
        return array & (rng.random(array.shape) >= 0.3)  # True turned False: a mask stays one
    if array.dtype.kind not in "iuf":
        return value
    spread = 0.5 * (1.0 + float(np.abs(array).max(initial=0.0)))
    moved = array + spread * rng.standard_normal(array.shape)
    if np.any(np.isfinite(array) & (array != 0)):  # exact zeros stay: a masked weight stays
        return np.where(array == 0, array, moved)  # masked, a caller's own checks still hold
    return moved


def _arguments(helper: Callable, args: tuple, kwargs: dict) -> list:
    """The call's arguments in the helper's parameter order (keywords bound by name)."""
    if not kwargs:
        return list(args)
    try:
        return list(inspect.signature(helper).bind(*args, **kwargs).arguments.values())
    except (TypeError, ValueError):
        return [*args, *kwargs.values()]


def _weights(shape: tuple, axis: int, rng: np.random.Generator,
             allowed: Any = True) -> np.ndarray:
    """Random weights that sum to 1 along ``axis`` over the ``allowed`` entries (0 else)."""
    w = (rng.random(shape) + 0.1) * np.asarray(allowed, dtype=bool)
    total = w.sum(axis=axis, keepdims=True)
    return w / np.where(total > 0, total, 1.0)


def _columns(a: list) -> tuple[int, int]:
    return np.shape(a[1])[0], np.shape(a[0])[1]  # (D_v, N) of (X, omega_v, ...)


def _mask(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random n x n boolean mask with both values in it (where it has two entries)."""
    mask = rng.random((n, n)) < 0.5
    mask.flat[0], mask.flat[-1] = True, mask.size < 2
    return mask


# helper -> a well-typed random result for its arguments: what a working helper returns,
# in shape and kind, but none of its maths (no reference code enters the kernel)
FAKES: dict[str, Callable[[list, np.random.Generator], Any]] = {
    "softmax": lambda a, r: _weights(np.shape(a[0]), -1, r),
    "softmax_cols": lambda a, r: _weights(np.shape(a[0]), 0, r),
    "masked_softmax_cols": lambda a, r: _weights(np.shape(a[0]), 0, r, a[1]),
    "get_attention_weights": lambda a, r: _weights(np.shape(a[0]), -1, r),
    "single_head_attention": lambda a, r: r.standard_normal(_columns(a)),
    "masked_self_attention": lambda a, r: (r.standard_normal(_columns(a)), _weights(
        (np.shape(a[0])[1],) * 2, 0, r, np.triu(np.ones((np.shape(a[0])[1],) * 2)))),
    "get_scores": lambda a, r: r.standard_normal(np.shape(a[0])[:1]),
    "scale_scores": lambda a, r: r.standard_normal(np.shape(a[0])),
    "get_context_vector": lambda a, r: r.standard_normal(np.shape(a[1])[1:]),
    "causal_mask": lambda a, r: _mask(int(a[0]), r),
    "positional_encoding": lambda a, r: r.standard_normal((int(a[0]), int(a[1]))),
}


def fake(name: str, seed: int, given: list) -> Any:
    """``FAKES``' random result for helper ``name`` on ``given`` (its arguments in its
    parameter order), the same for the same arguments (drawn from a hash of them)."""
    digest = hashlib.sha256(repr([np.asarray(g, dtype=float).tobytes() for g in given])
                            .encode()).digest()
    return FAKES[name](given, np.random.default_rng([seed, *digest[:8]]))


def stand_in(helper: Callable, name: str, calls: list, encode: Callable[[Any], dict],
             rng: np.random.Generator | None, depth: list[int] | None = None,
             seed: int | None = None) -> Callable:
    """``helper`` recording each call in ``calls``; with ``rng``, its results nudged (only a
    call the caller made itself, not one a helper made inside another, whose depth is
    counted in ``depth``); with ``seed``, a random well-typed result instead of the
    student's (``fake``). A call that raises is recorded with its error (``raised``), then
    raises on."""
    depth = depth if depth is not None else [0]

    def encoded(value: Any) -> dict | None:
        try:
            return encode(value)
        except (TypeError, ValueError):
            return None

    def record(passed: dict | None, **result: dict | str | None) -> None:
        """One call's entry: its arguments and result, or "unrecorded" where either failed
        to encode."""
        if len(calls) >= MAX_CALLS:  # full before the call, or filled by nested calls
            return
        whole = passed is not None and all(v is not None for v in result.values())
        calls.append({"helper": name, "args": passed, **result} if whole
                     else {"helper": name, "unrecorded": True})

    def call(*args: Any, **kwargs: Any) -> Any:
        # the arguments as passed, before the helper can overwrite them in place
        passed = None if len(calls) >= MAX_CALLS else encoded(_arguments(helper, args, kwargs))
        depth[0] += 1
        try:
            own = (helper(*args, **kwargs) if seed is None
                   else fake(name, seed, _arguments(helper, args, kwargs)))
        except Exception as error:
            record(passed, raised=f"{type(error).__name__}: {error}"[:500])
            raise
        finally:
            depth[0] -= 1
        given = nudged(own, rng) if rng is not None and depth[0] == 0 else own
        if len(calls) < MAX_CALLS:  # past it, nothing is encoded
            record(passed, own=encoded(own), value=encoded(given))
        return given
    return call


@contextlib.contextmanager
def recording(check: str, targets: tuple, calls: list, encode: Callable[[Any], dict],
              rng: np.random.Generator | None = None, seed: int | None = None
              ) -> Iterator[None]:
    """Swap the caller's helpers for recording stand-ins while the block runs (with
    ``seed``, stand-ins that return random well-typed results, ``fake``)."""
    names = HELPERS.get(check, ())
    space = namespace(targets[0]) if targets else None
    saved = {n: space[n] for n in names if space is not None and callable(space.get(n))}
    depth = [0]
    try:
        for name, helper in saved.items():
            space[name] = stand_in(helper, name, calls, encode, rng, depth, seed)
        yield
    finally:
        for name, helper in saved.items():
            space[name] = helper


def _functions(value: Any) -> list:
    """The Python functions behind a notebook name: itself, or a class's methods."""
    try:
        if inspect.ismethod(value):
            value = value.__func__
        if inspect.isfunction(value):
            return [value]
        if inspect.isclass(value):
            return [getattr(v, "__func__", v) for v in vars(value).values()
                    if inspect.isfunction(getattr(v, "__func__", v))]
    except Exception:  # noqa: BLE001 - a student's object may raise on any access
        pass
    return []


def _names(code: Any, *, loaded: bool = False) -> set[str]:
    """The global and attribute names a function's code (and the code nested in it) uses;
    with ``loaded``, only those it loads as globals (``x.T`` is not the global ``T``)."""
    names = ({i.argval for i in dis.get_instructions(code)
              if i.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(i.argval, str)}
             if loaded else set(code.co_names))
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _names(const, loaded=loaded)
    return names


def origins(targets: tuple) -> dict:
    """Which cell defined the student's targets (IPython's file name for its code), and the
    notebook functions they reach, directly or through each other, that another cell
    defined: name -> that cell's file. The judge charges a mistake made in such a borrowed
    helper at the cell that defined it (``attnkit.judge.charges.borrowed``). ``read``: the
    notebook globals holding data that these functions load, which a hint can name. Nothing
    (an empty record) where a student's object breaks the walk."""
    try:
        return _origins(targets)
    except Exception:  # noqa: BLE001 - a student's object may raise on any access
        return {}


def _origins(targets: tuple) -> dict:
    todo = [f for t in targets for f in _functions(t)]
    own = sorted({f.__code__.co_filename for f in todo})
    borrowed: dict[str, str] = {}
    read: dict[str, str] = {}
    seen: set[int] = set()
    while todo and len(seen) < MAX_FUNCTIONS:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        for name in sorted(_names(fn.__code__)):
            for found in _functions(fn.__globals__.get(name)):
                file = found.__code__.co_filename
                cell = any(mark in file for mark in CELL_FILES)
                if cell or found.__globals__ is fn.__globals__:  # the notebook's, however named
                    todo.append(found)
                if cell and file not in own:
                    borrowed.setdefault(name, file)
        for name in sorted(_names(fn.__code__, loaded=True)):
            if len(read) < MAX_READ and (what := _data(fn.__globals__.get(name))):
                read.setdefault(name, what)
    return {"own": own, "borrowed": borrowed, "read": read}


def _data(value: Any) -> str:
    """A notebook global holding data, in a few words ("8 x 8 array", "5"); "" otherwise."""
    try:
        return _described(value)
    except Exception:  # noqa: BLE001 - a student's object may raise on any access
        return ""


def _described(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return " x ".join(map(str, value.shape)) + " array" if value.ndim else "a number"
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, (np.ndarray, int, float, dict)) for v in value[:8]):
        return f"a list of {len(value)}"
    return ""

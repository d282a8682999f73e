"""How a reported output is compared with an expected one: decoding the probe's payload,
equality up to float tolerance, and shapes said in words."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import numpy as np

from attnkit.judge.wrong import Raised
from attnkit.kernel.cases import Args


def decode(value: Any) -> Any:
    """Inverse of ``attnkit.probe.encode``; tolerant of hostile payloads."""
    if not isinstance(value, dict):
        raise ValueError("malformed probe record")
    if "items" in value:
        return [decode(v) for v in value["items"][:64]]
    shape = tuple(int(s) for s in value["shape"])
    raw = base64.b64decode(value["b64"], validate=True)
    if len(raw) != 8 * int(np.prod(shape, dtype=np.int64)):
        raise ValueError("probe record size does not match its shape")
    return np.frombuffer(raw, dtype="<f8").reshape(shape)


def same(got: Any, want: Any, slack: Any = 0.0, *, rtol: float = 1e-4,
         atol: float = 1e-6) -> bool:
    """Equal up to float tolerance; tuples and lists alike; size-1 axes ignored.

    The tolerance is ``rtol`` plus ``atol`` x (1 + the largest |expected| entry),
    plus ``slack``: extra absolute tolerance, a number or arrays shaped like ``want``
    (``judge`` passes the reference's own sensitivity on ill-conditioned cases;
    slack of another shape is ignored).
    An array whose first axis has one entry per expected item counts as that list
    (``np.array(outputs)`` for a list of outputs). A ``Raised`` (an exception in
    place of a result) matches only another ``Raised``.
    """

    if isinstance(got, Raised) or isinstance(want, Raised):
        return isinstance(got, Raised) and isinstance(want, Raised)
    if got is None or want is None:
        return got is None and want is None
    if isinstance(want, (list, tuple)):
        if isinstance(got, np.ndarray) and got.ndim >= 1 and len(got) == len(want):
            got = list(got)
        slacks = slack if isinstance(slack, (list, tuple)) else [slack] * len(want)
        if len(slacks) != len(want):
            slacks = [0.0] * len(want)  # slack shaped for another structure: none
        return (isinstance(got, (list, tuple)) and len(got) == len(want)
                and all(same(g, w, e, rtol=rtol, atol=atol)
                        for g, w, e in zip(got, want, slacks, strict=True)))
    try:
        if isinstance(got, (list, tuple)):
            got = np.stack([np.asarray(g, dtype=float) for g in got])
        got = np.squeeze(np.asarray(got, dtype=float))
        want = np.squeeze(np.asarray(want, dtype=float))
        extra = np.nan_to_num(np.squeeze(np.asarray(slack, dtype=float)), nan=0.0, posinf=0.0)
    except (ValueError, TypeError):
        return False
    if got.shape != want.shape:
        return False
    if extra.shape not in ((), want.shape):
        extra = 0.0  # slack shaped for another result: none
    finite = np.abs(want[np.isfinite(want)])
    scale = 1.0 + (finite.max() if finite.size else 0.0)
    with np.errstate(all="ignore"):
        close = np.isclose(got, want, rtol=rtol, atol=atol * scale + extra, equal_nan=True)
    return bool(np.all(close))


def shape_of(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        inner = f" arrays of shape {np.shape(value[0])}" if value else ""
        return f"a list of {len(value)}{inner}"
    return f"shape {np.shape(value)}"


def _shape(value: Any) -> tuple:
    """Shape with size-1 axes dropped; lists as a leading axis."""
    if isinstance(value, (list, tuple)):
        return (len(value), *(_shape(value[0]) if value else ()))
    return np.squeeze(np.asarray(value, dtype=float)).shape


def _quietly(fn: Callable[[Args], Any], args: Args) -> Any:
    with np.errstate(all="ignore"):
        return fn(args)


def finite(value: Any) -> bool:
    values = value if isinstance(value, (list, tuple)) else [value]
    return all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in values)

"""``Wrong``: one known mistake of a check, how it is run, and two of them composed.

A ``Wrong`` built with ``variant`` is ``family(args, **params)``: two variants of one family
that set different parameters compose into one with both mistakes, named both (a student's
function with a wrong scale and a softmax shifted by one maximum for the whole matrix).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np

from attnkit.kernel.cases import Args


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
    family: Callable[..., Any] | None = None  # fn is family(args, **params): composable
    params: tuple[tuple[str, Any], ...] = ()
    same_errors: bool = False  # where it crashes, the student's error message must be its own

    def message(self, facts: dict) -> str:
        return self.hint.format_map(_Facts(facts))


def variant(name: str, family: Callable[..., Any], hint: str, credit: float = 0.0,
            **params: Any) -> Wrong:
    """A ``Wrong`` computed by ``family(args, **params)``; two of one family compose."""
    return Wrong(name, partial(family, **params), hint, credit, family=family,
                 params=tuple(params.items()))


def _unwrapped(family: Callable[..., Any]) -> tuple[Callable[..., Any], dict[str, Any]]:
    """A family and the keywords fixed in it (``scaled(family, "sqrt_Dq")``)."""
    if isinstance(family, partial):
        return family.func, dict(family.keywords)
    return family, {}


def compose(one: Wrong, other: Wrong) -> Wrong | None:
    """Both mistakes at once, both named, when they are variants of one family that set
    different parameters; None otherwise."""
    if one.family is None or other.family is None:
        return None
    (fn, fixed), (other_fn, other_fixed) = _unwrapped(one.family), _unwrapped(other.family)
    mine, theirs = dict(one.params), dict(other.params)
    if fn is not other_fn or set(mine) & set(theirs):
        return None
    both = partial(fn, **{**fixed, **other_fixed, **mine, **theirs})
    credit = min(one.credit, other.credit)
    return Wrong(f"{one.name}; {other.name}", both, two_mistakes(one.hint, other.hint, credit),
                 credit)


def two_mistakes(first: str, second: str, credit: float) -> str:
    """Two hints (templates, or each already filled with the case where it shows) as one."""
    first, second = (_KEEP.sub("", h).rstrip(". ") for h in (first, second))
    kept = ": you keep half the points" if credit == 0.5 else ""
    return f"two mistakes. First, {first}. Second, {second}{kept}"


_KEEP = re.compile(r"[:;,.]?\s*(you )?keep half the points")


# The helper calls the probe recorded on the case a variant runs on (``attnkit.judge.carry``'s
# ``Call``: helper, args, own): a caller's variant asks ``helped`` for the student's helper
# result on exactly the arguments the mistake passes, so a caller's own mistake is named
# whatever its (charged) helpers do.
_CALLS: ContextVar[list | None] = ContextVar("attnkit_helper_calls", default=None)


class HelperError(Exception):
    """The student's helper raised on the arguments a variant passed it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _alike(got: Any, want: Any) -> bool:
    try:
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    except (ValueError, TypeError):
        return False
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=1e-7, atol=1e-10,
                                                        equal_nan=True))


def helped(name: str, *given: Any, otherwise: Callable[[], Any]) -> Any:
    """What the student's helper ``name`` returned on ``given`` in this case's recorded calls,
    else ``otherwise()`` (the reference step); raises ``HelperError`` where the helper raised."""
    for call in _CALLS.get() or ():
        if (call.helper == name and len(call.args) == len(given)
                and all(_alike(g, w) for g, w in zip(call.args, given, strict=True))):
            if isinstance(call.own, Raised):
                raise HelperError(call.own.message)
            return call.own
    return otherwise()


@contextmanager
def recorded(calls: list | None) -> Iterator[None]:
    token = _CALLS.set(calls)
    try:
        yield
    finally:
        _CALLS.reset(token)


def run_variant(fn: Callable[[Args], Any], args: Args, calls: list | None = None) -> Any:
    """A variant's output on one case, ``Raised`` where it raises; ``calls`` are the case's
    recorded helper calls (see ``helped``)."""
    with np.errstate(all="ignore"), recorded(calls):
        try:
            return fn(args)
        except HelperError as error:
            return Raised(error.message)
        except Exception as error:  # noqa: BLE001 - a crash is what some mistakes give
            return Raised(f"{type(error).__name__}: {error}")


def pairs(wrongs: tuple[Wrong, ...]) -> tuple[tuple[Wrong, Wrong, Wrong], ...]:
    """Every two composable mistakes of a check: (both composed, one, the other).

    A check's mistakes are the same for every submission, so a grading worker composes them
    once; mistakes with an unhashable parameter are composed afresh each time."""
    try:
        return _pairs(wrongs)
    except TypeError:  # unhashable: composed afresh (a TypeError of composing itself recurs)
        return _pairs.__wrapped__(wrongs)


@lru_cache(maxsize=256)
def _pairs(wrongs: tuple[Wrong, ...]) -> tuple[tuple[Wrong, Wrong, Wrong], ...]:
    out = []
    for i, one in enumerate(wrongs):
        for other in wrongs[i + 1:]:
            both = compose(one, other)
            if both is not None:
                out.append((both, one, other))
    return tuple(out)

"""The replay behind follow-through credit: the reference caller's maths run on the helper
calls the probe recorded (``attnkit.judge.chains``), and the guards that keep a helper's
result from carrying a mistake it cannot carry (a constant, a fixed answer, state).

``attnkit.judge.carry`` decides a cell's credit from these.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from attnkit.judge import reference as ref
from attnkit.judge.chains import Chain
from attnkit.judge.verdicts import decode
from attnkit.judge.wrong import Raised
from attnkit.kernel.cases import Args


class Refused(Exception):
    """Why a cell earns no follow-through: the reason of the guard that refused it."""


class Unlike(Refused):
    """Run on working stand-ins for its helpers, the caller does not give the reference
    maths on their results: a mistake of its own."""


class Misfit(Refused):
    """The helpers' results do not fit the caller's maths: a correct caller raises too."""


class HelperRaised(Exception):
    """The replay reached a recorded helper call that raised."""

    def __init__(self, call: Call) -> None:
        super().__init__(call.helper)
        self.call = call


@dataclass
class Call:
    helper: str
    args: list
    own: Any  # what the student's helper returned
    value: Any  # what the caller got back (``own``, or ``own`` nudged)


def recorded_calls(raw: Any) -> list[Call]:
    if not isinstance(raw, list):
        raise Refused("no helper calls were recorded")
    out = []
    for c in raw:
        if not isinstance(c, dict) or c.get("unrecorded") or not isinstance(c.get("helper"), str):
            continue
        args = decode(c.get("args"))
        args = args if isinstance(args, list) else [args]
        if isinstance(c.get("raised"), str):
            out.append(Call(c["helper"], args, Raised(c["raised"]), Raised(c["raised"])))
            continue
        out.append(Call(c["helper"], args, decode(c.get("own")), decode(c.get("value"))))
    return out


def alike(got: Any, want: Any, close: Any) -> bool:
    """Arguments or results equal up to the check's tolerance (lists of numbers as arrays)."""
    try:
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    except (ValueError, TypeError):
        pass
    return close(got, want)


def replayed(chain: Chain, args: Args, calls: list[Call], close: Any,
             sizes: Mapping[str, Any] | None = None) -> tuple[Any, list[Call]]:
    """The reference caller on the recorded results, and the calls it relied on. ``sizes``
    (the case's, by name) name the numbers of an argument a caller got wrong."""
    used: list[Call] = []

    def call(name: str, *given: Any, otherwise: Any = None) -> Any:
        # a call not yet replayed first: a caller run twice on one case made each call twice
        for c in sorted(calls, key=lambda c: any(c is u for u in used)):
            if (c.helper == name and len(c.args) == len(given)
                    and all(alike(g, w, close) for g, w in zip(c.args, given, strict=True))):
                used.append(c)
                if isinstance(c.own, Raised):
                    raise HelperRaised(c)
                return c.value
        if otherwise is not None and all(c.helper != name for c in calls):
            return otherwise()  # a step the caller did itself, not through the helper
        raise Refused(f"`{name}` was not called with the arguments a correct caller passes"
                      + _differs(name, calls, given, close, sizes or {}))

    with np.errstate(all="ignore"):
        try:
            return chain.replay(args, call), used
        except (Refused, HelperRaised):
            raise
        except Exception as error:  # noqa: BLE001 - a helper result the maths cannot use
            raise Misfit(f"a helper's result does not fit ({type(error).__name__})") from None


def _differs(name: str, calls: list[Call], given: tuple, close: Any,
             sizes: Mapping[str, Any]) -> str:
    """The first argument by which the caller's first call of ``name`` differs from what a
    correct caller passes: its value where that is a number, else its shape."""
    made = next((c for c in calls if c.helper == name and len(c.args) == len(given)), None)
    if made is None:
        return ""
    try:
        params = list(inspect.signature(getattr(ref, name)).parameters)
    except (AttributeError, TypeError, ValueError):
        params = []
    for i, (got, want) in enumerate(zip(made.args, given, strict=True)):
        if alike(got, want, close):
            continue
        what = params[i] if i < len(params) else f"argument {i + 1}"
        if np.ndim(got) == 0 and np.ndim(want) == 0:
            return (f" (it passed {what} = {_number(got, sizes)} where a correct caller "
                    f"passes {_number(want, sizes)})")
        if np.shape(got) != np.shape(want):
            return (f" (it passed {what} of shape {np.shape(got)} where a correct caller passes "
                    f"shape {np.shape(want)})")
        return f" (its {what} has other values than a correct caller passes)"
    return ""


def _number(value: Any, sizes: Mapping[str, Any]) -> str:
    """A number, with the name of the case's size it equals where exactly one does."""
    try:
        number = float(np.asarray(value))
    except (TypeError, ValueError):
        return repr(value)
    names = [k for k, v in sizes.items() if isinstance(v, (int, np.integer)) and v == number]
    return f"{number:g}" + (f" ({names[0]})" if len(names) == 1 else "")


def _items(value: Any) -> list:
    """A helper's result as its parts: a tuple's items, or the one array."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _constant(value: Any) -> bool:
    """Every finite entry the same (zeros, ones, a fixed number), or fewer than two finite
    entries: nothing a caller could be seen to use. Some inf or nan among varied finite
    entries still counts: the caller must then match them."""
    for item in _items(value):
        array = np.asarray(item, dtype=float)
        finite = array[np.isfinite(array)]
        if finite.size < 2 or np.ptp(finite) == 0:
            return True
    return False


def entries(value: Any) -> int:
    return sum(int(np.size(item)) for item in _items(value))


def _saturated(value: Any) -> bool:
    entries = np.concatenate([np.ravel(np.asarray(item, dtype=float))
                              for item in _items(value)])
    finite = entries[np.isfinite(entries)]
    return bool(np.all(np.isclose(finite, 0, atol=1e-6) | np.isclose(finite, 1, atol=1e-6)))


def some_finite(value: Any) -> bool:
    return any(np.isfinite(np.asarray(item, dtype=float)).any() for item in _items(value))


def degenerate(used: list[Call], output: Any, close: Any, overflow: bool = False) -> str | None:
    """Why the helper results a caller relied on cannot carry a mistake forward, or None.
    On a large-logit case (``overflow``) an overflowing helper's result may be all inf, nan
    and zeros: only the other cases must show a result that varies."""
    for c in used:
        if not overflow and _constant(c.own):
            return f"`{c.helper}` returned a constant (or no finite) result"
        if alike(c.own, output, close):
            return f"`{c.helper}` returned the caller's own output"
    return None


def _shape(value: Any) -> tuple:
    if isinstance(value, (list, tuple)):
        return tuple(_shape(v) for v in value)
    return np.shape(value)


def ignores_input(used: list[Call], close: Any) -> str | None:
    """A helper that gave one result for all the different arguments of one shape of result,
    over all cases: a fixed answer cut to size, not a function of its input. ``_carried``
    leaves out the large-logit cases: there a softmax, right or overflowing, gives one
    pattern (0 and 1, or nan where the largest score is) for many arguments; elsewhere too, a
    saturated result (every finite entry 0 or 1: one score far above the others) says
    nothing, since the right softmax gives it for many arguments as well."""
    groups: dict[tuple, list[Call]] = {}
    for c in used:
        if _saturated(c.own):
            continue
        groups.setdefault((c.helper, _shape(c.own)), []).append(c)
    for (name, _), calls in groups.items():
        first, rest = calls[0], calls[1:]
        if (any(not alike(c.args, first.args, close) for c in rest)
                and all(alike(c.own, first.own, close) for c in rest)):
            return f"`{name}` returns the same result whatever it is given"
    return None


def stateless(plain: list[Call], nudged: list[Call], close: Any) -> bool:
    """The helper answered the same arguments the same way in both runs."""
    return all(alike(n.own, p.own, close) for n in nudged for p in plain
               if n.helper == p.helper and len(n.args) == len(p.args)
               and alike(n.args, p.args, close))

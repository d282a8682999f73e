"""Why a failing answer fails: a known mistake (or two) that gives it on every case, else
the facts the outputs show (a crash, notebook-only, overflow, shape, inf/nan, sums, values)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from attnkit.judge.chains import CHAINS
from attnkit.judge.check import Check
from attnkit.judge.compare import _shape, same, shape_of
from attnkit.judge.compare import finite as _finite
from attnkit.judge.crashes import SIZES, crash_reading, reshaped_by_helper, sizes_of
from attnkit.judge.misconceptions import Raised, describe, run_variant
from attnkit.judge.wrong import Wrong, pairs, two_mistakes
from attnkit.kernel.cases import Case


def explain(check: Check, cases: list[Case], got: list[Any], ok: list[bool],
             expected: list[Any], slack: list[Any] | None = None,
             calls: list[list | None] | None = None) -> tuple[str, float, str | None]:
    """Why a check failed: (hint, fraction of the points kept, misconception name).

    A known misconception that matches every case names the mistake; otherwise
    invariants do (crash, overflow, notebook-only, shape, inf/nan, weights that
    do not sum to 1, True/False, values), with the numbers of the first failing case.
    ``slack`` is the per-case extra tolerance ``judge`` allowed (ill-conditioned cases);
    ``calls`` the helper calls recorded per case, which a caller's variants replay.
    """
    close = partial(same, rtol=check.rtol, atol=check.atol)
    first = next(i for i, passed in enumerate(ok) if not passed)
    case, value, want = cases[first], got[first], expected[first]
    facts = describe(case)
    order = [first] + [i for i in range(len(cases)) if i != first]  # most variants differ there
    # A caller right given its helpers (a family with nothing done wrong, through the
    # recorded helper calls) shows no mistake of its own: no variant is evidence then.
    helped = bool(calls) and any(c for c in calls or ())
    families = {id(w.family): w.family for w in check.wrong if w.family is not None}
    rights = [f for f in families.values() if helped and all(  # the family's default is right
        close(run_variant(f, c.args), e) for c, e in zip(cases, expected, strict=True))]
    right_given = any(_matches(Wrong("right", f, ""), cases, got, order, close, slack, calls)
                      for f in rights)
    def shown() -> dict:
        """The facts of the first failing case where the caller's own mistake shows (its
        result is not what a right caller makes of its helpers' results there)."""
        if not rights:
            return facts
        family = rights[0]
        for i in (k for k, passed in enumerate(ok) if not passed):
            if not close(got[i], run_variant(family, cases[i].args, calls[i])):
                return describe(cases[i])
        return facts

    def both_shown(one: Wrong, other: Wrong) -> dict | None:
        """The facts of the first failing case where each of two mistakes shows (the
        student's result is neither mistake's alone), so the hint's numbers tell them apart."""
        for i in (k for k, passed in enumerate(ok) if not passed):
            mine = calls[i] if calls else None
            if all(not close(got[i], run_variant(w.fn, cases[i].args, mine))
                   for w in (one, other)):
                return describe(cases[i])
        return None

    for wrong in () if right_given else check.wrong:  # one mistake, then two in one function
        if wrong.fn is not None and _matches(wrong, cases, got, order, close, slack, calls):
            return wrong.message(shown()), wrong.credit, wrong.name

    def where_shows(one: Wrong) -> dict | None:
        """The facts of the first failing case where this one mistake changes the result."""
        for i in (k for k, passed in enumerate(ok) if not passed):
            if not close(run_variant(one.fn, cases[i].args, calls[i] if calls else None),
                         expected[i]):
                return describe(cases[i])
        return None

    for both, one, other in () if right_given else pairs(check.wrong):
        if _matches(both, cases, got, order, close, slack, calls):
            alone = [where_shows(one), where_shows(other)]
            if all(alone) and alone[0] != alone[1]:  # each named on a case where it shows
                return (two_mistakes(one.message(alone[0]), other.message(alone[1]),
                                     both.credit), both.credit, both.name)
            return both.message(both_shown(one, other) or shown()), both.credit, both.name

    def parts(v: Any) -> list[np.ndarray]:
        items = v if isinstance(v, (list, tuple)) else [v]
        return [np.asarray(p, dtype=float) for p in items]

    def finite(v: Any) -> bool:
        try:
            return _finite(v)
        except (ValueError, TypeError):  # ragged nested lists
            return False

    pinned = [p for p, c in zip(ok, cases, strict=True) if c.pinned]
    fresh = [p for p, c in zip(ok, cases, strict=True) if not c.pinned]
    notebook_only = bool(pinned) and all(pinned) and bool(fresh) and not any(fresh)
    if isinstance(value, Raised):
        error = value.message
        if error.startswith("TypeError: returned NoneType"):
            error = "nothing (None): is the `return` statement missing?"
            return f"on {case.name} your function returned {error}", 0.0, "error"
        if notebook_only:
            return (f"correct on the notebook's data, but on fresh inputs ({case.name}) your "
                    f"code raised {error[:300]}. The hidden test uses other sizes: compute "
                    "everything from the arguments, with no notebook globals (such as N, D, "
                    f"n or a weight matrix) and no sizes typed in{sizes_named(error, facts)}",
                    0.0, "hard-coded")
        columns = "softmax_cols" in getattr(CHAINS.get(check.id), "helpers", {})
        reading = (reshaped_by_helper(calls[first] if calls else None, facts, columns)
                   or crash_reading(error, facts))
        if reading:
            return reading, 0.0, "error"
        return (f"your code raised {error[:300]} on {case.name}{sizes_named(error, facts)}",
                0.0, "error")
    if all(p or c.large for p, c in zip(ok, cases, strict=True)) and not finite(value):
        where = f" (the scores reach {facts['smax']})" if "smax" in facts else (
            f" (the largest score is {facts['zmax']})" if "zmax" in facts else "")
        return (f"correct except on {case.name}{where}: your result contains inf or nan "
                "there. np.exp(z) is inf above z = 709 and 0 below z = -745, so a softmax "
                "stays finite only when each column (or row) it normalises is shifted by its "
                "own maximum before np.exp: you keep half the points", 0.5, "overflow")
    if notebook_only:
        return (f"correct on the notebook's data but wrong on every fresh input (first: "
                f"{case.name}): the function must compute everything from its arguments, not "
                "from notebook globals or numbers typed in, and work for any shape", 0.0,
                "hard-coded")
    if _shape(value) != _shape(want):
        return (f"on {case.name} your result has {shape_of(value)}; expected "
                f"{shape_of(want)}", 0.0, "wrong shape")
    if not finite(value):
        return f"on {case.name} your result contains inf or nan", 0.0, "not finite"
    if isinstance(want, (bool, np.bool_)):
        return (f"for the map '{case.name}' you answered {bool(np.ravel(value)[0])}; the "
                f"right answer is {bool(want)}", 0.0, "wrong answer")
    for mine, right in zip(parts(value), parts(want), strict=False):
        mine, right = np.squeeze(mine), np.squeeze(right)
        if right.size < 2 or mine.shape != right.shape or right.min() < 0:
            continue
        for axis in (0, -1):
            if (np.allclose(right.sum(axis=axis), 1)
                    and not np.allclose(mine.sum(axis=axis), 1, atol=1e-6)):
                sums = np.array2string(np.atleast_1d(mine.sum(axis=axis)), precision=3,
                                       threshold=8)
                which = ("the sums of your weights are" if right.ndim == 1 else
                         f"the {'column' if axis == 0 else 'row'} sums of your weights are")
                return (f"on {case.name} {which} {sums}, not 1: divide the exponentials by "
                        "their sum along the axis the softmax runs over", 0.0, "not normalised")
    worst, where = 0.0, ""
    for k, (mine, right) in enumerate(zip(parts(value), parts(want), strict=False)):
        mine, right = np.squeeze(mine), np.squeeze(right)
        if mine.shape == right.shape and mine.size:
            gap = np.abs(mine - right)
            index = np.unravel_index(int(np.argmax(gap)), gap.shape)
            if gap[index] > worst:
                worst = float(gap[index])
                label = f"item {k}, " if isinstance(want, (list, tuple)) else ""
                where = (f" (largest difference {worst:.3g} at {label}entry "
                         f"{tuple(int(i) for i in index)}: yours {mine[index]:.6g}, expected "
                         f"{right[index]:.6g})")
    return (f"on {case.name} your result has the right shape but different values{where}",
            0.0, "values differ")


_SHAPE = re.compile(r"\((\d+(?:,\s*\d+)*),?\)")
_SIZE = re.compile(r"size (\d+) is different from (\d+)")


def sizes_named(error: str, facts: dict[str, Any]) -> str:
    """What the shapes in an error message are, in the case's sizes: "(4,4) is D x D, (5,5)
    is N x N". Only numbers that are a size of the case are named (D and N first)."""
    def word(n: int) -> str | None:
        names = [k for k in SIZES if facts.get(k) == n]
        return names[0] if names and not {"D", "N"} <= set(names) else None

    said = []
    for match in _SHAPE.finditer(error):
        dims = [int(x) for x in match.group(1).split(",")]
        words = [word(x) for x in dims]
        if all(words):
            said.append(f"{match.group(0)} is {' x '.join(words)}")  # type: ignore[arg-type]
    for match in _SIZE.finditer(error):
        words = [word(int(x)) for x in match.groups()]
        if all(words):
            said.append(f"sizes {match.group(1)} and {match.group(2)} are {words[0]} and "
                        f"{words[1]}, which an @ would need to be equal")
    if not said:
        return ""
    return f" (with {sizes_of(facts)}: {'; '.join(said)})"


def _overflowed(got: Any, out: Any, calls: list | None) -> Any:
    """Where the student's code raised OverflowError (math.exp, float arithmetic) and the
    variant's numpy overflowed to inf or nan, the same mistake: the student's error (unless
    it is a recorded helper call's, a mistake of the helper)."""
    if (isinstance(got, Raised) and got.message.startswith("OverflowError")
            and not isinstance(out, Raised)
            and not any(isinstance(c.own, Raised) and c.own.message == got.message
                        for c in calls or ())):
        try:
            if not _finite(out):
                return got
        except (ValueError, TypeError):
            pass
    return out


def _matches(wrong: Wrong, cases: list[Case], got: list[Any], order: list[int],
             close: Callable[..., bool], slack: list[Any] | None,
             calls: list[list | None] | None = None) -> bool:
    """The variant gives the student's output on every case; a mistake that crashes
    everywhere (or, with ``same_errors``, anywhere) names something only when every error
    message is the variant's own."""
    outs = []
    for i in order:
        mine = calls[i] if calls else None
        outs.append(_overflowed(got[i], run_variant(wrong.fn, cases[i].args, mine), mine))
        if not close(got[i], outs[-1], slack[i] if slack else 0.0):
            return False
        crashed = isinstance(outs[-1], Raised)
        if wrong.same_errors and crashed and not same_error(got[i].message, outs[-1].message):
            return False
    return (not all(isinstance(o, Raised) for o in outs)
            or all(same_error(got[i].message, o.message)
                   for i, o in zip(order, outs, strict=True)))


_NOTE = re.compile(r" \[operands [^\]]*\]$")  # variants.times's note on a failed @
_REMAPPED = re.compile(r"->\([^)]*\)")


def _operands(message: str) -> tuple[str, frozenset[tuple[int, ...]]]:
    """An error's type and the operand shapes it names (einsum's remapped shapes left out)."""
    kind = message.split(":", 1)[0]
    shapes = frozenset(tuple(int(x) for x in m.group(1).split(","))
                       for m in _SHAPE.finditer(_REMAPPED.sub("", message)))
    return kind, shapes


def same_error(mine: str, theirs: str) -> bool:
    """The same crash: the same message, or the same error type naming the same operand
    shapes in any order (``a + b`` and ``b + a``, ``@`` and ``np.einsum`` on one pair)."""
    if mine == theirs or mine == _NOTE.sub("", theirs):
        return True
    (kind, shapes), (their_kind, their_shapes) = _operands(mine), _operands(theirs)
    return kind == their_kind and len(shapes) >= 2 and shapes == their_shapes

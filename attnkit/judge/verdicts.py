"""Verdicts: a check's outputs, as the probe reported them, judged outside the kernel.

``judge`` finds the cell's check by grade id, rebuilds its inputs from the
grading seed, computes the reference answer, and compares the outputs the probe
reported. A failing answer is compared with the check's known misconceptions so
the feedback can name the likely mistake; otherwise invariants (shape,
finiteness) explain it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from attnkit.judge.check import Check
from attnkit.judge.misconceptions import Raised, describe, run_variant
from attnkit.judge.requirements import Requirement, broken_requirements, unmet
from attnkit.judge.wrong import Wrong, pairs
from attnkit.kernel.cases import Args, Case


@dataclass
class Verdict:
    check: str
    score: float
    points: float
    message: str
    passed: list[bool] = field(default_factory=list)
    misconception: str | None = None

    @property
    def full(self) -> bool:
        return self.score >= self.points


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



# ------------------------------------------------------------ verdicts


def _explain(check: Check, cases: list[Case], got: list[Any], ok: list[bool],
             expected: list[Any], slack: list[Any] | None = None
             ) -> tuple[str, float, str | None]:
    """Why a check failed: (hint, fraction of the points kept, misconception name).

    A known misconception that matches every case names the mistake; otherwise
    invariants do (crash, overflow, notebook-only, shape, inf/nan, weights that
    do not sum to 1, True/False, values), with the numbers of the first failing case.
    ``slack`` is the per-case extra tolerance ``judge`` allowed (ill-conditioned cases).
    """
    close = partial(same, rtol=check.rtol, atol=check.atol)
    first = next(i for i, passed in enumerate(ok) if not passed)
    case, value, want = cases[first], got[first], expected[first]
    facts = describe(case)
    order = [first] + [i for i in range(len(cases)) if i != first]  # most variants differ there
    for wrong in check.wrong:  # one known mistake, then two in one function
        if wrong.fn is not None and _matches(wrong, cases, got, order, close, slack):
            return wrong.message(facts), wrong.credit, wrong.name
    for both in pairs(check.wrong):
        if _matches(both, cases, got, order, close, slack):
            return both.message(facts), both.credit, both.name

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
                    "n or a weight matrix) and no sizes typed in", 0.0, "hard-coded")
        return f"your code raised {error[:300]} on {case.name}", 0.0, "error"
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


def _matches(wrong: Wrong, cases: list[Case], got: list[Any], order: list[int],
             close: Callable[..., bool], slack: list[Any] | None) -> bool:
    """The variant gives the student's output on every case; a mistake that crashes
    everywhere (or, with ``same_errors``, anywhere) names something only when every error
    message is the variant's own."""
    outs = []
    for i in order:
        outs.append(run_variant(wrong.fn, cases[i].args))
        if not close(got[i], outs[-1], slack[i] if slack else 0.0):
            return False
        crashed = isinstance(outs[-1], Raised)
        if wrong.same_errors and crashed and got[i].message != outs[-1].message:
            return False
    return (not all(isinstance(o, Raised) for o in outs)
            or all(got[i].message == o.message for i, o in zip(order, outs, strict=True)))


def _finite(value: Any) -> bool:
    values = value if isinstance(value, (list, tuple)) else [value]
    return all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in values)


TAMPERED = ("the hidden check's results were tampered with (records that another call "
            "made, duplicated, extra or out of order): this cell scores 0")


def _one_call(records: list, check_id: str, seed: int) -> bool:
    """True if ``records`` are one probe call's, for this check and seed, cases 0, 1, ...
    each once and in order (a prefix: a call cut short by a crash is still one call)."""
    if not all(isinstance(r, dict) for r in records):
        return False
    calls = {r.get("call") for r in records}
    return (len(calls) == 1 and all(isinstance(c, str) for c in calls)
            and all(r.get("check") == check_id and r.get("seed") == seed
                    and r.get("case") == i and not isinstance(r.get("case"), bool)
                    for i, r in enumerate(records)))


def drawn_cases(check: Check, seed: int) -> list[Case]:
    """The check's cases for ``seed``; numpy's global random state is left as it was."""
    state = np.random.get_state()
    try:
        return check.probe.cases(seed)
    finally:
        np.random.set_state(state)


def judge(check_id: str, seed: int, records: list[dict], points: float) -> Verdict:
    """Score one graded cell from the probe records its execution displayed.

    Records are untrusted: they must be exactly one probe call's, for this check
    and seed, one per case in order (``_one_call``); anything else, and a payload
    that does not decode, costs the cell its points (never the grader a crash).
    Partial credit: a per-case check scores the fraction of cases right; a
    known mistake keeps its ``Wrong.credit``; overflow on large logits only
    keeps half; anything else scores 0.
    """
    from attnkit.judge.registry import checks

    check = checks()[check_id]
    close = partial(same, rtol=check.rtol, atol=check.atol)
    cases = drawn_cases(check, seed)
    records = list(records) if isinstance(records, (list, tuple)) else []
    if not records:
        return Verdict(check_id, 0.0, points, "the hidden check did not run: make sure the "
                       "cells above run without errors and define the required names")
    if not _one_call(records, check_id, seed):
        return Verdict(check_id, 0.0, points, TAMPERED, misconception="tampered")
    got: list[Any] = []
    for index, case in enumerate(cases):
        if index >= len(records):
            return Verdict(check_id, 0.0, points, f"the check stopped before case '{case.name}' "
                           "(time limit or crash)")
        record = records[index]
        if "error" in record:
            got.append(Raised(str(record["error"])[:500]))
            continue
        try:
            got.append(decode(record.get("value")))
        except Exception as error:  # noqa: BLE001 - a hostile payload must not crash grading
            return Verdict(check_id, 0.0, points,
                           f"unreadable result on {case.name}: {type(error).__name__}")
    if check.statistical:
        for value, case in zip(got, cases, strict=True):
            if isinstance(value, Raised):
                return Verdict(check_id, 0.0, points,
                               f"your code raised {value.message[:300]} on {case.name}",
                               misconception="error")
            try:
                problem = check.statistical(value, case.args)
            except Exception as error:  # noqa: BLE001 - malformed output (ragged lists...)
                problem = f"unreadable result ({type(error).__name__})"
            if not problem:
                continue
            for wrong in check.wrong:
                try:
                    shown = wrong.test is not None and all(
                        wrong.test(g, c.args) for g, c in zip(got, cases, strict=True))
                except Exception:  # noqa: BLE001 - malformed output: no diagnosis
                    shown = False
                if shown:
                    return Verdict(check_id, round(points * wrong.credit, 2), points,
                                   f"{case.name}: {problem}. {wrong.message(describe(case))}",
                                   misconception=wrong.name)
            return Verdict(check_id, 0.0, points, f"{case.name}: {problem}",
                           misconception="statistics")
        broken = broken_requirements(check.require, got, cases, records)
        if broken:
            return _unmet(check_id, points, broken, [True] * len(cases))
        return Verdict(check_id, points, points, f"correct on all {len(cases)} cases",
                       [True] * len(cases))
    expected = [_quietly(check.reference, c.args) for c in cases]
    ok = [close(g, w) for g, w in zip(got, expected, strict=True)]
    slack: list[Any] = [0.0] * len(cases)

    def jitter(value: Any, rng: np.random.Generator) -> Any:
        """The case's inputs with every float moved by about 1e-6 of itself."""
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            return value * (1 + 1e-6 * rng.standard_normal(value.shape))
        if isinstance(value, float):
            return value * (1 + 1e-6 * rng.standard_normal())
        if isinstance(value, (list, tuple)):
            return type(value)(jitter(v, rng) for v in value)
        if isinstance(value, dict):
            return {k: jitter(v, rng) for k, v in value.items()}
        return value

    def spread(want: Any, *runs: Any) -> Any:
        if isinstance(want, (list, tuple)):
            return [spread(*parts) for parts in zip(want, *runs, strict=True)]
        want = np.asarray(want, dtype=float)
        return 4 * np.max([np.abs(np.asarray(r, dtype=float) - want) for r in runs], axis=0)

    # An ill-conditioned case (large logits, nearly tied scores) amplifies rounding: a
    # float32 computation may differ from the float64 reference by more than rtol there.
    # Allow 4x what perturbing the inputs by 1e-6 (16x float32's rounding) does to the
    # reference itself; well-conditioned cases keep the plain tolerance.
    for i, (value, case) in enumerate(zip(got, cases, strict=True)):
        if ok[i] or isinstance(value, Raised):
            continue
        try:
            rng = np.random.default_rng([seed % 2**32, i])
            slack[i] = spread(expected[i], *(_quietly(check.reference, jitter(case.args, rng))
                                             for _ in range(2)))
            ok[i] = close(value, expected[i], slack[i])
        except Exception:  # noqa: BLE001 - no slack for odd outputs
            slack[i] = 0.0
    audited = [any(r.audit(c) for r in check.require) for c in cases]
    right = [g if o or a else None for g, o, a in zip(got, ok, audited, strict=True)]
    if check.per_case:
        return _per_case(check, points, got, cases, ok, records)
    broken = broken_requirements(check.require, right, cases, records)
    if broken:  # a broken requirement explains the cases that audit it
        ok = [o or any(r.audit(c) for r, _ in broken) for o, c in zip(ok, cases, strict=True)]
        if all(ok):
            return _unmet(check_id, points, broken, ok)
    if all(ok):
        return Verdict(check_id, points, points, f"correct on all {len(cases)} cases", ok)
    try:
        hint, credit, name = _explain(check, cases, got, ok, expected, slack)
    except Exception:  # noqa: BLE001 - a malformed result must not crash grading
        first = next(c for c, passed in zip(cases, ok, strict=True) if not passed)
        hint, credit, name = f"your result on {first.name} is not right", 0.0, "values differ"
    if broken:  # both mistakes, each named
        also, kept, names = unmet(broken)
        hint, name, credit = f"{hint}. Also: {also}", f"{name}; {names}", min(credit, kept)
    return Verdict(check_id, round(points * credit, 2), points, hint, ok, name)


def _per_case(check: Check, points: float, got: list[Any], cases: list[Case], ok: list[bool],
              records: list[dict]) -> Verdict:
    """Independent questions: each case keeps its share of the points, a right answer that
    breaks a stated requirement its requirement's credit; every wrong part is named."""
    close = partial(same, rtol=check.rtol, atol=check.atol)
    notes, named, shares = [], [], []
    for value, case, passed, record in zip(got, cases, ok, records, strict=True):
        if passed:
            broken = broken_requirements(check.require, [value], [case], [record])
            if broken:
                note, credit, names = unmet(broken)
                notes.append(note)
                named.append(names)
            shares.append(min((r.credit for r, _ in broken), default=1.0))
            continue
        shares.append(0.0)
        note = (f"{case.name}: your code raised {value.message[:200]}"
                if isinstance(value, Raised) else f"{case.name} is not right")
        for wrong in check.wrong:
            out = run_variant(wrong.fn, case.args) if wrong.fn else None
            if out is not None and not isinstance(out, Raised) and close(value, out):
                note = wrong.message(describe(case))
                named.append(wrong.name)
                break
        notes.append(note)
    if not notes:
        return Verdict(check.id, points, points, f"correct on all {len(cases)} cases", ok)
    right = sum(share == 1.0 for share in shares)
    return Verdict(check.id, round(points * sum(shares) / len(shares), 2), points,
                   f"{right} of {len(shares)} right; " + "; ".join(notes), ok,
                   "; ".join(named) or "values differ")


def _unmet(check_id: str, points: float, broken: list[tuple[Requirement, str]],
           ok: list[bool]) -> Verdict:
    message, credit, names = unmet(broken)
    return Verdict(check_id, round(points * credit, 2), points, message, ok, names)

"""Verdicts: a check's outputs, as the probe reported them, judged outside the kernel.

``judge`` finds the cell's check by grade id, rebuilds its inputs from the
grading seed, computes the reference answer, and compares the outputs the probe
reported. A failing answer is compared with the check's known misconceptions so
the feedback can name the likely mistake; otherwise invariants (shape,
finiteness) explain it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from attnkit.judge.check import Check
from attnkit.judge.compare import _quietly, decode, same, shape_of
from attnkit.judge.compare import finite as _finite
from attnkit.judge.crashes import crash_reading
from attnkit.judge.explain import explain
from attnkit.judge.misconceptions import Raised, describe, run_variant
from attnkit.judge.requirements import Requirement, broken_requirements, unmet
from attnkit.kernel.cases import Case

__all__ = ["TAMPERED", "Verdict", "_finite", "decode", "drawn_cases", "judge", "same",
           "shape_of"]


@dataclass
class Verdict:
    check: str
    score: float
    points: float
    message: str
    passed: list[bool] = field(default_factory=list)
    misconception: str | None = None
    # where the values are wrong and a stated requirement is broken too: the requirement's
    # own (hint, credit, names), which stand alone if the values are carried from a helper
    unmet: tuple[str, float, str] | None = None

    @property
    def full(self) -> bool:
        return self.score >= self.points



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
                return Verdict(check_id, 0.0, points, crash_reading(
                    value.message, describe(case)) or
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
        broken = broken_requirements(check.requirements, got, cases, records)
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
    audited = [any(r.audit(c) for r in check.requirements) for c in cases]
    right = [g if o or a else None for g, o, a in zip(got, ok, audited, strict=True)]
    if check.per_case:
        return _per_case(check, points, got, cases, ok, records)
    broken = broken_requirements(check.requirements, right, cases, records)
    if broken:  # a broken requirement explains the cases that audit it
        ok = [o or any(r.audit(c) for r, _ in broken) for o, c in zip(ok, cases, strict=True)]
        if all(ok):
            return _unmet(check_id, points, broken, ok)
    if all(ok):
        return Verdict(check_id, points, points, f"correct on all {len(cases)} cases", ok)
    try:
        hint, credit, name = explain(check, cases, got, ok, expected, slack,
                                     helper_calls(records))
    except Exception:  # noqa: BLE001 - a malformed result must not crash grading
        first = next(c for c, passed in zip(cases, ok, strict=True) if not passed)
        hint, credit, name = f"your result on {first.name} is not right", 0.0, "values differ"
    if name == "hard-coded" and (read := globals_read(records)):
        hint += (f". Your code reads the notebook's global{'s' * (len(read) > 1)} " + ", ".join(
            f"`{n}` ({what})" for n, what in read.items()) + ", the same whatever the "
            "arguments hold")
    if broken:  # both mistakes, each named
        also, kept, names = unmet(broken)
        hint, name, credit = f"{hint}. Also: {also}", f"{name}; {names}", min(credit, kept)
        return Verdict(check_id, round(points * credit, 2), points, hint, ok, name,
                       (also, kept, names))
    return Verdict(check_id, round(points * credit, 2), points, hint, ok, name)


def cells_record(records: list) -> dict:
    """The probe's record of where a cell's functions come from (``attnkit.kernel.carry.
    origins``), as the first record carries it; {} where it is missing or malformed."""
    cells = records[0].get("cells") if records and isinstance(records[0], dict) else None
    return cells if isinstance(cells, dict) else {}


def globals_read(records: list) -> dict[str, str]:
    """The notebook globals holding data that the cell's functions load (the probe's
    record): name -> what it holds, in a few words."""
    read = cells_record(records).get("read")
    if not isinstance(read, dict):
        return {}
    return {n: w for n, w in list(read.items())[:8] if isinstance(n, str) and n.isidentifier()
            and len(n) <= 40 and isinstance(w, str) and re.fullmatch(r"[\w .+-]{1,30}", w)}


def helper_calls(records: list[dict]) -> list[list | None]:
    """The helper calls the probe recorded per case (a caller's), None where there are none."""
    from attnkit.judge.replay import recorded_calls

    out: list[list | None] = []
    for record in records:
        try:
            out.append(recorded_calls(record.get("calls")) if isinstance(record, dict) else None)
        except Exception:  # noqa: BLE001 - an odd record gives no calls (Refused too)
            out.append(None)
    return out


def _per_case(check: Check, points: float, got: list[Any], cases: list[Case], ok: list[bool],
              records: list[dict]) -> Verdict:
    """Independent questions: each case keeps its share of the points, a right answer that
    breaks a stated requirement its requirement's credit; every wrong part is named."""
    close = partial(same, rtol=check.rtol, atol=check.atol)
    notes, named, shares = [], [], []
    for value, case, passed, record in zip(got, cases, ok, records, strict=True):
        if passed:
            share = 1.0
            if broken := broken_requirements(check.requirements, [value], [case], [record]):
                note, share, names = unmet(broken)
                notes.append(note)
                named.append(names)
            shares.append(share)
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

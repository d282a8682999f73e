"""Follow-through credit (error carried forward): a cell that is right given the student's
own helpers keeps its points, and a helper's mistake is charged once, where it is.

The probe records, case by case, every call the caller made to its helpers (arguments and
result) and runs the caller again with the helpers' results nudged by noise
(``attnkit.kernel.carry``). Here, outside the kernel, the caller's reference maths is
replayed on those recorded results (``attnkit.judge.chains``). The caller earns follow-through
only when all of these hold, so that it cannot be bought:

* a helper of the chain lost points at its own cell (a right helper earns nothing extra);
* every helper call the reference caller makes was made, with the right arguments;
* the caller's output is the replay's, in the plain run and in the nudged one (it really
  uses what its helpers return, not an answer of its own);
* the helper gave the same result for the same arguments in both runs (no state);
* no helper result it relies on is degenerate: constant (zeros, a fixed number, nothing
  finite; large-logit cases, where a helper may overflow, excepted), the same whatever the
  arguments, or the caller's own output.

A case where a helper raised counts as right when the caller made every call a correct caller
makes up to it, with the right arguments, and let the helper's error through unchanged, in the
plain run and the nudged one. Where that cannot be shown (the caller raised on every case, or
on a helper result it cannot use: a float mask, a shape) the caller is judged on a third run,
with working stand-ins for its helpers that return random results of the right shape and kind:
it must give the reference maths on those, so it is right whatever a working helper returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from attnkit.judge.chains import CHAINS, Chain
from attnkit.judge.charges import MISCONCEPTION, UNNAMED, Charged, borrowed, origins
from attnkit.judge.verdicts import Verdict, decode, drawn_cases, same
from attnkit.judge.wrong import Raised
from attnkit.kernel.cases import Args, Case


class Refused(Exception):
    """Why a cell earns no follow-through: the reason of the guard that refused it."""


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


def _calls(raw: Any) -> list[Call]:
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


def _alike(got: Any, want: Any, close: Any) -> bool:
    """Arguments or results equal up to the check's tolerance (lists of numbers as arrays)."""
    try:
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    except (ValueError, TypeError):
        pass
    return close(got, want)


def replayed(chain: Chain, args: Args, calls: list[Call], close: Any) -> tuple[Any, list[Call]]:
    """The reference caller on the recorded results, and the calls it relied on."""
    used: list[Call] = []

    def call(name: str, *given: Any, otherwise: Any = None) -> Any:
        # a call not yet replayed first: a caller run twice on one case made each call twice
        for c in sorted(calls, key=lambda c: any(c is u for u in used)):
            if (c.helper == name and len(c.args) == len(given)
                    and all(_alike(g, w, close) for g, w in zip(c.args, given, strict=True))):
                used.append(c)
                if isinstance(c.own, Raised):
                    raise HelperRaised(c)
                return c.value
        if otherwise is not None and all(c.helper != name for c in calls):
            return otherwise()  # a step the caller did itself, not through the helper
        raise Refused(f"`{name}` was not called with the arguments a correct caller passes")

    with np.errstate(all="ignore"):
        try:
            return chain.replay(args, call), used
        except (Refused, HelperRaised):
            raise
        except Exception as error:  # noqa: BLE001 - a helper result the maths cannot use
            raise Misfit(f"a helper's result does not fit ({type(error).__name__})") from None


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


def _entries(value: Any) -> int:
    return sum(int(np.size(item)) for item in _items(value))


def _saturated(value: Any) -> bool:
    entries = np.concatenate([np.ravel(np.asarray(item, dtype=float))
                              for item in _items(value)])
    finite = entries[np.isfinite(entries)]
    return bool(np.all(np.isclose(finite, 0, atol=1e-6) | np.isclose(finite, 1, atol=1e-6)))


def _some_finite(value: Any) -> bool:
    return any(np.isfinite(np.asarray(item, dtype=float)).any() for item in _items(value))


def degenerate(used: list[Call], output: Any, close: Any, overflow: bool = False) -> str | None:
    """Why the helper results a caller relied on cannot carry a mistake forward, or None.
    On a large-logit case (``overflow``) an overflowing helper's result may be all inf, nan
    and zeros: only the other cases must show a result that varies."""
    for c in used:
        if not overflow and _constant(c.own):
            return f"`{c.helper}` returned a constant (or no finite) result"
        if _alike(c.own, output, close):
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
        if (any(not _alike(c.args, first.args, close) for c in rest)
                and all(_alike(c.own, first.own, close) for c in rest)):
            return f"`{name}` returns the same result whatever it is given"
    return None


def _stateless(plain: list[Call], nudged: list[Call], close: Any) -> bool:
    """The helper answered the same arguments the same way in both runs."""
    return all(_alike(n.own, p.own, close) for n in nudged for p in plain
               if n.helper == p.helper and len(n.args) == len(p.args)
               and _alike(n.args, p.args, close))


def let_through(chain: Chain, case: Case, record: dict, close: Any) -> set[str]:
    """On a case where the caller raised, the helpers it was let down by: one whose error it
    let through unchanged (a correct caller reaches that call, with those arguments), or
    those whose results a correct caller cannot use either (it raises too), in both runs.
    Nothing where the caller did not raise; Refused otherwise."""
    if "error" not in record:
        return set()
    nudge = record.get("nudged")
    if not isinstance(nudge, dict) or "error" not in nudge:
        raise Refused("the caller raised an error")
    helpers: set[str] = set()
    for run in (record, nudge):
        calls = _calls(run.get("calls"))
        if not calls:
            raise Refused("the caller raised an error")
        try:
            replayed(chain, case.args, calls, close)
        except HelperRaised as raised:
            error = raised.call.own.message
            if raised.call is not calls[-1] or error != str(run["error"]):
                raise Refused("the caller raised an error of its own") from None
            # and a helper it called inside, whose error it passed on (softmax_cols's softmax)
            helpers |= {c.helper for c in calls
                        if isinstance(c.own, Raised) and c.own.message == error}
            continue
        except Misfit:
            helpers |= {c.helper for c in calls}
            continue
        raise Refused("the caller raised where a correct caller does not")
    return helpers


def check_case(chain: Chain, case: Case, record: dict, close: Any) -> list[Call]:
    """The helper calls one case relied on, if the caller is right given them (else Refused)."""
    if "error" in record or not isinstance(record.get("nudged"), dict):
        raise Refused("the caller raised an error")
    nudge = record["nudged"]
    if "error" in nudge:
        raise Refused("the caller failed when its helpers' results changed")
    got, again = decode(record.get("value")), decode(nudge.get("value"))
    plain, moved = _calls(record.get("calls")), _calls(nudge.get("calls"))
    try:
        want, used = replayed(chain, case.args, plain, close)
        want_again, used_again = replayed(chain, case.args, moved, close)
    except HelperRaised:
        raise Refused("a helper raised, yet the caller returned") from None
    if not close(got, want):
        raise Refused("the output differs from the reference given the helpers' results")
    if reason := degenerate(used, got, close, case.large):
        raise Refused(reason)
    if (any(_some_finite(c.own) for c in used_again)
            and not any(not _alike(c.value, c.own, close) for c in used_again)):
        raise Refused("the helpers' results were not nudged")
    if not close(again, want_again):
        raise Refused("the output does not follow its helpers' results")
    if not _stateless(plain, moved, close):
        raise Refused("a helper answered the same arguments differently")
    return used


def substituted(chain: Chain, case: Case, record: dict, close: Any) -> list[Call]:
    """A case where the student's helpers crashed the caller (they raised, or returned what
    it cannot use): the caller run again on working stand-ins, which return random results
    of the right shape and kind (``attnkit.kernel.carry.fake``), must give the reference
    maths on exactly those results."""
    run = record.get("substituted")
    if not isinstance(run, dict) or "error" in run:
        raise Refused("the caller raised an error of its own")
    calls = _calls(run.get("calls"))
    try:
        want, used = replayed(chain, case.args, calls, close)
    except HelperRaised:
        raise Refused("a stand-in raised") from None
    got = decode(run.get("value"))
    if not used or not close(got, want):
        raise Refused("the caller is wrong given working helpers too")
    # a result of one entry (one token) cannot show use: the other cases must
    if reason := degenerate([c for c in used if _entries(c.own) > 1], got, close, case.large):
        raise Refused(reason)
    return used


def carry(check_id: str, seed: int, records: list, verdict: Verdict,
          helpers: Mapping[str, Charged], credit: float = 1.0) -> tuple[Verdict, Charged]:
    """A graded cell's final verdict (follow-through applied) and where its mistake is
    charged: at itself when it lost points, at its helpers' cells when it was carried."""
    own, lent = origins(records)
    if verdict.full:
        return verdict, Charged(files=own)
    carried = None
    if verdict.misconception != "tampered" and not _requirement_broken(check_id, verdict,
                                                                          helpers):
        carried = follow_through(check_id, seed, records, verdict.points, helpers, credit)
        if carried is None:
            return borrowed(verdict, lent, helpers, credit, own)
    if carried is None:
        return verdict, Charged((check_id,), verdict.misconception, own)
    final, relied = carried
    upstream = [helpers[CHAINS[check_id].helpers[name]] for name in relied]
    at = sorted({cell for c in upstream for cell in c.at})
    named = sorted({c.misconception for c in upstream if c.misconception not in UNNAMED})
    return final, Charged(tuple(at), "; ".join(named) or None, own)


def _requirement_broken(check_id: str, verdict: Verdict,
                        helpers: Mapping[str, Charged] | None = None) -> bool:
    """The verdict charges a requirement the cell states (a shape, a library): charged at
    this cell, where it is stated, whatever the helpers did; unless the chain says the
    caller breaks it only by passing on a helper's result whose own requirement was
    charged at the helper (scores as a column make the weights a column)."""
    from attnkit.judge.registry import checks

    check = checks().get(check_id)
    stated = {r.name for r in check.requirements} if check else set()
    broken = stated & set((verdict.misconception or "").split("; "))
    chain = CHAINS.get(check_id)
    if chain is None or not helpers:
        return bool(broken)
    upstream = {name for cell in chain.helpers.values() if cell in helpers
                for name in (helpers[cell].misconception or "").split("; ")}
    return any(not (chain.inherits.get(name, frozenset()) & upstream) for name in broken)


def follow_through(check_id: str, seed: int, records: list, points: float,
                   helpers: Mapping[str, Charged], credit: float = 1.0
                   ) -> tuple[Verdict, list[str]] | None:
    """The verdict of a cell that is right given the student's own helpers and the helpers
    whose charged mistakes it carried, or None.

    ``helpers`` maps the grade ids graded before this cell to how they were charged;
    ``credit`` is the course's fraction of the points follow-through keeps (0: off).
    """
    try:
        return _carried(check_id, seed, records, points, helpers, credit)
    except Refused:
        return None
    except Exception:  # noqa: BLE001 - a hostile record must not crash grading
        return None


def _carried(check_id: str, seed: int, records: list, points: float,
             helpers: Mapping[str, Charged], credit: float) -> tuple[Verdict, list[str]]:
    from attnkit.judge.registry import checks

    chain = CHAINS.get(check_id)
    if chain is None or credit <= 0:
        raise Refused("follow-through is off for this cell")
    charged = {name: helpers[cell] for name, cell in chain.helpers.items()
               if cell in helpers and helpers[cell].at}
    if not charged:
        raise Refused("no helper of this cell lost points at its own cell")
    check = checks()[check_id]
    close = partial(same, rtol=check.rtol, atol=check.atol)
    cases = drawn_cases(check, seed)
    if len(records) != len(cases):
        raise Refused("not every case ran")
    used, judged, raised, faked = [], [], set(), 0
    every = all("error" in r for r in records)  # then no own result to go on: stand-ins
    for case, record in zip(cases, records, strict=True):
        try:
            if every:
                raise Refused("the caller raised on every case")
            if helpers := let_through(chain, case, record, close):
                raised |= helpers
                continue
            calls = check_case(chain, case, record, close)
        except Refused:
            if "error" not in record:
                raise
            calls = substituted(chain, case, record, close)
            raised |= {c.helper for c in calls}
            faked += 1
        used += calls
        judged += [] if case.large else calls
    if reason := ignores_input(judged, close):
        raise Refused(reason)
    relied = {c.helper for c in used} | raised
    names = sorted(relied & set(charged))
    if not names:
        raise Refused("the caller relied on no helper that lost points")
    return Verdict(check_id, round(points * min(credit, 1.0), 2), points,
                   message(names, charged, len(cases), credit,
                           raised=sum("error" in r for r in records), faked=faked),
                   [True] * len(cases), MISCONCEPTION), names


def message(names: list[str], charged: Mapping[str, Charged], cases: int,
            credit: float, raised: int = 0, faked: int = 0) -> str:
    """The feedback: right given which helpers, and where their mistakes are charged."""
    yours = " and ".join(f"`{n}`" for n in names)
    at = sorted({cell for n in names for cell in charged[n].at})
    what = sorted({m for n in names if (m := charged[n].misconception) not in UNNAMED})
    mistake = f"its mistake ({'; '.join(what)})" if what else "its mistake"
    if len(names) > 1:
        mistake = "their mistakes" + (f" ({'; '.join(what)})" if what else "")
    text = (f"right given your {yours}: on all {cases} cases this cell does exactly what it "
            f"should with what {'they return' if len(names) > 1 else 'it returns'}; "
            f"{mistake} {'are' if len(names) > 1 else 'is'} charged there "
            f"({', '.join(at)}), not again here")
    they = "they" if len(names) > 1 else "it"
    if faked:
        text += (f". On {faked} of the {cases} cases {they} raised an error or returned what "
                 f"this cell cannot use; run there with working stand-ins for {yours} (random "
                 "results of the right shape and kind), this cell gave exactly the right result")
    elif raised:
        text += (f". On {raised} of the {cases} cases {they} raised an error or returned what "
                 "the next step cannot use, and this cell stopped there as a correct one would")
    if credit < 1:
        text += ". Follow-through keeps part of this cell's points (the course's setting)"
    return text

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
plain run and the nudged one, and its steps after that call are right too, seen on a third
run with working stand-ins for its helpers that return random results of the right shape and
kind (else its own mistake is charged here). Where the first two runs show nothing (the
caller raised on every case, or on a helper result it cannot use: a float mask, a shape) the
caller is judged on that third run alone: it must give the reference maths on the stand-ins'
results, so it is right whatever a working helper returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from attnkit.judge.chains import CHAINS, Chain
from attnkit.judge.charges import MISCONCEPTION, UNNAMED, Charged, borrowed, origins
from attnkit.judge.misconceptions import describe
from attnkit.judge.replay import (
    Call,
    HelperRaised,
    Misfit,
    Refused,
    Unlike,
    alike,
    degenerate,
    entries,
    ignores_input,
    recorded_calls,
    replayed,
    some_finite,
    stateless,
)
from attnkit.judge.verdicts import Verdict, decode, drawn_cases, same
from attnkit.judge.wrong import Raised
from attnkit.kernel.cases import Case


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
        calls = recorded_calls(run.get("calls"))
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
    plain, moved = recorded_calls(record.get("calls")), recorded_calls(nudge.get("calls"))
    try:
        want, used = replayed(chain, case.args, plain, close)
        want_again, used_again = replayed(chain, case.args, moved, close)
    except HelperRaised:
        raise Refused("a helper raised, yet the caller returned") from None
    if not close(got, want):
        raise Refused("the output differs from the reference given the helpers' results")
    if reason := degenerate(used, got, close, case.large):
        raise Refused(reason)
    if (any(some_finite(c.own) for c in used_again)
            and not any(not alike(c.value, c.own, close) for c in used_again)):
        raise Refused("the helpers' results were not nudged")
    if not close(again, want_again):
        raise Refused("the output does not follow its helpers' results")
    if not stateless(plain, moved, close):
        raise Refused("a helper answered the same arguments differently")
    return used


def substituted(chain: Chain, case: Case, record: dict, close: Any) -> list[Call]:
    """A case where the student's helpers crashed the caller (they raised, or returned what
    it cannot use): the caller run again on working stand-ins, which return random results
    of the right shape and kind (``attnkit.kernel.carry.fake``), must give the reference
    maths on exactly those results."""
    run = record.get("substituted")
    if not isinstance(run, dict):
        raise Refused("the caller was not run on stand-ins")
    if "error" in run:
        raise Unlike(f"it raised {str(run['error']).split(':')[0]} of its own")
    calls = recorded_calls(run.get("calls"))
    try:
        want, used = replayed(chain, case.args, calls, close, describe(case))
    except HelperRaised:
        raise Refused("a stand-in raised") from None
    except Misfit:
        raise
    except Refused as error:  # a helper call a correct caller makes, not made as it makes it
        raise Unlike(str(error)) from None
    got = decode(run.get("value"))
    if not used or not close(got, want):
        raise Unlike("its result is not what it should be given theirs")
    # a result of one entry (one token) cannot show use: the other cases must
    if reason := degenerate([c for c in used if entries(c.own) > 1], got, close, case.large):
        raise Refused(reason)
    return used


class Wrong(Exception):
    """Past a helper that raised, the caller's own steps are wrong (``stood_in``): not a
    refusal of follow-through but a mistake charged at the caller, with this hint."""


def stood_in(chain: Chain, case: Case, record: dict, close: Any, helpers: set[str]) -> None:
    """A case the caller's helpers stopped (``let_through``): its own steps after them,
    seen on the run with working stand-ins, must be right too, or it earns nothing."""
    try:
        substituted(chain, case, record, close)
    except Unlike as wrong:
        yours = " and ".join(f"`{n}`" for n in sorted(helpers))
        raise Wrong(f"this cell's own steps are wrong too: run on {case.name} with working "
                    f"stand-ins for your {yours} (random results of the right shape and "
                    f"kind) where {'they' if len(helpers) > 1 else 'it'} raised, {wrong}"
                    ) from None
    except Refused:
        pass  # nothing more to see: the stand-ins could not serve it


def carry(check_id: str, seed: int, records: list, verdict: Verdict,
          helpers: Mapping[str, Charged], credit: float = 1.0) -> tuple[Verdict, Charged]:
    """A graded cell's final verdict (follow-through applied) and where its mistake is
    charged: at itself when it lost points, at its helpers' cells when it was carried."""
    own, lent = origins(records)
    if verdict.full:
        return verdict, Charged(files=own)
    if verdict.misconception == "tampered":
        return verdict, Charged((check_id,), verdict.misconception, own)
    if _requirement_broken(check_id, verdict, helpers):
        if verdict.unmet:
            return _unmet_alone(check_id, seed, records, verdict, helpers, credit, own)
        return verdict, Charged((check_id,), verdict.misconception, own)
    try:
        carried = follow_through(check_id, seed, records, verdict.points, helpers, credit)
    except Wrong as wrong:  # its own mistake, hidden where its helpers raised
        if verdict.misconception in UNNAMED:  # a named one is named already
            verdict = replace(verdict, message=f"{wrong}. Where your helpers raised, the error "
                              f"is theirs, charged at their cells (what your own helpers "
                              f"gave: {verdict.message})")
        return verdict, Charged((check_id,), verdict.misconception, own)
    if carried is None:
        return borrowed(verdict, lent, helpers, credit, own)
    final, relied = carried
    upstream = [helpers[CHAINS[check_id].helpers[name]] for name in relied]
    at = sorted({cell for c in upstream for cell in c.at})
    named = sorted({c.misconception for c in upstream if c.misconception not in UNNAMED})
    return final, Charged(tuple(at), "; ".join(named) or None, own)


def _unmet_alone(check_id: str, seed: int, records: list, verdict: Verdict,
                 helpers: Mapping[str, Charged], credit: float, own: tuple[str, ...]
                 ) -> tuple[Verdict, Charged]:
    """Wrong values and a broken requirement (a shape this cell states): if the values are
    right given the student's helpers, only the requirement is charged here, and the
    helpers' mistake where it is."""
    hint, kept, names = verdict.unmet  # type: ignore[misc]
    try:
        carried = follow_through(check_id, seed, records, verdict.points, helpers, credit)
    except Wrong:
        carried = None
    if carried is None:
        return verdict, Charged((check_id,), verdict.misconception, own)
    final, _ = carried
    return (Verdict(check_id, round(min(verdict.points * kept, final.score), 2), verdict.points,
                    f"{hint}. Apart from that, this cell is {final.message}",
                    verdict.passed, names),
            Charged((check_id,), names, own))


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
    except Wrong:
        raise
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
                stood_in(chain, case, record, close, helpers)
                raised |= helpers
                continue
            calls = check_case(chain, case, record, close)
        except Refused:
            if "error" not in record:
                raise
            calls = substituted(chain, case, record, close)  # the stand-ins' run alone
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

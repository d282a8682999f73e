"""Where a graded cell's mistake is charged, and the rule for a helper of the student's own
that no cell grades: a mistake made in a function one cell defines and another cell borrows
is charged once, at the cell that defined it (docs/grading.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from attnkit.judge.verdicts import Verdict, cells_record

MISCONCEPTION = "follow-through"
UNNAMED = {None, "values differ", "error", MISCONCEPTION}  # nothing to name in the feedback


@dataclass(frozen=True)
class Charged:
    """What a graded cell's verdict means for the cells that call it: the cells where its
    mistake is charged (none when it was right on its own) and that mistake's name."""

    at: tuple[str, ...] = ()
    misconception: str | None = None
    files: tuple[str, ...] = ()  # where the cell's targets were defined (the probe's record)


def origins(records: list) -> tuple[tuple[str, ...], dict[str, str]]:
    """The probe's record of where the targets were defined and what they borrow."""
    cells = cells_record(records)
    own = cells.get("own") if isinstance(cells.get("own"), list) else []
    lent = cells.get("borrowed") if isinstance(cells.get("borrowed"), dict) else {}
    return (tuple(f for f in own if isinstance(f, str)),
            {n: f for n, f in lent.items() if isinstance(n, str) and isinstance(f, str)})


def borrowed(verdict: Verdict, lent: Mapping[str, str], helpers: Mapping[str, Charged],
             credit: float, own: tuple[str, ...] = ()) -> tuple[Verdict, Charged]:
    """A cell whose only mistake is one already charged at an earlier cell whose helper it
    calls (a private ``_proj`` defined beside ``self_attention_loop``): its result is the
    reference's with exactly that named mistake, given its own graded helpers, so the
    mistake is charged there, once. A mistake the cell makes beside it, or one no variant
    names, stays charged here."""
    mine = set((verdict.misconception or "").split("; ")) - UNNAMED - {"", "statistics"}
    upstream = {cell: c for cell, c in helpers.items()
                if c.at and c.misconception and set(c.files) & set(lent.values())}
    named = {m for c in upstream.values() for m in c.misconception.split("; ")} - UNNAMED
    if credit <= 0 or not mine or not mine <= named:
        return verdict, Charged((verdict.check,), verdict.misconception, own)
    cells = [cell for cell, c in upstream.items() if mine & set(c.misconception.split("; "))]
    names = sorted(n for n, f in lent.items() if f in {f for cell in cells
                                                        for f in helpers[cell].files})
    at = sorted({a for cell in cells for a in helpers[cell].at})
    what = "; ".join(sorted(mine))
    yours = " and ".join(f"`{n}`" for n in names)
    text = (f"the same mistake as at {', '.join(at)} ({what}), made in your {yours}, which "
            f"this cell calls from there: apart from it this cell does what it should, so it "
            f"is charged there, not again here")
    if credit < 1:
        text += ". Follow-through keeps part of this cell's points (the course's setting)"
    return (Verdict(verdict.check, round(verdict.points * min(credit, 1.0), 2), verdict.points,
                    text, [True] * len(verdict.passed), MISCONCEPTION),
            Charged(tuple(at), what, own))

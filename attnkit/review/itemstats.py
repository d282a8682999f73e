"""Item statistics for the instructor report: how hard each graded cell is, and whether it
separates students who do well overall from those who do not.

* **Difficulty** (classical test theory's *p*): the mean score as a fraction of the cell's
  points. 0.9 means most students got it; 0.2 that few did.
* **Discrimination**: the corrected item-total correlation, Pearson's r between the cell's
  score and each student's total *without that cell* (so the cell is not correlated with
  itself). Above 0.3 is good; near zero means the cell does not tell strong from weak
  students apart (too easy, too hard, or a check that marks at random); negative means
  strong students lose points there more often than weak ones, which usually means a
  broken check or a misleading question.
* **Misconceptions**: the share of students whose verdict on the cell named each mistake
  (the ``misconception`` field ``JudgeProbes`` leaves in the autograded cell's metadata,
  ``attnkit.pipeline.preprocessors.VERDICT``).

Only students whose submission was autograded count; a written answer still awaiting a TA
counts for neither the cell nor the totals of the others.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass, field

from attnkit.gradedata import AssignmentData, Cell
from attnkit.pages import render

NEAR_ZERO = 0.15  # below this a cell barely discriminates (0.2 is the textbook "poor")
MIN_STUDENTS = 5  # fewer scored students: no correlation is shown


@dataclass
class ItemStat:
    cell: Cell
    students: int
    difficulty: float | None
    discrimination: float | None
    misconceptions: list[tuple[str, float]] = field(default_factory=list)  # name, share

    @property
    def flag(self) -> str:
        """Why the cell deserves a look, or ''."""
        if self.students < MIN_STUDENTS:
            return ""
        if self.discrimination is None:
            return "everyone scored the same" if self.difficulty is not None else ""
        if self.discrimination < 0:
            return "negative: stronger students do worse here"
        if self.discrimination < NEAR_ZERO:
            return "near zero: does not separate strong from weak"
        return ""


def pearson(x: list[float], y: list[float]) -> float | None:
    """Pearson's r, or None when either side does not vary."""
    if len(x) < 2:
        return None
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sxy / math.sqrt(sxx * syy)


def item_statistics(data: AssignmentData, generic: set[str] | None = None) -> list[ItemStat]:
    """One row per graded cell that has scores, in notebook order."""
    if generic is None:
        from attnkit.judge.misconceptions import GENERIC

        generic = set(GENERIC)
    graded = data.graded
    scored = {s.student: {key: m.score / m.max_score for key, m in s.marks.items()
                          if m.score is not None and m.max_score}
              for s in graded}
    rows = []
    for cell in data.cells:
        item, rest = [], []
        for marks in scored.values():
            if cell.key in marks:
                item.append(marks[cell.key])
                rest.append(sum(v * _points(data, k) for k, v in marks.items()
                                if k != cell.key))
        named: Counter[str] = Counter()
        judged = 0
        for sub in graded:
            mark = sub.marks.get(cell.key)
            if mark is None or mark.verdict is None:
                continue
            judged += 1
            name = mark.verdict.get("misconception")
            if name and not mark.full:
                named[str(name)] += 1
        shares = sorted(((n, c / judged) for n, c in named.items()),
                        key=lambda nc: (nc[0] in generic, -nc[1], nc[0]))
        rows.append(ItemStat(cell, len(item), statistics.fmean(item) if item else None,
                             pearson(item, rest) if len(item) >= MIN_STUDENTS else None,
                             shares))
    return rows


def _points(data: AssignmentData, key: tuple[str, str]) -> float:
    return next((c.max_score for c in data.cells if c.key == key), 1.0)


def section(data: AssignmentData) -> str:
    """The report's "Item statistics" section (HTML, from a Jinja template)."""
    from attnkit.judge.misconceptions import GENERIC

    generic = set(GENERIC)
    rows = []
    for stat in item_statistics(data, generic):
        rows.append({
            "label": stat.cell.label, "kind": stat.cell.kind, "students": stat.students,
            "difficulty": "–" if stat.difficulty is None else f"{stat.difficulty:.2f}",
            "difficulty_pct": 0 if stat.difficulty is None else round(100 * stat.difficulty),
            "discrimination": "–" if stat.discrimination is None
            else f"{stat.discrimination:+.2f}",
            "flag": stat.flag, "few": stat.students < MIN_STUDENTS,
            "misconceptions": [{"name": n, "share": f"{100 * s:.0f}%", "generic": n in generic}
                               for n, s in stat.misconceptions]})
    return render("item_statistics.html.j2", rows=rows, near_zero=f"{NEAR_ZERO:.2f}",
                  minimum=MIN_STUDENTS, graded=len(data.graded))


def summary_lines(data: AssignmentData) -> list[str]:
    flagged = [s for s in item_statistics(data) if s.flag]
    if not flagged:
        return ["Item statistics: no cell flagged"]
    return ["Item statistics: cells to look at:"] + [
        f"  {s.cell.label}: discrimination "
        f"{'–' if s.discrimination is None else f'{s.discrimination:+.2f}'}, "
        f"difficulty {s.difficulty:.2f} ({s.flag})" for s in flagged]

"""The report's "Rubric items" section: per written question, how often each rubric item was
given, so the class's mistakes read in the TAs' words beside the hidden checks'. Handed to
the page by ``attnkit.report.cli``, as the review's sections are."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from attnkit.gradedata import AssignmentData, fmt_score
from attnkit.pages import render
from attnkit.written import claims, store
from attnkit.written.model import Item, Mark, signed

Section = tuple[str, str, str]  # id, nav title, HTML (as attnkit.report.page names it)


@dataclass(frozen=True)
class Usage:
    """How one question's rubric was used."""

    grade_id: str
    label: str
    max_score: float
    items: list[tuple[Item, int]]  # each item and how many answers have it
    answers: int
    graded: int
    hand: int  # scored by hand outside the rubric
    progress: claims.Progress


def usage(data: AssignmentData) -> list[Usage]:
    """Per written question of the report's assignment; none where no rubric was made."""
    found: list[Usage] = []
    if not data.db_url or not store.in_use(data.db_url):
        return found  # no rubric in this gradebook
    written = [c for c in data.cells if c.kind == "manual"]
    with store.engine(data.db_url).connect() as conn:
        for cell in written:
            marks: list[Mark] = list(store.marks(conn, data.name, cell.name).values())
            if not marks:
                continue  # a task, not an answer cell
            given = Counter(i.id for m in marks for i in m.items)
            items = [(i, given[i.id]) for i in store.items(conn, data.name, cell.name)]
            found.append(Usage(cell.name, cell.label, cell.max_score, items, len(marks),
                               sum(not m.needs_manual_grade for m in marks),
                               sum(m.hand_scored for m in marks),
                               claims.progress(data.db_url, data.name, [cell.name])[0]))
    return found


def sections(data: AssignmentData, folder: Path | None) -> list[Section]:
    found = usage(data)
    if not found:
        return []
    rows = [{"label": u.label, "points": fmt_score(u.max_score), "answers": u.answers,
             "graded": u.graded, "hand": u.hand, "by": list(u.progress.by.items()),
             "claimed": list(u.progress.claimed.items()),
             "rubric": [{"position": i.position, "text": i.text, "points": signed(i.points),
                        "count": n, "share": f"{100 * n / u.graded:.0f}%" if u.graded else "–"}
                       for i, n in u.items]} for u in found]
    return [("rubrics", "Rubric items", render("rubric_usage.html.j2", questions=rows))]


def summary_lines(data: AssignmentData) -> list[str]:
    """A line per written question: the rubric items given most, in words."""
    lines = []
    for u in usage(data):
        given = sorted(((n, i) for i, n in u.items if n), key=lambda p: (-p[0], p[1].position))
        top = "; ".join(f"{i.text} ({n})" for n, i in given[:3]) or "no rubric item given yet"
        lines.append(f"Rubric items, {u.label}: {u.graded} of {u.answers} graded; {top}")
    return lines

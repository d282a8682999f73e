"""The report's page (Jinja2) and its text summary. Sections from other tools come in as
callables, so that this module needs none of them: ``attnkit.report.cli`` hands them in."""

from __future__ import annotations

import base64
import statistics
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from markupsafe import Markup

from attnkit.gradedata import (
    CRASHED,
    FAILED,
    GRADED,
    INVALID,
    MISSING,
    NOT_AUTOGRADED,
    NOT_GRADED,
    OUTDATED,
    TIMED_OUT,
    UNREADABLE,
    WAITING,
    AssignmentData,
    fmt_score,
)
from attnkit.pages import render
from attnkit.report.data import cell_scores, hints, manual_progress, pass_rates
from attnkit.report.figures import figure_cells, figure_pass_rates, figure_scores

Section = tuple[str, str, str]  # id, nav title, HTML
SectionProvider = Callable[[AssignmentData, Path | None], Sequence[Section]]  # data, page folder
NoteProvider = Callable[[AssignmentData], Sequence[str]]  # lines of the text summary

PROBLEM_TONE = {INVALID: "bad", MISSING: "bad", NOT_GRADED: "bad", UNREADABLE: "bad",
                CRASHED: "warn", TIMED_OUT: "warn", OUTDATED: "info", NOT_AUTOGRADED: "info"}


def render_html(data: AssignmentData, figures: dict[str, bytes], top: int = 10,
                folder: Path | None = None, sections: Sequence[SectionProvider] = ()) -> str:
    """The page, from ``templates/report/index.html.j2`` (Jinja2, autoescaped; its CSS is
    inlined from ``report.css`` so the page stays one self-contained file), with each of
    ``sections``' sections before the students' table."""
    graded = data.graded
    scores = [s.score for s in graded]
    rates = pass_rates(data)
    found = hints(data, top)
    progress = manual_progress(data)
    failed = [s for s in data.submissions.values() if s.status == FAILED]
    unprocessed = [s for s in data.submissions.values() if s.status == WAITING]
    done = sum(p.graded for p in progress)
    waiting = sum(p.pending for p in progress)
    blank = sum(p.blank for p in progress)
    mean = statistics.fmean(scores) if scores else None
    pct = f" ({100 * mean / data.max_score:.0f}%)" if mean is not None and data.max_score else ""

    cards = [
        ("students graded", f"{len(graded)}", f"of {len(data.submissions)} who submitted", ""),
        ("mean score", fmt_score(mean, 2) or "–",
         f"out of {fmt_score(data.max_score)}{pct}", ""),
        ("median score", fmt_score(statistics.median(scores)) if scores else "–",
         f"range {fmt_score(min(scores))}–{fmt_score(max(scores))}" if scores else "", ""),
        ("failed to grade", f"{len(failed)}",
         f"{len(data.problems)} grading problem{'s' if len(data.problems) != 1 else ''} in all"
         + (f"; {len(unprocessed)} not autograded yet" if unprocessed else ""),
         "bad" if failed else ""),
        ("written answers graded", f"{done} / {done + waiting}",
         (f"{waiting} pending" if waiting else "none pending")
         + (f", {blank} left blank" if blank else ""), ""),
    ]

    cell_rows = []
    for cell in data.cells:
        got = cell_scores(data, cell)
        cell_rows.append({
            "label": cell.label, "kind": cell.kind, "points": fmt_score(cell.max_score),
            "mean": fmt_score(statistics.fmean(got), 2) if got else "–",
            "min": fmt_score(min(got)) if got else "–",
            "max": fmt_score(max(got)) if got else "–",
            "full": f"{sum(1 for v in got if v >= cell.max_score)} / {len(got)}"})

    named: dict[str, list[tuple[str, int]]] = {}
    for h in hints(data, top=10_000):
        named.setdefault(h.check, []).append(
            (h.label if h.label != h.example else "unnamed", h.count))
    rate_rows = [{"label": r.cell.label, "points": fmt_score(r.cell.max_score),
                  "passed": f"{r.passed} / {r.total}",
                  "rate": f"{100 * r.rate:.0f}%" if r.total else "–",
                  "named": named.get(r.cell.label, [])} for r in rates]
    hint_rows = [{"rank": i + 1, "count": h.count, "check": h.check,
                  "label": h.label if h.label != h.example else None, "example": h.example,
                  "who": ", ".join(h.students)} for i, h in enumerate(found)]
    problem_rows = [{"student": p.student, "notebook": p.notebook, "kind": p.kind,
                     "tone": PROBLEM_TONE.get(p.kind, "info"), "detail": p.detail}
                    for p in sorted(data.problems, key=lambda p: (p.student, p.notebook))]
    progress_rows = [{"label": p.cell.label, "points": fmt_score(p.cell.max_score),
                      "graded": p.graded, "pending": p.pending, "blank": p.blank,
                      "width": f"{100 * p.graded / max(p.graded + p.pending, 1):.1f}",
                      "mean": fmt_score(p.mean, 2) if p.mean is not None else "–"}
                     for p in progress]

    student_rows = []
    penalties = any(sub.penalty for sub in data.submissions.values())
    for student, sub in sorted(data.submissions.items()):
        trouble = data.problems_of(student)
        if sub.status == GRADED:
            status, tone = "graded", "warn" if trouble else "ok"
            score = fmt_score(sub.score)
            share = f"{100 * sub.score / data.max_score:.0f}%" if data.max_score else ""
        else:
            status, tone = sub.status, "bad" if sub.status == FAILED else "info"
            score, share = "–", ""
        student_rows.append({
            "student": student, "score": score, "max": fmt_score(data.max_score),
            "share": share, "late": fmt_score(sub.penalty) if sub.penalty else "",
            "pending": str(sub.pending) if sub.status == GRADED and sub.pending else "",
            "status": status, "tone": tone,
            "problems": "; ".join(sorted({p.kind for p in trouble}))})

    absent = (f" {len(data.absent)} student{'s' if len(data.absent) != 1 else ''} in the "
              f"gradebook handed nothing in: {', '.join(data.absent)}." if data.absent else "")
    extra = [found for provider in sections for found in provider(data, folder)]
    nav = [("distribution", "Scores"), ("cells", "Cells"), ("checks", "Pass rates"),
           ("hints", "Misconceptions"), ("failures", "Failures"), ("manual", "Manual grading"),
           *[(ident, title) for ident, title, _ in extra], ("students", "Students")]
    return render(
        "index.html.j2", name=data.name, course_id=data.course_id, db=data.db,
        stamp=datetime.now().strftime("%Y-%m-%d %H:%M"), nav=nav,
        cards=[{"key": k, "value": v, "sub": sub, "tone": tone} for k, v, sub, tone in cards],
        figures={k: base64.b64encode(v).decode("ascii") for k, v in figures.items()},
        distribution_lead=f"Total score per graded submission, out of "
                          f"{fmt_score(data.max_score)}. Written answers a TA has not graded "
                          "yet count as 0." + absent,
        hints_lead=f"The mistakes the hidden checks named most often (top {top}), counted per "
                   "check; the hint is the most common message the students saw.",
        manual_lead=f"Written answers graded by a TA: {done} of {done + waiting}"
                    f"{' — all done' if not waiting and done else ''}. Answers left as released "
                    "are scored 0 by nbgrader itself and need no TA (“left blank”).",
        cell_rows=cell_rows, rate_rows=rate_rows, hint_rows=hint_rows,
        problem_rows=problem_rows, progress_rows=progress_rows, student_rows=student_rows,
        penalties=penalties, review=[Markup(body) for _, _, body in extra]) + "\n"


def summary_text(data: AssignmentData, top: int = 5, notes: Sequence[NoteProvider] = ()) -> str:
    """The report's figures in a few lines of plain text, each of ``notes``' lines before the
    written answers' progress."""
    graded = data.graded
    scores = [s.score for s in graded]
    failed = [s.student for s in data.submissions.values() if s.status == FAILED]
    unprocessed = [s.student for s in data.submissions.values() if s.status == WAITING]
    lines = [f"{data.name}: {len(graded)} of {len(data.submissions)} submissions graded"
             + (f", {len(failed)} failed to grade" if failed else "")
             + (f", {len(unprocessed)} not autograded yet" if unprocessed else "")
             + (f"; {len(data.absent)} in the gradebook did not submit" if data.absent else "")]
    if scores:
        mean = statistics.fmean(scores)
        share = f" ({100 * mean / data.max_score:.0f}%)" if data.max_score else ""
        lines.append(f"Mean score {fmt_score(mean, 2)} / {fmt_score(data.max_score)}{share}, "
                     f"median {fmt_score(statistics.median(scores))}, "
                     f"range {fmt_score(min(scores))}-{fmt_score(max(scores))}")
    rates = pass_rates(data)
    if rates:
        lines.append("Pass rate per hidden check (full points):")
        width = max(len(r.cell.label) for r in rates)
        lines += [f"  {r.cell.label:<{width}}  "
                  + (f"{100 * r.rate:4.0f}%" if r.total else "    –")
                  + f"  ({r.passed}/{r.total})" for r in rates]
    found = hints(data, top)
    lines.append("Most frequent misconceptions:" if found
                 else "Most frequent misconceptions: none")
    for h in found:
        label = h.label if len(h.label) <= 70 else h.label[:69] + "…"
        lines.append(f"  {h.count} x {h.check}: {label}")
    lines.append(f"Grading problems: {len(data.problems)}" if data.problems
                 else "Grading problems: none")
    for p in sorted(data.problems, key=lambda p: (p.student, p.notebook)):
        lines.append(f"  {p.student}: {p.kind}: {p.detail}")
    for note in notes:
        lines += note(data)
    progress = manual_progress(data)
    if progress:
        done = sum(p.graded for p in progress)
        waiting = sum(p.pending for p in progress)
        blank = sum(p.blank for p in progress)
        lines.append(f"Written answers: {done} of {done + waiting} graded by a TA, {waiting} "
                     f"pending" + (f" ({blank} left blank, scored 0)" if blank else ""))
    return "\n".join(lines)


def write(data: AssignmentData, out: Path, top: int = 10,
          sections: Sequence[SectionProvider] = ()) -> Path:
    """The page and its figures under ``out``, a directory or an ``.html`` file."""
    out = Path(out)
    page = out if out.suffix.lower() in (".html", ".htm") else out / "index.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    figures = {"scores": figure_scores(data), "cells": figure_cells(data),
               "pass_rates": figure_pass_rates(data, pass_rates(data))}
    folder = page.parent / "figures"
    folder.mkdir(exist_ok=True)
    for name, png in figures.items():
        (folder / f"{name}.png").write_bytes(png)
    page.write_text(render_html(data, figures, top, page.parent, sections), encoding="utf-8")
    return page

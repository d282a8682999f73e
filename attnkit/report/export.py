"""``attnkit export``: grades out of the nbgrader gradebook, as CSV.

``attnkit export per-question`` writes one row per (student, assignment,
notebook, graded cell): the score, the points, whether the cell is autograded
or a written answer for a TA, and the hint the hidden check gave (stock
``nbgrader export`` has one row per assignment only).

``attnkit export lms --format canvas|moodle`` writes a file an LMS gradebook
imports, one row per student in the gradebook (the roster imported with
``nbgrader db student import``) and one column per assignment:

* Canvas: ``Student`` ("Last, First"), ``ID`` (the student's ``lms_user_id``),
  ``SIS User ID`` (the nbgrader student id), ``SIS Login ID`` (blank),
  ``Section`` (blank), then ``<assignment> (<Canvas assignment id>)``, or just
  ``<assignment>`` when no id was given with ``--canvas-id``; the second row is
  ``Points Possible``. Canvas matches students by ID, then SIS User ID, then
  name, and matches columns by assignment id, then title.
* Moodle: ``First name``, ``Last name``, ``ID number`` (the nbgrader student
  id), ``Email address``, then ``Assignment: <assignment> (Real)``. Map users by
  ``ID number`` or ``Email address`` on Moodle's import page.

The score is nbgrader's: the sum of the cells' points less the late penalty,
never below 0, as ``nbgrader export`` computes it. A student with no
submission gets, by default, what each LMS reads as "no grade": an empty cell
for Canvas (the import leaves the grade unchanged) and ``-`` for Moodle (its
own marker for no grade); ``--missing zero`` writes 0 instead, as ``nbgrader
export`` does. A submission that failed to grade is always left without a
grade (and reported on stderr): it is not a zero, it needs a look. Written
answers a TA has not graded yet count as 0, and are reported on stderr too.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from nbgrader.api import MissingEntry

from attnkit.course import open_gradebook
from attnkit.gradedata import FAILED, GRADED, WAITING, fmt_score
from attnkit.report.data import collect

PER_QUESTION_FIELDS = ["student_id", "assignment", "notebook", "cell", "kind", "max_score",
                       "score", "status", "graded_by", "misconception", "hint", "comment"]
CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_STUDENT_COLUMNS = ["First name", "Last name", "ID number", "Email address"]
POINTS_POSSIBLE = "Points Possible"
NO_GRADE = {"canvas": "", "moodle": "-"}  # what each LMS reads as "no grade"


def gradebook_assignments(root: Path, only: list[str] | None = None) -> list[str]:
    """The assignments in the gradebook (all, or the ``only`` ones, checked), by name."""
    with open_gradebook(root) as gb:
        known = sorted(a.name for a in gb.assignments)
    if not only:
        return known
    unknown = [a for a in only if a not in known]
    if unknown:
        raise SystemExit(f"not in the gradebook: {', '.join(unknown)} (it has: "
                         f"{', '.join(known) or 'none'})")
    return list(dict.fromkeys(only))


# ------------------------------------------------------------------ per question


def per_question_rows(root: Path, assignments: list[str] | None = None) -> list[dict[str, str]]:
    """One row per (student, assignment, notebook, graded cell) of every gradebook submission.

    ``status`` is ``graded``, ``pending`` (a written answer awaiting a TA; no score
    yet) or ``not graded`` (the submission failed to grade; no score).
    """
    rows = []
    for name in gradebook_assignments(root, assignments):
        data = collect(root, name)
        for student, sub in sorted(data.submissions.items()):
            if sub.status == WAITING:
                continue  # not in the gradebook yet
            for cell in data.cells:
                mark = sub.marks.get(cell.key)
                if mark is None:
                    continue
                if sub.status != GRADED:
                    status, score = "not graded", ""
                elif mark.needs_manual_grade:
                    status, score = "pending", ""
                else:
                    status, score = "graded", fmt_score(mark.score)
                verdict = mark.verdict or {}
                full = mark.full if sub.status == GRADED else False
                rows.append({
                    "student_id": student, "assignment": name, "notebook": cell.notebook,
                    "cell": cell.name, "kind": cell.kind,
                    "max_score": fmt_score(cell.max_score), "score": score,
                    "status": status,
                    "graded_by": mark.graded_by if status == "graded" else "",
                    "misconception": "" if full else str(verdict.get("misconception") or ""),
                    "hint": mark.hint, "comment": mark.comment or ""})
    return rows


def write_per_question(root: Path, out: Path, assignments: list[str] | None = None) -> Path:
    rows = per_question_rows(root, assignments)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=PER_QUESTION_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    return out


# ------------------------------------------------------------------ LMS


def _names(students: list[str], most: int = 8) -> str:
    if len(students) <= most:
        return ", ".join(students)
    return f"{', '.join(students[:most])} and {len(students) - most} more"


def _canvas_title(assignment: str, canvas_ids: dict[str, str]) -> str:
    ident = canvas_ids.get(assignment, "").strip()
    return f"{assignment} ({ident})" if ident else assignment


def lms_table(root: Path, fmt: str, assignments: list[str] | None = None,
              missing: str = "blank", canvas_ids: dict[str, str] | None = None,
              ) -> tuple[list[list[str]], list[str]]:
    """The LMS file's rows (header first) and the warnings for the person importing it."""
    if fmt not in NO_GRADE:
        raise ValueError(f"unknown LMS format {fmt!r}: use canvas or moodle")
    if missing not in ("blank", "zero"):
        raise ValueError(f"unknown --missing policy {missing!r}: use blank or zero")
    names = gradebook_assignments(root, assignments)
    canvas_ids = canvas_ids or {}
    unknown_ids = sorted(set(canvas_ids) - set(names))
    warnings = [f"--canvas-id for an assignment not exported: {', '.join(unknown_ids)}"
                ] if unknown_ids else []
    status = {name: {s: sub.status for s, sub in collect(root, name).submissions.items()
                     if sub.status != GRADED} for name in names}
    absent = "0" if missing == "zero" else NO_GRADE[fmt]

    with open_gradebook(root) as gb:
        maxima = {name: gb.find_assignment(name).max_score for name in names}
        students = sorted(gb.students, key=lambda s: ((s.last_name or s.id).lower(),
                                                       (s.first_name or "").lower(), s.id))
        body = []
        pending: dict[str, list[str]] = {}
        for student in students:
            values = []
            for name in names:
                if student.id in status[name]:  # handed in, but no grade to give yet
                    values.append(NO_GRADE[fmt])
                    continue
                try:
                    sub = gb.find_submission(name, student.id)
                except MissingEntry:
                    values.append(absent)
                    continue
                if sub.needs_manual_grade:
                    pending.setdefault(name, []).append(student.id)
                penalty = sub.late_submission_penalty or 0.0
                values.append(fmt_score(max(0.0, sub.score - penalty)))
            first, last = student.first_name or "", student.last_name or ""
            if fmt == "canvas":
                display = f"{last}, {first}" if last and first else (last or first or student.id)
                body.append([display, str(student.lms_user_id or ""), student.id, "", "",
                             *values])
            else:
                body.append([first, last, student.id, student.email or "", *values])

    for name, students_status in status.items():
        for state in (FAILED, WAITING):
            who = sorted(s for s, st in students_status.items() if st == state)
            if who:
                warnings.append(f"{name}: left without a grade, {state}: {_names(who)} "
                                f"(see `attnkit report {name}`)")
    for name, who in pending.items():
        warnings.append(f"{name}: written answers still to grade for {_names(sorted(who))};"
                        " their scores count those answers as 0")
    if fmt == "canvas":
        header = CANVAS_STUDENT_COLUMNS + [_canvas_title(n, canvas_ids) for n in names]
        points = [POINTS_POSSIBLE, "", "", "", ""] + [fmt_score(maxima[n]) for n in names]
        return [header, points, *body], warnings
    header = MOODLE_STUDENT_COLUMNS + [f"Assignment: {n} (Real)" for n in names]
    return [header, *body], warnings


def write_lms(root: Path, out: Path, fmt: str, assignments: list[str] | None = None,
              missing: str = "blank", canvas_ids: dict[str, str] | None = None,
              ) -> tuple[Path, list[str]]:
    rows, warnings = lms_table(root, fmt, assignments, missing, canvas_ids)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return out, warnings


# ------------------------------------------------------------------ command line


def _canvas_id(text: str) -> tuple[str, str]:
    name, sep, ident = text.partition("=")
    if not sep or not name.strip() or not ident.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected ASSIGNMENT=CANVAS_ID, got {text!r}")
    return name.strip(), ident.strip()


def add_arguments(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    """The per-question and LMS kinds; returns the kinds, so that other tools add theirs
    (``attnkit.review.regrades`` its audit)."""
    parser.description = "Export grades from the nbgrader gradebook as CSV."
    kinds = parser.add_subparsers(dest="export_kind", required=True, metavar="KIND")
    per_question = kinds.add_parser(
        "per-question", help="one row per student, assignment, notebook and graded cell",
        description="One CSV row per (student, assignment, notebook, graded cell): score, "
                    "points, auto/manual, status and the hidden check's hint.")
    per_question.add_argument("--out", type=Path, default=None,
                              help="CSV file (default: <root>/exports/per_question.csv)")
    per_question.add_argument("--assignment", action="append", default=None,
                              help="only this assignment (repeatable; default: all)")
    lms = kinds.add_parser(
        "lms", help="a gradebook CSV for Canvas or Moodle to import",
        description="One row per student, one column per assignment, in the LMS's "
                    "gradebook import format.")
    lms.add_argument("--format", dest="lms_format", choices=sorted(NO_GRADE), required=True,
                     help="canvas or moodle")
    lms.add_argument("--out", type=Path, default=None,
                     help="CSV file (default: <root>/exports/<format>.csv)")
    lms.add_argument("--assignment", action="append", default=None,
                     help="only this assignment (repeatable; default: all)")
    lms.add_argument("--missing", choices=["blank", "zero"], default="blank",
                     help="no submission: the LMS's 'no grade' (Canvas: empty, Moodle: -; "
                          "the default) or 0")
    lms.add_argument("--canvas-id", type=_canvas_id, action="append", default=[],
                     metavar="ASSIGNMENT=ID",
                     help="the Canvas assignment id of an assignment (repeatable)")
    return kinds


def main(args: argparse.Namespace) -> int:
    root = Path(args.root)
    if args.export_kind == "per-question":
        out = args.out or root / "exports" / "per_question.csv"
        write_per_question(root, out, args.assignment)
        print(f"wrote {out}")
        return 0
    out = args.out or root / "exports" / f"{args.lms_format}.csv"
    path, warnings = write_lms(root, out, args.lms_format, args.assignment, args.missing,
                               dict(args.canvas_id))
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"wrote {path}")
    return 0

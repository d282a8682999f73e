"""The regrade audit, read back: the report's "Regrades" section, every recorded grading as
CSV, and ``attnkit regrades``.

What is recorded, the fingerprints and the run's summary are ``attnkit.pipeline.audit``'s:
grading records and summarises a run below the review layer, which only reads the table.
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from pathlib import Path

import sqlalchemy as sa

from attnkit.course import db_url as course_db_url
from attnkit.pages import render
from attnkit.pipeline.audit import (  # the last two: a course's older nbgrader_config.py
    TABLE,
    AuditedSaveAutoGrades,
    Change,
    changes,
    describe_change,
    engine,
    post_convert_hook,
    summary,
)

__all__ = ["AuditedSaveAutoGrades", "post_convert_hook", "section", "write_export", "main"]


def section(db_url: str, assignment: str) -> str:
    """The report's "Regrades" section (HTML, from a Jinja template)."""
    found = changes(db_url, assignment)
    runs: dict[str, list[Change]] = defaultdict(list)
    for c in found:
        runs[c.run].append(c)
    groups = [{"when": cs[0].when.strftime("%Y-%m-%d %H:%M UTC"), "summary": summary(cs)}
              for cs in sorted(runs.values(), key=lambda cs: cs[0].when, reverse=True)]
    rows = [{"when": c.when.strftime("%Y-%m-%d %H:%M"), "student": c.student, "cell": c.cell,
             "old": f"{c.old:g}", "new": f"{c.new or 0:g}",
             "points": "" if c.max_score is None else f"{c.max_score:g}",
             "direction": "up" if (c.new or 0) > (c.old or 0) else "down",
             "changed": c.changed or "neither (the grading seed or the environment)",
             "manual": None if c.manual is None else f"{c.manual:g}"}
            for c in reversed(found)]
    return render("regrades.html.j2", groups=groups, rows=rows[:200], more=max(0, len(rows) - 200))


def export_rows(db_url: str, assignment: str | None = None) -> list[dict]:
    eng = engine(db_url)
    query = sa.select(TABLE).order_by(TABLE.c.id)
    if assignment:
        query = query.where(TABLE.c.assignment == assignment)
    with eng.connect() as conn:
        return [r._asdict() for r in conn.execute(query)]


def write_export(db_url: str, out: Path, assignment: str | None = None) -> Path:
    """Every recorded grading (not only changes), as CSV."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = export_rows(db_url, assignment)
    columns = [c.name for c in TABLE.columns if c.name != "id"]
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "recorded_at": row["recorded_at"].isoformat(
                timespec="seconds")})
    return out


def add_export_arguments(kinds: argparse._SubParsersAction) -> None:
    """``attnkit export regrades``, a kind beside the grade tables of ``attnkit export``."""
    audit = kinds.add_parser(
        "regrades", help="the regrade audit: every grading of every cell, old and new score",
        description="One CSV row per graded cell per grading: old and new auto score, the "
                    "TA's manual score, when, and fingerprints of the check and submission.")
    audit.add_argument("--out", type=Path, default=None,
                       help="CSV file (default: <root>/exports/regrades.csv)")
    audit.add_argument("--assignment", default=None, help="only this assignment")
    audit.set_defaults(func=export_main)


def export_main(args: argparse.Namespace) -> int:
    root = Path(args.root)
    out = write_export(course_db_url(root), args.out or root / "exports" / "regrades.csv",
                       args.assignment)
    print(f"wrote {out}")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Print the regrade audit's summary of one assignment."
    parser.add_argument("assignment")
    parser.add_argument("--all", action="store_true",
                        help="every regrade so far (default: the latest run that changed a score)")


def main(args: argparse.Namespace) -> int:
    found = changes(course_db_url(Path(args.root)), args.assignment)
    if found and not args.all:
        latest = max(found, key=lambda c: c.when).run
        found = [c for c in found if c.run == latest]
    print(f"{args.assignment}: {summary(found)}" if found
          else f"{args.assignment}: no regrade changed a score")
    for c in found:
        print(f"  {c.when:%Y-%m-%d %H:%M} {c.student} {c.cell}: "
              + describe_change({"old_auto": c.old, "new_auto": c.new, "manual": c.manual,
                                 "changed": c.changed}))
    return 0


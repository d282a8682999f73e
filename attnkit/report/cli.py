"""``attnkit report``: the command, and the one module of the report that sits above
``attnkit.review``, ``attnkit.serve`` and ``attnkit.written``. It hands their sections and
summary lines to the page, which imports none; ``attnkit.report`` re-exports the functions
below."""

from __future__ import annotations

import argparse
from pathlib import Path

from attnkit.course import default_out
from attnkit.gradedata import AssignmentData
from attnkit.pages import render
from attnkit.report import page
from attnkit.report.data import collect
from attnkit.report.page import NoteProvider, Section, SectionProvider
from attnkit.review import itemstats, regrades
from attnkit.serve import status as serve_status
from attnkit.written import report as written_report


def review_sections(data: AssignmentData, folder: Path | None) -> list[Section]:
    """(id, nav title, HTML) of the sections from ``attnkit.review``: item statistics, the
    regrade audit, a link to the similarity page when one sits beside the report, and the
    grading service's status when it has run in this course."""
    found = [("items", "Item statistics", itemstats.section(data))]
    if data.db_url:
        found.append(("regrades", "Regrades", regrades.section(data.db_url, data.name)))
    if folder is not None and (folder / "similarity.html").is_file():
        found.append(("similarity", "Similar submissions",
                      render("similarity_link.html.j2", assignment=data.name)))
    if data.course_root is not None and serve_status.status(data.course_root).running:
        found.append(("feedback-on-submit", "Feedback on submit",
                      serve_status.report_section(data.course_root)))
    return found


SECTIONS: tuple[SectionProvider, ...] = (review_sections, written_report.sections)
NOTES: tuple[NoteProvider, ...] = (itemstats.summary_lines, written_report.summary_lines)


def render_html(data: AssignmentData, figures: dict[str, bytes], top: int = 10,
                folder: Path | None = None) -> str:
    """The page with the review's and the grading service's sections."""
    return page.render_html(data, figures, top, folder, sections=SECTIONS)


def summary_text(data: AssignmentData, top: int = 5) -> str:
    """The text summary with the review's lines."""
    return page.summary_text(data, top, notes=NOTES)


def write(data: AssignmentData, out: Path, top: int = 10) -> Path:
    """The page with the review's and the grading service's sections, and its figures, under
    ``out`` (a directory, or an ``.html`` file)."""
    return page.write(data, out, top, sections=SECTIONS)


def build(root: Path, assignment: str, out: Path | None = None, top: int = 10) -> Path:
    """Write the report for ``assignment``; returns the path of its ``index.html``.

    ``out`` is a directory (default ``<root>/reports/<assignment>``), or an ``.html`` file.
    """
    data = collect(Path(root), assignment)
    return write(data, out or default_out(root, assignment), top)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Write an HTML report on one graded assignment: score distributions, "
                          "pass rate per hidden check, frequent misconceptions, submissions "
                          "that failed to grade and manual grading progress.")
    parser.add_argument("assignment", help="assignment name, e.g. ps1_self_attention")
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default: <root>/reports/<assignment>/)")
    parser.add_argument("--top", type=int, default=10,
                        help="how many misconceptions to list (default: 10)")


def main(args: argparse.Namespace) -> int:
    data = collect(Path(args.root), args.assignment)
    out = args.out or default_out(args.root, args.assignment)
    index = write(data, out, args.top)
    print(summary_text(data, min(args.top, 5)))
    print(f"Report: {index}")
    return 0

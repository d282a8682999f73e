"""``attnkit``: the course kit's command line."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from attnkit import course, samples, sandbox
from attnkit.grading import grader
from attnkit.pipeline import intake
from attnkit.report import cli as report
from attnkit.report import export
from attnkit.review import regrades, similarity
from attnkit.serve import service as serve
from attnkit.serve import status as serve_status
from attnkit.written import transfer

console = Console(width=max(shutil.get_terminal_size().columns, 132))  # the grade table fits


def print_grades(root: Path) -> None:
    names, table = course.grade_table(root)
    grid = Table(title="Grades (autograded points; written answers await a TA)")
    grid.add_column("student")
    for name in names:
        grid.add_column(name, justify="right")
    grid.add_column("total", justify="right")
    for student in sorted(table):
        row = table[student]
        cells = [f"{row[n][0]:g} / {row[n][1]:g}" if n in row else "-" for n in names]
        total = sum(s for s, _ in row.values()), sum(m for _, m in row.values())
        grid.add_row(student, *cells, f"{total[0]:g} / {total[1]:g}")
    console.print(grid)


def cmd_install_kernels(args: argparse.Namespace) -> int:
    path = sandbox.install_kernelspec(sys.prefix)
    console.print(f"installed kernelspec {path}")
    problem = sandbox.check_sandbox()
    if problem:
        console.print(f"[red]error:[/] the grading sandbox cannot start here: {problem}")
        return 1
    return 0


def cmd_release(args: argparse.Namespace) -> int:
    course.release(args.root)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Release, grade the sample class, write feedback, print the grade table."""
    root = args.root
    try:
        grader.preflight(course.load_config(root), None)
    except grader.GradingError as error:
        console.print(f"[red]cannot grade the demo class:[/] {error}")
        return 2
    for generated in ("submitted", "autograded", "feedback"):
        shutil.rmtree(root / generated, ignore_errors=True)
    (root / "gradebook.db").unlink(missing_ok=True)
    course.release(root)
    written = samples.write_submissions(root)
    console.print(f"wrote {len(written)} sample submissions")
    assignments = [a for a in course.assignments(root) if a in samples.SAMPLES]
    summaries = grader.autograde_all(root, assignments, force=True)  # one cluster for all
    for assignment in assignments:
        course.feedback(root, assignment)
    print_grades(root)
    return 1 if any(summary.failed for summary in summaries) else 0


def cmd_intake(args: argparse.Namespace) -> int:
    """Repair unreadable or misnamed submissions so that every one gets graded."""
    folder = args.root / "submitted"
    students = sorted(p.name for p in folder.iterdir() if (p / args.assignment).is_dir())
    for student in students:
        for repair in intake.prepare(args.root, args.assignment, student):
            console.print(f"{student}/{args.assignment}/{repair.notebook}: {repair.reason}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="attnkit", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="course directory (default: current directory)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("install-kernels", help="install the sandboxed grading kernel").set_defaults(
        func=cmd_install_kernels)
    sub.add_parser("release", help="generate every student release from source/").set_defaults(
        func=cmd_release)
    sub.add_parser("demo", help="grade the bundled sample class end to end").set_defaults(
        func=cmd_demo)
    take = sub.add_parser("intake", help="repair broken submissions before `nbgrader autograde`")
    take.add_argument("assignment")
    take.set_defaults(func=cmd_intake)
    autograde = sub.add_parser("autograde", help="grade submissions in parallel on Dask")
    grader.add_arguments(autograde)
    autograde.set_defaults(func=grader.main)
    rep = sub.add_parser("report", help="write an HTML report on one graded assignment")
    report.add_arguments(rep)
    rep.set_defaults(func=report.main)
    exp = sub.add_parser("export", help="export grades as CSV: per question, or for Canvas/Moodle")
    kinds = export.add_arguments(exp)
    regrades.add_export_arguments(kinds)
    transfer.add_export_arguments(kinds)
    exp.set_defaults(func=export.main)
    imp = sub.add_parser("import", help="read grades back from CSV: written answers")
    transfer.add_import_arguments(imp)
    sim = sub.add_parser("similarity", help="flag pairs of students with similar code")
    similarity.add_arguments(sim)
    sim.set_defaults(func=similarity.main)
    audit = sub.add_parser("regrades", help="summarise the regrade audit of one assignment")
    regrades.add_arguments(audit)
    audit.set_defaults(func=regrades.main)
    srv = sub.add_parser("serve", help="grade each submission as it arrives in the exchange "
                         "and release its feedback to that student")
    serve.add_arguments(srv)
    srv.set_defaults(func=serve.main)
    stat = sub.add_parser("serve-status", help="the grading service's queue, failures, latency")
    serve_status.add_arguments(stat)
    stat.set_defaults(func=serve_status.main)
    args = parser.parse_args(argv)
    args.root = args.root.resolve()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

"""``attnkit``: the course kit's command line.

A command's modules are imported only when that command runs: ``attnkit autograde`` does not
import the report, the similarity tools or the grading service, nor they the grader.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@functools.cache
def console() -> Console:
    """The terminal; rich is imported by the first command that prints."""
    from rich.console import Console

    return Console(width=max(shutil.get_terminal_size().columns, 132))  # the grade table fits


def print_grades(root: Path) -> None:
    from rich.table import Table

    from attnkit import course

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
    console().print(grid)


def cmd_install_kernels(args: argparse.Namespace) -> int:
    from attnkit import sandbox

    path = sandbox.install_kernelspec(sys.prefix)
    console().print(f"installed kernelspec {path}")
    problem = sandbox.check_sandbox()
    if problem:
        console().print(f"[red]error:[/] the grading sandbox cannot start here: {problem}")
        return 1
    return 0


def cmd_release(args: argparse.Namespace) -> int:
    from attnkit import course

    course.release(args.root)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Release, grade the sample class, write feedback, print the grade table."""
    from attnkit import course, samples
    from attnkit.grading import grader

    root = args.root
    try:
        grader.preflight(course.load_config(root), None)
    except grader.GradingError as error:
        console().print(f"[red]cannot grade the demo class:[/] {error}")
        return 2
    for generated in ("submitted", "autograded", "feedback"):
        shutil.rmtree(root / generated, ignore_errors=True)
    (root / "gradebook.db").unlink(missing_ok=True)
    course.release(root)
    written = samples.write_submissions(root)
    console().print(f"wrote {len(written)} sample submissions")
    assignments = [a for a in course.assignments(root) if a in samples.SAMPLES]
    summaries = grader.autograde_all(root, assignments, force=True)  # one cluster for all
    for assignment in assignments:
        course.feedback(root, assignment)
    print_grades(root)
    return 1 if any(summary.failed for summary in summaries) else 0


def cmd_intake(args: argparse.Namespace) -> int:
    """Repair unreadable or misnamed submissions so that every one gets graded."""
    from attnkit.pipeline import intake

    folder = args.root / "submitted"
    students = sorted(p.name for p in folder.iterdir() if (p / args.assignment).is_dir())
    for student in students:
        for repair in intake.prepare(args.root, args.assignment, student):
            console().print(f"{student}/{args.assignment}/{repair.notebook}: {repair.reason}")
    return 0


def _own(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.ArgumentParser], None]:
    """Configure a command of this module's own."""
    return lambda parser: parser.set_defaults(func=func)


def _intake(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("assignment")
    parser.set_defaults(func=cmd_intake)


def _module(name: str) -> Callable[[argparse.ArgumentParser], None]:
    """Configure a command whose module has ``add_arguments(parser)`` and ``main(args)``."""
    def configure(parser: argparse.ArgumentParser) -> None:
        module = importlib.import_module(name)
        module.add_arguments(parser)
        parser.set_defaults(func=module.main)
    return configure


def _export(parser: argparse.ArgumentParser) -> None:
    from attnkit.report import export
    from attnkit.review import regrades
    from attnkit.written import transfer

    kinds = export.add_arguments(parser)
    regrades.add_export_arguments(kinds)
    transfer.add_export_arguments(kinds)
    parser.set_defaults(func=export.main)


def _import(parser: argparse.ArgumentParser) -> None:
    from attnkit.written import transfer

    transfer.add_import_arguments(parser)


# name -> (help, what adds its arguments and its function, importing its modules)
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "install-kernels": ("install the sandboxed grading kernel", _own(cmd_install_kernels)),
    "release": ("generate every student release from source/", _own(cmd_release)),
    "demo": ("grade the bundled sample class end to end", _own(cmd_demo)),
    "intake": ("repair broken submissions before `nbgrader autograde`", _intake),
    "autograde": ("grade submissions in parallel on Dask", _module("attnkit.grading.cli")),
    "report": ("write an HTML report on one graded assignment", _module("attnkit.report.cli")),
    "export": ("export grades as CSV: per question, or for Canvas/Moodle", _export),
    "import": ("read grades back from CSV: written answers", _import),
    "similarity": ("flag pairs of students with similar code",
                   _module("attnkit.review.similarity")),
    "regrades": ("summarise the regrade audit of one assignment",
                 _module("attnkit.review.regrades")),
    "serve": ("grade each submission as it arrives in the exchange and release its feedback "
              "to that student", _module("attnkit.serve.service")),
    "serve-status": ("the grading service's queue, failures, latency",
                     _module("attnkit.serve.status")),
}


def _named(argv: list[str]) -> str | None:
    """The command ``argv`` names, if any (its options are not read here)."""
    first = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    first.add_argument("--root")
    first.add_argument("command", nargs="?")
    try:
        return first.parse_known_args(argv)[0].command
    except argparse.ArgumentError:  # --root without its value
        return None  # the whole parser says what is wrong


def parser(argv: list[str]) -> argparse.ArgumentParser:
    """The parser of ``argv``: every command by name and help, and the arguments of the one
    ``argv`` names (importing its modules)."""
    top = argparse.ArgumentParser(prog="attnkit", description=__doc__.split("\n\n")[0])
    top.add_argument("--root", type=Path, default=Path.cwd(),
                     help="course directory (default: current directory)")
    sub = top.add_subparsers(dest="command", required=True)
    named = _named(argv)
    for name, (help_, configure) in COMMANDS.items():
        command = sub.add_parser(name, help=help_)
        if name == named:
            configure(command)
    return top


def run(cli: argparse.ArgumentParser, argv: list[str]) -> int:
    args = cli.parse_args(argv)
    args.root = args.root.resolve()
    return args.func(args)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return run(parser(argv), argv)


if __name__ == "__main__":
    sys.exit(main())

"""The README's walk through a term, run command by command on a scratch course."""

from __future__ import annotations

import csv
import re
import shlex
from pathlib import Path

import pytest
from helpers.course import ROOT, copy_course, run
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.samples import SAMPLES, write_submissions

pytestmark = pytest.mark.slow
A = "ps1_self_attention"


def term_commands() -> list[str]:
    """The commands of the README's first bash block in 'A term with the kit'."""
    section = ROOT.joinpath("README.md").read_text().split("## A term with the kit", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)
    lines = [line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
             for line in block.splitlines()]
    interactive = {line.split("#")[0].strip() for line in block.splitlines()
                   if "# interactive" in line}
    # `make env` is what `make test` itself runs before the suite
    return [c for c in lines if c and c not in interactive and not c.startswith("make ")]


def test_readme_walkthrough(tmp_path: Path) -> None:
    root = copy_course(tmp_path / "course")
    students = sorted(SAMPLES[A])
    with (root / "roster.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "first_name", "last_name", "email"])
        writer.writerows([s, s.title(), "Sample", f"{s}@example.edu"] for s in students)
    commands = term_commands()
    assert any(c.startswith("attnkit autograde") for c in commands), commands
    for command in commands:
        run(shlex.split(command), root)
        if command.startswith("nbgrader generate_assignment"):
            write_submissions(root, [A])  # the class hands in
    with Gradebook(kit_course.db_url(root)) as gb:
        assert {s.id for s in gb.students} >= set(students)
        assert gb.find_student("aisha").first_name == "Aisha"
        assert gb.find_submission(A, "aisha").score == 9  # 11 points, 2 await a TA
    for student in students:
        assert (root / "feedback" / student / A / f"{A}.html").exists()
    assert (root / "reports" / A / "index.html").exists()
    canvas = list(csv.reader((root / "canvas.csv").open()))
    assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert any(row[0] == "Sample, Aisha" for row in canvas)
    assert len(list(csv.DictReader((root / "per_question.csv").open()))) >= 7 * len(students)

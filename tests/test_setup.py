"""What a newcomer's machine does when the sandbox cannot start: refuse before grading."""

from __future__ import annotations

from pathlib import Path

from helpers.course import BIN, copy_course, run


def test_demo_and_autograde_refuse_and_grade_nothing_without_the_sandbox(
        tmp_path: Path) -> None:
    """The defect: a missing bwrap gave a grade table of zeros for every student. Here the
    sandbox's tools are off PATH (as on a machine without bubblewrap)."""
    root = copy_course(tmp_path / "course")
    bare = {"PATH": str(BIN)}  # no /usr/bin: no bwrap, prlimit or setpriv
    demo = run(["attnkit", "demo"], root, check=False, env=bare)
    assert demo.returncode == 2, demo.stdout + demo.stderr
    said = " ".join((demo.stdout + demo.stderr).split())
    assert "cannot start: bwrap, prlimit, setpriv not found" in said
    assert "Nothing was graded" in said and "make env" in said
    assert "Grades" not in said  # no grade table
    assert not (root / "submitted").exists() and not (root / "gradebook.db").exists()
    grade = run(["attnkit", "autograde", "ps1_self_attention"], root, check=False, env=bare)
    assert grade.returncode == 2 and "Nothing was graded" in grade.stderr
    assert not (root / "gradebook.db").exists()

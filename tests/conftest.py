"""Shared fixtures: a scratch copy of the course directory, and the grading account."""

from __future__ import annotations

import os
import pwd
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.register_assert_rewrite("helpers")
from helpers.course import INSTRUCTOR, Grader, copy_course  # noqa: E402
from helpers.graded import build_graded  # noqa: E402


@pytest.fixture(scope="session")
def graded_ps1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ps1 graded once per session (``helpers.graded``): copy it before changing it."""
    return build_graded(tmp_path_factory.mktemp("graded"))


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return copy_course(tmp_path / "course")


@pytest.fixture(scope="session")
def grader() -> Iterator[Grader]:
    if os.geteuid() != 0:
        yield Grader(pwd.getpwuid(os.geteuid()), [])
        return
    created = subprocess.run(["id", "-u", INSTRUCTOR], capture_output=True).returncode != 0
    if created:
        subprocess.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash",
                        INSTRUCTOR], check=True)
    account = pwd.getpwnam(INSTRUCTOR)
    try:
        yield Grader(account, ["setpriv", f"--reuid={account.pw_uid}",
                               f"--regid={account.pw_gid}", "--init-groups", "--"])
    finally:
        if created:
            subprocess.run(["userdel", "--remove", INSTRUCTOR], capture_output=True)

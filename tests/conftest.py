"""Shared fixtures: a scratch copy of the course directory, and the grading account."""

from __future__ import annotations

import os
import pwd
import subprocess
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


# pytest-xdist hands files to its workers in collection order: the longest go first, so
# none is left running alone at the end (every other file keeps its place)
LONGEST = ["test_hostile.py", "test_hub.py", "test_hub_written.py", "test_unprivileged.py",
           "test_course.py", "test_postgres.py", "test_serve.py", "test_hub_permissions.py",
           "test_new_question.py", "test_xss.py"]
MADE = pytest.StashKey[bool]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST)))


def pytest_configure(config: pytest.Config) -> None:
    """The grading account, made once per run: by xdist's controller, never by two workers."""
    if os.geteuid() == 0 and not hasattr(config, "workerinput"):
        config.stash[MADE] = subprocess.run(["id", "-u", INSTRUCTOR],
                                            capture_output=True).returncode != 0
        if config.stash[MADE]:
            subprocess.run(["useradd", "--create-home", "--user-group", "--shell",
                            "/bin/bash", INSTRUCTOR], check=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(MADE, False):
        subprocess.run(["userdel", "--remove", INSTRUCTOR], capture_output=True)


@pytest.fixture(scope="session")
def grader() -> Grader:
    if os.geteuid() != 0:
        return Grader(pwd.getpwuid(os.geteuid()), [])
    account = pwd.getpwnam(INSTRUCTOR)
    return Grader(account, ["setpriv", f"--reuid={account.pw_uid}",
                            f"--regid={account.pw_gid}", "--init-groups", "--"])

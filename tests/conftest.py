"""Shared fixtures: a scratch copy of the course directory, and the venv's commands."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}


def copy_course(dest: Path) -> Path:
    """The course's committed files (no gradebook, no submissions) under ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("source", "release"):
        shutil.copytree(ROOT / name, dest / name)
    shutil.copy(ROOT / "nbgrader_config.py", dest)
    return dest


def run(args: list[str], cwd: Path, check: bool = True, **kw) -> subprocess.CompletedProcess:
    """A command from the venv, in ``cwd``, output captured."""
    result = subprocess.run(args, cwd=cwd, env={**ENV, **kw.pop("env", {})}, text=True,
                            capture_output=True, **kw)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed ({result.returncode}):\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return copy_course(tmp_path / "course")

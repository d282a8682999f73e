"""Every module of the package imports: a moved module leaves no stale import behind (the
linter cannot see one inside a package that has not been imported)."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import attnkit

SCRIPTS = {"attnkit.sandbox.forkserver", "attnkit.__main__"}  # run as scripts, not imported


@pytest.mark.parametrize("name", sorted(
    m.name for m in pkgutil.walk_packages(attnkit.__path__, "attnkit.") if m.name not in SCRIPTS))
def test_module_imports(name: str) -> None:
    importlib.import_module(name)


def test_the_layers_hold() -> None:
    """pyproject.toml's import-linter contracts: no layer imports one above it."""
    linter = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(linter), "--no-cache"], capture_output=True, text=True,
                            cwd=Path(attnkit.__file__).parents[1], timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]

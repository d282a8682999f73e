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
from attnkit import cli

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


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_every_command_builds_its_arguments(command: str) -> None:
    """A command's modules are imported only when it runs: build each one's parser here."""
    chosen = cli.parser([command])._subparsers._group_actions[0].choices[command]
    assert chosen._defaults.get("func") or chosen._subparsers, command


def test_autograde_imports_none_of_the_other_commands() -> None:
    script = ("import sys; from attnkit import cli; cli.parser(['autograde', 'ps1', '--force']);"
              "print(' '.join(m for m in sys.modules if m.startswith('attnkit.')))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, timeout=120).stdout.split()
    assert "attnkit.grading.coordinator" in loaded
    others = [m for m in loaded if m.split(".")[1] in ("report", "review", "serve", "written")]
    assert not others, others

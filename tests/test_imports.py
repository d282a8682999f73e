"""Every module of the package imports: a moved module leaves no stale import behind (the
linter cannot see one inside a package that has not been imported)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import attnkit

SCRIPTS = {"attnkit.sandbox.forkserver", "attnkit.__main__"}  # run as scripts, not imported


@pytest.mark.parametrize("name", sorted(
    m.name for m in pkgutil.walk_packages(attnkit.__path__, "attnkit.") if m.name not in SCRIPTS))
def test_module_imports(name: str) -> None:
    importlib.import_module(name)

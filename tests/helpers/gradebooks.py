"""A fresh nbgrader gradebook for each test, in SQLite or on the real PostgreSQL server
(fixture ``gradebook_url``): the kit's own tables live beside nbgrader's in both."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from nbgrader.api import Gradebook


@pytest.fixture(scope="module")
def empty_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An nbgrader gradebook opened once (its first opening is slow): copied per test."""
    path = tmp_path_factory.mktemp("gradebook") / "gradebook.db"
    Gradebook(f"sqlite:///{path}").close()
    return path


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def gradebook_url(request: pytest.FixtureRequest, tmp_path: Path, empty_sqlite: Path) -> str:
    """The URL of an empty gradebook of this test's own (PostgreSQL: ``helpers.postgres``)."""
    if request.param == "postgres":
        return request.getfixturevalue("postgres")
    shutil.copy(empty_sqlite, tmp_path / "gradebook.db")
    return f"sqlite:///{tmp_path / 'gradebook.db'}"

"""The local cluster's worker server: started by the command, workers fork with the grader
imported and frozen."""

from __future__ import annotations

import gc
import multiprocessing
import sys

import pytest

from attnkit.grading.cluster import frozen_imports, grades_locally
from attnkit.upstream.workers import start_worker_server


@pytest.mark.parametrize(("args", "expected"), [
    (["autograde", "ps1"], True),
    (["--root", "course", "autograde", "ps1", "ps2", "--workers", "4"], True),
    (["demo"], True),
    (["autograde", "ps1", "--scheduler", "tcp://10.0.0.1:8786"], False),
    (["autograde", "ps1", "--scheduler=tcp://10.0.0.1:8786"], False),
    (["report", "ps1"], False),
    (["release"], False),
])
def test_which_commands_start_the_worker_server(args: list[str], expected: bool) -> None:
    assert grades_locally(args) is expected


def loaded(names: list[str], answers: multiprocessing.SimpleQueue) -> None:
    """In a forked worker: which of ``names`` it had imported before running anything, how
    many objects its collector ignores, and whether it collects the rest."""
    answers.put(({name: name in sys.modules for name in names}, gc.get_freeze_count(),
                 gc.isenabled()))


def test_workers_fork_with_the_grader_imported_and_frozen() -> None:
    start_worker_server()
    context = multiprocessing.get_context("forkserver")
    answers = context.SimpleQueue()
    worker = context.Process(target=loaded,
                             args=(["attnkit.grading.grader", "nbgrader.apps"], answers))
    worker.start()
    worker.join(60)
    assert worker.exitcode == 0
    imported, frozen, collecting = answers.get()
    assert imported == {"attnkit.grading.grader": True, "nbgrader.apps": True}
    assert frozen > 200_000  # Dask, nbgrader and the rest: never scanned by its collections
    assert collecting


def test_frozen_imports_turn_collection_back_on_even_after_an_error() -> None:
    before = gc.get_freeze_count()
    with pytest.raises(ImportError), frozen_imports():
        assert not gc.isenabled()
        made = [[] for _ in range(1000)]  # what an import leaves behind
        import attnkit.no_such_module  # noqa: F401
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(made)

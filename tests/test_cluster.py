"""The local cluster's worker server: started by the command, workers fork with the grader."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from attnkit.cluster import grades_locally, start_worker_server


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
    """In a forked worker: which of ``names`` it had imported before running anything."""
    answers.put({name: name in sys.modules for name in names})


def test_workers_fork_with_the_grader_imported() -> None:
    start_worker_server()
    context = multiprocessing.get_context("forkserver")
    answers = context.SimpleQueue()
    worker = context.Process(target=loaded, args=(["attnkit.grader", "nbgrader.apps"], answers))
    worker.start()
    worker.join(60)
    assert worker.exitcode == 0
    assert answers.get() == {"attnkit.grader": True, "nbgrader.apps": True}

"""The local cluster's worker server: started by the command, workers fork with the grader
imported and frozen."""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.graded import ASSIGNMENT, GRADED, copy_graded

from attnkit.grading.cluster import frozen_imports, grades_locally
from attnkit.upstream.workers import COURSE_ENV, start_worker_server


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
    answers.put(({name: sys.modules.get(name) is not None for name in names},
                 gc.get_freeze_count(), gc.isenabled()))


def test_workers_fork_with_the_grader_imported_and_frozen() -> None:
    start_worker_server()
    context = multiprocessing.get_context("forkserver")
    answers = context.SimpleQueue()
    names = ["attnkit.grading.grader", "nbgrader.apps", "jsonschema"]
    worker = context.Process(target=loaded, args=(names, answers))
    worker.start()
    worker.join(60)
    assert worker.exitcode == 0
    imported, frozen, collecting = answers.get()
    assert imported == {"attnkit.grading.grader": True, "nbgrader.apps": True,
                        "jsonschema": True}
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


WARMED = """
import json, sys
from pathlib import Path
from attnkit.grading import grader, worker  # the worker server's import: warms the course or not
from attnkit.pipeline import maths
from attnkit.upstream import pages
from attnkit.upstream.gradebook import shared_engine
from attnkit import course
root, assignment, student = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
before = pages._highlighted.cache_info(), maths._remembered.cache_info()
api = grader._worker_api(str(root), course.db_url(root), "python3")
with shared_engine():
    assert api.generate_feedback(assignment, student, force=True)["success"]
after = pages._highlighted.cache_info(), maths._remembered.cache_info()
print(json.dumps({"warm": [b.currsize for b in before],
                  "hits": [a.hits - b.hits for a, b in zip(after, before)]}))
"""


@pytest.mark.slow
def test_a_worker_forked_warm_writes_the_same_page_from_its_caches(
        tmp_path: Path, graded_ps1: Path) -> None:
    """The worker server renders the course's release once (``attnkit.grading.worker``): a
    worker's first feedback page then comes mostly from the caches it forked with, and is
    byte for byte the page a cold worker writes."""
    root = copy_graded(graded_ps1, tmp_path / "course")
    feedback = root / "feedback" / GRADED[0] / ASSIGNMENT / f"{ASSIGNMENT}.html"
    results, pages = {}, {}  # by whether the process was warmed
    for warm in (False, True):
        env = {k: v for k, v in os.environ.items() if k != COURSE_ENV}
        if warm:
            env[COURSE_ENV] = str(root)
        out = subprocess.run([sys.executable, "-c", WARMED, str(root), ASSIGNMENT, GRADED[0]],
                             capture_output=True, text=True, env=env, cwd=root, check=True)
        results[warm] = json.loads(out.stdout.splitlines()[-1])
        pages[warm] = feedback.read_bytes()
    assert results[False]["warm"] == [0, 0], results
    highlighted, markdown = results[True]["warm"]
    assert highlighted > 20 and markdown > 20, results  # every assignment's release cells
    # the release's code and markdown cells, found rather than rendered again
    assert all(warm - cold >= 5 for warm, cold in zip(results[True]["hits"],
                                                      results[False]["hits"], strict=True)), results
    assert pages[True] == pages[False]

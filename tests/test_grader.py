"""``attnkit autograde`` on Dask against stock ``nbgrader autograde``, with real kernels."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import dask
import psutil
import pytest
from distributed import Client
from helpers.course import copy_course
from helpers.postgres import (
    ASSIGNMENT,
    KERNEL,
    WRONG,
    make_submissions,
    new_course,
    notebook,
    scores,
    sqlite_url,
    stock_autograde,
    submit,
)
from nbgrader.api import Gradebook

from attnkit import samples
from attnkit.grading import cluster, grader
from attnkit.pipeline.execute import course_salt
from attnkit.sandbox import KERNEL_NAME as SANDBOX
from attnkit.sandbox import check_sandbox

pytest_plugins = ["helpers.postgres"]
pytestmark = pytest.mark.slow

# A kernel whose first start fails: argv[1] is a marker file, created by that failed start.
FLAKY = """
import os, sys
marker = sys.argv.pop(1)
if not os.path.exists(marker):
    open(marker, "w").close()
    sys.exit(3)
from ipykernel import kernelapp
kernelapp.launch_new_instance()
"""


@pytest.fixture(autouse=True)
def _sqlite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATTNKIT_DB_URL", raising=False)


@pytest.fixture(scope="module")
def flaky_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Install kernel "flaky" on JUPYTER_PATH; yield the marker of its failed first start."""
    prefix = tmp_path_factory.mktemp("jupyter")
    marker = prefix / "failed-once"
    spec = prefix / "kernels" / "flaky" / "kernel.json"
    spec.parent.mkdir(parents=True)
    spec.write_text(json.dumps({
        "argv": [sys.executable, "-c", FLAKY, str(marker), "-f", "{connection_file}"],
        "display_name": "flaky", "language": "python"}))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(prefix))
        yield marker


@pytest.fixture(scope="module")
def scheduler(flaky_kernel: Path) -> Iterator[str]:
    """A running two-worker cluster (its workers see the flaky kernel): its address. It
    speaks TLS: the client finds its credentials in Dask's config, as the README says a
    `--scheduler` client does."""
    with cluster.local_cluster(2) as local:
        security = local.security
        with dask.config.set({"distributed.comm.tls.ca-file": security.tls_ca_file,
                              "distributed.comm.tls.client.cert": security.tls_client_cert,
                              "distributed.comm.tls.client.key": security.tls_client_key,
                              "distributed.comm.require-encryption": True}):
            yield local.scheduler_address


def totals(grades: dict[tuple[str, str], float | None]) -> dict[str, float]:
    """Each student's autograded points."""
    out: dict[str, float] = {}
    for (student, _), score in grades.items():
        out[student] = out.get(student, 0.0) + (score or 0.0)
    return out


def autograded(course: Path, student: str) -> Path:
    """A student's autograded ps1 notebook."""
    return course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


@contextlib.contextmanager
def kernel_servers() -> Iterator[set[int]]:
    """The pids of every warm-kernel server under this process while the block runs."""
    seen: set[int] = set()
    done = threading.Event()

    def launched(proc: psutil.Process) -> bool:
        return any(arg.endswith("forkserver.py") for arg in proc.cmdline())

    def watch() -> None:
        while not done.wait(0.05):
            tree = psutil.Process().children(recursive=True)
            ours = {os.getpid(), *(proc.pid for proc in tree)}
            for proc in tree:  # a server's kernels are forked from it: its command line too
                with contextlib.suppress(psutil.Error):
                    parent = proc.parent()
                    # not a kernel's init whose outer process has exited (a zombie's
                    # command line is empty) or that has been orphaned
                    if launched(proc) and parent.pid in ours and parent.cmdline() \
                            and not launched(parent):
                        seen.add(proc.pid)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        yield seen
    finally:
        done.set()
        watcher.join()


@pytest.mark.parametrize("kernel", [KERNEL, SANDBOX])
def test_same_scores_as_stock_nbgrader(course_template: Path, tmp_path: Path,
                                       kernel: str) -> None:
    """With the sandbox, stock starts kernels with bubblewrap and the kit forks them warm,
    from one warm-kernel server for the whole run."""
    if kernel == SANDBOX:
        assert check_sandbox() is None, f"the sandbox cannot start (run `make env`): " \
            f"{check_sandbox()}"
    stock = new_course(course_template, tmp_path / "stock")
    students = make_submissions(stock, 6)
    course_salt(str(stock / ".attnkit" / "seed-salt"))  # one salt: the same fresh inputs
    kit = tmp_path / "kit"
    shutil.copytree(stock, kit)

    result = stock_autograde(stock, kernel)
    assert result.returncode == 0, result.stderr[-3000:]
    with kernel_servers() as servers:
        summary = grader.autograde(kit, ASSIGNMENT, workers=2, progress=False, kernel=kernel)

    assert len(servers) == (1 if kernel == SANDBOX else 0), "both workers share one server"
    assert sorted(summary.graded) == students
    assert summary.failed == [] and summary.skipped == []
    expected = scores(sqlite_url(stock))
    assert len(expected) == 6 * 7
    assert scores(sqlite_url(kit)) == expected
    assert all(autograded(kit, student).exists() for student in students)
    total = totals(expected)
    assert total["s00"] == 9 and total["s01"] == 0  # complete, blank
    assert all(0 < total[s] < 9 for s in students[2:]), total  # a crash, broken functions


def test_incremental_force_and_kernel_retry(course_template: Path, tmp_path: Path,
                                            scheduler: str, flaky_kernel: Path,
                                            capsys: pytest.CaptureFixture) -> None:
    course = new_course(course_template, tmp_path / "course")
    submit(course, "complete", notebook(course))
    submit(course, "blank", notebook(course, "release"))
    submit(course, "broken", notebook(
        course, ps1_softmax_cols_code=WRONG["ps1_softmax_cols_code"]))
    submit(course, "corrupt", "{not a notebook")
    run = functools.partial(grader.autograde, course, ASSIGNMENT, scheduler=scheduler,
                            progress=False, kernel=KERNEL)
    graded = ["blank", "broken", "complete", "corrupt"]

    first = run()  # the corrupt file is repaired by intake: graded as the blank release
    assert sorted(first.graded) == graded and first.failed == []
    assert "JSON" in first.repaired["corrupt"][0]
    total = totals(scores(sqlite_url(course)))
    assert total["complete"] == 9 and total["blank"] == 0 and 0 < total["broken"] < 9
    assert total["corrupt"] == 0

    parser = argparse.ArgumentParser()  # nothing changed: everything skipped
    grader.add_arguments(parser)
    args = parser.parse_args([ASSIGNMENT, "--scheduler", scheduler, "--kernel", KERNEL,
                              "--no-progress"])
    args.root = course  # `attnkit --root`
    assert grader.main(args) == 0
    report = capsys.readouterr().out
    assert "graded 0, skipped 4, failed 0" in report

    submit(course, "broken", notebook(course))  # the student fixed it
    third = run()
    assert third.graded == ["broken"] and sorted(third.skipped) == ["blank", "complete",
                                                                     "corrupt"]
    after = scores(sqlite_url(course))
    assert totals(after)["broken"] == 9

    forced = run(force=True, students=["blank"], kernel="flaky")
    assert forced.graded == ["blank"] and forced.skipped == [] and forced.failed == []
    assert flaky_kernel.exists()  # its first start failed, and was retried
    assert scores(sqlite_url(course)) == after


def kill_busy_worker(client: Client, timeout: float = 300) -> str:
    """SIGKILL a worker process while it grades; return the key it was grading."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = {worker: keys for worker, keys in client.processing().items() if keys}
        if busy:
            worker, keys = next(iter(busy.items()))
            time.sleep(1.0)  # into the notebook's kernel run
            pid = client.run(os.getpid, workers=[worker])[worker]
            os.kill(pid, signal.SIGKILL)
            return keys[0]
        time.sleep(0.1)
    raise AssertionError("no worker ever started grading")


def test_killed_worker_and_interrupted_run(course_template: Path, tmp_path: Path,
                                           scheduler: str) -> None:
    course = new_course(course_template, tmp_path / "course")
    students = make_submissions(course, 4)
    run = functools.partial(grader.autograde, course, ASSIGNMENT, scheduler=scheduler,
                            progress=False, kernel=KERNEL)
    first = run(students=students[:2])  # a run stopped after half the class
    assert sorted(first.graded) == students[:2]

    summaries: list[grader.Summary] = []
    rerun = threading.Thread(target=lambda: summaries.append(run()))
    with Client(scheduler, set_as_default=False) as client:
        rerun.start()
        killed = kill_busy_worker(client)
        rerun.join(timeout=600)
    assert killed.startswith("autograde-")
    (summary,) = summaries
    assert sorted(summary.skipped) == students[:2]
    assert sorted(summary.graded) == students[2:] and summary.failed == []
    grades = scores(sqlite_url(course))
    assert {student for student, _ in grades} == set(students)
    assert all(score is not None for (_, cell), score in grades.items()
               if cell != "ps1_positional_answer")
    assert all(autograded(course, student).exists() for student in students)


def test_several_assignments_on_one_cluster(tmp_path: Path, scheduler: str,
                                            capsys: pytest.CaptureFixture) -> None:
    root = copy_course(tmp_path / "course")  # committed release/; the samples are built on it
    both = ["ps1_self_attention", "ps2_multihead_attention"]
    written = samples.write_submissions(root, both)
    parser = argparse.ArgumentParser()
    grader.add_arguments(parser)
    args = parser.parse_args([*both, "--scheduler", scheduler, "--kernel", KERNEL,
                              "--no-progress"])
    args.root = root
    assert grader.main(args) == 0
    report = capsys.readouterr().out
    for assignment in both:
        assert f"{assignment}: graded 5, skipped 0, failed 0\n" in report
    assert f"all: graded {len(written)} in " in report
    with Gradebook(sqlite_url(root), "self-attention") as gb:
        graded = {(s.student.id, a) for a in both for s in gb.find_assignment(a).submissions}
    assert graded == set(written)

"""The grade-on-submit service (``attnkit serve``), as a real process on a real exchange: students
submit and fetch feedback through nbgrader's exchange classes, the service grades with real
sandboxed kernels on a real Dask cluster into the real SQLite gradebook."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import nbformat
import psutil
import pytest
from helpers.course import BIN, ENV, run
from helpers.exchange import exchange_course, fetch_feedback, place, right, submit
from nbgrader.api import Gradebook

from attnkit.course import db_url
from attnkit.serve.journal import FAILED, GRADED, GRADING, SUPERSEDED, TERMINAL, Journal
from attnkit.serve.status import report_section, status

A = "ps1_self_attention"
UNDRAWN_TEXT = "A plot goes here. Feedback on submit left it out to come sooner"
pytestmark = [pytest.mark.kernel, pytest.mark.slow]

# Every completed autograde, written by nbgrader's own post-convert hook: an independent
# witness of "graded twice".
WITNESS = '''
def _witness(assignment, student, notebooks):
    stamp = open(os.path.join(HERE, "autograded", student, assignment, "timestamp.txt")).read()
    with open(os.path.join(HERE, "graded.log"), "a") as log:
        log.write(f"{student}|{assignment}|{stamp}\\n")
c.Autograde.post_convert_hook = _witness
'''


def start(root: Path, *args: str) -> subprocess.Popen:
    log = (root / "serve.log").open("a")
    return subprocess.Popen([str(BIN / "attnkit"), "serve", A, *args], cwd=root, env=ENV,
                            stdout=log, stderr=log)


def wait_for(what: str, test: Callable[[], bool], root: Path, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; service log:\n"
                                 + (root / "serve.log").read_text()[-3000:])
        time.sleep(0.2)


def rows(root: Path) -> dict:
    journal = Journal(root)
    try:
        return {row.name: row for row in journal.rows()}
    finally:
        journal.close()


def stop(service: subprocess.Popen) -> None:
    service.terminate()
    assert service.wait(60) == 0


def wrong(root: Path) -> nbformat.NotebookNode:
    """A softmax without the max shift (half marks on two cells)."""
    nb = right(root, A)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "ps1_softmax_code":
            cell.source = ("def softmax(items_in):\n    e = np.exp(np.array(items_in, "
                           "dtype=float))\n    return e / np.sum(e)\n")
    return nb


def test_rate_limit_queues_and_says_when(tmp_path: Path) -> None:
    """One grading per 20 s: the second and third submissions in that window wait, each told
    when it will be graded; when the window passes only the latest is graded (nbgrader's
    rule), so three submissions give one extra look at the hidden checks, not two."""
    root = exchange_course(tmp_path, [A], "c.GradeOnSubmit.rate_limit = 1\n"
                                          "c.GradeOnSubmit.rate_period = 20.0\n")
    service = start(root)
    try:
        # bo edits the submission in the exchange: nbgrader cannot read its timestamp.
        place(tmp_path / "home" / "bo", A, right(root, A))
        broken = submit(root, tmp_path, "bo", A)
        inbound = tmp_path / "exchange" / "self-attention" / "inbound"
        (inbound / broken / "timestamp.txt").write_text("the day before the deadline")
        place(tmp_path / "home" / "ana", A, wrong(root))
        first = submit(root, tmp_path, "ana", A)
        wait_for("the first grade", lambda: rows(root).get(first) and
                 rows(root)[first].state == GRADED, root)
        page = fetch_feedback(root, tmp_path, "ana", A)
        assert len(page) == 1 and "Score" in next(iter(page.values())), page
        assert "<img" in next(iter(page.values()))  # nothing else waited: plots are drawn
        place(tmp_path / "home" / "ana", A, right(root, A))
        second = submit(root, tmp_path, "ana", A)
        third = submit(root, tmp_path, "ana", A)
        wait_for("both queued", lambda: all(rows(root).get(n) and rows(root)[n].state ==
                                            "queued" for n in (second, third)), root)
        started = rows(root)[first].started
        for name in (second, third):
            assert rows(root)[name].not_before == pytest.approx(started + 20)
        pages = fetch_feedback(root, tmp_path, "ana", A)
        stamp = time.strftime("%H:%M:%S", time.gmtime(started + 20))
        queued = [p for p in pages.values() if 'content="queued"' in p]
        assert len(queued) == 2 and all("graded at <strong>" in p and stamp in p
                                        for p in queued), pages
        assert all("at most 1 time every 20 seconds" in " ".join(p.split()) for p in queued)

        wait_for("the window to pass", lambda: rows(root)[third].state in TERMINAL, root)
        final = rows(root)
        assert final[second].state == SUPERSEDED, final[second]
        assert final[third].state == GRADED, final[third]
        assert final[third].started >= started + 20
        assert final[third].score > final[first].score  # the right answer, graded
        pages = fetch_feedback(root, tmp_path, "ana", A)
        assert sum('content="superseded"' in p for p in pages.values()) == 1
        assert sum("Score" in p for p in pages.values()) == 2, pages.keys()
        failing_submission_is_answered(root, tmp_path, broken)
    finally:
        stop(service)


def looping(root: Path) -> nbformat.NotebookNode:
    """A right notebook with an endless loop after the softmax: its cell runs until the time
    limit interrupts it."""
    nb = right(root, A)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "ps1_softmax_code":
            cell.source += "\nwhile True:\n    pass\n"
    return nb


def test_a_stuck_grading_steps_out_of_the_way(tmp_path: Path) -> None:
    """One grading at a time at full priority (``active = 1``), with spare workers: two right
    notebooks handed in together are graded one after the other, and both while a notebook
    stuck in a loop (at the least CPU priority after ``stuck_after``) still holds its worker."""
    root = exchange_course(tmp_path, [A], "c.GradeOnSubmit.active = 1\n"
                                          "c.GradeOnSubmit.workers = 3\n"
                                          "c.GradeOnSubmit.stuck_after = 6.0\n"
                                          'c.GradeOnSubmit.plots = "never"\n'
                                          "c.Execute.timeout = 25\n")
    service = start(root)
    try:
        wait_for("the service", lambda: "serving" in (root / "serve.log").read_text(), root)
        place(tmp_path / "home" / "ana", A, looping(root))
        stuck = submit(root, tmp_path, "ana", A)
        wait_for("the loop's grading", lambda: rows(root).get(stuck) and
                 rows(root)[stuck].started, root)
        names = []
        for student in ("bo", "cy"):
            place(tmp_path / "home" / student, A, right(root, A))
            names.append(submit(root, tmp_path, student, A))
        wait_for("all three", lambda: all(rows(root).get(n) and rows(root)[n].state == GRADED
                                          for n in (stuck, *names)), root)
        final = rows(root)
        first, second = sorted((final[n] for n in names), key=lambda row: row.started)
        assert second.started >= first.finished, (first, second)  # one at full priority
        assert first.started >= final[stuck].started + 6.0
        assert second.finished < final[stuck].finished, (second, final[stuck])
        assert first.score == second.score == first.max_score - 2  # the written answer waits
    finally:
        stop(service)


def failing_submission_is_answered(root: Path, base: Path, broken: str) -> None:
    """A submission nbgrader cannot grade ends failed, with a page that says why, for its
    student; the service grades on (ana's submissions came after it) and reports it."""
    row = rows(root)[broken]
    assert row.state == FAILED and "not a timestamp" in row.reason, row
    pages = fetch_feedback(root, base, "bo", A)
    assert len(pages) == 1, pages.keys()
    page = next(iter(pages.values()))
    assert 'content="failed"' in page and "could not be graded" in page, page
    assert "timestamp.txt is not a timestamp nbgrader can read" in page
    assert "the day before the deadline" in page
    section = report_section(root)
    assert "bo" in section and "not a timestamp" in section
    assert [f["student"] for f in status(root).failed] == ["bo"]


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory,
            request: pytest.FixtureRequest) -> tuple[Path, Path, dict, list]:
    """8 students submit right and wrong notebooks twice; the service is killed with SIGKILL
    while it grades the second round, then restarted until idle."""
    base = tmp_path_factory.mktemp("crash")
    root = exchange_course(base, [A], WITNESS + 'c.GradeOnSubmit.plots = "never"\n')
    service = start(root)
    request.addfinalizer(service.kill)
    names = []

    def count(state: str) -> int:
        return Counter(r.state for r in rows(root).values())[state]

    for round_ in range(2):
        for index in range(8):
            student = f"s{index}"
            place(base / "home" / student, A,
                  right(root, A) if (index + round_) % 2 else wrong(root))
            names.append(submit(root, base, student, A))
        if round_ == 0:
            wait_for("four grades", lambda: count(GRADED) >= 4, root)
    wait_for("more grades and one in progress",
             lambda: count(GRADED) >= 6 and count(GRADING) >= 1, root)
    children = psutil.Process(service.pid).children(recursive=True)
    service.send_signal(signal.SIGKILL)
    service.wait()
    killed = {name: row.state for name, row in rows(root).items()}
    psutil.wait_procs(children, timeout=30)
    survivors = [p for p in children if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not survivors, f"the killed service left processes behind: {survivors}"
    restarted = start(root, "--until-idle")
    request.addfinalizer(restarted.kill)
    assert restarted.wait(600) == 0, (root / "serve.log").read_text()[-3000:]
    return base, root, killed, names


def test_sigkill_loses_nothing_and_grades_nothing_twice(crashed) -> None:
    base, root, killed, names = crashed
    assert GRADING in killed.values(), killed  # the kill did interrupt grading
    final = rows(root)
    assert sorted(final) == sorted(names)
    assert all(row.state in TERMINAL for row in final.values()), final
    for student in {n.split("+")[0] for n in names}:
        pages = fetch_feedback(root, base, student, A)
        mine = [n for n in names if n.startswith(f"{student}+")]
        assert len(pages) == len(mine), (student, pages.keys())  # one page per submission
        graded = [page for page in pages.values() if "Score" in page]
        assert graded and all("<img" not in page and UNDRAWN_TEXT in page for page in graded)
    graded = (root / "graded.log").read_text().splitlines()
    twice = [line for line, count in Counter(graded).items() if count > 1]
    assert not twice, f"graded more than once: {twice}"
    with Gradebook(db_url(root)) as gb:
        submissions = gb.find_assignment(A).submissions
        assert Counter(s.student.id for s in submissions) == {f"s{i}": 1 for i in range(8)}
    assert status(root).queue_length == 0


def test_final_autograde_gives_the_same_grades(crashed) -> None:
    """The instructor's own end of term: stock ``nbgrader collect --update`` changes nothing,
    and ``attnkit autograde --force`` gives every student the grade the service gave (which
    drew no plots)."""
    _, root, _, names = crashed
    latest = {student: stamp for student, _, stamp, _ in
              sorted((n.split("+") for n in names), key=lambda parts: parts[2])}
    with Gradebook(db_url(root)) as gb:
        served = {s.student.id: s.score for s in gb.find_assignment(A).submissions}
    submitted = {p.parent.name: (p / "timestamp.txt").read_text()
                 for p in (root / "submitted").glob(f"*/{A}")}
    assert submitted == latest  # the service collected what nbgrader's rule counts
    result = run([str(BIN / "nbgrader"), "collect", A, "--update"], root)
    assert "Updating submission" not in result.stderr, result.stderr
    assert submitted == {p.parent.name: (p / "timestamp.txt").read_text()
                         for p in (root / "submitted").glob(f"*/{A}")}
    result = run([str(BIN / "attnkit"), "autograde", A, "--force", "--no-progress"], root,
                 check=False)
    assert re.search(r"graded 8, skipped 0, failed 0", result.stdout), result.stdout
    with Gradebook(db_url(root)) as gb:
        submissions = gb.find_assignment(A).submissions
        final = {s.student.id: s.score for s in submissions}
        lost = {s.student.id: {g.name: g.score for g in s.notebooks[0].grades
                               if g.score is not None and g.score < g.max_score}
                for s in submissions}
    assert final == served
    # right and wrong answers, both kinds compared; the same code scores the same for every
    # student (their grading seeds differ), so one total each
    assert len(set(served.values())) == 2, f"the cells that lost points: {lost}"

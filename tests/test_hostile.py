"""The hostile and fault suite through both grading paths: stock
``nbgrader autograde`` with the kit's config (what formgrader's Autograde button runs; intake
through its pre-convert hook) and ``attnkit autograde`` (warm kernels forked by the
forkserver). Then stock ``nbgrader generate_feedback``. Attacks that game a check are
graded on every assignment; attacks on the grader itself once each, spread over them.

Graded by an ordinary local user with no privileges (when the tests run as root), as an
instructor on a JupyterHub grades: the sandbox without root. Root's own sandbox (a uid per
kernel) is exercised by every other kernel test and by tests/test_sandbox.py.

Prints the table (submission x assignment x path: expected, actual) and checks every row:
a grade row, a feedback file and the reason; no attack earns a point it did not earn; nothing
hidden reaches any feedback page; no student HTML or script survives into one.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from helpers.browser import (
    jupyter_server,
    log_in_as_ta,
    static_server,
    student_script_ran,
)
from helpers.course import Grader, copy_course, run
from helpers.hostile import BUDGETS, Hostile, expectations, graded_cells, write_suite
from nbgrader.api import Gradebook, MissingEntry

from attnkit import course as kit_course
from attnkit.judge.registry import checks
from attnkit.pipeline.preprocessors import hidden_lines

pytestmark = [pytest.mark.slow, pytest.mark.timeout(2700)]
pytest_plugins = ["helpers.browser"]  # fixtures: browser, page
ASSIGNMENTS = kit_course.assignments(Path(__file__).resolve().parents[1])
# Stock ``nbgrader autograde`` runs the kit's own preprocessors, the same for every assignment:
# the first and the masked one cover them, a kernel per notebook; the kit's path runs all five.
STOCK_ASSIGNMENTS = [ASSIGNMENTS[0], ASSIGNMENTS[-1]]


class PageText(HTMLParser):
    """The text a reader sees (tags dropped, entities decoded; highlighted code joined)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.feed(page)
        self.text = "".join(self.parts)

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


class LivePayload(HTMLParser):
    """Finds the suite's payload where a browser would run it: an ``on*`` attribute or a
    script element (inert text that merely shows the payload is fine)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.found: list[str] = []
        self._script = False
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._script = tag == "script"
        self.found += [f"<{tag} {name}=...>" for name, value in attrs
                       if name.startswith("on") and "__pwned" in (value or "")]

    def handle_data(self, data: str) -> None:
        if self._script and "__pwned" in data:
            self.found.append("<script> with the payload")

    def handle_endtag(self, tag: str) -> None:
        self._script = False

STOCK_CANNOT = {"h24_missing"}  # stock nbgrader calls no hook for a folder with no notebook


def two_at_a_time(grader: Grader, root: Path, commands: list[list[str]]) -> None:
    """Run ``commands`` as the grader, two at once; their exit status is not checked."""
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda command: grader.run(command, root, check=False), commands))


@pytest.fixture(scope="module", params=["nbgrader", "attnkit"])
def hostile_class(request: pytest.FixtureRequest,
                  grader: Grader) -> Iterator[tuple[str, Path, dict]]:
    """The suite graded by an ordinary instructor (``grader``): the sandbox without root."""
    base = grader.workspace(f"hostile-{request.param}")
    try:
        root = copy_course(base / "course")
        with (root / "nbgrader_config.py").open("a") as config:
            config.write("\nc.Execute.timeout = 10\n")
        assignments = STOCK_ASSIGNMENTS if request.param == "nbgrader" else ASSIGNMENTS
        suite = write_suite(root, assignments)
        # the class list comes first, as on a real course: two stock autogrades that both
        # create one new student race on the insert and one hand-in is left ungraded
        students = sorted({h.student for hostiles in suite.values() for h in hostiles})
        (base / "students.csv").write_text("id\n" + "".join(f"{s}\n" for s in students))
        grader.own(base)
        for assignment in assignments:
            grader.run(["nbgrader", "generate_assignment", assignment, "--force"], root)
        grader.run(["nbgrader", "db", "student", "import", str(base / "students.csv")], root)
        # both exit non-zero when a submission fails; the assertions below say which. Stock
        # commands run two at a time (one per core), as two instructors' terminals would.
        if request.param == "nbgrader":
            two_at_a_time(grader, root, [["nbgrader", "autograde", a, "--force"]
                                         for a in assignments])
        else:
            grader.run(["attnkit", "autograde", *assignments, "--force"], root, check=False)
        two_at_a_time(grader, root, [["nbgrader", "generate_feedback", a, "--force"]
                                     for a in assignments])
        yield request.param, root, suite
    finally:
        shutil.rmtree(base)


def outcome(root: Path, assignment: str, student: str) -> tuple[dict[str, float] | None,
                                                                 float, str]:
    """Each autograded cell's score as a fraction of its points (None: no grade row), the
    submission's maximum, and the feedback page."""
    with Gradebook(kit_course.db_url(root)) as gb:
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            scores, most = None, 0.0
        else:
            scores = {g.name: g.score / g.max_score for nb in sub.notebooks for g in nb.grades
                      if g.max_score}
            most = sub.max_score
    page = root / "feedback" / student / assignment / f"{assignment}.html"
    return scores, most, page.read_text() if page.exists() else ""


def errors(root: Path, assignment: str, student: str) -> dict[str, str]:
    """Each graded cell's error in the autograded notebook: why a row failed."""
    path = root / "autograded" / student / assignment / f"{assignment}.ipynb"
    if not path.exists():
        return {}
    return {cell.metadata["nbgrader"]["grade_id"]: f"{out.ename}: {out.evalue}"[:300]
            for cell in nbformat.read(path, as_version=4).cells
            if cell.metadata.get("nbgrader", {}).get("grade")
            for out in cell.get("outputs", []) if out.output_type == "error"}


def test_hostile_suite(hostile_class: tuple[str, Path, dict]) -> None:
    path, root, suite = hostile_class
    rows, problems = [], []
    for assignment, hostiles in suite.items():
        master = root / "source" / assignment / f"{assignment}.ipynb"
        all_tests = graded_cells(nbformat.read(master, as_version=4))
        with Gradebook(kit_course.db_url(root)) as gb:
            full = gb.find_assignment(assignment).max_score
        for hostile in hostiles:
            zero, kept = expectations(hostile, assignment, all_tests)
            scores, most, page = outcome(root, assignment, hostile.student)
            expected = f"0 on {len(zero)}, full on {len(kept)}"
            if path == "nbgrader" and hostile.student in STOCK_CANNOT:
                expected, ok = "no grade row (run attnkit intake first)", scores is None
                actual = "no grade row" if scores is None else "graded"
            elif scores is None:
                ok, actual = False, "NO GRADE ROW"
            else:
                zeroed = [c for c in all_tests if scores.get(c) == 0]
                shown = bool(re.search(hostile.reason, page, re.IGNORECASE))
                ok = (set(zero) <= set(zeroed) and all(scores.get(c) == 1 for c in kept)
                      and bool(page) and shown and most == full)
                actual = (f"0 on {len(zeroed)}, full on {sum(scores.get(c) == 1 for c in kept)}"
                          f"{'' if most == full else f', max {most:g} != {full:g}'}"
                          f"{'' if page else ', NO FEEDBACK'}"
                          + (f", reason {'shown' if shown else 'MISSING'}"
                             if hostile.reason else ""))
            rows.append((hostile.student, assignment, path, expected, actual,
                         "ok" if ok else "FAIL"))
            if not ok:
                why = errors(root, assignment, hostile.student)
                problems.append(f"{assignment}/{hostile.student}: {why}")
    print(f"\n{'submission':<26}{'assignment':<32}{'path':<9}{'expected':<40}actual")
    for student, assignment, where, expected, actual, verdict in rows:
        print(f"{student:<26}{assignment:<32}{where:<9}{expected:<40}{actual}  [{verdict}]")
    assert not problems, f"unexpected outcomes: {problems}"


def test_feedback_never_shows_hidden_tests_or_runs_student_script(
        hostile_class: tuple[str, Path, dict]) -> None:
    path, root, suite = hostile_class
    pages = list((root / "feedback").rglob("*.html"))
    expected = sum(len(h) for h in suite.values())
    if path == "nbgrader":
        expected -= sum(h.student in STOCK_CANNOT for rows in suite.values() for h in rows)
    assert len(pages) == expected
    hidden = {line for master in (root / "source").glob("*/*.ipynb")
              for line in hidden_lines(nbformat.read(master, as_version=4).cells)}
    assert len(hidden) >= len(checks())  # at least the probe call of every check
    for page in pages:
        html = page.read_text()
        text = PageText(html).text  # parsed once per page, not once per hidden line
        shown = [line for line in hidden if line in text]
        assert not shown, f"{page}: {shown}"
        live = LivePayload(html).found
        assert not live, f"{page}: {live}"


@pytest.mark.browser
def test_no_student_script_runs_in_any_page(hostile_class: tuple[str, Path, dict], page,
                                            tmp_path: Path) -> None:
    """A TA opens the active-content submission of every assignment in formgrader, the
    student opens its feedback, the instructor the report: the payload never runs."""
    path, root, suite = hostile_class
    student, ran = "h28_active_content", []
    with Gradebook(kit_course.db_url(root)) as gb:
        ids = {a: gb.find_submission(a, student).notebooks[0].id for a in suite}
    with jupyter_server("notebook", root, tmp_path / "jupyter") as server:
        first = next(iter(suite))
        log_in_as_ta(page, server, f"/formgrader/gradebook/{first}/{first}")
        page.locator("#main-table a.name-hidden").first.wait_for()
        ran += [f"formgrader {a}" for a, notebook in ids.items()
                if student_script_ran(page, f"{server.base}/formgrader/submissions/{notebook}/")]
    with static_server(root / "feedback", tmp_path) as server:
        ran += [f"feedback {a}" for a in suite
                if student_script_ran(page, f"{server.base}/{student}/{a}/{a}.html")]
    for assignment in suite:
        run(["attnkit", "report", assignment], root)
    with static_server(root / "reports", tmp_path) as server:
        ran += [f"report {a}" for a in suite
                if student_script_ran(page, f"{server.base}/{a}/index.html")]
    assert not ran, f"{path}: student script ran in {ran}"


# ---------------------------------------------------------------------- budgets per hand-in

BUDGETED = "ps1_self_attention"
CELL_LIMIT, TIME_BUDGET = 10, 40  # seconds: b02 sleeps 8 s before each of its 13 code cells
# stock `nbgrader autograde`, reporting the peak resident memory of its own process (the
# grading worker, outside the sandbox; its kernels are not counted) when it exits
PEAK_RSS = """\
import atexit, resource, sys
atexit.register(lambda: print("peak-rss-kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                              file=sys.stderr))
from nbgrader.apps.nbgraderapp import main
sys.argv[0] = "nbgrader"
main()
"""


@pytest.fixture(scope="module")
def budgeted(grader: Grader) -> Iterator[tuple[Path, dict[str, tuple[float, int]]]]:
    """Each row of ``hostile.BUDGETS`` autograded alone by stock nbgrader, as an ordinary
    instructor: how long it took and the grading process's peak memory in bytes."""
    base = grader.workspace("budgets")
    try:
        root = copy_course(base / "course")
        with (root / "nbgrader_config.py").open("a") as config:
            config.write(f"\nc.Execute.timeout = {CELL_LIMIT}\n"
                         f"c.ResilientExecute.time_budget = {TIME_BUDGET}\n")
        suite = write_suite(root, [BUDGETED], BUDGETS)
        grader.own(base)
        grader.run(["nbgrader", "generate_assignment", BUDGETED, "--force"], root)

        def grade(hostile: Hostile) -> tuple[str, tuple[float, int]]:
            # a 250 MB message takes the kernel seconds to send, longer on a busy machine:
            # time limits that cannot run out first, so the message limit is what is tested
            roomy = (["--Execute.timeout=90", "--ResilientExecute.time_budget=180"]
                     if hostile.reason == "output cut" else [])
            started = time.monotonic()
            result = grader.run([sys.executable, "-c", PEAK_RSS, "autograde", BUDGETED,
                                 "--student", hostile.student, "--force", *roomy], root,
                                check=False)
            peak = re.search(r"peak-rss-kib (\d+)", result.stderr)
            assert peak, result.stderr[-3000:]
            return hostile.student, (time.monotonic() - started, int(peak[1]) * 1024)

        # each in a command of its own, timed and measured alone; the notebook that sleeps
        # through its time budget idles beside the others, which run one at a time
        sleeping = [h for h in suite[BUDGETED] if h.reason == "time budget"]
        with ThreadPoolExecutor(1) as pool:
            beside = [pool.submit(grade, hostile) for hostile in sleeping]
            measured = dict(grade(h) for h in suite[BUDGETED] if h not in sleeping)
            measured.update(future.result() for future in beside)
        grader.run(["nbgrader", "generate_feedback", BUDGETED, "--force"], root, check=False)
        yield root, measured
    finally:
        shutil.rmtree(base)


def graded_fully(root: Path, student: str) -> dict[str, float]:
    """Each autograded test cell's score (fraction of its points); fails unless every one has
    a row."""
    scores, _, _ = outcome(root, BUDGETED, student)
    assert scores is not None, f"{student}: no grade row"
    master = root / "source" / BUDGETED / f"{BUDGETED}.ipynb"
    tests = graded_cells(nbformat.read(master, as_version=4))
    missing = set(tests) - set(scores)
    assert not missing, f"{student}: no grade for {missing}"
    return {cell: scores[cell] for cell in tests}


def test_budget_of_time_ends_a_notebook_sleeping_in_every_cell(budgeted) -> None:
    """Every cell sleeps just under the per-cell limit: the notebook stops at its budget,
    every cell not run says why, every graded cell still has a grade."""
    root, measured = budgeted
    elapsed = measured["b02_sleep_every_cell"][0]
    print(f"\nsleeping notebook graded in {elapsed:.1f} s (budget {TIME_BUDGET} s, honest "
          f"notebook {measured['b01_honest'][0]:.1f} s)")
    # its cells sleep 104 s in all; nbgrader's start and the kernel's are not in the budget
    assert elapsed < TIME_BUDGET + 45, f"the notebook ran {elapsed:.0f} s"
    graded_fully(root, "b02_sleep_every_cell")
    honest = graded_fully(root, "b01_honest")
    assert set(honest.values()) == {1.0}, f"the honest notebook lost points: {honest}"
    nb = nbformat.read(root / "autograded" / "b02_sleep_every_cell" / BUDGETED /
                       f"{BUDGETED}.ipynb", as_version=4)
    unexplained, explained = [], 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        said = "time budget" in nbformat.writes(nbformat.v4.new_notebook(cells=[cell]))
        explained += said
        if cell.get("execution_count") is None and not said:
            unexplained.append(index)
    assert explained >= 2, "no cell says the time budget stopped it"
    assert not unexplained, f"cells not run with no reason: {unexplained}"
    _, _, page = outcome(root, BUDGETED, "b02_sleep_every_cell")
    assert "time budget" in PageText(page).text


@pytest.mark.parametrize("student", ["b03_huge_line", "b04_huge_line_uncapped",
                                     "b05_display_flood"])
def test_budget_of_output_keeps_a_huge_line_out_of_the_grader(budgeted, student: str) -> None:
    """One 250 MB line: the grading process's memory stays near an honest notebook's and
    the student reads that the output was cut."""
    root, measured = budgeted
    peak, baseline = measured[student][1], measured["b01_honest"][1]
    print(f"\n{student}: grading process peak {peak / 2**20:.0f} MB, honest notebook "
          f"{baseline / 2**20:.0f} MB, graded in {measured[student][0]:.1f} s")
    assert peak - baseline < 600 * 2**20
    graded_fully(root, student)
    _, _, page = outcome(root, BUDGETED, student)
    text = PageText(page).text
    notes = [line for line in text.splitlines() if re.search("kernel|limit|budget", line)]
    assert re.search("output cut", text, re.IGNORECASE), f"no note in feedback: {notes}"
    assert len(page) < 20 * 2**20, f"a feedback page of {len(page) / 2**20:.0f} MB"

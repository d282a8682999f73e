"""A term on the shipped JupyterHub (deploy/jupyterhub), in a real browser, as real users.

The instructor releases ps1; two students log in with their system passwords, fetch it from
the Assignments tab, fill in code (one correct, one with the softmax misconception),
Validate and submit (the second submits twice); the instructor collects and runs
`attnkit autograde` as the unprivileged instructor with the sandbox on; a TA logs in and
grades a written answer in formgrader through the hub's shared grading service; the
instructor generates and releases feedback; each student fetches and opens their own.

A third student submits ps2, which the hub's `attnkit serve` grades on submit, and fetches
feedback with their score while the instructor does nothing.

Everything runs on 127.0.0.1, started here as root, with accounts made for the test and
removed after it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from helpers.browser import (  # noqa: E402
    CELLS,
    VIEWPORT,
    grade_answer,
    lab_menu,
    nb_meta,
    paste_into_cell,
    save_notebook,
    save_screenshot,
    shown,
)
from helpers.hub import PS1, PS2, HubSite, hub_site, running_hub
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.samples import SAMPLES, Sample, solution_code
from attnkit.serve.exchange import feedback_page

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.root]
pytest_plugins = ["helpers.browser"]  # the browser fixture

NOTEBOOK = f"{PS1}.ipynb"
ANSWER_ID = "ps1_positional_answer"
ANSWER = ("No: the positional encoding belongs to the positions, not to the tokens, so "
          "permuting the inputs no longer just permutes the outputs.")
MISCONCEPTION = SAMPLES[PS1]["chen"]  # softmax without the max shift; scaled by D
TA_SCORE, TA_COMMENT = 1.5, "Right; also say why P is not permuted along with X."


def new_page(browser):
    """A fresh context (one person) whose pages only reach loopback."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    context.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/])[a-z]+://"),
                  lambda route: route.abort())
    return context.new_page()


def log_in(page, hub: HubSite, name: str, landing: str) -> None:
    """The hub's login form with the account's system password (PAM)."""
    page.goto(f"{hub.site.url}/hub/login")
    page.locator("#username_input").fill(name)
    page.locator("#password_input").fill(hub.passwords[name])
    page.locator("#login_submit").click()
    page.wait_for_url(f"**{landing}**", timeout=180_000)


def open_assignments(page) -> None:
    lab_menu(page, "Nbgrader", "Assignment List")
    page.locator("#released_assignments_list_loading").wait_for(state="hidden")


def row(page, listing: str, text: str = PS1):
    return page.locator(f"#{listing} .list_item", has_text=text).first


def fill_in(page, hub: HubSite, student: str, correct: bool, assignment: str = PS1,
            mistake: Sample = MISCONCEPTION) -> None:
    """Open the fetched notebook in JupyterLab and write the answers through the editor: the
    master's solutions, with ``mistake``'s code instead unless ``correct``."""
    notebook = f"{assignment}.ipynb"
    release = nbformat.read(hub.site.course_root / "release" / assignment / notebook,
                            as_version=4)
    master = nbformat.read(hub.site.course_root / "source" / assignment / notebook,
                           as_version=4)
    solutions = {nb_meta(c)["grade_id"]: c.source for c in master.cells
                 if nb_meta(c).get("solution")}
    page.goto(f"{hub.site.url}/user/{student}/lab/tree/{assignment}/{notebook}")
    page.wait_for_function(
        f"document.querySelectorAll('{CELLS}').length === {len(release.cells)}")
    page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()
    for i, cell in enumerate(release.cells):
        grade_id = nb_meta(cell).get("grade_id")
        if not nb_meta(cell).get("solution") or cell.cell_type != "code":
            continue
        code = solution_code(solutions[grade_id])
        if not correct:
            code = mistake.code.get(grade_id, code)
        paste_into_cell(page, i, code.rstrip("\n"))
    if correct and assignment == PS1:  # the written answer, typed into its markdown cell
        index = next(i for i, c in enumerate(release.cells)
                     if nb_meta(c).get("grade_id") == ANSWER_ID)
        answer = page.locator(CELLS).nth(index)
        answer.scroll_into_view_if_needed()
        answer.locator(".jp-MarkdownOutput").dblclick()
        answer.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.type(ANSWER)
        page.keyboard.press("Control+Enter")
    save_notebook(page)


def validate(page) -> str:
    """nbgrader's Validate button in the notebook's toolbar; the dialog's text."""
    page.locator(".jp-NotebookPanel-toolbar").get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog", has_text="Validation Results")
    dialog.wait_for(timeout=180_000)
    text = dialog.inner_text()
    dialog.locator(".jp-mod-accept").click()
    return text


def submit(page, hub: HubSite, student: str, assignment: str = PS1) -> None:
    page.goto(f"{hub.site.url}/user/{student}/lab")
    open_assignments(page)
    submitted = page.locator("#submitted_assignments_list .list_item")
    before = submitted.count()
    row(page, "fetched_assignments_list", assignment).get_by_role("button",
                                                                 name="Submit").click()
    page.wait_for_function(
        f"document.querySelectorAll('#submitted_assignments_list .list_item').length"
        f" > {before}", timeout=120_000)


def fetch_feedback(page, assignment: str) -> str:
    """The Assignments tab's Fetch Feedback and (view feedback), then the page's text, opened
    in JupyterLab."""
    open_assignments(page)
    submitted = row(page, "submitted_assignments_list", assignment)
    submitted.get_by_role("button", name="Fetch Feedback").click()
    submitted.get_by_text("(view feedback)").click()
    # the file browser opens on the feedback folder (one timestamped folder per fetch)
    html = page.locator(".jp-DirListing-item", has_text=f"{assignment}.html")
    folder = page.locator(".jp-DirListing-item", has_text=re.compile(r"\d{4}-\d\d-\d\d"))
    html.or_(folder).first.wait_for()
    if not html.count():
        folder.last.dblclick()
    html.dblclick()
    body = page.frame_locator(".jp-HTMLViewer iframe, iframe").last.locator("body")
    body.wait_for()
    return body.inner_text()


@pytest.fixture(scope="module")
def hub() -> Iterator[HubSite]:
    """Two students for the term, a third for feedback on submit (ps2, which the hub's
    `attnkit serve` grades as it is submitted)."""
    with hub_site(students=3, grade_on_submit=[PS2]) as site, running_hub(site):
        yield site


def test_a_term_on_the_hub(browser, hub: HubSite) -> None:
    correct, mistaken = hub.students[:2]
    progress: list[str] = []  # which steps passed, shown when a later one fails

    def done(step: str) -> None:
        progress.append(step)

    try:
        _term(browser, hub, correct, mistaken, done)
    except Exception as error:
        raise AssertionError(f"steps passed: {progress}; failed after them: {error}") from error


def _term(browser, hub: HubSite, correct: str, mistaken: str, done) -> None:
    # -- the instructor releases ps1 (nbgrader's commands, as the instructor, in the course)
    hub.instructor_run("nbgrader", "generate_assignment", PS1, "--force")
    hub.instructor_run("nbgrader", "release_assignment", PS1, "--force")
    done("release")

    # -- each student logs in, fetches from the Assignments tab, fills in, validates, submits
    validated = {}
    for student, right in ((correct, True), (mistaken, False)):
        page = new_page(browser)
        log_in(page, hub, student, f"/user/{student}/lab")
        open_assignments(page)
        row(page, "released_assignments_list").get_by_role("button", name="Fetch").click()
        row(page, "fetched_assignments_list").wait_for()
        assert (Path(f"/home/{student}") / PS1 / NOTEBOOK).exists()
        if right:
            row(page, "fetched_assignments_list").locator("button, a").first.wait_for()
            page.mouse.move(0, 0)
            save_screenshot(page, "hub-assignments.png")
        fill_in(page, hub, student, right)
        validated[student] = validate(page)
        submit(page, hub, student)
        if not right:
            submit(page, hub, student)  # a second, later submission: the one collected
        page.context.close()
    assert "Success! Your notebook passes all the tests." in validated[correct], validated
    assert "Success!" not in validated[mistaken], validated[mistaken]
    inbound = hub.site.exchange / hub.site.course_id / "inbound"
    mine = {s: sorted(p.name for p in inbound.iterdir() if p.name.startswith(f"{s}+"))
            for s in (correct, mistaken)}
    assert [len(mine[correct]), len(mine[mistaken])] == [1, 2], mine
    done("students fetched, validated and submitted")

    # -- the instructor collects and autogrades, unprivileged, in the sandbox
    hub.instructor_run("nbgrader", "collect", PS1)
    collected = (hub.site.course_root / "submitted" / mistaken / PS1 / "timestamp.txt")
    later = max(name.split("+")[2] for name in mine[mistaken])
    assert collected.read_text().strip() == later, "collect took the earlier submission"
    graded = hub.instructor_run("attnkit", "autograde", PS1)
    assert "graded 2, skipped 0, failed 0" in graded.stdout + graded.stderr, (
        graded.stdout + graded.stderr)
    done("collect and autograde as the instructor")

    with Gradebook(kit_course.db_url(hub.site.course_root)) as gb:
        scores = {s: gb.find_submission(PS1, s).score for s in (correct, mistaken)}
        max_score = gb.find_assignment(PS1).max_score
    assert scores[mistaken] < scores[correct] < max_score, scores  # the answer awaits the TA

    # -- a TA grades the written answer in formgrader, through the hub's grading service,
    #    which nbgrader's Courses tab lists as the TA's only formgrader
    page = new_page(browser)
    service = f"/services/{hub.site.course_id}"
    path = f"{service}/formgrader/gradebook/{PS1}/{PS1}"
    log_in(page, hub, hub.ta, f"/user/{hub.ta}/lab")
    lab_menu(page, "Nbgrader", "Course List")
    page.locator("#courses a").first.wait_for()
    courses = page.locator("#courses a").evaluate_all(
        "links => links.map(a => new URL(a.href).pathname)")
    assert courses == [f"{service}/lab"], courses
    page.goto(f"{hub.site.url}{path}")
    page.wait_for_url(f"**{path}", timeout=120_000)
    grade_answer(page, correct, ANSWER_ID, TA_SCORE, TA_COMMENT, "hub-formgrader.png")
    page.context.close()
    with Gradebook(kit_course.db_url(hub.site.course_root)) as gb:
        grade = gb.find_grade(ANSWER_ID, PS1, PS1, correct)
        assert grade.manual_score == TA_SCORE
    done("TA graded in formgrader")

    # -- the instructor generates and releases feedback
    hub.instructor_run("nbgrader", "generate_feedback", PS1, "--force")
    hub.instructor_run("nbgrader", "release_feedback", PS1)
    done("feedback released")

    # -- each student fetches their own feedback and opens it
    for student in (correct, mistaken):
        page = new_page(browser)
        log_in(page, hub, student, f"/user/{student}/lab")
        text = fetch_feedback(page, PS1)
        assert student in text or "points" in text.lower(), text[:500]
        score, _ = kit_course.grade_table(hub.site.course_root)[1][student][PS1]
        assert shown(score) in text, (shown(score), text[:800])
        if student == correct:
            assert TA_COMMENT in text, text[:2000]
            page.mouse.move(0, 0)
            save_screenshot(page, "hub-feedback.png")
        else:
            assert "subtract the largest score" in text.lower(), text[:3000]
        other = correct if student == mistaken else mistaken
        assert other not in text, f"{student}'s feedback names {other}"
        page.context.close()
    done("each student fetched and opened their own feedback")


def test_feedback_on_submit(browser, hub: HubSite) -> None:
    """A student submits ps2 and, with the instructor doing nothing after releasing it, fetches
    feedback with their score from the Assignments tab: the hub's `attnkit serve` graded it."""
    student = hub.students[2]
    mistake = SAMPLES[PS2]["dara"]  # the two heads stacked in reverse order
    hub.instructor_run("nbgrader", "generate_assignment", PS2, "--force")
    hub.instructor_run("nbgrader", "release_assignment", PS2, "--force")

    page = new_page(browser)
    log_in(page, hub, student, f"/user/{student}/lab")
    open_assignments(page)
    row(page, "released_assignments_list", PS2).get_by_role("button", name="Fetch").click()
    row(page, "fetched_assignments_list", PS2).wait_for()
    fill_in(page, hub, student, False, PS2, mistake)
    submit(page, hub, student, PS2)
    submitted = time.monotonic()

    # the student waits; the test watches for the page nbgrader's fetch_feedback would copy
    inbound = hub.site.exchange / hub.site.course_id / "inbound"
    (name,) = [p.name for p in inbound.iterdir() if p.name.startswith(f"{student}+{PS2}+")]
    page_file = feedback_page(inbound.parent, name, PS2)
    while not page_file.exists():
        assert time.monotonic() - submitted < 180, (
            "no feedback 3 minutes after submitting; the hub's log (with the service's):\n"
            + (hub.site.state / "jupyterhub.log").read_text()[-5000:])
        time.sleep(0.5)
    latency = time.monotonic() - submitted
    print(f"submit to released feedback: {latency:.1f} s")

    text = fetch_feedback(page, PS2)
    page.mouse.move(0, 0)
    save_screenshot(page, "hub-feedback-on-submit.png")
    page.context.close()
    with Gradebook(kit_course.db_url(hub.site.course_root)) as gb:
        record = gb.find_submission(PS2, student)
        score, max_score = record.score, record.max_score
    assert 0 < score < max_score, (score, max_score)
    assert shown(score) in text, (shown(score), text[:800])
    assert "stacked in reverse order" in text, text[:3000]
    for other in hub.students[:2]:
        assert other not in text, f"{student}'s feedback names {other}"

    # what the instructor sees afterwards (the status view)
    status = hub.instructor_run("attnkit", "serve-status").stdout
    assert "graded 1, failed 0" in status, status

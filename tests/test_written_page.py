"""The grade-by-question page (attnkit/written/server.py) in a real Jupyter server with
nbgrader's formgrader, driven from the keyboard in Debian's chromium by two TAs at once, on
ps1 graded once per session plus a synthetic class entered in its gradebook."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.browser import VIEWPORT, axe_counts, jupyter_server, log_in_as_ta, save_screenshot
from helpers.graded import ASSIGNMENT, copy_graded
from helpers.written_page import HOSTILE, QUESTION, add_students, class_answers, scores

from attnkit.course import db_url
from attnkit.written import answers, rubric

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest_plugins = ["helpers.browser"]  # the browser fixture
PATH = f"/attnkit/written/{ASSIGNMENT}/{QUESTION}"
OTHER = "another TA"


@pytest.fixture(scope="module")
def course(graded_ps1: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_graded(graded_ps1, tmp_path_factory.mktemp("written-page") / "course")
    add_students(root, class_answers(24))
    url = db_url(root)
    rubric.add_item(url, ASSIGNMENT, QUESTION, "says no", 1, "lecturer",
                    comment="Not equivariant.")
    rubric.add_item(url, ASSIGNMENT, QUESTION, "the encoding belongs to the position", 1,
                    "lecturer")
    rubric.add_item(url, ASSIGNMENT, QUESTION, "blank or off the question", 0, "lecturer")
    return root


@pytest.fixture(scope="module")
def server(course: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    home = tmp_path_factory.mktemp("written-home")
    (home / "config").mkdir()
    (home / "config" / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {"attnkit.written.server": True}}}))
    with jupyter_server("server", course, home) as running:
        yield running


def ta_page(browser, server, poll: int = 0):
    """A TA's own browser context, logged in with the server's token, on the page."""
    context = browser.new_context(viewport=VIEWPORT, bypass_csp=True)  # for wait_for_function
    context.set_default_timeout(20_000)
    context.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/])[a-z]+://"),
                  lambda route: route.abort())
    page = context.new_page()
    log_in_as_ta(page, server, f"{PATH}?poll={poll}")
    page.locator(".group").first.wait_for()
    return page


def focused_key(page) -> str:
    return page.evaluate("document.activeElement.closest('[data-focus]').dataset.id")


def press_next(page) -> str:
    page.evaluate("document.getElementById('live').textContent = ''")
    page.keyboard.press("n")
    page.wait_for_function("document.getElementById('live').textContent.includes('yours')")
    return focused_key(page)


def group_students(page, key: str) -> list[str]:
    return page.locator(f'.group[data-key="{key}"] .answer').evaluate_all(
        "els => els.map(e => e.dataset.student)")


def saved(page) -> None:
    """Wait for the page to say what its last write did; it must have saved."""
    page.wait_for_function("['live', 'alert'].some(id => "
                           "document.getElementById(id).textContent.match(/^(Saved|Not)/))")
    said = page.locator("#live").inner_text(), page.locator("#alert").inner_text()
    assert said[0].startswith("Saved"), said


def test_two_tas_grade_different_groups_from_the_keyboard(browser, server,
                                                          course: Path) -> None:
    first, second = ta_page(browser, server), ta_page(browser, server, poll=1)
    try:
        blank, theirs = press_next(first), press_next(second)
        assert blank != theirs, "next ungraded gave both TAs the same group"
        for key in ("3", "Enter"):  # the largest group: the blank answers
            first.keyboard.press(key)
        saved(first)
        for key in ("1", "2", "Enter"):
            second.keyboard.press(key)
        saved(second)
        mine = press_next(first)
        assert mine not in (blank, theirs)
        assert "held by" in first.locator(f'.group[data-key="{theirs}"] h3').inner_text()
        first.keyboard.press("1")
        first.keyboard.press("Enter")
        saved(first)
        graded = scores(course)
        assert {graded[s][0] for s in group_students(first, blank)} == {0.0}
        assert {graded[s][0] for s in group_students(first, mine)} == {1.0}
        assert {graded[s][0] for s in group_students(second, theirs)} == {2.0}
        assert "+1 says no: Not equivariant." in graded[group_students(first, mine)[0]][1]
        first.evaluate("window.scrollTo(0, 0)")
        save_screenshot(first, "written-by-question.png")

        # one TA halves item 1; the other's page follows, and so does every score
        points = first.locator('.item[data-position="1"] input[name=points]')
        points.fill("0.5")
        points.press("Enter")
        first.wait_for_function(
            "document.getElementById('live').textContent.startsWith('Rubric item saved')")
        student = group_students(second, theirs)[0]
        second.locator(f'.answer[data-student="{student}"] h4', has_text="1.5 / 2").wait_for()
        after = scores(course)
        assert {after[s][0] for s in group_students(first, mine)} == {0.5}
        assert {after[s][0] for s in group_students(second, theirs)} == {1.5}
        second.locator(f'.group[data-key="{theirs}"]').focus()
        save_screenshot(second, "written-by-question-groups.png")
    finally:
        first.context.close()
        second.context.close()


def test_a_conflicting_write_is_refused_and_shown(browser, server, course: Path) -> None:
    page = ta_page(browser, server)
    try:
        target = page.locator(".answer:has(h4:has-text('not graded'))").first
        student = target.get_attribute("data-student")
        seen = {a.student: a.version for a in answers.answers(course, ASSIGNMENT, QUESTION,
                                                              [student])}
        rubric.apply(db_url(course), ASSIGNMENT, QUESTION, seen, OTHER, add=[3])
        target.focus()
        page.keyboard.press("1")
        page.keyboard.press("Enter")
        alert = page.locator("#alert")
        alert.filter(has_text=f"{student}: graded by {OTHER} at").wait_for()
        assert "Not saved" in alert.inner_text()
        assert scores(course)[student][0] == 0.0  # the other TA's grade stands
        page.locator(f'.answer[data-student="{student}"] h4', has_text=OTHER).wait_for()
    finally:
        page.context.close()


def test_split_and_move_answers_persist(browser, server) -> None:
    page = ta_page(browser, server)
    try:
        group = page.locator(".group[data-key^='g-']:has(.answer + .answer)").first
        student = group.locator(".answer").nth(1).get_attribute("data-student")
        group.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("s")
        alone = page.locator(f'.group[data-key="a-{student}"]')
        alone.wait_for()
        page.reload()
        alone.wait_for()
        target = page.locator(".group[data-key^='g-']").last.get_attribute("data-key")
        page.locator(f'.answer[data-student="{student}"]').focus()
        page.keyboard.press("m")
        page.locator("#move-target").select_option(target)
        page.keyboard.press("Enter")
        page.locator(f'.group[data-key="{target}"] .answer[data-student="{student}"]').wait_for()
        page.reload()
        assert page.locator(f'.group[data-key="{target}"] '
                            f'.answer[data-student="{student}"]').count() == 1
    finally:
        page.context.close()


def test_page_passes_axe_is_inert_and_needs_login_and_xsrf(browser, server) -> None:
    page = ta_page(browser, server)
    try:
        page.locator(".group").first.focus()
        counts = axe_counts(page, "grade by question")
        assert counts["critical"] == 0 and counts["serious"] == 0
        for student in HOSTILE:
            shown = page.locator(f'.answer[data-student="{student}"] .text')
            assert shown.count() == 1
            assert shown.locator("script, img[onerror]").count() == 0
            assert "window.__pwned=1" in shown.inner_text() or "<img" in shown.inner_text()
        page.wait_for_timeout(500)
        assert page.evaluate("typeof window.__pwned") == "undefined"
        refused = page.evaluate("""async () => (await fetch(location.pathname + '/apply',
            {method: 'POST', body: '{}', headers: {'Content-Type': 'application/json'}})).status""")
        assert refused == 403, "a POST without the XSRF token was not refused"
        index = page.context.new_page()
        index.goto(server.base + "/attnkit/written/")
        index.get_by_role("link", name=QUESTION).click()
        index.wait_for_url(f"**{PATH}")
        stranger = browser.new_page()
        try:
            stranger.goto(server.base + PATH)
            assert "/login" in stranger.url
        finally:
            stranger.close()
    finally:
        page.context.close()

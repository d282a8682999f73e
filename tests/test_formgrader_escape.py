"""A student's id and names are text in the instructor's formgrader, never markup or script.

nbgrader's formgrader builds its Jinja environment without autoescape and puts ids into
JavaScript strings (``var student_id = "{{ student_id }}";``), so an id that reached the
gradebook could run script in the instructor's logged-in session, whose origin drives the
Jupyter server's API. Here the hostile student gets into the gradebook as an attacker could:
the id and names through ``nbgrader db student add`` (a roster a student filled in), then a
hand-in in ``submitted/`` that stock ``nbgrader autograde`` grades. The instructor opens
formgrader's pages through the hub's shared grading service (deploy/jupyterhub, laid out by
attnkit.deploy.site), in Chromium, and nothing of the student's may run or add an element.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator

import pytest
from helpers.browser import VIEWPORT
from helpers.hub import PS1, HubSite, hub_site, running_hub
from nbgrader.api import Gradebook

from attnkit import course as kit_course

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.root]
pytest_plugins = ["helpers.browser"]  # the browser fixture

STUDENT = 'x";document.title="XSS-"+document.domain;"'  # issue 35's id
FIRST = '<img src=x onerror="window.__pwned=1;document.title=\'XSS-first\'">'
LAST = '"></a></script><script>window.__pwned=1;document.title="XSS-last"</script>'
HOSTILE = "img[src='x'], [onerror], [onload], [onfocus], [onmouseover]"


@pytest.fixture(scope="module")
def hub() -> Iterator[HubSite]:
    """The hub, with ps1 autograded for the hostile student alone."""
    with hub_site(students=1) as site, running_hub(site):
        site.instructor_run("nbgrader", "generate_assignment", PS1, "--force")
        site.instructor_run("nbgrader", "db", "student", "add", STUDENT,
                            f"--first-name={FIRST}", f"--last-name={LAST}")
        site.instructor_run("mkdir", "-p", f"submitted/{STUDENT}")
        site.instructor_run("cp", "-r", f"release/{PS1}", f"submitted/{STUDENT}/{PS1}")
        site.instructor_run("nbgrader", "autograde", PS1, "--create")
        yield site


@pytest.fixture(scope="module")
def instructor(browser, hub: HubSite) -> Iterator[object]:
    """The instructor's browser, logged in to the hub, on formgrader's Manage Students page;
    every dialog a page opens is recorded (and dismissed) in ``page.dialogs``."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    context.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/])[a-z]+://"),
                  lambda route: route.abort())
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    landing = f"/services/{hub.site.course_id}/formgrader/manage_students"
    page.goto(f"{hub.site.url}/hub/login?next={urllib.parse.quote(landing)}")
    page.locator("#username_input").fill(hub.instructor)
    page.locator("#password_input").fill(hub.passwords[hub.instructor])
    page.locator("#login_submit").click()
    page.wait_for_url(f"**{landing}", timeout=120_000)
    try:
        yield page
    finally:
        context.close()


def formgrader(hub: HubSite, *parts: str) -> str:
    quoted = "/".join(urllib.parse.quote(part, safe="") for part in parts)
    return f"{hub.site.url}/services/{hub.site.course_id}/formgrader/{quoted}"


def inert(page) -> None:
    """No script of the student's ran and no element or handler of theirs is in the page."""
    title = page.title()
    assert "XSS" not in title, f"the student's script ran: the page's title is {title!r}"
    assert page.evaluate("typeof window.__pwned") == "undefined", "the student's script ran"
    assert not page.dialogs, f"the student's script opened dialogs: {page.dialogs}"
    planted = page.locator(HOSTILE).evaluate_all("els => els.map(e => e.outerHTML)")
    assert not planted, f"the student's markup is in the page: {planted}"


def open_inert(page, url: str, ready: str) -> None:
    """Open ``url``: inert once loaded, and again once formgrader's scripts filled ``ready``
    in from its API (a planted image's onerror has fired by then)."""
    page.dialogs.clear()
    response = page.goto(url)
    assert response is not None and response.ok, (url, response and response.status)
    page.wait_for_load_state("load")
    inert(page)
    page.locator(ready).first.wait_for(state="attached")
    page.wait_for_timeout(500)
    inert(page)


def test_manage_students_lists_the_hostile_student_as_text(instructor, hub: HubSite) -> None:
    open_inert(instructor, formgrader(hub, "manage_students"), "#main-table td.id:not(:empty)")
    names = instructor.locator("#main-table tr").evaluate_all(
        "rows => Object.fromEntries(rows.filter(r => r.querySelector('td.id')).map(r => "
        "[r.querySelector('td.id').textContent, r.querySelector('td.name').textContent]))")
    assert names[STUDENT] == f"{LAST}, {FIRST}", names


def test_the_students_assignments_page_keeps_the_id_in_its_string(
        instructor, hub: HubSite) -> None:
    open_inert(instructor, formgrader(hub, "manage_students", STUDENT),
               "#main-table td.name a")
    assert instructor.locator(".breadcrumb li.active").inner_text() == STUDENT
    assert instructor.evaluate("student_id") == STUDENT
    # the page works: it asked the API for this student's submissions and links ps1's
    assert instructor.locator("#main-table td.name a").inner_text() == PS1


def test_the_students_notebooks_and_the_submission_page_show_the_id_as_text(
        instructor, hub: HubSite) -> None:
    open_inert(instructor, formgrader(hub, "manage_students", STUDENT, PS1),
               "#main-table td.name a")
    assert instructor.evaluate("[student_id, assignment_id]") == [STUDENT, PS1]
    crumbs = instructor.locator(".breadcrumb li")
    assert crumbs.nth(1).inner_text() == STUDENT
    assert urllib.parse.unquote(crumbs.nth(1).locator("a").evaluate("a => a.pathname")) \
        .endswith(f"/formgrader/manage_students/{STUDENT}")
    with Gradebook(kit_course.db_url(hub.site.course_root)) as gb:
        submission = gb.find_submission_notebook(PS1, PS1, STUDENT).id
    instructor.locator("#main-table td.name a").click()
    instructor.wait_for_url(f"**/formgrader/submissions/{submission}/**")
    open_inert(instructor, instructor.url, "a.name-shown")
    assert instructor.locator("a.name-shown").text_content().strip() == f"{LAST}, {FIRST}"
    link = instructor.locator("a.name-shown").get_attribute("data-link")
    assert link is None or link.endswith(f"autograded/{STUDENT}/{PS1}/{PS1}.ipynb"), link
    href = instructor.locator("a.name-shown").get_attribute("href")
    assert urllib.parse.unquote(href or "").endswith(
        f"autograded/{STUDENT}/{PS1}/{PS1}.ipynb"), href

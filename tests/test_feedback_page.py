"""The pages of a graded course as a student, an instructor and a TA open them, offline.

The sample class's ps1 is graded by stock nbgrader commands with the course's config
(``graded_course``); chen has mistakes (a softmax that overflows, attention scaled by D).
Every page is opened in headless Chromium with every request that is not to this machine
refused, and must not have needed one: maths is MathML, CSS is inlined. axe-core
(``axe-playwright-python``) must find no serious or critical violation.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from helpers.browser import (
    PS1,
    axe_counts,
    jupyter_server,
    log_in_as_ta,
    offline_page,
    save_screenshot,
    static_server,
)
from helpers.course import run
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.pipeline.preprocessors import VERDICT

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest_plugins = ["helpers.browser"]  # fixtures: browser, graded_course

STUDENT = "chen"
TITLES = ["softmax", "self_attention_loop", "softmax_cols", "self_attention",
          "scaled_dot_product_self_attention", "check_equivariance",
          "6. Written question (2 points, graded by a TA)"]
TEX_LEFT = re.compile(r"\$[^$\n]{1,300}\$|\\(?:mathbf|mathbb|boldsymbol|frac|sqrt|sum|text)\b")

OVERFLOWING_JS = """() => {
  const wide = Array.from(document.querySelectorAll('body *'))
    .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.tagName.toLowerCase()}.${e.className} ${e.scrollWidth}>${e.clientWidth}`);
  const page = document.documentElement;
  if (page.scrollWidth > window.innerWidth) wide.push(`page ${page.scrollWidth}>${innerWidth}`);
  return wide;
}"""
# Every <math> laid out by the browser as MathML (not as unknown inline elements).
MATHML_JS = """() => Array.from(document.querySelectorAll('math')).map(m =>
  [getComputedStyle(m).display, m.getBoundingClientRect().width])"""






def assert_maths_rendered(page) -> None:
    laid_out = page.evaluate(MATHML_JS)
    assert len(laid_out) > 20, "no MathML on the page"
    assert all("math" in display and width > 0 for display, width in laid_out), laid_out[:5]
    text = page.locator("body").inner_text()
    assert not TEX_LEFT.search(text), f"TeX left as text: {TEX_LEFT.search(text)[0]!r}"


def test_feedback_page_offline_summary_and_phone_width(browser, graded_course: Path,
                                                       tmp_path: Path) -> None:
    autograded = nbformat.read(graded_course / "autograded" / STUDENT / PS1 / f"{PS1}.ipynb",
                               as_version=4)
    hints = [c.metadata[VERDICT]["message"] for c in autograded.cells if VERDICT in c.metadata]
    assert len(hints) == 6 and any("np.exp overflows" in h for h in hints), hints

    with static_server(graded_course / "feedback", tmp_path) as server:
        for width in (1280, 375):
            with offline_page(browser, width) as (page, refused):
                assert page.goto(f"{server.base}/{STUDENT}/{PS1}/{PS1}.html").ok
                page.wait_for_load_state("load")
                assert not refused, f"the page needed the network: {refused}"
                assert_maths_rendered(page)

                # the summary: every graded question, titled as in the notebook
                summary = page.get_by_role("region", name="Summary")
                assert summary.get_by_role("heading", name="Summary").is_visible()
                titles = summary.get_by_role("heading", level=3).all_inner_texts()
                assert titles == TITLES
                text = " ".join(summary.inner_text().split())
                for hint in hints:
                    assert " ".join(hint.split()) in text, hint
                items = summary.locator("li.question")
                verdicts = [items.nth(i).locator(".verdict").inner_text()
                            for i in range(items.count())]
                assert verdicts[0] == "partly passed 0.5 / 1 point"
                assert verdicts[2].startswith("passed") and verdicts[4].startswith("failed")
                assert verdicts[6].startswith("waiting for a TA")
                assert items.locator("svg.icon").count() == len(TITLES)  # a shape, not only hue
                for index in range(items.count()):
                    anchor = items.nth(index).locator("h3 a").get_attribute("href")
                    assert page.locator(f"a[name='{anchor[1:]}']").count() == 1, anchor

                # hints wrap where they stand; nothing scrolls sideways
                hint_style = summary.locator(".hint").first.evaluate(
                    "e => [getComputedStyle(e).whiteSpace, getComputedStyle(e).overflowWrap]")
                assert hint_style == ["pre-wrap", "anywhere"]
                assert page.evaluate(OVERFLOWING_JS) == [], width

                # the student's heatmap, next to its verdict
                heatmap = page.locator(".cell:has(a[name='ps1_self_attention']) img")
                assert heatmap.count() == 1
                assert heatmap.evaluate("img => img.naturalWidth") > 0

                counts = axe_counts(page, f"feedback page at {width} px")
                assert counts["critical"] == counts["serious"] == 0

                first_equation = page.locator(".text_cell:has(math[display='block'])").first
                bottom = first_equation.evaluate(
                    "e => e.getBoundingClientRect().bottom + window.scrollY")
                page.mouse.move(0, 0)
                save_screenshot(page, f"feedback-{width}.png", full_page=True,
                                clip={"x": 0, "y": 0, "width": width, "height": bottom + 24})


def test_report_page_offline_and_accessible(browser, graded_course: Path,
                                            tmp_path: Path) -> None:
    run(["attnkit", "report", PS1], graded_course)
    with static_server(graded_course / "reports", tmp_path) as server, offline_page(
            browser, 1280) as (page, refused):
        assert page.goto(f"{server.base}/{PS1}/index.html").ok
        page.wait_for_load_state("load")
        assert not refused, f"the report needed the network: {refused}"
        assert not TEX_LEFT.search(page.locator("body").inner_text())
        counts = axe_counts(page, "instructor report")
        assert counts["critical"] == counts["serious"] == 0


def test_formgrader_submission_view_offline_and_accessible(browser, graded_course: Path,
                                                           tmp_path: Path) -> None:
    with Gradebook(kit_course.db_url(graded_course)) as gb:
        submission = gb.find_submission_notebook(PS1, PS1, STUDENT).id
    path = f"/formgrader/submissions/{submission}/"
    with jupyter_server("notebook", graded_course, tmp_path / "jupyter") as server, (
            offline_page(browser, 1280)) as (page, refused):
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        log_in_as_ta(page, server, path)
        page.wait_for_load_state("load")
        page.locator("input.score#ps1_positional_answer").wait_for()
        page.wait_for_timeout(1000)  # formgrader's scripts load the grades
        assert not refused, f"formgrader needed the network: {refused}"
        assert not errors, f"formgrader's scripts failed: {errors}"
        assert_maths_rendered(page)
        scheme = page.locator(".text_cell", has_text="Mark scheme (TAs only")
        assert scheme.is_visible(), "the mark scheme is not shown to the TA"
        counts = axe_counts(page, "formgrader submission view")
        assert counts["critical"] == counts["serious"] == 0

"""The review pages in headless Chromium: the similarity page of a class with planted copies,
and the item-statistics section of the sample class's report; offline, axe-clean, and the
screenshots docs/similarity.png and docs/item-statistics.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.browser import DOCS, PS1, axe_counts, offline_page, save_screenshot, static_server  # noqa: E402
from helpers.course import run
from helpers.similarity import plant

pytestmark = [pytest.mark.browser, pytest.mark.slow]
pytest_plugins = ["helpers.browser"]


def test_similarity_page_in_a_browser(browser, tmp_path: Path) -> None:
    root, copies, _ = plant(tmp_path / "course")
    run(["attnkit", "similarity", PS1], root)
    with static_server(root / "reports", tmp_path) as server, offline_page(
            browser, 1280) as (page, refused):
        assert page.goto(f"{server.base}/{PS1}/similarity.html").ok
        page.wait_for_load_state("load")
        assert not refused, f"the page needed the network: {refused}"
        assert page.evaluate("typeof window.__pwned") == "undefined", "student code ran"
        rows = page.locator("#pairs tbody tr")
        assert rows.count() >= len(copies)
        assert page.locator("#pairs tbody tr .pill.bad").count() == len(copies)
        assert page.locator(".side pre span.hot").count() > 20
        counts = axe_counts(page, "similarity page")
        assert counts["critical"] == counts["serious"] == 0
        page.locator("#pair-2").scroll_into_view_if_needed()
        height = page.evaluate("document.querySelector('#pair-2').getBoundingClientRect()"
                               ".bottom + window.scrollY")
        save_screenshot(page, "similarity.png", full_page=True,
                        clip={"x": 0, "y": 0, "width": 1280, "height": min(height, 2600)})


def test_item_statistics_section_in_a_browser(browser, graded_course: Path,
                                              tmp_path: Path) -> None:
    run(["attnkit", "report", PS1], graded_course)
    with static_server(graded_course / "reports", tmp_path) as server, offline_page(
            browser, 1280) as (page, refused):
        assert page.goto(f"{server.base}/{PS1}/index.html").ok
        page.wait_for_load_state("load")
        assert not refused, f"the report needed the network: {refused}"
        section = page.locator("section#items")
        text = section.inner_text()
        assert "Difficulty" in text and "Discrimination" in text
        assert section.locator("tbody tr").count() >= 6
        assert page.locator("section#regrades").count() == 1
        counts = axe_counts(page, "report with item statistics")
        assert counts["critical"] == counts["serious"] == 0
        DOCS.mkdir(exist_ok=True)
        section.screenshot(path=str(DOCS / "item-statistics.png"))

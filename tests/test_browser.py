"""The course as students and TAs see it, in a real browser (headless Chromium).

1. A student opens the released ps1 in JupyterLab, runs the stubs, pastes the solutions
   into the solution cells through the editor, saves, runs everything and validates.
2. A TA opens a student's feedback page: scores and hints, no hidden tests, no mark scheme.
3. A TA grades the written answer in formgrader next to its mark scheme; the score reaches
   the gradebook and the regenerated feedback.

Servers are started on 127.0.0.1 with a token, in scratch copies of the course.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
from helpers.browser import (
    CELLS,
    PS1,
    grade_answer,
    jupyter_server,
    lab_menu,
    log_in_as_ta,
    nb_meta,
    paste_into_cell,
    save_notebook,
    save_screenshot,
    shown,
    static_server,
)
from helpers.course import ROOT, run
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.samples import SAMPLES

pytestmark = pytest.mark.browser
pytest_plugins = ["helpers.browser"]  # fixtures: browser, page, graded_course

NOTEBOOK = f"{PS1}.ipynb"
MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*$\n?", re.MULTILINE)
# What students and their feedback must never see.
HIDDEN = ["probe(", "HIDDEN TESTS", "attnkit", "Mark scheme", "TAs only", "mark_scheme"]




def is_test_cell(cell) -> bool:
    return cell.cell_type == "code" and nb_meta(cell).get("grade") and not nb_meta(cell).get(
        "solution")


def strip_solution_markers(source: str) -> str:
    """A master solution cell as a student would write it: no ### BEGIN/END SOLUTION."""
    return MARKER.sub("", source).rstrip("\n")


# ------------------------------------------------------------------- JupyterLab helpers


CELL_STATES_JS = """() => Array.from(document.querySelectorAll('CELLS')).map(c => ({
  code: c.classList.contains('jp-CodeCell'),
  prompt: (c.querySelector('.jp-InputArea-prompt') || {innerText: ''}).innerText.trim(),
  stderr: Array.from(c.querySelectorAll(
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'))
    .map(e => e.innerText),
  text: (c.querySelector('.jp-OutputArea') || {innerText: ''}).innerText,
  images: c.querySelectorAll('.jp-OutputArea img').length,
}))""".replace("CELLS", CELLS)

# Finished: no cell queued or running ([*]) and cell ``start`` numbered anew.
RUN_DONE_JS = """([start, before]) => {
  const prompts = Array.from(document.querySelectorAll('CELLS'))
    .map(c => (c.querySelector('.jp-InputArea-prompt') || {innerText: ''}).innerText.trim());
  return /\\[\\d+\\]/.test(prompts[start]) && prompts[start] !== before
    && !prompts.some(p => p.includes('*'));
}""".replace("CELLS", CELLS)




def cell_states(page) -> list[dict]:
    return page.evaluate(CELL_STATES_JS)


def prompt_of(page, index: int) -> str:
    return cell_states(page)[index]["prompt"]


def run_from(page, start: int, menu: str, item: str, select: bool = True,
             confirm: bool = False, timeout: float = 90_000) -> None:
    """(Select cell ``start``), click ``menu → item`` (and OK its dialog), wait until
    ``start`` ran and nothing is queued any more."""
    if select:
        select_cell(page, start)
    before = prompt_of(page, start)
    lab_menu(page, menu, item)
    if confirm:
        page.locator(".jp-Dialog .jp-mod-accept").click()
    page.wait_for_function(RUN_DONE_JS, arg=[start, before], timeout=timeout)


def select_cell(page, index: int) -> None:
    page.keyboard.press("Escape")  # command mode
    prompt = page.locator(CELLS).nth(index).locator(".jp-InputPrompt")
    prompt.scroll_into_view_if_needed()
    prompt.click()






def open_notebook(page, server, name: str, n_cells: int) -> None:
    page.goto(server.url(f"/lab/tree/{name}"))
    page.wait_for_function(f"document.querySelectorAll('{CELLS}').length === {n_cells}",
                           timeout=60_000)
    page.get_by_text(re.compile(r"\| Idle$")).wait_for(timeout=60_000)
    # more room for the notebook: fold the file browser away
    page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()


# ------------------------------------------------------------------------------ tests


@pytest.fixture(scope="module", autouse=True)
def _grade_while_the_student_works(request: pytest.FixtureRequest) -> None:
    """Start grading the sample class before the student test when a later test needs it."""
    if any("graded_course" in getattr(item, "fixturenames", ())
           for item in request.session.items):
        request.getfixturevalue("grading")


def test_student_solves_ps1_in_jupyterlab(page, tmp_path: Path) -> None:
    student = tmp_path / "student"
    student.mkdir()
    path = student / NOTEBOOK
    shutil.copy(ROOT / "release" / PS1 / NOTEBOOK, path)
    release = nbformat.read(path, as_version=4)
    master = {nb_meta(c).get("grade_id"): c
              for c in nbformat.read(ROOT / "source" / PS1 / NOTEBOOK, as_version=4).cells}
    solutions = {i: strip_solution_markers(master[nb_meta(c)["grade_id"]].source)
                 for i, c in enumerate(release.cells)
                 if c.cell_type == "code" and nb_meta(c).get("solution")}
    tests = {i: nb_meta(c)["grade_id"] for i, c in enumerate(release.cells) if is_test_cell(c)}
    written = [i for i, c in enumerate(release.cells)
               if c.cell_type == "markdown" and nb_meta(c).get("solution")]
    assert solutions and tests and written, "ps1 lost its solution, test or written cells"
    code_cells = [i for i, c in enumerate(release.cells) if c.cell_type == "code"]

    with jupyter_server("lab", student, tmp_path / "jupyter") as server:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"],
                                       origin=server.base)
        open_notebook(page, server, NOTEBOOK, len(release.cells))

        # -- 1. the stubs: Run All stops at the first failing test; keep going below it
        run_from(page, code_cells[0], "Run", "Run All Cells", select=False)
        for _ in code_cells:
            pending = [i for i, s in enumerate(cell_states(page))
                       if s["code"] and not re.search(r"\[\d+\]", s["prompt"])]
            if not pending:
                break
            run_from(page, pending[0], "Run", "Run Selected Cell and All Below")
        states = cell_states(page)
        for i in code_cells:
            assert re.search(r"\[\d+\]", states[i]["prompt"]), f"cell {i} never ran"
            errors = "\n".join(states[i]["stderr"])
            if i in tests:
                assert "NotImplementedError" in errors, (
                    f"{tests[i]} with the stubs should fail on NotImplementedError:\n"
                    f"{states[i]['text']}")
            else:
                assert not errors, f"cell {i} (not a test) fails with the stubs:\n{errors}"

        # -- 2. a typical mistake gets the visible test's message
        softmax_cell = next(i for i, c in enumerate(release.cells)
                            if nb_meta(c).get("grade_id") == "ps1_softmax_code")
        softmax_test = next(i for i, g in tests.items() if g == "ps1_softmax")
        paste_into_cell(page, softmax_cell,
                        SAMPLES[PS1]["chen"].code["ps1_softmax_code"].rstrip("\n"))
        for cell in (softmax_cell, softmax_test):
            run_from(page, cell, "Run", "Run Selected Cell and Do not Advance")
        errors = "\n".join(cell_states(page)[softmax_test]["stderr"])
        # the visible test states what happened; the cause is the hidden check's to name
        assert "AssertionError" in errors and "inf or nan for scores near 1000" in errors, errors

        # -- 3. the solutions, pasted through the editor; a written answer typed in
        for i, code in solutions.items():
            paste_into_cell(page, i, code)
        answer = ("No: the positional encoding belongs to the positions, not to the tokens, "
                  "so permuting the inputs no longer just permutes the outputs.")
        answer_cell = page.locator(CELLS).nth(written[0])
        answer_cell.scroll_into_view_if_needed()
        answer_cell.locator(".jp-MarkdownOutput").dblclick()
        answer_cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.type(answer)
        page.keyboard.press("Control+Enter")  # render
        save_notebook(page)
        saved = nbformat.read(path, as_version=4)
        for i, code in solutions.items():
            assert saved.cells[i].source == code, f"cell {i} not saved as pasted"
        assert saved.cells[written[0]].source == answer

        # -- 4. clean kernel, run everything: no test fails any more
        lab_menu(page, "Edit", "Clear Outputs of All Cells")  # prompts back to [ ]
        run_from(page, code_cells[0], "Kernel", "Restart Kernel and Run All Cells…",
                 select=False, confirm=True, timeout=120_000)
        states = cell_states(page)
        for i in code_cells:
            assert re.search(r"\[\d+\]", states[i]["prompt"]), (
                f"cell {i} did not run (an earlier cell failed?)")
            assert not states[i]["stderr"], (
                f"cell {i} ({tests.get(i, 'not a test')}) has errors:\n{states[i]['stderr']}")
        heatmaps = [tests[i] for i in tests if states[i]["images"]]
        assert {"ps1_self_attention", "ps1_scaled_attention"} <= set(heatmaps), heatmaps
        equivariance = next(states[i]["text"] for i, g in tests.items()
                            if g == "ps1_equivariance")
        assert "self-attention equivariant? True" in equivariance
        assert "token reversal equivariant? False" in equivariance
        save_notebook(page)

        heatmap_test = next(i for i, g in tests.items() if g == "ps1_self_attention")
        page.locator(CELLS).nth(heatmap_test).locator(".jp-OutputArea img").evaluate(
            "e => e.scrollIntoView({block: 'end'})")  # the printed checks, then the heatmap
        page.mouse.move(0, 0)
        save_screenshot(page, "student-notebook.png")

        # -- 5. nbgrader's Validate (the assignment-list extension's button, else the CLI)
        validate = page.locator(".jp-NotebookPanel-toolbar").get_by_role("button",
                                                                         name="Validate")
        validated = None
        if validate.count():
            validate.click()
            dialog = page.locator(".jp-Dialog", has_text="Validation Results")
            dialog.wait_for(timeout=90_000)
            validated = dialog.inner_text()
            dialog.locator(".jp-mod-accept").click()

    if validated is None:
        result = run(["nbgrader", "validate", str(path)], student)
        validated = result.stdout + result.stderr
    assert "Success! Your notebook passes all the tests." in validated, validated




def grades(root: Path, student: str) -> dict[str, tuple[float, float]]:
    with Gradebook(kit_course.db_url(root)) as gb:
        sub = gb.find_submission(PS1, student)
        return {g.name: (g.score, g.max_score) for nb in sub.notebooks for g in nb.grades}


def test_feedback_shows_scores_and_hints_but_no_hidden_tests(page, graded_course: Path,
                                                             tmp_path: Path) -> None:
    student = "chen"  # has mistakes: partial credit and a failed hidden check
    autograded = nbformat.read(graded_course / "autograded" / student / PS1 / NOTEBOOK,
                               as_version=4)
    submitted = nbformat.read(graded_course / "submitted" / student / PS1 / NOTEBOOK,
                              as_version=4)
    scores = grades(graded_course, student)

    with static_server(graded_course / "feedback", tmp_path) as server:
        response = page.goto(f"{server.base}/{student}/{PS1}/{PS1}.html")
        assert response.ok
        source = response.text()
        page.wait_for_load_state("load")
        text = page.locator("body").inner_text()
        dom = page.content()

        for leak in HIDDEN:
            for name, where in (("page text", text), ("HTML source", source), ("DOM", dom)):
                assert leak not in where, f"feedback {name} shows {leak!r}"

        # every graded cell: its score, and for test cells the verdict with its hint
        kinds = set()
        for cell in autograded.cells:
            grade_id = nb_meta(cell).get("grade_id")
            if not nb_meta(cell).get("grade"):
                continue
            panel = page.locator(f".cell:has(a[name='{grade_id}'])").first
            panel_text = panel.inner_text()
            score, points = scores[grade_id]
            assert f"Score: {shown(score)} / {shown(points)}" in panel_text, (grade_id,
                                                                              panel_text)
            if cell.cell_type != "code":
                continue
            verdicts = [o.get("text", "") or f"{o.get('ename')}: {o.get('evalue')}"
                        for o in cell.outputs if o.output_type in ("stream", "error")]
            verdict = next(v for v in reversed(verdicts)
                           if "hidden check" in v or "HiddenCheckFailed" in v).strip()
            # long hints are wrapped over several lines in the page
            assert " ".join(verdict.split()) in " ".join(panel_text.split()), (
                grade_id, verdict, panel_text)
            if score == points:
                assert verdict.startswith("hidden check passed"), verdict
            elif score == 0:
                assert verdict.startswith("HiddenCheckFailed: (0/"), verdict
            else:
                assert verdict.startswith("hidden check partly passed"), verdict
            hint = re.split(r"\([\d.]+/[\d.]+\):? ", verdict, maxsplit=1)[-1]
            assert len(hint) > 10, f"{grade_id}: no explanation in {verdict!r}"
            kinds.add("full" if score == points else "zero" if score == 0 else "partial")
        assert {"full", "zero"} <= kinds, f"{student} should pass some checks, fail others"

        # the written answer is shown (as submitted), graded by a TA
        answer = next(c.source for c in submitted.cells
                      if nb_meta(c).get("grade_id") == "ps1_positional_answer")
        first_words = " ".join(answer.replace("*", "").split()[:6])
        written = page.locator(".cell:has(a[name='ps1_positional_answer'])").first
        assert first_words in " ".join(written.inner_text().split())

        failed = next(nb_meta(c)["grade_id"] for c in autograded.cells
                      if is_test_cell(c) and scores[nb_meta(c)["grade_id"]][0] == 0)
        page.locator(f".cell:has(a[name='{failed}'])").first.evaluate(
            "e => e.scrollIntoView({block: 'start'})")
        save_screenshot(page, "feedback.png")


def test_formgrader_manual_grade_reaches_gradebook_and_feedback(page, graded_course: Path,
                                                                tmp_path: Path) -> None:
    student, grade_id = "emil", "ps1_positional_answer"
    score, comment = 1.5, "Right answer; say why P is not permuted along with X."
    path = f"/formgrader/gradebook/{PS1}/{PS1}"

    with jupyter_server("notebook", graded_course, tmp_path / "jupyter") as server:
        log_in_as_ta(page, server, path)
        scheme = page.get_by_text("Mark scheme (TAs only", exact=False)
        grade_answer(page, student, grade_id, score, comment, "formgrader.png")
        assert scheme.is_visible(), "the mark scheme is not visible to the TA"

    with Gradebook(kit_course.db_url(graded_course)) as gb:
        grade = gb.find_grade(grade_id, NOTEBOOK.removesuffix(".ipynb"), PS1, student)
        assert grade.manual_score == pytest.approx(score)
        assert gb.find_comment(grade_id, NOTEBOOK.removesuffix(".ipynb"), PS1,
                               student).manual_comment == comment

    run(["nbgrader", "generate_feedback", PS1, "--student", student, "--force"],
        graded_course)
    html = (graded_course / "feedback" / student / PS1 / f"{PS1}.html").read_text()
    assert f"Score: {shown(score)} / 2.0" in html
    assert comment in html
    for leak in HIDDEN:
        assert leak not in html, f"regenerated feedback shows {leak!r}"


def test_instructor_report_page(page, graded_course: Path, tmp_path: Path) -> None:
    """`attnkit report` on the graded class: every section shows, figures load."""
    run(["attnkit", "report", PS1], graded_course)
    with static_server(graded_course / "reports", tmp_path) as server:
        assert page.goto(f"{server.base}/{PS1}/index.html").ok
        text = page.locator("body").inner_text()
        for section in ("Score distribution", "Pass rate", "misconception", "Manual grading"):
            assert section.lower() in text.lower(), f"report lacks {section!r}"
        images = page.locator("img")
        assert images.count() >= 3
        for index in range(images.count()):
            width = images.nth(index).evaluate("img => img.naturalWidth")
            assert width > 0, "a report figure did not load"
        save_screenshot(page, "report.png", full_page=True)

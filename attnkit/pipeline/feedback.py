"""The feedback page a student reads: a summary on top, then the graded notebook.

Stock ``nbgrader generate_feedback`` writes it with the course's ``nbgrader_config.py``:
``SummariseFeedback`` (last of ``c.GenerateFeedback.preprocessors``, after nbgrader's
``GetGrades`` and the kit's clearing of hidden tests) lists every graded question with its
title, points, verdict in plain words and hint; ``FeedbackExporter`` renders it with the
kit's template (``templates/attnkit_feedback``), CSS inlined and maths as MathML
(``attnkit.pipeline.maths``), so the page is one file that reads correctly offline.

The summary is built from what the feedback notebook already shows: the hidden check's
verdict that ``JudgeProbes`` left in the cell metadata, the gradebook's scores and comments
(``GetGrades``), the notebook's headings and the first line of each test cell (after
``ClearHiddenTestsInTestCells``), never from hidden source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import nbgrader
from jinja2 import Environment
from jinja2.bccache import Bucket, BytecodeCache
from nbformat.notebooknode import NotebookNode
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade, is_solution, is_task

from attnkit.pipeline import maths
from attnkit.pipeline.cells import VERDICT, display_priority, is_test_cell
from attnkit.pipeline.judging import is_undrawn_plot
from attnkit.upstream.pages import OneParseHTMLExporter

TEMPLATES = str(Path(__file__).resolve().parents[1] / "templates")
# nbgrader's own templates (``feedback``, ``formgrade``), which the kit's extend
NBGRADER_TEMPLATES = str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
                         / "templates")

IMAGES = ("image/png", "image/jpeg")  # the outputs nbconvert writes as <img>
UNDRAWN = ("[A plot goes here. Feedback on submit left it out to come sooner (drawing plots "
           "is a third of grading's time): run the cell in your notebook to see it.]")
# How a written answer stands in the gradebook.
WAITING, BY_TA, AUTO = "waiting", "ta", "auto"

_TEST_TITLE = re.compile(r"#\s*Test cell:\s*(?P<title>.+)")
_POINTS_NOTE = re.compile(r"\s*\([^()]*\bpoints?\b[^()]*\)\s*$")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(?P<text>.+?)(?:[ \t]+#+)?[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.MULTILINE | re.DOTALL)


class _CompiledTemplates(BytecodeCache):
    """Jinja's compiled templates kept for the life of the process, by name and source
    checksum: nbgrader builds an exporter per student, and compiling its templates again each
    time was about a quarter of a feedback page's time (grade-on-submit writes many)."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _CompiledTemplates()


class FeedbackExporter(OneParseHTMLExporter):
    """The feedback pages' exporter (``c.GenerateFeedback.exporter_class``): nbgrader's
    HTMLExporter, in a class of its own so that its template is configured apart from
    formgrader's, which reads ``c.HTMLExporter``; with the summary's filters, and every
    plot described for screen readers."""

    def from_notebook_node(self, nb: NotebookNode, resources: dict | None = None,
                           **kw) -> tuple[str, dict]:
        describe_plots(nb)
        return super().from_notebook_node(nb, resources, **kw)

    def _create_environment(self) -> Environment:
        environment = super()._create_environment()
        environment.bytecode_cache = _COMPILED
        return environment

    def default_filters(self) -> Iterator[tuple[str, Callable]]:
        yield from super().default_filters()
        yield "heading_html", maths.heading_html
        yield "comment_html", lambda source: maths.render(source, escape=True)
        yield "points_text", points_text


def describe_plots(nb: NotebookNode) -> None:
    """Give each image output without alternative text one that says where it was drawn
    (nbconvert's own is "No description has been provided for this image"), and say why a
    plot that grading made without drawing it (``attnkit.serve.task.NO_PLOTS``) is missing."""
    section = ""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            section = last_heading(cell.source) or section
        if cell.cell_type != "code" or cell.metadata.get("alt"):
            continue
        title = title_from_comment(cell.source)
        where = f"drawn by the test cell of {title}" if title else "drawn by the code above"
        if section:
            where += f", under the heading “{section}”"
        for output in cell.outputs:
            if is_undrawn_plot(output):
                output.data["text/plain"] = UNDRAWN
            for mime in IMAGES:
                if mime in output.get("data", {}):
                    meta = output.setdefault("metadata", {})
                    own = meta.get("alt") or meta.get(mime, {}).get("alt")
                    if not own:
                        meta.setdefault(mime, {})["alt"] = f"A plot {where}."


@dataclass(frozen=True)
class Question:
    """One graded question as the summary shows it."""

    anchor: str  # the cell's grade id: nbgrader's anchor in the page
    title: str  # plain text
    section: str  # the markdown heading above the cell (markdown source, one line)
    kind: str  # "check" (autograded) or "answer" (a TA grades it)
    score: float | None  # None while a TA has not graded it
    points: float
    status: str  # "passed", "partly", "failed" or "waiting": icon and colour
    verdict: str  # the status in plain words
    hint: str  # the hidden check's hint (plain text) or the TA's comment (markdown)


def _number(value: object) -> float:
    """A score or points from cell metadata (None before grading counts as 0)."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0


def points_text(score: float | None, points: float) -> str:
    """``0.5 / 1 point``, ``2 / 2 points``."""
    shown = "–" if score is None else f"{score:g}"
    return f"{shown} / {points:g} point{'' if points == 1 else 's'}"


def status_of(score: float, points: float) -> str:
    """What a score shows as: its icon, colour and words."""
    if score >= points:
        return "passed"
    return "partly" if score > 0 else "failed"


def title_from_comment(source: str) -> str | None:
    """The title a test cell gives itself on its first line: ``# Test cell: softmax (1
    point). Do not edit.`` gives ``softmax``."""
    first = source.lstrip().split("\n", 1)[0]
    match = _TEST_TITLE.fullmatch(first.strip())
    if match is None:
        return None
    title = re.sub(r"\s*Do not edit\.?\s*$", "", match["title"]).rstrip(" .")
    return _POINTS_NOTE.sub("", title).rstrip(" .") or None


def last_heading(source: str) -> str | None:
    """The text of the last markdown heading in a cell (not a ``#`` line in fenced code)."""
    headings = list(_HEADING.finditer(_FENCE.sub("", source)))
    return headings[-1]["text"] if headings else None


def summarise(nb: NotebookNode, manual: Mapping[str, str] | None = None) -> list[Question]:
    """Every graded cell of the feedback notebook, in order, as a ``Question``.

    ``manual``: grade id -> ``WAITING``, ``BY_TA`` or ``AUTO`` for the cells a TA grades
    (from the gradebook); a cell missing from it counts as graded automatically."""
    manual = manual or {}
    questions = []
    section = ""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and not is_grade(cell):
            section = last_heading(cell.source) or section
        meta = cell.metadata.get("nbgrader", {})
        if not (is_grade(cell) or is_task(cell)) or not meta.get("grade_id"):
            continue
        grade_id = str(meta["grade_id"])
        points = _number(meta.get("points"))
        score = _number(meta.get("score"))
        comment = str(meta.get("comment") or "").strip()
        if is_test_cell(cell):
            verdict = cell.metadata.get(VERDICT) or {}
            status = status_of(score, points)
            words = {"passed": "passed", "partly": "partly passed", "failed": "failed"}[status]
            title = title_from_comment(cell.source) or section or grade_id
            questions.append(Question(grade_id, title, section if title != section else "",
                                      "check", score, points, status, words,
                                      str(verdict.get("message") or "")))
            continue
        state = manual.get(grade_id, AUTO)
        title = section or grade_id
        if state == WAITING:
            questions.append(Question(grade_id, title, "", "answer", None, points, "waiting",
                                      "waiting for a TA", ""))
            continue
        # nbgrader grades a written answer itself only when it was left as released
        words = "graded by a TA" if state == BY_TA else "not answered"
        questions.append(Question(grade_id, title, "", "answer", score, points,
                                  status_of(score, points), words, comment))
    return questions


HEADING_OFFSET = 2  # a page's <h1>, a section's <h2>, then the notebook's own headings


class SummariseFeedback(NbGraderPreprocessor):
    """Put the summary of the graded questions into the page's resources (last in
    ``c.GenerateFeedback.preprocessors``, after ``GetGrades``); move the notebook's headings
    below the page's own."""

    display_data_priority = display_priority()

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        manual: dict[str, str] = {}
        with Gradebook(info["db_url"]) as gb:
            for cell in nb.cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                if not grade_id or not (is_solution(cell) and is_grade(cell) or is_task(cell)):
                    continue
                try:
                    grade = gb.find_grade(grade_id, info["notebook"], info["assignment"],
                                          info["student"])
                except MissingEntry:
                    continue
                manual[grade_id] = (WAITING if grade.needs_manual_grade else
                                    BY_TA if grade.manual_score is not None else AUTO)
        resources.setdefault("attnkit", {})["summary"] = summarise(nb, manual)
        resources["heading_offset"] = HEADING_OFFSET
        return nb, resources

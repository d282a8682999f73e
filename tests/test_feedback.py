"""The feedback page's parts, without kernels: maths as MathML that student TeX cannot turn
into live HTML, the summary of graded questions, and the course configuration that wires
them into stock ``nbgrader generate_feedback`` and formgrader."""

from __future__ import annotations

import copy
import fnmatch
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import nbformat
import pytest
from helpers.course import ROOT
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.preprocessors import GetGrades

from attnkit import course as kit_course
from attnkit.judge.registry import mark_schemes
from attnkit.pipeline import maths
from attnkit.pipeline.feedback import (
    AUTO,
    BY_TA,
    WAITING,
    FeedbackExporter,
    Question,
    SummariseFeedback,
    last_heading,
    summarise,
    title_from_comment,
)
from attnkit.pipeline.preprocessors import VERDICT, ClearHiddenTestsInTestCells
from attnkit.pipeline.sanitize import NeutraliseActiveContent

PAYLOAD = "<img src=x onerror=alert(1)>"
HOSTILE_TEX = [
    rf"\text{{{PAYLOAD}}}",
    rf"\mbox{{{PAYLOAD}}}",
    rf"\textrm{{</math>{PAYLOAD}}}",
    r"\text{<script>alert(1)</script>}",
    r"\text{<![CDATA[<img src=x onerror=alert(1)>]]>}",
    r"\text{&lt;img src=x onerror=alert(1)&gt;}",
    r"\text{&#x3C;img src=x onerror=alert(1)&#x3E;}",
    r"\operatorname{<img src=x onerror=alert(1)>}",
    r"\href{javascript:alert(1)}{click}",
    r"\style{background:url(x)}{x}",
    r"\class{navbar}{x}",
    r'\color{red" onmouseover="alert(1)}{x}',
    r'\colorbox{red" onmouseover="alert(1)}{x}',
    r"\unicode{<img>}",
    r"a < b \,\&\, c > d",
    r"\frac{1}{",  # does not convert: shown as escaped TeX
]
ALLOWED = maths.ELEMENTS | {"semantics", "annotation", "span", "code"}


def elements(markup: str) -> list[ElementTree.Element]:
    """Every element of a fragment, parsed as XML: any unescaped ``<`` or ``&`` fails."""
    return list(ElementTree.fromstring(f"<root>{markup}</root>").iter())[1:]


# ------------------------------------------------------------------------- maths


@pytest.mark.parametrize("tex", HOSTILE_TEX)
@pytest.mark.parametrize("display", [False, True])
def test_student_tex_never_becomes_live_html(tex: str, display: bool) -> None:
    markup = maths.tex_to_mathml(tex, display)
    found = elements(markup)
    assert {e.tag for e in found} <= ALLOWED, markup
    for element in found:
        for name, value in element.attrib.items():
            assert not name.startswith("on") and name not in ("href", "src", "style", "id"), (
                markup)
            if name == "class":
                assert value in ("math-display", "tex"), markup
    assert "<img" not in markup and "<script" not in markup, markup


def test_the_payload_is_text_in_the_maths() -> None:
    """latex2mathml's own string output makes it a live <img>: the kit serialises its tree."""
    from latex2mathml.converter import convert

    assert "<img" in convert(rf"\text{{{PAYLOAD}}}"), "the hazard this module exists for"
    markup = maths.tex_to_mathml(rf"\text{{{PAYLOAD}}}")
    mtext = next(e for e in elements(markup) if e.tag == "mtext")
    assert mtext.text.replace("\u00a0", " ") == PAYLOAD


def test_maths_renders_as_mathml() -> None:
    markup = maths.tex_to_mathml(r"\mathbf{x}_n \in \mathbb{R}^{D}")
    assert markup.startswith('<math display="inline">')
    assert "<msub><mi>𝐱</mi><mi>n</mi></msub><mo>∈</mo>" in markup
    assert r'<annotation encoding="application/x-tex">\mathbf{x}_n' in markup


def test_a_wide_display_equation_can_wrap_but_keeps_its_left_hand_side() -> None:
    markup = maths.tex_to_mathml(r"a + b = c - d = f(x, y),\qquad g = -h", display=True)
    rows = ["".join(m.itertext()) for m in elements(markup) if m.tag == "math"]
    # no break in a + b, the first relation or a sign; breaks before -, =, after a comma
    assert rows == ["a+b=c", "−d", "=f(x,", "y),", "g=−h"], rows
    assert markup.count('form="infix"') == 2  # "- d" and "= f": spaced as operators


def test_control_space_at_a_line_end_is_a_space() -> None:
    """TeX reads a backslash before a line end as a space; latex2mathml showed a "\\"."""
    markup = maths.tex_to_mathml("x,\\\ny \\\\\nz")  # x,\<newline>y \\<newline>z
    assert "<mtext>\u00a0</mtext>" in markup, markup
    assert "<mi>\\" not in markup, markup


def test_a_line_break_with_extra_space_shows_no_brackets() -> None:
    """``\\\\[2mm]`` (ps5's equation M2) is a line break with extra space, not text."""
    markup = maths.tex_to_mathml(r"\begin{cases} 1 & a \\[2mm] 0 & b \end{cases}", True)
    shown = markup.split("<annotation")[0]
    assert "2mm" not in shown and "[" not in shown, shown
    assert "2mm" in markup  # the TeX source is still the annotation


@pytest.mark.parametrize("path", sorted((ROOT / "source").glob("*/*.ipynb")),
                         ids=lambda p: p.parent.name)
def test_every_course_equation_converts(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    sources = [c.source for c in nb.cells if c.cell_type == "markdown"]
    html = "".join(maths.render(s) for s in [*sources, *mark_schemes().values()])
    assert "<math" in html
    assert 'class="tex"' not in html, "an equation was left as TeX"
    assert not re.search(r"<m[io]>\\", html), "an unknown TeX command shown as a backslash"


def test_latex_outputs_keep_only_their_maths() -> None:
    """A text/latex output is not vetted as markdown is: only its maths becomes markup."""
    html = maths.latex2html(rf"$$\frac{{a}}{{b}}$$ and $x$ {PAYLOAD} [a](javascript:alert(1)) "
                            "![t](http://example.org/t.png) costs $5")
    assert html.count("<math") == 2
    assert "&lt;img src=x" in html and "<a " not in html and "<img" not in html
    assert html.endswith("costs $5")


def test_markdown_keeps_nbconvert_behaviour_around_the_maths() -> None:
    html = maths.render("# Title $x$\n\nSome *text* and `code` with $a<b$.", heading_offset=2)
    assert html.startswith('<h3 id="Title-')  # moved below the page's <h1> and <h2>
    assert "<em>text</em>" in html and "<code>code</code>" in html
    assert "<mo>&lt;</mo>" in html and "$" not in html
    assert maths.heading_html(f"1. Softmax $D_q$ {PAYLOAD}").startswith("1. Softmax <math")
    assert "&lt;img" in maths.heading_html(PAYLOAD)


# ------------------------------------------------------------------------- summary

TEST_SOURCE = "# Test cell: {title}. Do not edit.\nassert True\n"


def mark_graded(cell, grade_id: str, points: float, score: float, **meta) -> nbformat.NotebookNode:
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": grade_id, "points": points,
                                 "score": score, "solution": False, "locked": True,
                                 "schema_version": 3, **meta}
    return cell


def sample_notebook(hint: str = "on logits near 1000 np.exp overflows") -> nbformat.NotebookNode:
    check = mark_graded(new_code_cell(TEST_SOURCE.format(title="softmax (1 point)")),
                   "ps1_softmax", 1, 0.5)
    check.metadata[VERDICT] = {"score": 0.5, "points": 1.0, "message": hint,
                               "misconception": "no max subtraction"}
    untitled = mark_graded(new_code_cell("assert x == 1\n"), "ps1_other", 2, 2)
    three = mark_graded(new_code_cell(TEST_SOURCE.format(
        title="the three shapes (3 points, one per shape)")), "ps4_shapes", 3, 0)
    return new_notebook(cells=[
        new_markdown_cell("# Problem set\n\n## 1. Softmax (equation 12.5)\n\nText."),
        check,
        new_markdown_cell("## 2. Two heads\n\n```python\n# not a heading\n```"),
        untitled,
        three,
        new_markdown_cell("## 6. Written question (2 points, graded by a TA)"),
        mark_graded(new_markdown_cell("My answer."), "ps1_written", 2, 0, solution=True,
               locked=False, comment=None),
        mark_graded(new_markdown_cell("Another."), "ps1_graded", 2, 1.5, solution=True,
               locked=False, comment="Say why $P$ is not permuted."),
        mark_graded(new_markdown_cell("YOUR ANSWER HERE"), "ps1_blank", 2, 0, solution=True,
               locked=False, comment="No response."),
    ])


def test_summary_lists_every_graded_question_in_order() -> None:
    manual = {"ps1_written": WAITING, "ps1_graded": BY_TA, "ps1_blank": AUTO}
    got = summarise(sample_notebook(), manual)
    assert got == [
        Question("ps1_softmax", "softmax", "1. Softmax (equation 12.5)", "check", 0.5, 1.0,
                 "partly", "partly passed", "on logits near 1000 np.exp overflows"),
        Question("ps1_other", "2. Two heads", "", "check", 2.0, 2.0, "passed", "passed", ""),
        Question("ps4_shapes", "the three shapes", "2. Two heads", "check", 0.0, 3.0,
                 "failed", "failed", ""),
        Question("ps1_written", "6. Written question (2 points, graded by a TA)", "",
                 "answer", None, 2.0, "waiting", "waiting for a TA", ""),
        Question("ps1_graded", "6. Written question (2 points, graded by a TA)", "",
                 "answer", 1.5, 2.0, "partly", "graded by a TA",
                 "Say why $P$ is not permuted."),
        Question("ps1_blank", "6. Written question (2 points, graded by a TA)", "",
                 "answer", 0.0, 2.0, "failed", "not answered", "No response."),
    ]


@pytest.mark.parametrize(("line", "title"), [
    ("# Test cell: softmax (1 point). Do not edit.", "softmax"),
    ("# Test cell: SelfAttention.__init__ (4 points). Do not edit.", "SelfAttention.__init__"),
    ("# Test cell: the three shapes (3 points, one per shape). Do not edit.",
     "the three shapes"),
    ("# Test cell: split_heads", "split_heads"),
    ("x = 1", None),
])
def test_test_cell_titles(line: str, title: str | None) -> None:
    assert title_from_comment(f"{line}\nassert x\n") == title


def test_headings_in_code_blocks_are_not_titles() -> None:
    assert last_heading("## Real\n\n```python\n# comment\n```\n") == "Real"
    assert last_heading("~~~\n# comment\n~~~") is None


def test_summary_never_uses_hidden_source() -> None:
    """The title comes from the cell after nbgrader cleared its hidden lines."""
    cell = mark_graded(new_code_cell("### BEGIN HIDDEN TESTS\n# Test cell: secret (1 point)\n"
                                "### END HIDDEN TESTS\nassert x\n"), "ps1_softmax", 1, 1)
    nb = new_notebook(cells=[new_markdown_cell("## Section"), cell])
    nb, _ = ClearHiddenTestsInTestCells().preprocess(nb, {})
    assert summarise(nb)[0].title == "Section"


def test_partial_credit_is_not_shown_as_an_output() -> None:
    """nbgrader reads a test cell's bare number result as its score; the page shows the score
    in the cell's verdict, not as a stray ``Out[n]: 1``. A student's own result stays."""
    def result(text: str) -> nbformat.NotebookNode:
        return nbformat.v4.new_output("execute_result", {"text/plain": text}, execution_count=3)

    check = mark_graded(new_code_cell("check()"), "ps1_softmax", 2, 1)
    check.outputs = [nbformat.v4.new_output("stream", text="partly passed (1/2)\n"),
                     result("1")]
    mine = new_code_cell("x = 1\nx")
    mine.outputs = [result("1")]
    nb, _ = ClearHiddenTestsInTestCells().preprocess(new_notebook(cells=[mine, check]), {})
    assert [o.output_type for o in nb.cells[1].outputs] == ["stream"]
    assert [o.output_type for o in nb.cells[0].outputs] == ["execute_result"]


# ------------------------------------------------------------------------- the pages


@pytest.fixture(scope="module")
def config():
    return kit_course.load_config(ROOT)


def feedback_html(config, nb: nbformat.NotebookNode, summary: list[Question]) -> str:
    nb, _ = NeutraliseActiveContent().preprocess(copy.deepcopy(nb), {})
    resources = {"nbgrader": {"notebook": "ps1", "student": "chen", "score": 0.5,
                              "max_score": 11, "late_penalty": 0},
                 "attnkit": {"summary": summary}, "heading_offset": 2}
    html, _ = FeedbackExporter(config=config).from_notebook_node(nb, resources=resources)
    return html


def formgrader_html(config, nb: nbformat.NotebookNode) -> str:
    nb, _ = NeutraliseActiveContent().preprocess(copy.deepcopy(nb), {})
    resources = {"assignment_id": "ps1", "notebook_id": "ps1", "submission_id": "abc",
                 "index": 0, "total": 1, "base_url": "", "student": "chen", "last_name": "",
                 "first_name": "", "notebook_path": "/autograded/chen/ps1/ps1.ipynb"}
    html, _ = HTMLExporter(config=config).from_notebook_node(nb, resources=resources)
    return html


class Audit(HTMLParser):
    """Elements, event-handler attributes and script URLs of a page."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.handlers: list[tuple[str, str, str]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name.startswith("on") or "javascript:" in (value or "").lower():
                self.handlers.append((tag, name, value or ""))


def hostile_answer() -> nbformat.NotebookNode:
    answer = mark_graded(new_markdown_cell(
        f"So $\\text{{{PAYLOAD}}}$ and $$\\mbox{{<script>alert(1)</script>}}$$ and "
        f"$\\href{{javascript:alert(1)}}{{x}}$."), "ps1_written", 2, 0, solution=True,
        locked=False, comment=None)
    return new_notebook(cells=[new_markdown_cell("## 6. Written question"), answer])


@pytest.mark.parametrize("page", ["feedback", "formgrader"])
def test_hostile_tex_in_an_answer_stays_inert_on_the_pages(config, page: str) -> None:
    nb = hostile_answer()
    html = (feedback_html(config, nb, summarise(nb)) if page == "feedback"
            else formgrader_html(config, nb))
    audit = Audit(html)
    benign = Audit(feedback_html(config, new_notebook(), []) if page == "feedback"
                   else formgrader_html(config, new_notebook()))
    assert "img" not in audit.tags and audit.tags.count("script") == benign.tags.count(
        "script"), "student TeX made an element"
    assert set(audit.handlers) <= set(benign.handlers), audit.handlers
    assert "<mtext>&lt;img" in html, "the payload should show as text"
    assert not re.search(r"<script[^>]*src=[\"']?https?:", html), "a script from the network"


def test_summary_escapes_what_it_shows(config) -> None:
    nb = sample_notebook(hint=f"your function raised ValueError: {PAYLOAD}")
    html = feedback_html(config, nb, summarise(nb, {"ps1_graded": BY_TA}))
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "img" not in Audit(html).tags and not Audit(html).handlers


def test_feedback_page_is_one_file_with_its_summary(config) -> None:
    nb = sample_notebook()
    html = feedback_html(config, nb, summarise(nb, {"ps1_written": WAITING}))
    assert '<html lang="en">' in html and "<main>" in html
    assert 'aria-labelledby="summary-heading"' in html
    assert html.count('class="question ') == 6
    assert '<a href="#ps1_softmax">softmax</a>' in html
    assert "waiting for a TA" in html and "partly passed" in html
    assert "white-space: pre-wrap" in html and "overflow-wrap: anywhere" in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "loads something"
    assert "<script" not in html
    assert "attnkit" not in html, "the kit's internals leak into the page"


@pytest.mark.parametrize("fixture", ["feedback_html", "formgrader_html"])
def test_hostile_corpus_stays_inert_in_the_kit_templates(config, fixture: str) -> None:
    """test_xss's attacks (after NeutraliseActiveContent) through the kit's templates."""
    from helpers.xss import HOSTILE

    def render(nb: nbformat.NotebookNode) -> str:
        if fixture == "feedback_html":
            return feedback_html(config, nb, summarise(nb))
        return formgrader_html(config, nb)

    baseline = Audit(render(new_notebook(cells=[new_markdown_cell("A benign answer.")])))
    for case, make in HOSTILE.items():
        audit = Audit(render(make()))
        assert set(audit.handlers) <= set(baseline.handlers), (case, audit.handlers)
        for tag in ("script", "iframe", "object", "embed", "svg", "style", "form"):
            assert audit.tags.count(tag) <= baseline.tags.count(tag), (case, tag)


# --------------------------------------------------------------- configuration


def test_wired_into_generate_feedback_and_formgrader(config) -> None:
    steps = config.GenerateFeedback.preprocessors
    assert steps.index(SummariseFeedback) > steps.index(GetGrades)
    assert steps.index(SummariseFeedback) > steps.index(ClearHiddenTestsInTestCells)
    assert config.GenerateFeedback.exporter_class is FeedbackExporter
    assert config.FeedbackExporter.template_name == "attnkit_feedback"
    assert config.HTMLExporter.template_name == "attnkit_formgrade"
    assert config.HTMLExporter.filters["markdown2html"] is maths.markdown2html


def test_modules_and_templates_are_installed_with_the_package() -> None:
    """What a non-editable install copies: the packages pyproject.toml's find finds, and in
    them the package data its patterns name."""
    from setuptools import find_namespace_packages

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = set(find_namespace_packages(str(ROOT), **setuptools["packages"]["find"]))
    files = [p for p in (ROOT / "attnkit").rglob("*") if p.is_file()
             and "__pycache__" not in p.parts]
    assert any(p.suffix == ".j2" for p in files)
    for path in files:
        package = path.parent.relative_to(ROOT).as_posix().replace("/", ".")
        assert package in packages, package
        if path.suffix != ".py":
            patterns = setuptools["package-data"].get(package, [])
            assert any(fnmatch.fnmatch(path.relative_to(path.parent).as_posix(), pattern)
                       for pattern in patterns), path

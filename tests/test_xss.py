"""Students attack the graders: HTML and JavaScript in a submission must never run.

formgrader renders each autograded notebook server-side with nbconvert and serves it in
the TA's logged-in session, and ``generate_feedback`` renders the same notebook to HTML,
so a student's ``<img onerror>``, ``<script>`` or ``display(Javascript(...))`` would run
there (and could call formgrader's API to change grades). ``NeutraliseActiveContent``
makes the autograded notebook inert. Fast tests below render hostile notebooks with
nbconvert's own templates and nbgrader's; the browser test grades hostile submissions
with stock nbgrader commands and opens every page a TA would.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from helpers.browser import (
    PS1,
    jupyter_server,
    kernel_name,
    log_in_as_ta,
    static_server,
    student_script_ran,
)
from helpers.course import ROOT, copy_course, run
from helpers.xss import (
    HOSTILE,
    MARKDOWN_ATTACKS,
    OUTPUT_ATTACKS,
    PNG,
    PWN,
    _display,
    markdown_nb,
    output_nb,
)
from nbconvert import HTMLExporter
from nbformat.v4 import (
    new_code_cell,
    new_markdown_cell,
    new_notebook,
    new_output,
    new_raw_cell,
)

from attnkit import course as kit_course
from attnkit.judge.registry import mark_schemes
from attnkit.pipeline.sanitize import NOTE, OUTPUT_NOTE, NeutraliseActiveContent, markdown_problems
from attnkit.samples import SAMPLES, build_submission

pytest_plugins = ["helpers.browser"]  # fixtures: browser, page (for the browser test)

NOTE_TEXT = "This answer contained active content (HTML or JavaScript)"
OUTPUT_NOTE_TEXT = "[grading note] HTML/JavaScript output was removed"

# ------------------------------------------------------------------------ the payloads



















# --------------------------------------------------------------------- benign content

PANDAS_TABLE = """<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;">
      <th></th>
      <th>query</th>
      <th>key</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <th>0</th>
      <td>0.25</td>
      <td>-1.5</td>
    </tr>
  </tbody>
</table>"""
PANDAS_REPR = """<div>
<style scoped>
    .dataframe tbody tr th:only-of-type {
        vertical-align: middle;
    }

    .dataframe thead th {
        text-align: right;
    }
</style>
""" + PANDAS_TABLE + "\n</div>"

BENIGN_MARKDOWN = [
    "**bold** and *italic* and ~~struck~~",
    r"$x_n \in \mathbb{R}^D$ for $n = 1, \ldots, N$",
    "$a < b$ and $$\\sum_{i} a_i < \\infty$$",
    "A code span with `<tag>` and `<script>alert(1)</script>` in it.",
    f"![heatmap](data:image/png;base64,{PNG})",
    "# Heading\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n> quoted\n\n1. one\n2. two",
    "[the paper](https://arxiv.org/abs/1706.03762) and <https://example.org> and "
    "[a section](#Heading)",
    "```python\nx = '<b>' if a < b else '</b>'\n```",
    "Maths block:\n\n\\begin{equation}\nQ = \\Omega_q X + \\beta_q 1^T\n\\end{equation}",
    "<b>bold</b>, <i>it</i>, <sub>2</sub>, <sup>3</sup>, <br>, <code>x</code>",
    '<a href="https://example.org" title="t">link</a> <img src="figure.png" alt="f" width="40">',
    "- [x] done\n- [ ] to do\n\nTerm\n: its definition\n\n---\n\n~~~\nplain code\n~~~",
    '<span style="color: #c00; font-weight: bold">red</span> <table><tr><td>1</td></tr></table>',
]


def benign_nb() -> nbformat.NotebookNode:
    cells = [new_markdown_cell(s) for s in BENIGN_MARKDOWN]
    pasted = new_markdown_cell("![pasted](attachment:image.png)")
    pasted.attachments = {"image.png": {"image/png": PNG}}
    cells.append(pasted)
    cells.append(new_code_cell("df", execution_count=3, outputs=[
        _display({"text/html": PANDAS_TABLE, "text/plain": "   query  key\n0   0.25 -1.5"},
                 kind="execute_result"),
        _display({"image/png": PNG, "text/plain": "<Figure size 640x480 with 1 Axes>"},
                 {"image/png": {"width": 320, "height": 240}}),
        _display({"text/latex": r"$\frac{1}{\sqrt{D_q}}$", "text/plain": "1/sqrt(D_q)"}),
        _display({"application/vnd.attnkit.probe+json": {"check": "x", "values": [1, 2]}}),
        new_output("stream", name="stdout", text=f"<script>{PWN}</script>\n"),
        new_output("error", ename="ValueError", evalue="<img src=x onerror=1>",
                   traceback=["ValueError: <img src=x onerror=1>"]),
    ]))
    cells.append(new_raw_cell("plain raw text, no markup"))
    return new_notebook(cells=cells)


# --------------------------------------------------------------------------- rendering

TEMPLATES = ["lab", "classic", "formgrade", "feedback"]


def _nbgrader_templates() -> str:
    from nbgrader.server_extensions.formgrader import handlers

    return handlers.template_path


def _bootstrap_css() -> str:
    """Where generate_feedback finds the CSS its template inlines."""
    import nbgrader

    return str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "static"
               / "node_modules" / "bootstrap" / "dist" / "css")


@pytest.fixture(scope="module")
def exporters() -> dict[str, HTMLExporter]:
    made = {}
    for name in TEMPLATES:
        kw = {"template_name": name}
        if name in ("formgrade", "feedback"):
            kw["extra_template_basedirs"] = [_nbgrader_templates()]
            kw["extra_template_paths"] = [_bootstrap_css()]
        made[name] = HTMLExporter(**kw)
    return made


def render(exporter: HTMLExporter, nb: nbformat.NotebookNode) -> str:
    resources = {
        # what formgrader's SubmissionHandler passes
        "assignment_id": "ps1", "notebook_id": "ps1", "submission_id": "abc", "index": 0,
        "total": 1, "base_url": "", "student": "mallory", "last_name": "", "first_name": "",
        "notebook_path": "/autograded/mallory/ps1/ps1.ipynb",
        # what generate_feedback's GetGrades leaves
        "nbgrader": {"notebook": "ps1", "score": 0, "max_score": 1, "late_penalty": 0},
    }
    html, _ = exporter.from_notebook_node(copy.deepcopy(nb), resources=resources)
    return html


def neutralise(nb: nbformat.NotebookNode) -> tuple[nbformat.NotebookNode, dict]:
    resources: dict = {}
    return NeutraliseActiveContent().preprocess(copy.deepcopy(nb), resources)


# Elements that can run script, load content or take over the page.
ACTIVE_ELEMENTS = {"script", "iframe", "frame", "frameset", "object", "embed", "applet", "svg",
                   "math", "form", "meta", "link", "base", "style", "details", "input",
                   "button", "textarea", "select", "template", "video", "audio", "source",
                   "portal"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "data", "srcdoc", "xlink:href",
                  "background", "poster", "content", "srcset"}
DANGEROUS_LATEX = re.compile(r"\\(?:href|url|class|cssId|style|require|unicode|html)\b")


class PageAudit(HTMLParser):
    """What in a page could run or load something: active elements (with their content),
    ``on*`` attributes, script URLs, CSS that loads things, TeX commands MathJax acts on."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: Counter = Counter()
        self.handlers: list = []
        self.urls: list = []
        self.latex: list = []
        self.text: list[str] = []
        self._open: list = []  # active elements whose content is being collected
        self._code = 0
        self.feed(html)
        self.close()
        for entry in self._open:
            self.elements[entry[0], entry[1], "".join(entry[2])] += 1

    def handle_starttag(self, tag: str, attrs: list) -> None:
        for name, value in attrs:
            value = value or ""
            squashed = re.sub(r"[\x00-\x20]", "", value).lower()
            if name.startswith("on"):
                self.handlers.append((tag, name, value))
            if name in URL_ATTRIBUTES and re.search(
                    r"(^|url=|[\s;,])(javascript|vbscript|data:text/html|data:image/svg)",
                    squashed) or (name == "style" and re.search(r"url\(|expression|@import",
                                                                 squashed)):
                self.urls.append((tag, name, value))
            elif name in ("src", "srcset", "poster") and re.match(r"(https?:|//|/|\\)",
                                                                   squashed):
                self.urls.append((tag, name, value))  # loads from another place as the TA
        if tag in ("code", "pre"):
            self._code += 1
        if tag in ACTIVE_ELEMENTS:
            self._open.append((tag, tuple(sorted(attrs, key=str)), []))

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "pre"):
            self._code = max(0, self._code - 1)
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i][0] == tag:
                entry = self._open.pop(i)
                self.elements[entry[0], entry[1], "".join(entry[2]).strip()] += 1
                break

    def handle_data(self, data: str) -> None:
        for entry in self._open:
            entry[2].append(data)
        self.text.append(data)
        if not self._code and not self._open:
            self.latex += DANGEROUS_LATEX.findall(data)

    def handle_comment(self, data: str) -> None:
        self.elements["<!--comment-->", (), data] += 1


def problems(html: str, baseline: PageAudit) -> list[str]:
    """How a page differs from the benign baseline in ways that could run code."""
    audit = PageAudit(html)
    found = []
    extra = audit.elements - baseline.elements
    found += [f"active element {tag} {attrs} {content[:80]!r}"
              for (tag, attrs, content), _ in extra.items()
              if not (tag == "<!--comment-->" and "<" not in content)]
    found += [f"{tag} {name}={value[:80]!r}" for tag, name, value in audit.handlers
              if (tag, name, value) not in baseline.handlers]
    found += [f"URL {tag} {name}={value[:80]!r}" for tag, name, value in audit.urls
              if (tag, name, value) not in baseline.urls]
    found += [f"TeX {cmd}" for cmd in audit.latex]
    return found


@pytest.fixture(scope="module")
def baselines(exporters) -> dict[str, PageAudit]:
    return {name: PageAudit(render(exp, markdown_nb("A benign answer.")))
            for name, exp in exporters.items()}


# ------------------------------------------------------------------------------ tests


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_notebook_renders_inert(case: str, exporters, baselines) -> None:
    nb, resources = neutralise(HOSTILE[case]())
    for name, exporter in exporters.items():
        html = render(exporter, nb)
        found = problems(html, baselines[name])
        assert not found, f"{case} in the {name} template still has:\n" + "\n".join(found)
        text = " ".join(" ".join(PageAudit(html).text).split())
        if case not in ("notebook_title_and_widgets",):
            assert NOTE_TEXT in text or OUTPUT_NOTE_TEXT in text, (
                f"{case}: no grading note in the {name} page")
    again, _ = neutralise(nb)
    assert again == nb, f"{case}: neutralising is not idempotent"


@pytest.mark.parametrize("case", [c for c in HOSTILE if c not in (
    # inert in nbconvert's own HTML templates already (escaped, cleaned or in an <img>),
    # but not in every template: neutralised all the same (test above)
    "raw_html", "raw_no_mimetype", "raw_format_html", "output-svg_onload",
    "notebook_title_and_widgets", "attachment_html", "markdown-markdown_js_image",
    "output-widget_view",
    # nbconvert refuses to render the notebook at all (invalid; a missing attachment)
    "execution_count", "markdown-attachment_missing")])
def test_payload_is_live_without_the_preprocessor(case: str, exporters, baselines) -> None:
    """The defect: rendered as stock nbgrader renders it, every payload is live somewhere."""
    nb = HOSTILE[case]()
    found = [f for name, exporter in exporters.items()
             for f in problems(render(exporter, nb), baselines[name])]
    assert found, f"{case} is not a live payload: the test proves nothing"


@pytest.mark.filterwarnings("ignore:Your element with mimetype")  # the probe record
def test_benign_notebook_is_unchanged(exporters) -> None:
    original = benign_nb()
    nb, resources = neutralise(original)
    assert nb == original
    for exporter in exporters.values():
        html = render(exporter, nb)
        assert render(exporter, original) == html
        assert NOTE_TEXT not in html and OUTPUT_NOTE_TEXT not in html
        assert "<strong>bold</strong>" in html
        assert r"$x_n \in \mathbb{R}^D$" in html and "$a &lt; b$" in html
        assert "<code>&lt;tag&gt;</code>" in html
        assert f"data:image/png;base64,{PNG}" in html
        assert '<table border="1" class="dataframe">' in html


def test_pandas_repr_keeps_its_table_but_not_its_style_sheet() -> None:
    nb, _ = neutralise(output_nb(_display({"text/html": PANDAS_REPR, "text/plain": "df"},
                                          kind="execute_result")))
    outputs = nb.cells[0].outputs
    assert len(outputs) == 1, "a pandas table is not active content: no note"
    html = outputs[0].data["text/html"]
    # nh3 writes the table back, its style attributes spelt its way
    assert PANDAS_TABLE.replace("text-align: right;", "text-align:right") in html
    assert "<style" not in html and ".dataframe" not in html
    assert outputs[0].data["text/plain"] == "df"


def test_answer_keeps_its_text_and_maths(exporters) -> None:
    nb, _ = neutralise(markdown_nb(MARKDOWN_ATTACKS["mixed_with_benign"]))
    source = nb.cells[0].source
    assert source.startswith(NOTE + "\n\n")
    html = render(exporters["formgrade"], nb)
    assert "<strong>Bold</strong>" in html
    assert r"$x_n \in \mathbb{R}^D$" in html and "$a &lt; b$" in html
    assert "<code>&lt;tag&gt;</code>" in html and "<em>two</em>" in html
    # the payload is shown to the TA, as text
    text = " ".join(PageAudit(html).text)
    assert f'<img src=x onerror="{PWN}">' in text


def test_hostile_outputs_are_replaced_by_a_note() -> None:
    cell = new_code_cell("show()", execution_count=2, outputs=[
        new_output("stream", name="stdout", text="before\n"),
        copy.deepcopy(OUTPUT_ATTACKS["html_script"]),
        copy.deepcopy(OUTPUT_ATTACKS["javascript"]),
        _display({"image/png": PNG, "text/html": f"<img src=x onerror={PWN}>"}),
    ])
    nb, _ = neutralise(new_notebook(cells=[cell]))
    outputs = nb.cells[0].outputs
    assert outputs[0].text == "before\n"
    assert outputs[1].data == {"text/plain": "<IPython.core.display.HTML object>"}
    assert "removed" in outputs[2].data["text/plain"]  # lost all its data
    assert outputs[3].data == {"image/png": PNG}
    assert [o.text for o in outputs if o.output_type == "stream"][-1] == OUTPUT_NOTE
    assert sum(o.output_type == "stream" for o in outputs) == 2  # one note per cell


def test_hostile_update_display_data_is_cleaned_too() -> None:
    update = _display({"text/html": f'<img src=x onerror="{PWN}">', "text/plain": "x"},
                      kind="update_display_data")
    nb = output_nb(_display({"text/plain": "placeholder"}))
    nb.cells[0].outputs = [update]  # as nbclient sees it; never in a saved notebook
    nb, _ = neutralise(nb)
    assert nb.cells[0].outputs[0].data == {"text/plain": "x"}
    assert nb.cells[0].outputs[-1].text == OUTPUT_NOTE


@pytest.mark.parametrize("html", [f'<img src=x onerror="{PWN}"', "<div title='"])
def test_html_left_open_at_the_end_is_neutralised(html: str) -> None:
    """What follows it in the page (the template's markup, the next cell) would go into the
    student's tag."""
    nb = output_nb(_display({"text/html": html, "text/plain": "x"}))
    nb.cells.append(new_raw_cell(html, metadata={"raw_mimetype": "text/html"}))
    nb, _ = neutralise(nb)
    assert nb.cells[0].outputs[0].data == {"text/plain": "x"}
    assert nb.cells[1].cell_type == "markdown" and nb.cells[1].source.startswith(NOTE)


@pytest.mark.parametrize("source", [*BENIGN_MARKDOWN, *MARKDOWN_ATTACKS.values()])
def test_quick_check_agrees_with_rendering(source: str) -> None:
    """Markdown the quick check lets through without rendering is inert when rendered."""
    assert markdown_problems(source) == markdown_problems(source, quick=False)


def test_the_course_notebooks_and_mark_schemes_are_unchanged() -> None:
    for path in sorted([*ROOT.glob("source/*/*.ipynb"), *ROOT.glob("release/*/*.ipynb")]):
        original = nbformat.read(path, as_version=4)
        nb, resources = neutralise(original)
        assert nb == original, f"{path.relative_to(ROOT)} was changed"
        assert resources["attnkit"]["neutralised"] == 0
    for grade_id, scheme in mark_schemes().items():
        assert not markdown_problems(scheme, quick=False), grade_id


def test_wired_into_autograde_and_feedback() -> None:
    config = kit_course.load_config(ROOT)
    names = [getattr(p, "__name__", p) for p in config.Autograde.autograde_preprocessors]
    assert names[names.index("JudgeProbes") + 1] == "NeutraliseActiveContent"
    assert config.GenerateFeedback.preprocessors[0] is NeutraliseActiveContent


# --------------------------------------------------------------- in a real browser

# What the attacker's JavaScript does in formgrader: flag itself, then give its own
# submission full marks, extra credit and a comment through formgrader's REST API.
ATTACK_JS = """window.__pwned = 1;
(async () => {
  const xsrf = decodeURIComponent((document.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || [])[1] || "");
  const sid = window.submission_id || location.pathname.split("/").filter(Boolean).pop();
  const headers = {"Content-Type": "application/json", "X-XSRFToken": xsrf};
  const grades = await (await fetch("/formgrader/api/grades?submission_id=" + sid)).json();
  for (const g of grades) {
    await fetch("/formgrader/api/grade/" + g.id, {method: "PUT", headers,
      body: JSON.stringify({manual_score: g.max_score, extra_credit: 5})});
  }
  const comments = await (await fetch("/formgrader/api/comments?submission_id=" + sid)).json();
  for (const c of comments) {
    await fetch("/formgrader/api/comment/" + c.id, {method: "PUT", headers,
      body: JSON.stringify({manual_comment: "excellent work"})});
  }
})();"""
JS = f"eval(atob('{base64.b64encode(ATTACK_JS.encode()).decode()}'))"
BENIGN_ANSWER = ("No: the positional encoding belongs to the positions, not the tokens, so "
                 "with $x_n \\in \\mathbb{R}^D$ permuting the inputs no longer permutes the "
                 "outputs.")
# student -> (written answer, an extra markdown cell, the outputs an extra code cell makes)
ATTACKS = {
    "mallory": (
        f'{BENIGN_ANSWER}\n\n<img src=x onerror="{JS}">\n\n<script>{JS}</script>',
        f'<a href="javascript:{JS}">Appendix</a> <svg onload="{JS}"></svg>',
        "from IPython.display import HTML, Javascript, Markdown, SVG, display\n"
        f"display(HTML({f'<img src=x onerror={chr(34)}{JS}{chr(34)}>'!r}))\n"
        f"display(Javascript({JS!r}))\n"
        f"display(Markdown({f'**Result** <img src=x onerror={chr(34)}{JS}{chr(34)}>'!r}))\n"
        f"display(SVG({f'<svg xmlns={chr(34)}http://www.w3.org/2000/svg{chr(34)} onload={chr(34)}{JS}{chr(34)}/>'!r}))\n",  # noqa: E501
    ),
    "trudy": (
        f'{BENIGN_ANSWER}\n\n<details open ontoggle="{JS}"><summary>more</summary></details>'
        f'\n\n<iframe srcdoc="<script>parent.{JS}</script>"></iframe>',
        f'<math><mtext><table><mglyph><style><img src=x onerror="{JS}">',
        "from IPython.display import HTML\n"
        f"HTML({f'<script>{JS}</script><b>table</b>'!r})\n",
    ),
    "eve": (
        f'{BENIGN_ANSWER}\n\n<!--><img src=x onerror="{JS}">-->\n\n'
        f'```mermaid\ngraph TD\nA["<img src=x onerror={JS}>"]\n```',
        f"[see the appendix](javascript:{JS})",
        "from IPython.display import display\n"
        f"display({{'text/html': {f'<img src=x onerror={chr(34)}{JS}{chr(34)}>'!r}, "
        "'text/plain': 'a table'}, raw=True)\n",
    ),
}
RAW_ATTACK = f'<img src=x onerror="{JS}">'


def write_hostile_submissions(root: Path) -> None:
    name = f"{PS1}.ipynb"
    for student, (answer, markdown, code) in ATTACKS.items():
        nb = build_submission(root / "source" / PS1 / name, root / "release" / PS1 / name,
                              SAMPLES[PS1]["aisha"])
        answer_cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get(
            "grade_id") == "ps1_positional_answer")
        answer_cell.source = answer
        nb.cells += [new_markdown_cell(markdown), new_code_cell(code),
                     new_raw_cell(RAW_ATTACK, metadata={"raw_mimetype": "text/html"})]
        out = root / "submitted" / student / PS1 / name
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out)


def gradebook_state(root: Path) -> tuple[dict, dict]:
    """Every grade and comment of the hostile students, and their notebooks' ids."""
    from nbgrader.api import Gradebook

    state, ids = {}, {}
    with Gradebook(kit_course.db_url(root)) as gb:
        for student in ATTACKS:
            for nb in gb.find_submission(PS1, student).notebooks:
                ids[student] = nb.id
                for g in nb.grades:
                    state[student, g.name] = (g.auto_score, g.manual_score, g.extra_credit)
                for c in nb.comments:
                    state[student, c.name, "comment"] = c.manual_comment
    return state, ids


@pytest.mark.browser
@pytest.mark.slow
def test_ta_pages_never_run_student_javascript(page, tmp_path: Path) -> None:
    root = copy_course(tmp_path / "course")
    env = {"ATTNKIT_KERNEL": kernel_name()}
    run(["nbgrader", "generate_assignment", PS1, "--force"], root, env=env)
    write_hostile_submissions(root)
    run(["nbgrader", "autograde", PS1, "--force"], root, env=env)
    run(["nbgrader", "generate_feedback", PS1, "--force"], root, env=env)
    before, ids = gradebook_state(root)
    assert set(ids) == set(ATTACKS)
    for student in ATTACKS:  # the hostile cells ran: their outputs reached the notebook
        nb = nbformat.read(root / "autograded" / student / PS1 / f"{PS1}.ipynb", as_version=4)
        assert any(o.get("data") or o.get("text") for o in nb.cells[-2].outputs), student

    pwned, missing = [], []
    with jupyter_server("notebook", root, tmp_path / "jupyter") as server:
        log_in_as_ta(page, server, f"/formgrader/gradebook/{PS1}/{PS1}")
        page.locator("#main-table a.name-hidden").first.wait_for()
        for student, notebook_id in ids.items():
            # onerror, ontoggle, fetch: all get their chance
            if student_script_ran(page, f"{server.base}/formgrader/submissions/{notebook_id}/",
                                  settle_ms=1500):
                pwned.append(f"formgrader page of {student}")
            assert page.evaluate("typeof window.$") == "function", "formgrader's JS is off"
            text = " ".join(page.locator("body").inner_text().split())
            for benign in ("positional encoding belongs to the positions",
                           "ℝ", "Student's answer"):  # \mathbb{R}, typeset as MathML
                if benign not in text:
                    missing.append(f"{student}: {benign!r} not on the formgrader page")
        page.wait_for_timeout(1000)

    with static_server(root / "feedback", tmp_path) as server:
        for student in ATTACKS:
            if student_script_ran(page, f"{server.base}/{student}/{PS1}/{PS1}.html"):
                pwned.append(f"feedback page of {student}")

    run(["attnkit", "report", PS1], root, env=env)
    with static_server(root / "reports", tmp_path) as server:
        if student_script_ran(page, f"{server.base}/{PS1}/index.html"):
            pwned.append("the instructor report")

    after, _ = gradebook_state(root)
    changed = {k: (before[k], after.get(k)) for k in before if after.get(k) != before[k]}
    assert not pwned and not changed and not missing, (
        f"student JavaScript ran on: {pwned}\n"
        f"grades/comments it changed: {json.dumps({str(k): v for k, v in changed.items()})}\n"
        f"{missing}")

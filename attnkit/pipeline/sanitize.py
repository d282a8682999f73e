"""Make a notebook inert before any page is rendered from it.

formgrader renders each autograded notebook server-side with nbconvert and serves the
page in the TA's logged-in session; ``generate_feedback`` renders the same notebook for
students. nbconvert passes a markdown cell's raw HTML, ``text/html``, ``text/markdown``
and ``application/javascript`` outputs into those pages as they are, so a student's
``<img src=x onerror=...>`` or ``display(Javascript(...))`` would run there, and could call
formgrader's API to change grades. ``NeutraliseActiveContent`` rewrites the notebook
itself, so every page made from it is safe whatever template renders it:

* markdown (cells and ``text/markdown`` outputs) is rendered as nbconvert renders it and
  checked against an allowlist of harmless tags, attributes and URLs, with two HTML
  parsers (html5lib, the parser browsers' behaviour is specified by, as vendored by
  bleach; and Python's html.parser). Markdown with anything else is re-written so that
  its raw HTML is shown as text (formatting and maths kept), under a visible note;
* outputs keep only plain text, PNG/JPEG, harmless LaTeX, the kit's probe records and
  allowlisted HTML (pandas tables); whatever else is dropped, with a note;
* raw cells with active HTML become a markdown cell showing their source as code; cell
  attachments keep only PNG/JPEG/GIF images; notebook metadata that templates put into
  the page (title, widget state) is dropped when it could carry markup.

Markdown with no active content, and benign outputs, are left byte-identical.
"""

from __future__ import annotations

import html as html_module
import re
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser
from typing import Any

import tinycss2
from bleach import html5lib_shim
from mistune import Markdown, import_plugin
from mistune.core import BlockState
from mistune.renderers.markdown import MarkdownRenderer
from nbconvert.filters.markdown_mistune import (
    IPythonRenderer,
    MarkdownWithMath,
    MathBlockParser,
    MathInlineParser,
)
from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer, List, Unicode

NOTE = ("**Grading note.** This answer contained active content (HTML or JavaScript), which was "
        "turned into plain text: it is never run for graders or in feedback.")
OUTPUT_NOTE = ("[grading note] HTML/JavaScript output was removed: it is never run for graders "
               "or in feedback.\n")
REMOVED = "[grading note] This output was removed: it is never run for graders or in feedback."
PROBE_MIME = "application/vnd.attnkit.probe+json"

# ------------------------------------------------------------------------- the allowlist

_TABLE = {"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col"}
ALLOWED_TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "li",
    "mark", "ol", "p", "pre", "s", "samp", "small", "span", "strong", "sub", "sup", "u",
    "ul", "var", *_TABLE,
})
GLOBAL_ATTRIBUTES = frozenset({"class", "title", "style", "align", "dir", "lang"})
TAG_ATTRIBUTES: dict[str, frozenset[str]] = {
    "a": frozenset({"href"}),
    # images: only these (and title, harmless text that mistune writes for ![a](b "t"))
    "img": frozenset({"src", "alt", "width", "height", "title"}),
    "input": frozenset({"type", "disabled", "checked", "class"}),  # mistune's task lists
    "ol": frozenset({"start", "type"}),
    "table": frozenset({"border", "cellpadding", "cellspacing"}),
    "td": frozenset({"colspan", "rowspan", "valign", "halign"}),
    "th": frozenset({"colspan", "rowspan", "valign", "halign", "scope"}),
    "col": frozenset({"span", "width"}),
    "colgroup": frozenset({"span", "width"}),
    **{f"h{n}": frozenset({"id"}) for n in range(1, 7)},  # nbconvert's heading anchors
}
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
IMAGE_DATA = re.compile(r"data:image/(png|jpeg|gif)[;,]", re.IGNORECASE)
# CSS a style attribute may set: layout of text and tables, nothing that moves, covers
# or loads anything.
CSS_PROPERTIES = frozenset({
    "text-align", "vertical-align", "color", "background-color", "font-weight", "font-style",
    "font-size", "font-family", "text-decoration", "white-space", "width", "min-width",
    "max-width", "height", "border", "border-collapse", "border-color", "border-style",
    "border-width", "border-top", "border-bottom", "border-left", "border-right", "padding",
    "padding-top", "padding-bottom", "padding-left", "padding-right", "text-indent",
    "line-height", "list-style-type",
})
CSS_FUNCTIONS = frozenset({"rgb", "rgba", "hsl", "hsla"})
# TeX commands MathJax turns into links, CSS, ids or extension loads. The MathJax URL in
# nbgrader's templates loads MathJax's Safe extension, which filters most of them; a
# configured HTMLExporter.mathjax_url may not.
DANGEROUS_TEX = re.compile(r"\\(href|url|class|cssId|style|require|unicode|html)(?![A-Za-z])")
ZERO_WIDTH_SPACE = "\u200b"

KEPT_MIMETYPES = ["text/plain", "image/png", "image/jpeg", "text/latex", "text/html",
                  "text/markdown", PROBE_MIME]
ATTACHMENT_MIMETYPES = frozenset({"image/png", "image/jpeg", "image/gif"})


# ------------------------------------------------------------------- checking HTML


def _squash(url: str) -> str:
    """``url`` as a browser's URL parser reads it: entities decoded, tabs and newlines
    removed, control characters and spaces trimmed."""
    return re.sub(r"[\t\n\r]", "", html_module.unescape(url)).strip(
        "".join(map(chr, range(33))))


def url_scheme(url: str) -> str | None:
    """The scheme a browser would see in ``url`` (lower case), or None if relative."""
    squashed = _squash(url)
    match = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):", squashed)
    return match[1].lower() if match else None


def safe_link(url: str) -> bool:
    return url_scheme(url) in LINK_SCHEMES | {None}


def safe_image(url: str) -> bool:
    """An embedded PNG/JPEG/GIF, or a relative path (no scheme, no other host)."""
    squashed = _squash(url)
    if url_scheme(squashed) is None:
        return not squashed.startswith(("//", "\\\\", "/\\", "\\/"))
    return bool(IMAGE_DATA.match(squashed))


def safe_css(style: str) -> bool:
    """Declarations only, of allowlisted properties, with plain values (no url(), no
    strings, no functions but colours)."""

    def plain(tokens: Iterable[Any]) -> bool:
        for token in tokens:
            if token.type in ("whitespace", "ident", "number", "percentage", "dimension",
                              "hash", "comment"):
                continue
            if token.type == "literal" and token.value in (",", "/", "-", "%", "+"):
                continue
            if token.type == "function" and token.lower_name in CSS_FUNCTIONS and plain(
                    token.arguments):
                continue
            return False
        return True

    for item in tinycss2.parse_blocks_contents(style, skip_whitespace=True,
                                               skip_comments=True):
        if item.type != "declaration" or item.lower_name not in CSS_PROPERTIES:
            return False
        if not plain(item.value):
            return False
    return True


def attribute_problem(tag: str, name: str, value: str) -> str | None:
    """Why ``name="value"`` on ``<tag>`` is not allowed, or None."""
    if name not in GLOBAL_ATTRIBUTES and name not in TAG_ATTRIBUTES.get(tag, ()):
        return f"<{tag} {name}>"
    if name == "href" and not safe_link(value):
        return f"<{tag} href={value[:40]!r}>"
    if name == "src" and not safe_image(value):
        return f"<{tag} src={value[:40]!r}>"
    if name == "style" and not safe_css(value):
        return f"<{tag} style={value[:40]!r}>"
    if tag == "input" and name == "type" and value.lower() != "checkbox":
        return f"<input type={value[:20]!r}>"
    return None


def tag_problems(tag: str, attrs: Iterable[tuple[str, str | None]]) -> list[str]:
    """What is not allowed about one start tag."""
    if tag not in ALLOWED_TAGS:
        return [f"<{tag}>"]
    attrs = [(name, value or "") for name, value in attrs]
    found = [p for name, value in attrs if (p := attribute_problem(tag, name, value))]
    if tag == "input" and "disabled" not in dict(attrs):
        found.append("<input> that is not a disabled checkbox")
    return found


def _html5_problems(html: str, style_elements: bool) -> list[str]:
    """The allowlist check on html5lib's parse (the HTML standard's algorithm, as browsers
    parse a fragment inside a <div>), entities decoded as browsers decode them."""
    parser = html5lib_shim.BleachHTMLParser(tags=None, strip=False, consume_entities=True,
                                            namespaceHTMLElements=False)
    walker = html5lib_shim.getTreeWalker("etree")
    found: list[str] = []
    for token in walker(parser.parseFragment(html)):
        kind = token["type"]
        if kind in ("StartTag", "EmptyTag"):
            if token.get("namespace") not in (None, "http://www.w3.org/1999/xhtml"):
                found.append(f"<{token['name']}> (SVG/MathML)")
                continue
            if style_elements and token["name"] == "style":
                continue  # dropped from outputs before they are kept, see clean_output_html
            attrs = [(name, value) for (_, name), value in token["data"].items()]
            found += tag_problems(token["name"], attrs)
        elif kind == "EndTag":
            if token["name"] not in ALLOWED_TAGS and not (
                    style_elements and token["name"] == "style"):
                found.append(f"</{token['name']}>")
        elif kind in ("Comment", "Doctype"):
            found.append(f"HTML {kind.lower()}")
    return found


class _StdlibAudit(HTMLParser):
    """The same allowlist on Python's html.parser: a second opinion where parsers differ
    (comments, malformed tags); anything either parser objects to counts."""

    def __init__(self, style_elements: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.style_elements = style_elements
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not (self.style_elements and tag == "style"):
            self.found += tag_problems(tag, attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag not in ALLOWED_TAGS and not (self.style_elements and tag == "style"):
            self.found.append(f"</{tag}>")

    def handle_comment(self, data: str) -> None:
        self.found.append("HTML comment")

    def handle_decl(self, decl: str) -> None:
        self.found.append("HTML declaration")

    def handle_pi(self, data: str) -> None:
        self.found.append("processing instruction")

    def unknown_decl(self, data: str) -> None:
        self.found.append("HTML declaration")


def html_problems(html: str, style_elements: bool = False) -> list[str]:
    """Everything in ``html`` outside the allowlist, as short descriptions (empty: safe).
    ``style_elements``: let ``<style>`` elements through (callers remove them)."""
    if "<" not in html:
        return []
    audit = _StdlibAudit(style_elements)
    audit.feed(html)
    audit.close()
    found = _html5_problems(html, style_elements) + audit.found
    return list(dict.fromkeys(found))


class _StyleElements(HTMLParser):
    """Where html.parser sees ``<style>`` elements, as (start, end) offsets."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html = html
        self.lines = [0] + [m.end() for m in re.finditer("\n", html)]
        self.spans: list[tuple[int, int]] = []
        self._start: int | None = None
        self.feed(html)
        self.close()
        if self._start is not None:
            self.spans.append((self._start, len(html)))

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "style" and self._start is None:
            self._start = self._offset()

    def handle_endtag(self, tag: str) -> None:
        if tag == "style" and self._start is not None:
            at = self._offset()
            end = self.html.find(">", at)
            self.spans.append((self._start, len(self.html) if end < 0 else end + 1))
            self._start = None


def clean_output_html(html: str) -> str | None:
    """``html`` without its ``<style>`` elements (pandas' table CSS would restyle the TA's
    page) if the rest is on the allowlist for both parsers; else None (drop it)."""
    if html_problems(html, style_elements=True):
        return None
    spans = _StyleElements(html).spans
    for start, end in reversed(spans):
        html = html[:start] + html[end:]
    return None if html_problems(html) else html


# --------------------------------------------------------------- checking markdown


def _ast(source: str) -> list[dict]:
    """The token tree nbconvert's markdown parser makes of ``source``."""
    markdown = MarkdownWithMath(renderer=None)  # type: ignore[arg-type]
    tokens, _ = markdown.parse(source)
    return tokens  # type: ignore[return-value]


def _walk(tokens: Iterable[dict]) -> Iterator[dict]:
    for token in tokens:
        yield token
        yield from _walk(token.get("children") or ())


def render_markdown(source: str, attachments: dict | None = None) -> str:
    """``source`` as nbconvert's HTMLExporter.markdown2html renders it in every template."""
    renderer = IPythonRenderer(escape=False, attachments=attachments or {})
    return MarkdownWithMath(renderer=renderer).render(source)


class _MathJaxText(HTMLParser):
    """The text MathJax typesets in a page: not in code, pre, script, style, textarea."""

    SKIPPED = frozenset({"code", "pre", "script", "style", "textarea", "noscript"})

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.depth += tag in self.SKIPPED

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag in self.SKIPPED and self.depth > 0

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.text.append(data)


def tex_problems(html: str) -> list[str]:
    """TeX commands MathJax would act on in ``html``."""
    if "\\" not in html:
        return []
    text = "".join(_MathJaxText(html).text)
    return [f"TeX \\{m[1]}" for m in DANGEROUS_TEX.finditer(text)]


# Markdown can only make HTML outside the allowlist from raw HTML or autolinks (``<``),
# entities (``&``), links, images and link definitions (``](``, ``]:``), code fences
# (mermaid) or TeX: markdown with none of these is inert without rendering it.
_MAYBE_ACTIVE = re.compile(r"<|&|\]\(|\]:|```|~~~")


def markdown_problems(source: str, attachments: dict | None = None,
                      quick: bool = True) -> list[str]:
    """Everything active in a markdown cell (or ``text/markdown`` output) as nbconvert
    renders it; empty if it is safe to render as it is. ``quick``: skip rendering markdown
    that cannot be active (see ``_MAYBE_ACTIVE``)."""
    if quick and not _MAYBE_ACTIVE.search(source) and not DANGEROUS_TEX.search(source):
        return []
    found: list[str] = []
    if "```" in source or "~~~" in source:
        found += ["mermaid diagram" for t in _walk(_ast(source)) if t["type"] == "block_code"
                  and (t.get("attrs") or {}).get("info", "").strip().startswith("mermaid")]
    try:
        html = render_markdown(source, attachments)
    except Exception as error:  # e.g. a missing attachment: the page would not render
        return [*found, f"unrenderable markdown ({type(error).__name__})"]
    return list(dict.fromkeys(found + html_problems(html) + tex_problems(html)))


# ------------------------------------------------------------ re-writing markdown

_ESCAPED = re.compile(r"([\\`*_\[\]<>!&$|~])")
_LINE_START = re.compile(r"^([ \t]*)([#>+=-]|\d+[.)])", re.MULTILINE)


def literal(text: str) -> str:
    """Markdown that shows ``text`` as it is: every character markdown, HTML or maths
    could act on is backslash-escaped, and dangerous TeX commands are broken up."""
    text = DANGEROUS_TEX.sub(lambda m: "\\" + ZERO_WIDTH_SPACE + m[1], text)
    text = _ESCAPED.sub(r"\\\1", text)
    return _LINE_START.sub(lambda m: m[1] + "\\" + m[2] if m[2][0] in "#>+=-"
                           else m[1] + m[2][:-1] + "\\" + m[2][-1], text)


def fenced(text: str, info: str = "text") -> str:
    """A fenced code block showing ``text`` verbatim (pygments escapes it)."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}\n"


class InertMarkdown(MarkdownRenderer):
    """Markdown back to markdown, with raw HTML, script URLs, mermaid diagrams and
    dangerous TeX turned into text that shows what the student wrote."""

    def __init__(self, attachments: dict | None = None) -> None:
        super().__init__()
        self.attachments = attachments or {}

    def text(self, token: dict, state: BlockState) -> str:
        return literal(token["raw"])

    def render_referrences(self, state: BlockState) -> Iterable[str]:
        """Link reference definitions, but not those to script URLs (their uses are
        shown as text, see ``link``)."""
        for line in super().render_referrences(state):
            url = line.split("]: ", 1)[1].split(' "', 1)[0].strip("<>")
            if safe_link(url) or safe_image(url):
                yield line

    def inline_html(self, token: dict, state: BlockState) -> str:
        return literal(token["raw"])

    def block_html(self, token: dict, state: BlockState) -> str:
        return fenced(token["raw"]) + "\n"

    def block_code(self, token: dict, state: BlockState) -> str:
        info = (token.get("attrs") or {}).get("info", "") or ""
        if info.strip().startswith("mermaid"):
            return fenced(token["raw"]) + "\n"
        language = info.strip().split(maxsplit=1)[0] if info.strip() else ""
        return fenced(token["raw"], re.sub(r"[^\w+#.-]", "", language)) + "\n"

    def link(self, token: dict, state: BlockState) -> str:
        url = token["attrs"]["url"]
        if safe_link(url):
            return super().link(token, state)
        return f"{self.render_children(token, state)} ({self.codespan({'raw': url}, state)})"

    def image(self, token: dict, state: BlockState) -> str:
        url = token["attrs"]["url"]
        name = url[len("attachment:"):] if url.startswith("attachment:") else None
        if (name is not None and name in self.attachments) or (name is None and safe_image(
                url)):
            return "!" + MarkdownRenderer.link(self, token, state)  # not self.link
        alt = self.render_children(token, state)
        return f"\\[image {alt}: {self.codespan({'raw': url}, state)}\\]"

    def _maths(self, opening: str, body: str, closing: str, state: BlockState) -> str:
        if DANGEROUS_TEX.search(body) or "\n\n" in body:
            return self.codespan({"raw": opening + body + closing}, state)
        return opening + body + closing

    def inline_math(self, token: dict, state: BlockState) -> str:
        return self._maths("$", token["raw"], "$", state)

    def block_math(self, token: dict, state: BlockState) -> str:
        return self._maths("$$", token["raw"], "$$", state)

    def latex_environment(self, token: dict, state: BlockState) -> str:
        name, body = token["attrs"]["name"], token["attrs"]["body"]
        return self._maths(f"\\begin{{{name}}}", body, f"\\end{{{name}}}", state)


def inert_markdown(source: str, attachments: dict | None = None) -> str:
    """``source`` re-written so that nothing in it is active, under the grading note:
    markdown formatting and maths kept, raw HTML shown as text. If the re-written text
    is still not clean (it always should be), the whole source is shown as code."""
    markdown = Markdown(renderer=InertMarkdown(attachments), block=MathBlockParser(),
                        inline=MathInlineParser(hard_wrap=False),
                        plugins=[import_plugin(p) for p in (
                            "strikethrough", "table", "url", "task_lists")])
    try:
        body = markdown(source).strip("\n")  # type: ignore[union-attr]
        candidate = f"{NOTE}\n\n{body}\n"
        if not markdown_problems(candidate, attachments):
            return candidate
    except Exception:  # a parse the renderer does not know: show the source as code
        pass
    fallback = f"{NOTE}\n\n{fenced(source)}"
    if not markdown_problems(fallback):
        return fallback
    return f"{NOTE}\n\n*This answer cannot be shown here; it is in the submitted notebook.*\n"


# ---------------------------------------------------------------- the preprocessor


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)?(px|%)?", value) is not None


class NeutraliseActiveContent(NbGraderPreprocessor):
    """Turn HTML and JavaScript a student put in a notebook into inert text, so that no
    page rendered from the notebook (formgrader, feedback, any nbconvert template) runs
    it. Markdown and outputs that are not active are left exactly as they are."""

    kept_mimetypes = List(
        Unicode(), default_value=KEPT_MIMETYPES,
        help="Output mimetypes that may stay (HTML, markdown and LaTeX only when inert); "
             "all others (JavaScript, SVG, widgets, ...) are dropped.").tag(config=True)
    note = Unicode(NOTE, help="Put at the top of markdown whose active content was turned "
                              "into text.").tag(config=True)
    output_note = Unicode(OUTPUT_NOTE, help="Appended (as stdout) to a cell whose outputs "
                                            "lost something.").tag(config=True)
    max_markup_chars = Integer(
        1_000_000, help="HTML and markdown outputs longer than this are dropped unchecked "
                        "(checking parses them; LimitOutput runs later).").tag(config=True)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.changed: list[str] = []  # what was neutralised, for the log and resources

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        self.changed = []
        self._clean_notebook_metadata(nb)
        for index, cell in enumerate(nb.cells):
            nb.cells[index], resources = self.preprocess_cell(cell, resources, index)
        if self.changed:
            self.log.warning("Neutralised active content (HTML/JavaScript): %s",
                             "; ".join(self.changed))
        resources.setdefault("attnkit", {})["neutralised"] = len(self.changed)
        return nb, resources

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        index: int) -> tuple[NotebookNode, dict]:
        self._clean_attachments(cell, index)
        if cell.cell_type == "markdown":
            problems = markdown_problems(cell.source, cell.get("attachments"))
            if problems:
                cell.source = self._inert(cell.source, cell.get("attachments"))
                self.changed.append(f"cell {index}: {', '.join(problems[:5])}")
        elif cell.cell_type == "raw":
            cell = self._clean_raw(cell, index)
        elif cell.cell_type == "code":
            self._clean_code(cell, index)
        return cell, resources

    # -- pieces

    def _inert(self, source: str, attachments: dict | None) -> str:
        text = inert_markdown(source, attachments)
        return text.replace(NOTE, self.note, 1) if self.note != NOTE else text

    def _clean_notebook_metadata(self, nb: NotebookNode) -> None:
        """Templates put the title into <title> and widget state into a script."""
        title = nb.metadata.get("title")
        if title is not None and (not isinstance(title, str) or "<" in title or "&" in title):
            del nb.metadata["title"]
            self.changed.append("notebook title")
        if "widgets" in nb.metadata:
            del nb.metadata["widgets"]
            self.changed.append("notebook widget state")

    def _clean_attachments(self, cell: NotebookNode, index: int) -> None:
        """Only images a markdown renderer puts into an <img>: PNG, JPEG, GIF."""
        attachments = cell.get("attachments")
        if not attachments:
            return
        kept = {}
        for name, bundle in attachments.items():
            images = {m: v for m, v in bundle.items() if m in ATTACHMENT_MIMETYPES}
            if images:
                kept[name] = images
        if kept != attachments:
            cell.attachments = from_dict(kept)
            self.changed.append(f"cell {index}: attachments that are not PNG/JPEG/GIF")

    def _clean_raw(self, cell: NotebookNode, index: int) -> NotebookNode:
        """nbconvert copies raw cells (no format, or HTML) into HTML pages as they are: one
        with active HTML becomes a markdown cell that shows its source as code."""
        problems = html_problems(cell.source)
        if not problems:
            return cell
        self.changed.append(f"raw cell {index}: {', '.join(problems[:5])}")
        metadata = {k: v for k, v in cell.metadata.items() if k not in ("raw_mimetype",
                                                                         "format")}
        new = {"cell_type": "markdown", "metadata": metadata,
               "source": f"{self.note}\n\n{fenced(cell.source)}"}
        if "id" in cell:
            new["id"] = cell.id
        return from_dict(new)

    def _clean_code(self, cell: NotebookNode, index: int) -> None:
        if not (cell.get("execution_count") is None or _is_count(cell.execution_count)):
            cell.execution_count = None
            self.changed.append(f"cell {index}: execution count")
        removed: list[str] = []
        outputs = []
        for output in cell.get("outputs", []):
            if output.output_type in ("display_data", "execute_result", "update_display_data"):
                output = self._clean_display(output, removed)
            if "execution_count" in output and not (output.execution_count is None
                                                    or _is_count(output.execution_count)):
                output.execution_count = None
                removed.append("execution count")
            outputs.append(output)
        if removed:
            outputs.append(from_dict({"output_type": "stream", "name": "stdout",
                                      "text": self.output_note}))
            cell.outputs = outputs
            self.changed.append(f"cell {index} outputs: {', '.join(dict.fromkeys(removed))}")

    def _clean_display(self, output: NotebookNode, removed: list[str]) -> NotebookNode:
        data = output.get("data", {})
        kept: dict[str, Any] = {}
        for mime, value in data.items():
            if mime not in self.kept_mimetypes or (
                    mime in ("text/html", "text/markdown")
                    and len(_text(value)) > self.max_markup_chars):
                removed.append(mime)
            elif mime == "text/html":
                html = clean_output_html(_text(value))
                if html is None:
                    removed.append(mime)
                else:
                    kept[mime] = value if html == _text(value) else html
            elif mime == "text/markdown":
                text = _text(value)
                if markdown_problems(text):
                    kept[mime] = self._inert(text, None)
                    removed.append(mime)
                else:
                    kept[mime] = value
            elif mime == "text/latex" and DANGEROUS_TEX.search(_text(value)):
                removed.append(mime)
            else:
                kept[mime] = value
        metadata = output.get("metadata", {})
        clean_metadata = _clean_output_metadata(metadata)
        if clean_metadata != metadata:
            removed.append("output metadata")
        if len(kept) == len(data) and clean_metadata == metadata and all(
                kept[m] is data[m] for m in kept):
            return output
        if not kept:
            kept = {"text/plain": REMOVED}
            clean_metadata = {}
        output.data = from_dict(kept)
        output.metadata = from_dict(clean_metadata)
        return output


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _clean_output_metadata(metadata: dict) -> dict:
    """Templates write an image's width and height into its <img> tag unquoted: keep only
    numbers there. ``filenames`` goes: nbconvert makes it the <img> source in place of the
    image's own data, a URL any student could point at."""
    clean: dict[str, Any] = {}
    for key, value in metadata.items():
        if key == "filenames" or key in ("width", "height") and not _number(value):
            continue
        if isinstance(value, dict):
            value = {k: v for k, v in value.items()
                     if k not in ("width", "height") or _number(v)}
        clean[key] = value
    return clean

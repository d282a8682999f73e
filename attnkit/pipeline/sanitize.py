"""Make a notebook inert before any page is rendered from it.

formgrader renders each autograded notebook with nbconvert in the TA's logged-in session and
``generate_feedback`` renders it for students. nbconvert copies raw HTML in markdown, and
``text/html``, ``text/markdown`` and JavaScript outputs, into those pages as they are, so a
student's ``<img src=x onerror=...>`` would run there and could call formgrader's API to change
grades. ``NeutraliseActiveContent`` rewrites the notebook itself, so every page made from it is
safe whatever template renders it. What is safe is nh3's allowlist (``allowlist``); this module
is the kit's policy for the rest: markdown is re-written to show its raw HTML as text under a
visible note (formatting and maths kept); outputs keep harmless types and safe HTML, the rest
is dropped with a note; raw cells, attachments, titles and widget state are made inert. Benign
content is left byte-identical.
"""

from __future__ import annotations

import re
from typing import Any

from mistune import Markdown, import_plugin
from mistune.core import BlockState
from mistune.renderers.markdown import MarkdownRenderer
from nbconvert.filters.markdown_mistune import MathBlockParser, MathInlineParser
from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer, List, Unicode

from attnkit.pipeline.allowlist import (
    DANGEROUS_TEX,
    allows,
    clean_output_html,
    html_problems,
    markdown_problems,
)
from attnkit.pipeline.cells import display_priority

NOTE = ("**Grading note.** This answer contained active content (HTML or JavaScript), which was "
        "turned into plain text: it is never run for graders or in feedback.")
OUTPUT_NOTE = ("[grading note] HTML/JavaScript output was removed: it is never run for graders "
               "or in feedback.\n")
REMOVED = "[grading note] This output was removed: it is never run for graders or in feedback."
PROBE_MIME = "application/vnd.attnkit.probe+json"
KEPT_MIMETYPES = ["text/plain", "image/png", "image/jpeg", "text/latex", "text/html",
                  "text/markdown", PROBE_MIME]
ATTACHMENT_MIMETYPES = frozenset({"image/png", "image/jpeg", "image/gif"})

# ------------------------------------------------------------ re-writing markdown

_ESCAPED = re.compile(r"([\\`*_\[\]<>!&$|~])")
_LINE_START = re.compile(r"^([ \t]*)([#>+=-]|\d+[.)])", re.MULTILINE)


def literal(text: str) -> str:
    """Markdown that shows ``text`` as it is: every character markdown, HTML or maths could
    act on is backslash-escaped, and dangerous TeX commands are broken up."""
    text = DANGEROUS_TEX.sub(lambda m: "\\\u200b" + m[1], text)
    text = _ESCAPED.sub(r"\\\1", text)
    return _LINE_START.sub(lambda m: m[1] + "\\" + m[2] if m[2][0] in "#>+=-"
                           else m[1] + m[2][:-1] + "\\" + m[2][-1], text)


def fenced(text: str, info: str = "text") -> str:
    """A fenced code block showing ``text`` verbatim (pygments escapes it)."""
    fence = "`" * max(3, max(map(len, re.findall(r"`+", text)), default=0) + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}\n"


class InertMarkdown(MarkdownRenderer):
    """Markdown back to markdown, with raw HTML, script URLs, mermaid diagrams and dangerous
    TeX turned into text that shows what the student wrote."""

    def __init__(self, attachments: dict | None = None) -> None:
        super().__init__()
        self.attachments = attachments or {}

    def text(self, token: dict, state: BlockState) -> str:
        return literal(token["raw"])

    def inline_html(self, token: dict, state: BlockState) -> str:
        return literal(token["raw"])

    def block_html(self, token: dict, state: BlockState) -> str:
        return fenced(token["raw"]) + "\n"

    def block_code(self, token: dict, state: BlockState) -> str:
        info = ((token.get("attrs") or {}).get("info") or "").split() or [""]
        language = "text" if info[0].startswith("mermaid") else re.sub(r"[^\w+#.-]", "", info[0])
        return fenced(token["raw"], language) + "\n"

    def link(self, token: dict, state: BlockState) -> str:
        url = token["attrs"]["url"]
        if allows("a", "href", url):
            return super().link(token, state)
        return f"{self.render_children(token, state)} ({self.codespan({'raw': url}, state)})"

    def image(self, token: dict, state: BlockState) -> str:
        url = token["attrs"]["url"]
        if (url.removeprefix("attachment:") in self.attachments) if url.startswith(
                "attachment:") else allows("img", "src", url):
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
    """``source`` re-written so that nothing in it is active, under the grading note: markdown
    formatting and maths kept, raw HTML shown as text. If the result is still not clean (it
    always should be), the whole source is shown as code."""
    markdown = Markdown(renderer=InertMarkdown(attachments), block=MathBlockParser(),
                        inline=MathInlineParser(hard_wrap=False),
                        plugins=[import_plugin(p) for p in (
                            "strikethrough", "table", "url", "task_lists")])
    try:
        candidate = f"{NOTE}\n\n{markdown(source).strip(chr(10))}\n"  # type: ignore[union-attr]
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


def _is_count(value: Any) -> bool:
    return value is None or isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    """A width or height a template can write unquoted into an ``<img>`` tag."""
    return not isinstance(value, bool) and isinstance(value, int | float) or isinstance(
        value, str) and re.fullmatch(r"\d+(\.\d+)?(px|%)?", value) is not None


def _clean_output_metadata(metadata: dict) -> dict:
    """Only numbers as an image's width and height; no ``filenames`` (nbconvert makes it the
    ``<img>`` source in place of the image's data: a URL any student could point at)."""
    def sizes(value: Any) -> Any:
        return {k: v for k, v in value.items() if k not in ("width", "height") or _number(v)
                } if isinstance(value, dict) else value
    return {k: sizes(v) for k, v in metadata.items()
            if k != "filenames" and (k not in ("width", "height") or _number(v))}


class NeutraliseActiveContent(NbGraderPreprocessor):
    """Turn HTML and JavaScript a student put in a notebook into inert text, so that no page
    rendered from it (formgrader, feedback, any nbconvert template) runs it. Markdown and
    outputs that are not active are left exactly as they are."""

    display_data_priority = display_priority()

    kept_mimetypes = List(Unicode(), default_value=KEPT_MIMETYPES, help=(
        "Output mimetypes that may stay (HTML, markdown and LaTeX only when inert); all others "
        "(JavaScript, SVG, widgets, ...) are dropped.")).tag(config=True)
    note = Unicode(NOTE, help="Put at the top of markdown whose active content was turned "
                              "into text.").tag(config=True)
    output_note = Unicode(OUTPUT_NOTE, help="Appended (as stdout) to a cell whose outputs "
                                            "lost something.").tag(config=True)
    max_markup_chars = Integer(1_000_000, help=(
        "HTML and markdown outputs longer than this are dropped unchecked (checking parses "
        "them; LimitOutput runs later).")).tag(config=True)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.changed: list[str] = []  # what was neutralised, for the log and resources

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        self.changed = []
        title = nb.metadata.get("title")  # templates put it into <title>
        if title is not None and (not isinstance(title, str) or re.search("[<&]", title)):
            del nb.metadata["title"]
            self.changed.append("notebook title")
        if "widgets" in nb.metadata:  # templates put widget state into a <script>
            del nb.metadata["widgets"]
            self.changed.append("notebook widget state")
        for index, cell in enumerate(nb.cells):
            nb.cells[index], resources = self.preprocess_cell(cell, resources, index)
        if self.changed:
            self.log.warning("Neutralised active content (HTML/JavaScript): %s",
                             "; ".join(self.changed))
        resources.setdefault("attnkit", {})["neutralised"] = len(self.changed)
        return nb, resources

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        index: int) -> tuple[NotebookNode, dict]:
        attachments = cell.get("attachments")
        if attachments:  # only images a markdown renderer puts into an <img>
            images = {name: {m: v for m, v in bundle.items() if m in ATTACHMENT_MIMETYPES}
                      for name, bundle in attachments.items()}
            images = {name: bundle for name, bundle in images.items() if bundle}
            if images != attachments:
                cell.attachments = from_dict(images)
                self.changed.append(f"cell {index}: attachments that are not PNG/JPEG/GIF")
        if cell.cell_type == "markdown" and (
                problems := markdown_problems(cell.source, cell.get("attachments"))):
            cell.source = self._inert(cell.source, cell.get("attachments"))
            self.changed.append(f"cell {index}: {', '.join(problems[:5])}")
        elif cell.cell_type == "raw" and (problems := html_problems(cell.source)):
            # nbconvert copies raw cells (no format, or HTML) into HTML pages as they are
            self.changed.append(f"raw cell {index}: {', '.join(problems[:5])}")
            metadata = {k: v for k, v in cell.metadata.items() if k not in ("raw_mimetype",
                                                                             "format")}
            cell = from_dict({"cell_type": "markdown", "metadata": metadata,
                              "source": f"{self.note}\n\n{fenced(cell.source)}",
                              **({"id": cell.id} if "id" in cell else {})})
        elif cell.cell_type == "code":
            self._clean_code(cell, index)
        return cell, resources

    def _inert(self, source: str, attachments: dict | None) -> str:
        return inert_markdown(source, attachments).replace(NOTE, self.note, 1)

    def _clean_code(self, cell: NotebookNode, index: int) -> None:
        if not _is_count(cell.get("execution_count")):
            cell.execution_count = None
            self.changed.append(f"cell {index}: execution count")
        removed: list[str] = []
        for output in cell.get("outputs", []):
            if output.output_type in ("display_data", "execute_result", "update_display_data"):
                self._clean_display(output, removed)
            if not _is_count(output.get("execution_count")):
                output.execution_count = None
                removed.append("execution count")
        if removed:
            cell.outputs.append(from_dict({"output_type": "stream", "name": "stdout",
                                           "text": self.output_note}))
            self.changed.append(f"cell {index} outputs: {', '.join(dict.fromkeys(removed))}")

    def _clean_display(self, output: NotebookNode, removed: list[str]) -> None:
        data, metadata = output.get("data", {}), output.get("metadata", {})
        kept: dict[str, Any] = {}
        for mime, value in data.items():
            text = _text(value)
            if mime not in self.kept_mimetypes or mime in ("text/html", "text/markdown") and len(
                    text) > self.max_markup_chars:
                removed.append(mime)
            elif mime == "text/html":
                html = clean_output_html(text)
                if html is None:
                    removed.append(mime)
                else:
                    kept[mime] = value if html == text else html
            elif mime == "text/markdown" and markdown_problems(text):
                kept[mime] = self._inert(text, None)
                removed.append(mime)
            elif mime == "text/latex" and DANGEROUS_TEX.search(text):
                removed.append(mime)
            else:
                kept[mime] = value
        clean_metadata = _clean_output_metadata(metadata)
        if clean_metadata != metadata:
            removed.append("output metadata")
        if kept != data or clean_metadata != metadata:
            output.data = from_dict(kept or {"text/plain": REMOVED})
            output.metadata = from_dict(clean_metadata if kept else {})

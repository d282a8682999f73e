"""Maths typeset on the server, as MathML, so that pages read correctly offline.

nbconvert's pages leave TeX in the HTML for MathJax, which they load from a CDN: with no
network a student sees raw ``$\\mathbf{x}_n$``. Here the TeX of markdown maths becomes
MathML when the page is written (``latex2mathml``), which browsers draw themselves (MathML
Core: Chromium 109+, Firefox, Safari); the page needs no script and no download.

``latex2mathml`` writes its markup as a string without escaping the text it copies from TeX
(``\\text{<img onerror=...>}`` comes out as a live ``<img>``) and copies ``\\href``,
``\\style`` and ``\\class`` into attributes. So only its element tree is used: every element
and attribute is checked against an allowlist and the tree is serialised here, with all text
and attribute values escaped. TeX that does not convert, or converts to anything outside the
allowlist, is shown as escaped source in ``<code>``.
"""

from __future__ import annotations

import functools
import html
import logging
import re
import unicodedata
from typing import Any
from xml.etree.ElementTree import Element

from jinja2 import pass_context
from latex2mathml.converter import convert_to_element
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

log = logging.getLogger(__name__)

# MathML Core's elements (plus menclose, which latex2mathml writes for \fbox and \cancel);
# no maction, no semantics from the source: the kit adds its own annotation.
ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup",
    "munder", "mover", "munderover", "mfrac", "msqrt", "mroot", "mstyle", "mpadded", "mphantom",
    "menclose", "mtable", "mtr", "mtd", "mmultiscripts", "mprescripts", "none", "merror",
})
# Presentation attributes only: no href (Firefox follows it), style, class, id or events.
ATTRIBUTES = frozenset({
    "display", "displaystyle", "scriptlevel", "mathvariant", "mathsize", "mathcolor",
    "mathbackground", "stretchy", "fence", "form", "separator", "lspace", "rspace", "minsize",
    "maxsize", "symmetric", "largeop", "movablelimits", "accent", "accentunder", "width",
    "height", "depth", "voffset", "linethickness", "notation", "columnalign", "rowalign",
    "columnlines", "rowlines", "columnspacing", "rowspacing", "frame", "framespacing",
    "rowspan", "columnspan", "align", "equalrows", "equalcolumns", "side", "minlabelspacing",
    "linebreak",
})
# Attribute values are keywords, lengths, numbers and colours.
VALUE = re.compile(r"[\w#.%+\- ]{0,64}")
# Where a display equation may break: before these (as TeX breaks display maths).
RELATIONS = frozenset("=≠≈≃≅≡≤≥<>≪≫∈∉⊂⊆⊃⊇∝→←↦⇒⇔∼")
BINARY = frozenset("+-−±∓·⋅×∗∘⊕⊗")
# a backslash and a line end (or tab) is TeX's control space; latex2mathml shows a "\"
CONTROL_SPACE = re.compile(r"(?<!\\)((?:\\\\)*)\\[\n\t]")
# a line break's extra space, ``\\[2mm]``: latex2mathml shows "[2mm]" as text
ROW_SPACE = re.compile(r"(?<!\\)((?:\\\\)*\\\\)\s*\[[^\]]{0,16}\]")
# Maths in a text/latex output, as MathJax finds it there.
_LATEX_MATHS = re.compile(
    r"\$\$(?P<display>.+?)\$\$|\\\[(?P<bracket>.+?)\\\]|\\begin\{(?P<env>[A-Za-z]+\*?)\}.+?"
    r"\\end\{(?P=env)\}|\$(?P<inline>[^$]+?)\$|\\\((?P<paren>.+?)\\\)", re.DOTALL)
# latex2mathml writes characters as references inside its text ("&#x1D431;").
REFERENCE = re.compile(r"&#x([0-9A-Fa-f]{1,6});")


# mathvariant as the Unicode alphabets name it: MathML Core draws only mathvariant="normal",
# so \boldsymbol\beta must be the character MATHEMATICAL BOLD ITALIC SMALL BETA itself.
ALPHABETS = {"bold": "BOLD", "italic": "ITALIC", "bold-italic": "BOLD ITALIC",
             "double-struck": "DOUBLE-STRUCK", "script": "SCRIPT", "bold-script": "BOLD SCRIPT",
             "fraktur": "FRAKTUR", "bold-fraktur": "BOLD FRAKTUR", "sans-serif": "SANS-SERIF",
             "bold-sans-serif": "SANS-SERIF BOLD", "sans-serif-italic": "SANS-SERIF ITALIC",
             "sans-serif-bold-italic": "SANS-SERIF BOLD ITALIC", "monospace": "MONOSPACE"}
# TeX sets capital Greek upright, \boldsymbol too
UPRIGHT = {"italic": "normal", "bold-italic": "bold"}
_LETTER = re.compile(r"(LATIN|GREEK) (CAPITAL|SMALL) LETTER (.+)|DIGIT (.+)")


class UnsafeMathML(ValueError):
    """The converted tree has an element or attribute outside the allowlist."""


def _character(match: re.Match[str]) -> str:
    code = int(match[1], 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else match[0]


def _text(text: str | None) -> str:
    return html.escape(REFERENCE.sub(_character, text or ""), quote=False)


def _styled(text: str, variant: str) -> str | None:
    """``text`` in the mathematical alphabet ``variant``; None if a character has none."""
    styled = []
    for character in text:
        letter = _LETTER.fullmatch(unicodedata.name(character, ""))
        if letter is None:
            return None
        alphabet = variant
        if letter[1] == "GREEK" and letter[2] == "CAPITAL":
            alphabet = UPRIGHT.get(variant, variant)
        if alphabet == "normal":
            styled.append(character)
            continue
        name = (f"{letter[2]} {letter[3]}" if letter[4] is None else f"DIGIT {letter[4]}")
        try:
            styled.append(unicodedata.lookup(f"MATHEMATICAL {ALPHABETS[alphabet]} {name}"))
        except KeyError:
            return None
    return "".join(styled)


def _restyle(element: Element) -> None:
    """Letters with a mathvariant become that alphabet's characters; a lone capital Greek
    letter stays upright as in TeX (MathML would slant it)."""
    text = REFERENCE.sub(_character, element.text or "")
    variant = element.get("mathvariant")
    if variant in ALPHABETS and len(element) == 0 and (styled := _styled(text, variant)):
        element.text = styled
        del element.attrib["mathvariant"]
    elif (element.tag == "mi" and variant is None and len(text) == 1
          and unicodedata.name(text, "").startswith("GREEK CAPITAL LETTER")):
        element.set("mathvariant", "normal")


def _serialise(element: Element, out: list[str]) -> None:
    """``element`` as HTML, refusing anything outside the allowlist."""
    if element.tag not in ELEMENTS:
        raise UnsafeMathML(f"element {element.tag!r}")
    _restyle(element)
    attributes = []
    for name, value in element.attrib.items():
        if name == "xmlns":
            continue  # HTML puts <math> in the MathML namespace itself
        if name not in ATTRIBUTES or not VALUE.fullmatch(value):
            raise UnsafeMathML(f"attribute {name}={value[:40]!r}")
        attributes.append(f' {name}="{html.escape(value, quote=True)}"')
    out.append(f"<{element.tag}{''.join(attributes)}>{_text(element.text)}")
    for child in element:
        _serialise(child, out)
        out.append(_text(child.tail))
    out.append(f"</{element.tag}>")


def _chunks(row: Element) -> list[list[Element]]:
    """The top level of a display equation cut where a line may break, as TeX breaks long
    maths: between equations (after ``,\\qquad``) and, once an equation has its relation
    (the left-hand side stays with it), before a further relation or a binary operator and
    after a comma. MathML Core never breaks a line itself, and an equation wider than a phone
    would otherwise overflow the page."""
    chunks: list[list[Element]] = [[]]
    related = False
    previous: Element | None = None
    for child in row:
        text = REFERENCE.sub(_character, child.text or "").strip() if child.tag == "mo" else ""
        binary = text in BINARY and previous is not None and previous.tag != "mo"
        if related and chunks[-1] and (text in RELATIONS or binary):
            chunks.append([])
            child.set("form", "infix")  # spaced as between operands, not as a sign
        related = related or text in RELATIONS
        width = child.get("width", "")
        if child.tag == "mspace" and width.endswith("em") and _number(width[:-2]) >= 1:
            # the space ends the equation before it (a comma may have just cut it)
            (chunks[-2] if not chunks[-1] and len(chunks) > 1 else chunks[-1]).append(child)
            chunks.append([])
            related = False
        else:
            chunks[-1].append(child)
            if related and text == ",":
                chunks.append([])
        previous = child
    return [chunk for chunk in chunks if chunk]


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """TeX (without ``$`` delimiters) as inert MathML, the source kept as an annotation;
    escaped source in ``<code>`` when it does not convert. A display equation with places to
    break becomes a row of equations that wraps like words on a narrow screen."""
    try:
        drawn = ROW_SPACE.sub(r"\1", CONTROL_SPACE.sub(r"\1\\ ", tex))
        tree = convert_to_element(drawn,
                                  display="block" if display else "inline")
        chunks = _chunks(tree[0]) if display and len(tree) == 1 else [list(tree)]
        parts = []
        for chunk in chunks:
            body: list[str] = []
            for child in chunk:
                _serialise(child, body)
            parts.append("".join(body))
    except Exception as error:  # noqa: BLE001 - any failure shows the TeX as text
        log.warning("maths shown as TeX (%s: %s): %.80s", type(error).__name__, error, tex)
        delimiter = "$$" if display else "$"
        code = f'<code class="tex">{html.escape(delimiter + tex + delimiter)}</code>'
        return f'<span class="math-display">{code}</span>' if display else code
    mode = "block" if display else "inline"
    if len(parts) == 1:
        math = (f'<math display="{mode}"><semantics><mrow>{parts[0]}</mrow>'
                f'<annotation encoding="application/x-tex">{html.escape(tex, quote=False)}'
                "</annotation></semantics></math>")
        return f'<span class="math-display">{math}</span>' if display else math
    rows = "".join(f'<math display="block"><mrow>{part}</mrow></math>' for part in parts)
    return f'<span class="math-display">{rows}</span>'


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer with maths as MathML instead of TeX for MathJax, and
    headings moved down ``heading_offset`` levels (a page that has its own ``<h1>``)."""

    def __init__(self, heading_offset: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.heading_offset = heading_offset

    def heading(self, text: str, level: int, **attrs: Any) -> str:
        return super().heading(text, min(level + self.heading_offset, 6), **attrs)

    def block_math(self, body: str) -> str:
        return tex_to_mathml(body, display=True)

    def inline_math(self, body: str) -> str:
        return tex_to_mathml(body)

    def latex_environment(self, name: str, body: str) -> str:
        return tex_to_mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)


def render(source: str, escape: bool = False, heading_offset: int = 0, anchors: bool = True,
           attachments: dict | None = None) -> str:
    """Markdown as nbconvert renders it, maths as MathML. ``escape=False`` keeps raw HTML and
    any link, as nbconvert does: only for markdown ``NeutraliseActiveContent`` has made
    inert; ``escape=True`` also refuses script URLs."""
    if attachments:
        return _render(source, escape, heading_offset, anchors, attachments)
    return _remembered(source, escape, heading_offset, anchors)


@functools.lru_cache(maxsize=4096)
def _remembered(source: str, escape: bool, heading_offset: int, anchors: bool) -> str:
    """``render`` of a cell without attachments, kept for the life of the process: every
    student's page repeats the release's markdown (about a tenth of a feedback page's CPU)."""
    return _render(source, escape, heading_offset, anchors, None)


def _render(source: str, escape: bool, heading_offset: int, anchors: bool,
            attachments: dict | None) -> str:
    renderer = MathMLRenderer(heading_offset=heading_offset, escape=escape,
                              allow_harmful_protocols=not escape,
                              exclude_anchor_links=not anchors, attachments=attachments or {})
    return MarkdownWithMath(renderer=renderer).render(source)


@pass_context
def markdown2html(context: Any, source: str) -> str:
    """The ``markdown2html`` template filter (``c.HTMLExporter.filters``): nbconvert's, with
    MathML. Pages that set ``resources.heading_offset`` get their headings moved down."""
    cell = context.get("cell") or {}
    resources = context.get("resources") or {}
    return render(source, attachments=cell.get("attachments") or {},
                  heading_offset=int(resources.get("heading_offset", 0)))


def latex2html(source: str) -> str:
    """A ``text/latex`` output (``$$...$$``, ``\\[...\\]``, ``\\begin{...}``, text around):
    maths as MathML, everything else escaped text. Not markdown: outputs are not vetted as
    markdown cells are, and a link or image in one must stay text."""
    out, at = [], 0
    for match in _LATEX_MATHS.finditer(source):
        out.append(html.escape(source[at:match.start()], quote=False))
        inline = match["inline"] or match["paren"]
        tex = inline or match["display"] or match["bracket"] or match[0]
        out.append(tex_to_mathml(tex, display=inline is None))
        at = match.end()
    out.append(html.escape(source[at:], quote=False))
    return "".join(out)


def heading_html(text: str) -> str:
    """A heading's text for the summary: code spans, emphasis and maths kept, every other
    character escaped (it may come from a cell the student added)."""
    rendered = render(f"# {text}", escape=True, anchors=False).strip()
    return re.sub(r"^<h1[^>]*>|</h1>$", "", rendered)


FILTERS = {"markdown2html": markdown2html, "latex2html": latex2html}

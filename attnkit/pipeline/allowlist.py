"""What student HTML may put into a grader's or student's page: nh3's allowlist, and checks.

nh3 (ammonia, on html5ever) is the sanitiser. The kit does not show nh3's cleaned copy of an
answer (that would silently drop what the student wrote): HTML is safe as it is when nh3
would change nothing in it, compared as html5lib parses both (the HTML standard's algorithm,
which browsers follow). ``sanitize`` decides what to do with the rest.
"""

from __future__ import annotations

import re
import secrets
from collections import Counter

import nh3
import tinycss2
from bleach import html5lib_shim
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h1",
    "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "li", "mark", "ol",
    "p", "pre", "s", "samp", "small", "span", "strong", "sub", "sup", "u", "ul", "var", "table",
    "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col",
}
_CELL = {"colspan", "rowspan", "valign", "halign"}
ATTRIBUTES = {
    "*": {"class", "title", "style", "align", "dir", "lang"},
    "a": {"href"}, "img": {"src", "alt", "width", "height"}, "ol": {"start", "type"},
    "input": {"disabled", "checked"},  # mistune's task lists (type: checkbox only, below)
    "table": {"border", "cellpadding", "cellspacing"}, "td": _CELL, "th": _CELL | {"scope"},
    "col": {"span", "width"}, "colgroup": {"span", "width"},
    **{f"h{n}": {"id"} for n in range(1, 7)},  # nbconvert's heading anchors
}
# CSS a style attribute may set: layout of text and tables, nothing that moves, covers or loads
CSS_PROPERTIES = {
    "text-align", "vertical-align", "color", "background-color", "font-weight", "font-style",
    "font-size", "font-family", "text-decoration", "white-space", "width", "min-width",
    "max-width", "height", "border-collapse", "text-indent", "line-height", "list-style-type",
    *(f"{box}{side}" for box in ("border", "padding")
      for side in ("", "-top", "-bottom", "-left", "-right")),
    "border-color", "border-style", "border-width",
}
# TeX commands MathJax turns into links, CSS, ids or extension loads (nbgrader's MathJax URL
# loads the Safe extension, which filters most; a configured mathjax_url may not).
DANGEROUS_TEX = re.compile(r"\\(href|url|class|cssId|style|require|unicode|html)(?![A-Za-z])")
_IMAGE_DATA = re.compile(r"data:image/(png|jpeg|gif)[;,]", re.IGNORECASE)
_CSS_FUNCTION = re.compile(r"\\|([\w-]*)\s*\(")  # escapes count too: they can spell url(


def _kit_attribute(tag: str, name: str, value: str) -> str | None:
    """What nh3's options cannot say: images only embedded PNG/JPEG/GIF or relative paths
    (nothing fetched from elsewhere in the TA's session), data: URLs only there, no CSS
    function but colours, no class mermaid.js would draw."""
    url = re.sub(r"[\t\n\r]", "", value).strip("".join(map(chr, range(33))))
    if name == "src" and not (_IMAGE_DATA.match(url) if re.match(r"[A-Za-z][\w+.-]*:", url)
                              else not re.match(r"[/\\]{2}", url)):
        return None
    if name == "href" and url.lower().startswith("data:"):
        return None
    if name == "style" and any((m[1] or "").lower() not in ("rgb", "rgba", "hsl", "hsla")
                               for m in _CSS_FUNCTION.finditer(value)):
        return None
    return None if name == "class" and "mermaid" in value.lower() else value


CLEANER = nh3.Cleaner(
    tags=ALLOWED_TAGS, attributes=ATTRIBUTES, attribute_filter=_kit_attribute, link_rel=None,
    tag_attribute_values={"input": {"type": {"checkbox"}}},
    set_tag_attribute_values={"input": {"disabled": ""}},
    url_schemes={"http", "https", "mailto", "data"}, filter_style_properties=CSS_PROPERTIES)


def allows(tag: str, attribute: str, url: str) -> bool:
    """Whether the allowlist keeps ``url`` as ``<tag attribute>`` (entities decoded, as
    browsers decode them)."""
    quoted = url.replace('"', "&quot;")
    return f" {attribute}=" in CLEANER.clean(f'<{tag} {attribute}="{quoted}">')


def _css(style: str) -> str:
    """A style attribute's declarations, spelt one way: nh3 re-spaces and re-quotes them."""
    return "; ".join(
        f"{n.lower_name}: {' '.join(t.serialize() for t in n.value if t.type != 'whitespace')}"
        f"{' !important' * n.important}" if n.type == "declaration" else n.type
        for n in tinycss2.parse_blocks_contents(style, skip_whitespace=True, skip_comments=True))


def _tree(html: str, style_elements: bool = False) -> tuple[list[str], str]:
    """``html`` as browsers parse it in a ``<div>`` (html5lib): its elements, attributes,
    comments and text as strings, and the text MathJax typesets (not in code).
    ``style_elements``: leave out ``<style>`` elements."""
    fragment = html5lib_shim.HTMLParser(namespaceHTMLElements=False).parseFragment(html)
    tokens: list[str] = []
    tex, code, in_style = [], 0, False
    for token in html5lib_shim.getTreeWalker("etree")(fragment):
        kind, name, namespace = token["type"], token.get("name", ""), token.get("namespace")
        html_element = namespace in (None, "http://www.w3.org/1999/xhtml")
        if style_elements and name == "style" and html_element:
            in_style = kind == "StartTag"
        elif in_style:
            continue
        elif kind in ("StartTag", "EmptyTag"):
            code += name in ("code", "pre")
            tokens.append(f"<{name}>" if html_element else f"<{name}> ({namespace})")
            tokens += [f"<{name} {attr}={_css(value) if attr == 'style' else value!r}>"
                       for (_, attr), value in sorted(token["data"].items(), key=str)]
        elif kind == "EndTag":
            code -= name in ("code", "pre") and code > 0
            tokens.append(f"</{name}>")
        elif kind in ("Characters", "SpaceCharacters"):  # one string per run of text
            if tokens and tokens[-1].startswith("\0"):
                tokens[-1] += token["data"]
            else:
                tokens.append("\0" + token["data"])
            tex += [] if code else [token["data"]]
        else:
            tokens.append(f"HTML {kind.lower()}")
    return tokens, "".join(tex)


def html_problems(html: str, style_elements: bool = False) -> list[str]:
    """What in ``html`` nh3 would change, and TeX MathJax would act on, as short descriptions
    (empty: safe as it is). ``style_elements``: let ``<style>`` elements through."""
    if not re.search(r"[<&\\]", html):
        return []
    end = f" {secrets.token_hex(8)}"  # text after html, unless html ends inside a tag
    original, tex = _tree(html + end, style_elements)
    cleaned, _ = _tree(CLEANER.clean(html + end))
    found = [f"TeX \\{m[1]}" for m in DANGEROUS_TEX.finditer(tex)]
    if not any(t.startswith("\0") and end in t for t in original):
        found.append("a tag left open at the end")  # the page's own markup would go into it
    if original != cleaned:
        extra = Counter(original) - Counter(cleaned)
        found += [t[:60] for t in extra if not t.startswith("\0")] or ["HTML nh3 changes"]
    return list(dict.fromkeys(found))


def clean_output_html(html: str) -> str | None:
    """``html`` if it is safe, nh3's copy if only its ``<style>`` elements are not (pandas'
    table CSS would restyle the TA's page), else None (drop it)."""
    if html_problems(html, style_elements=True):
        return None
    return CLEANER.clean(html) if "<style" in html.lower() else html


def render_markdown(source: str, attachments: dict | None = None) -> str:
    """``source`` as nbconvert's HTMLExporter.markdown2html renders it in every template."""
    renderer = IPythonRenderer(escape=False, attachments=attachments or {})
    return MarkdownWithMath(renderer=renderer).render(source)


# Markdown makes HTML only from raw HTML or autolinks (<), entities (&), links and images
# (](, ]:), code fences (mermaid) or TeX: markdown with none of these is inert as it is.
_MAYBE_ACTIVE = re.compile(r"<|&|\]\(|\]:|```|~~~")


def markdown_problems(source: str, attachments: dict | None = None,
                      quick: bool = True) -> list[str]:
    """Everything active in markdown as nbconvert renders it (empty: safe as it is).
    ``quick``: skip rendering markdown that cannot be active (``_MAYBE_ACTIVE``)."""
    if quick and not _MAYBE_ACTIVE.search(source) and not DANGEROUS_TEX.search(source):
        return []
    try:
        return html_problems(render_markdown(source, attachments))
    except Exception as error:  # e.g. a missing attachment: the page would not render
        return [f"unrenderable markdown ({type(error).__name__})"]

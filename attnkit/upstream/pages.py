"""Hook ``one_parse``: an HTML page written by its template alone, without nbconvert's second
pass over it (see ``HOOKS``), with code highlighted once per process (``RememberedHighlight``,
nbconvert's public filter)."""

from __future__ import annotations

import copy
import functools
import json
import re

from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbformat import NotebookNode

from attnkit import upstream

# an <img> start tag as HTML tokenizes it, with each attribute's name
_IMG_TAG = re.compile(r"""<img((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)"""
                      r"""\s*/?>""", re.IGNORECASE)
_ATTRIBUTE_NAME = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?""")
_LAB_CELLS = ("jp-Cell-inputWrapper", "jp-OutputArea-output")  # what the pass gives tab stops


def needs_pass(page: str) -> bool:
    """Whether nbconvert's pass would change ``page``: an ``<img>`` without ``alt`` (or one
    this cannot read), or a JupyterLab-template cell."""
    if any(name in page for name in _LAB_CELLS):
        return True
    tags = _IMG_TAG.findall(page)
    if len(tags) != len(re.findall(r"<img", page, re.IGNORECASE)):
        return True
    return any("alt" not in {n.lower() for n in _ATTRIBUTE_NAME.findall(attributes)}
               for attributes in tags)


class RememberedHighlight(Highlight2HTML):
    """nbconvert's code highlighter, keeping what it wrote for the life of the process: every
    student's page repeats the release's code and test cells, and Pygments' lexer was about a
    sixth of a feedback page's CPU. Its output depends on the source, the language, the cell's
    ``magics_language`` and the formatter's options only."""

    def __call__(self, source: str, language: str | None = None,
                 metadata: dict | None = None) -> str:
        magics = (metadata or {}).get("magics_language")
        return _highlighted(source, language or self.pygments_lexer, magics,
                            json.dumps(self.extra_formatter_options, sort_keys=True))


@functools.lru_cache(maxsize=4096)
def _highlighted(source: str, language: str, magics: str | None, options: str) -> str:
    highlight = Highlight2HTML(pygments_lexer=language, extra_formatter_options=json.loads(options))
    return highlight(source, language, {"magics_language": magics} if magics else None)


class OneParseHTMLExporter(HTMLExporter):
    """nbconvert's HTMLExporter without the BeautifulSoup pass at the end of
    ``from_notebook_node``, which parses and writes out the whole page (half a feedback
    page's time) to add alternative text to images that lack it and a tab stop to
    JupyterLab-template cells. A page that needs either still gets the pass (rendered again
    by the stock method), so pages are the stock exporter's whatever the template;
    ``tests/test_upstream.py`` checks that they are."""

    def from_notebook_node(self, nb: NotebookNode, resources: dict | None = None,
                           **kw) -> tuple[str, dict]:
        if not upstream.applies("one_parse"):
            return super().from_notebook_node(nb, resources, **kw)
        given = copy.deepcopy(resources)
        # what HTMLExporter.from_notebook_node does before rendering
        langinfo = nb.metadata.get("language_info", {})
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        self.register_filter("highlight_code", self.filters.get(
            "highlight_code", RememberedHighlight(pygments_lexer=lexer, parent=self)))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(
            notebook_metadata=self._nb_metadata, parent=self, resources=resources))
        page, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        if needs_pass(page):
            return super().from_notebook_node(nb, given, **kw)
        return page, resources

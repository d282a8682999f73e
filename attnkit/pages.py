"""One Jinja2 environment for the instructor's pages (the report, similarity, the review's
sections): autoescaped, CSS inlined from its own files. Below report and review, so that
both render with it and neither imports the other."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates" / "review"
REPORT = TEMPLATES.parent / "report"  # the instructor report's page


@cache
def environment() -> jinja2.Environment:
    """Autoescape is on for every template: student code and names are hostile text."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader([TEMPLATES, REPORT]), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True)


def render(template: str, **context: object) -> str:
    return environment().get_template(template).render(**context)

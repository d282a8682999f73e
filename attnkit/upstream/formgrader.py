"""Hook ``escaped_formgrader``: formgrader's pages rendered with autoescape (a server extension).

nbgrader's formgrader renders its pages from a Jinja environment without autoescape and puts
ids from the URL and the gradebook into JavaScript strings (``var student_id = "{{ student_id
}}";``), so a student id like ``x";alert(1);"`` is script in the grader's session, whose origin
drives the Jupyter server's API. This extension swaps that environment (the tornado setting
nbgrader's handlers render with) for one with autoescape on whose loader finds the kit's
``templates/formgrader_pages`` first: they extend nbgrader's own (as ``nbgrader/<name>``) and
put the ids into scripts with ``tojson`` and into links with ``urlencode``. None of
formgrader's page variables carries HTML of its own; the submission view is nbconvert's
(``attnkit_formgrade``), which escapes its values itself.

Enabled by ``jupyter_server_config.d/attnkit.json``: installed with the package (its data
files) and in deploy/jupyterhub/jupyter for the hub; by hand with ``jupyter server extension
enable attnkit.upstream.formgrader``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader

from attnkit.upstream import applies, enabled

NAME = "escaped_formgrader"
TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "formgrader_pages"
SETTING = "nbgrader_jinja2_env"  # formgrader's environment, in the tornado settings


def escaped(env: Environment) -> Environment:
    """``env`` with autoescape on, the kit's templates found before nbgrader's."""
    loader = ChoiceLoader([FileSystemLoader(TEMPLATES), env.loader,
                           PrefixLoader({"nbgrader": env.loader})])
    return env.overlay(autoescape=True, loader=loader)


def escape_formgrader(settings: dict[str, Any], log: logging.Logger) -> bool:
    """Swap formgrader's environment in ``settings`` for an escaping one; whether it did.
    Steps aside where formgrader is not loaded, or is a version the kit's templates do not
    know (one warning), or under ``ATTNKIT_HOOKS`` without this hook."""
    env = settings.get(SETTING)
    if env is None or env.autoescape is True:
        return False
    if not enabled(NAME):
        log.info("attnkit: formgrader's pages left unescaped (ATTNKIT_HOOKS)")
        return False
    if not applies(NAME):
        log.warning("attnkit: formgrader's pages left unescaped: the kit's templates do not "
                    "know this nbgrader release")
        return False
    settings[SETTING] = escaped(env)
    log.info("attnkit: formgrader's pages are rendered with autoescape")
    return True


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": __name__}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Extensions load in the order of their names, so formgrader's usually comes later:
    the swap is done here only if it came first, else when the server starts."""
    escape_formgrader(serverapp.web_app.settings, serverapp.log)


async def _start_jupyter_server_extension(serverapp: Any) -> None:
    """Every extension has loaded; the IO loop runs this before it serves a request."""
    escape_formgrader(serverapp.web_app.settings, serverapp.log)

"""Canaries for ``attnkit.upstream``: every private reliance of every hook, checked in seconds
and without kernels, so an upgrade that changes one fails here and names the hook."""

from __future__ import annotations

import inspect
import json
import os
import re
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import nbformat
import pytest
from helpers.course import BIN, ROOT

from attnkit import upstream

CANARIES: dict[str, Callable[..., None]] = {}


def canary(hook: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a test as the canary of ``hook`` (every hook must have one)."""
    def register(test: Callable[..., None]) -> Callable[..., None]:
        CANARIES.setdefault(hook, test)
        return test
    return register


def params(function: Callable) -> list[str]:
    return list(inspect.signature(function).parameters)


def source(function: Callable) -> str:
    return inspect.getsource(function)


@canary("one_engine")
def test_gradebook_opens_and_closes_as_shared_engine_assumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nbgrader.api import Gradebook

    from attnkit.upstream.gradebook import shared_engine

    assert params(Gradebook.__init__) == ["self", "db_url", "course_id", "authenticator"]
    assert "self.db.remove()" in source(Gradebook.close)
    assert "self.engine.dispose()" in source(Gradebook.close)
    monkeypatch.setenv("PATH", f"{BIN}:{os.environ['PATH']}")  # nbgrader runs alembic
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url, "course") as gb:
        assert {"engine", "db", "course_id", "authenticator"} <= set(vars(gb))
        assert callable(gb.check_course)
    with shared_engine() as engines, Gradebook(url, "course") as a, Gradebook(url, "course") as b:
        assert a.engine is b.engine is engines[url]
        assert a.db is not b.db


@canary("prompt_client")
def test_kernel_client_waits_for_ready_in_one_overridable_method() -> None:
    from jupyter_client.asynchronous import AsyncKernelClient

    from attnkit.upstream.execution import PromptClient

    assert params(AsyncKernelClient.wait_for_ready) == ["self", "timeout"]
    assert inspect.iscoroutinefunction(AsyncKernelClient._async_is_alive)
    assert params(AsyncKernelClient._handle_kernel_info_reply) == ["self", "msg"]
    assert issubclass(PromptClient, AsyncKernelClient)


@canary("kernel_retry")
def test_execute_starts_kernels_through_the_methods_kernel_start_wraps() -> None:
    from nbclient import NotebookClient
    from nbgrader.preprocessors import Execute

    assert issubclass(Execute, NotebookClient)
    for name in ("start_new_kernel", "start_new_kernel_client", "_cleanup_kernel",
                 "create_kernel_manager"):
        assert callable(getattr(Execute, name, None)), name
    assert "self.km" in source(NotebookClient.__init__)
    assert "kernel_manager_class" in Execute.class_traits()


@canary("warm_kernels")
def test_local_provisioner_drives_its_process_as_the_warm_handle_assumes() -> None:
    from jupyter_client.provisioning import LocalProvisioner

    from attnkit.sandbox import ForkedKernel

    launch = source(LocalProvisioner.launch_kernel)
    assert all(f"self.{name} =" in launch for name in ("process", "pid", "pgid")), launch
    for name in ("poll", "wait", "kill", "terminate", "send_signal"):
        assert "self.process" in source(getattr(LocalProvisioner, name)), name
        assert callable(getattr(ForkedKernel, name, None)) or name == "terminate"
    assert params(LocalProvisioner.kill) == ["self", "restart"]
    assert params(LocalProvisioner.cleanup) == ["self", "restart"]


@canary("worker_server")
def test_dask_forks_workers_from_the_forkserver_with_its_own_preload_first() -> None:
    from multiprocessing import forkserver

    import dask
    import distributed  # noqa: F401 - loads Dask's distributed config
    from distributed.utils import get_mp_context

    assert callable(forkserver.set_forkserver_preload)
    assert "set_forkserver_preload" in source(get_mp_context)
    assert dask.config.get("distributed.worker.multiprocessing-method") in (
        "spawn", "forkserver", "fork")


@canary("one_parse")
def test_html_pages_need_no_second_parse_once_every_image_has_alt_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bs4 import BeautifulSoup
    from nbconvert.exporters import HTMLExporter

    from attnkit.upstream.pages import OneParseHTMLExporter, needs_pass

    stock = source(HTMLExporter.from_notebook_node)
    for step in ("Highlight2HTML(", "_init_resources(", "WidgetsDataTypeFilter(",
                 'register_filter("highlight_code"', 'register_filter("filter_data_type"',
                 "super().from_notebook_node(", 'soup.select("img:not([alt])")',
                 "div.jp-Cell-inputWrapper", "div.jp-OutputArea-output",
                 "return str(soup), resources"):
        assert step in stock, step
    assert stock.count("soup.select(") == 3, "nbconvert's pass now does more"
    png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJ"
           "RU5ErkJggg==")
    image = nbformat.v4.new_output("display_data", {"image/png": png, "text/plain": "fig"})
    described = nbformat.v4.new_output("display_data", {"image/png": png},
                                       metadata={"image/png": {"alt": "a dot"}})
    html = nbformat.v4.new_output("display_data", {"text/html": '<img title=" alt=x" src="y">'})

    def notebook(*outputs: dict) -> nbformat.NotebookNode:
        cell = nbformat.v4.new_code_cell("plot()", outputs=list(outputs))
        return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A"), cell])

    cases = [("classic", notebook(described), False), ("classic", notebook(image), True),
             ("classic", notebook(described, html), True), ("lab", notebook(described), True)]
    for template, nb, again in cases:
        pages = {}
        for exporter_class in (HTMLExporter, OneParseHTMLExporter):
            pages[exporter_class], _ = exporter_class(template_name=template).from_notebook_node(
                nb)
        ours = pages[OneParseHTMLExporter]
        assert BeautifulSoup(ours, "html.parser") == BeautifulSoup(pages[HTMLExporter],
                                                                   "html.parser"), template
        assert (ours == pages[HTMLExporter]) is again, (template, again)  # the pass ran
    assert not needs_pass('<p><img src="a" alt="b"><IMG alt=\'c\' src=d/></p>')
    assert not needs_pass('<img title="x>y alt=" alt>')
    assert needs_pass('<img src="a">') and needs_pass('<img title="alt=x">')
    assert needs_pass('<img/src="a">')  # read by browsers, not by needs_pass: the pass runs


def block_of(template: str, name: str) -> str:
    match = re.search(r"\{%- block " + name + r" -%\}(.*?)\{%- endblock", template, re.S)
    assert match, f"no block {name!r}"
    return match.group(1)


@canary("escaped_formgrader")
def test_formgrader_renders_with_the_env_the_kit_swaps_and_the_blocks_it_restates() -> None:
    import nbgrader
    from jinja2 import Environment, FileSystemLoader
    from nbgrader.server_extensions.formgrader import base, formgrader, handlers

    from attnkit.upstream.formgrader import SETTING, TEMPLATES, escaped

    assert upstream.applies("escaped_formgrader"), nbgrader.__version__
    assert f"self.settings['{SETTING}']" in source(base.BaseHandler.render)
    assert f"{SETTING}=jinja_env" in source(formgrader.FormgradeExtension.init_tornado_settings)
    theirs = Path(handlers.template_path)
    ours = sorted(TEMPLATES.glob("*.tpl"))
    assert len(ours) == 6
    for template in ours:  # each block ours overrides is nbgrader's, ids quoted for context
        text, stock = template.read_text(), (theirs / template.name).read_text()
        for name in re.findall(r"\{%- block (\w+) -%\}", text):
            restated = re.sub(r'"\{\{ (\w+) \}\}"', r"{{ \1 | tojson }}", block_of(stock, name))
            restated = re.sub(r'/\{\{ (student_id|assignment_id) \}\}"',
                              r'/{{ \1 | urlencode }}"', restated)
            assert block_of(text, name) == restated, (template.name, name)
    hostile = 'x"</script><script>alert(1)</script>\\\n\u2028&'
    env = escaped(Environment(loader=FileSystemLoader([handlers.template_path])))
    for page in sorted(theirs.glob("*.tpl")):
        if page.name == "formgrade_404.tpl":  # imports a template nbgrader does not ship
            continue
        html = env.get_template(page.name).render(
            base_url="/b", student_id=hostile, assignment_id=hostile, notebook_id=hostile,
            course_dir=hostile, url_prefix=".", default_timezone="+0000", error_code=500,
            current_config=hostile, exchange=hostile, course_id="c")
        assert "<script>alert" not in html and 'x"' not in html, page.name
        for name, value in re.findall(r"^var (\w+) = (.*);$", html, re.M):
            assert json.loads(value) in ("/b", hostile, ".", "+0000"), (page.name, name)


def test_every_hook_has_a_canary() -> None:
    assert set(CANARIES) == set(upstream.HOOKS)


def test_every_hook_was_checked_on_the_locked_releases() -> None:
    """``make env`` installs releases every hook knows; a newer lock must re-check them."""
    pins = {name.lower(): pinned for name, pinned in (
        line.strip().split("==") for line in (ROOT / "requirements.txt").open() if "==" in line)}
    for name, hook in upstream.HOOKS.items():
        assert hook.checked_on, f"{name} names no release it was checked on"
        for distribution, series in hook.checked_on:
            assert f"{pins[distribution.lower()]}.".startswith(f"{series}."), (name, distribution)


def test_a_hook_steps_aside_on_a_release_it_does_not_know(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from nbconvert.exporters import HTMLExporter

    from attnkit.upstream.pages import OneParseHTMLExporter

    monkeypatch.delenv(upstream.SWITCH, raising=False)
    monkeypatch.setattr(upstream, "version",
                        lambda name: "7.18.0" if name == "nbconvert" else version(name))
    stock = []
    monkeypatch.setattr(HTMLExporter, "from_notebook_node",
                        lambda self, nb, resources=None, **kw: stock.append(1) or ("", {}))
    upstream._unknown_release.cache_clear()
    try:
        with caplog.at_level("WARNING", logger=upstream.__name__):
            nb = nbformat.v4.new_notebook()
            OneParseHTMLExporter().from_notebook_node(nb)
            OneParseHTMLExporter().from_notebook_node(nb)
        assert upstream.enabled("one_parse") and not upstream.applies("one_parse")
        assert stock == [1, 1]  # nbconvert's own exporter runs
        assert upstream.applies("prompt_client")  # hooks on other libraries stay
        said = [r.getMessage() for r in caplog.records]
        assert said == ["attnkit: hook one_parse steps aside: nbconvert 7.18.0 is not the "
                        "7.17.x it was checked on; the stock path runs"], said
    finally:
        upstream._unknown_release.cache_clear()


@pytest.mark.parametrize(("switch", "on"), [
    (None, set(upstream.HOOKS)), ("all", set(upstream.HOOKS)), ("none", set()),
    ("all,-one_engine", set(upstream.HOOKS) - {"one_engine"}),
    ("none,+warm_kernels", {"warm_kernels"})])
def test_the_switch(monkeypatch: pytest.MonkeyPatch, switch: str | None, on: set[str]) -> None:
    if switch is None:
        monkeypatch.delenv(upstream.SWITCH, raising=False)
    else:
        monkeypatch.setenv(upstream.SWITCH, switch)
    assert {name for name in upstream.HOOKS if upstream.enabled(name)} == on


def test_a_misspelt_switch_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(upstream.SWITCH, "all,-one_engin")
    with pytest.raises(ValueError, match="unknown hook '-one_engin'"):
        upstream.enabled("one_engine")


def test_none_gives_the_stock_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """With every hook off the grading config holds nothing of ``attnkit.upstream``."""
    from nbgrader.api import Gradebook

    from attnkit import course
    from attnkit.grading import grader
    from attnkit.sandbox.provisioner import SandboxProvisioner
    from attnkit.upstream.gradebook import shared_engine

    monkeypatch.setenv(upstream.SWITCH, "none")
    config = course.load_config(ROOT)
    extra = grader.pipeline_config(config, None)
    modules = {cls.__module__ for cls in extra.Autograde.autograde_preprocessors}
    assert grader.pipeline_config.__module__ not in modules  # no class made at run time
    assert "AsyncKernelManager" not in extra
    # the course's kernels, stock nbgrader's included, start cold
    assert SandboxProvisioner(config=config).warm_start is False
    assert "warm_start" not in extra.SandboxProvisioner
    stock_init = Gradebook.__init__
    with shared_engine():
        assert Gradebook.__init__ is stock_init
    monkeypatch.setenv(upstream.SWITCH, "all")
    extra = grader.pipeline_config(config, None)
    assert extra.AsyncKernelManager.client_factory.__module__ == "attnkit.upstream.execution"
    # and warm again, for stock commands too, wherever the hook knows the release
    warm = SandboxProvisioner(config=course.load_config(ROOT)).warm_start
    assert warm is upstream.applies("warm_kernels")

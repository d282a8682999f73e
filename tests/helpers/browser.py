"""Helpers and fixtures for the real-browser tests (tests/test_browser.py).

Every server runs on 127.0.0.1, on a free port, with a random token, from a
scratch directory, with its own Jupyter config/runtime/settings directories;
every process started here (servers, their kernels) is stopped by id on exit.
Chromium is Debian's ``/usr/bin/chromium``, driven by Playwright.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import pytest

from helpers.course import ENV, ROOT, copy_course, run, terminate  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 900}
DOCS = ROOT / "docs"
PS1 = "ps1_self_attention"

# JupyterLab user settings for the tests: no news/update checks (no network here),
# and every cell kept in the DOM (no windowing), so outputs can be read off the page.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none"},
}


def kernel_name() -> str:
    """The autograde kernel: the kit's sandbox when installed, else plain python3."""
    if "ATTNKIT_KERNEL" in os.environ:
        return os.environ["ATTNKIT_KERNEL"]
    from jupyter_client.kernelspec import KernelSpecManager

    specs = KernelSpecManager().find_kernel_specs()
    return "attnkit-sandbox" if "attnkit-sandbox" in specs else "python3"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jupyter_env(home: Path) -> dict[str, str]:
    """Environment with private Jupyter/IPython directories under ``home``."""
    dirs = {"JUPYTER_CONFIG_DIR": home / "config", "JUPYTER_RUNTIME_DIR": home / "runtime",
            "JUPYTER_DATA_DIR": home / "data", "IPYTHONDIR": home / "ipython",
            "JUPYTERLAB_SETTINGS_DIR": home / "lab-settings",
            "JUPYTERLAB_WORKSPACES_DIR": home / "lab-workspaces"}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    for name, settings in LAB_SETTINGS.items():
        target = dirs["JUPYTERLAB_SETTINGS_DIR"] / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(settings))
    # The venv's share/jupyter stays on the data path (kernelspecs, lab extensions).
    return {**ENV, **{k: str(v) for k, v in dirs.items()},
            "ATTNKIT_KERNEL": kernel_name(), "PYTHONUNBUFFERED": "1"}


def stop_process_tree(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """Stop ``proc`` and every process it started (kernels run in their own sessions)."""
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    terminate(children)


def wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer in {timeout:.0f} s:\n{log.read_text()[-3000:]}")


@dataclass
class Server:
    base: str  # http://127.0.0.1:PORT
    token: str
    proc: subprocess.Popen
    log: Path

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}{path}{sep}token={self.token}" if self.token else self.base + path

    def api(self, path: str, method: str = "GET") -> object:
        request = urllib.request.Request(self.base + path, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None


@contextlib.contextmanager
def jupyter_server(app: str, cwd: Path, home: Path) -> Iterator[Server]:
    """``jupyter lab`` / ``jupyter notebook`` serving ``cwd``; stopped with its kernels."""
    port, token = free_port(), secrets.token_hex(16)
    log = home / f"jupyter-{app}-{port}.log"
    env = jupyter_env(home)
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "jupyter"), app, "--no-browser",
             "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
             "--ServerApp.port_retries=0", f"--ServerApp.token={token}",
             "--ServerApp.allow_root=True",
             f"--ServerApp.root_dir={cwd}", "--ServerApp.open_browser=False",
             # nbgrader's server extensions work on the course in the working directory
             "--ServerApp.log_level=INFO"],
            cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Server(f"http://127.0.0.1:{port}", token, proc, log)
    try:
        wait_http(server.url("/api/status"), proc, log)
        yield server
    finally:
        with contextlib.suppress(Exception):  # shut kernels down cleanly first
            for kernel in server.api("/api/kernels"):
                server.api(f"/api/kernels/{kernel['id']}", method="DELETE")
        stop_process_tree(proc)


@contextlib.contextmanager
def static_server(directory: Path, home: Path) -> Iterator[Server]:
    """``python -m http.server`` on loopback, serving ``directory``."""
    port = free_port()
    log = home / f"http-{port}.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port),
                                 "--bind", "127.0.0.1", "--directory", str(directory)],
                                stdout=out, stderr=subprocess.STDOUT)
    server = Server(f"http://127.0.0.1:{port}", "", proc, log)
    try:
        wait_http(server.base + "/", proc, log, timeout=20)
        yield server
    finally:
        stop_process_tree(proc)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `make env` installs Debian's chromium"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    """A fresh browser context and page at 1280x900 that only reaches loopback servers
    (anything else a page asks for is refused at once instead of timing out)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    context.route(re.compile(r"^(?!https?://127\.0\.0\.1[:/])[a-z]+://"),
                  lambda route: route.abort())
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def grade_sample_class(root: Path) -> None:
    """ps1 released, the sample class submitted, autograded and given feedback, with
    stock nbgrader commands and the course's nbgrader_config.py."""
    from attnkit.samples import write_submissions

    env = {"ATTNKIT_KERNEL": kernel_name()}
    run(["nbgrader", "generate_assignment", PS1, "--force"], root, env=env)
    write_submissions(root, [PS1])
    run(["nbgrader", "autograde", PS1, "--force"], root, env=env)
    run(["nbgrader", "generate_feedback", PS1, "--force"], root, env=env)


class Grading(threading.Thread):
    """Grading the sample class in the background (it takes a minute)."""

    def __init__(self, root: Path) -> None:
        super().__init__(name="grade-sample-class", daemon=True)
        self.root = root
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            grade_sample_class(self.root)
        except BaseException as error:  # reported by graded_course
            self.error = error


@pytest.fixture(scope="module")
def grading(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grading]:
    """Starts grading a scratch copy of the course; ``graded_course`` waits for it."""
    job = Grading(copy_course(tmp_path_factory.mktemp("graded") / "course"))
    job.start()
    yield job
    job.join()


@pytest.fixture(scope="module")
def graded_course(grading: Grading) -> Path:
    grading.join(timeout=600)
    if grading.is_alive():
        raise TimeoutError("grading the sample class took more than 10 minutes")
    if grading.error is not None:
        raise grading.error
    return grading.root


def log_in_as_ta(page, server: Server, path: str) -> None:
    """Log in to the Jupyter server with its token, as a TA does, landing on ``path``."""
    page.goto(f"{server.base}/login?next={path}")
    page.locator("#password_input").fill(server.token)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{path}")


def student_script_ran(page, url: str, settle_ms: int = 1000) -> bool:
    """Open ``url`` and give any planted handler time to fire: did it set the payload's flag
    (``window.__pwned``, which every attack of the suites sets)?"""
    assert page.goto(url).ok, url
    page.wait_for_load_state("load")
    page.wait_for_timeout(settle_ms)
    return page.evaluate("typeof window.__pwned") != "undefined"


def save_screenshot(page, name: str, **kw) -> Path:
    DOCS.mkdir(exist_ok=True)
    path = DOCS / name
    tmp = path.with_suffix(".tmp.png")
    page.screenshot(path=str(tmp), **kw)
    shutil.move(tmp, path)
    return path


def grade_answer(page, student: str, grade_id: str, score: float, comment: str,
                 screenshot: str) -> None:
    """From formgrader's list of an assignment's submissions, open ``student``'s and grade the
    answer ``grade_id`` as a TA does (formgrader saves each box on change); then show that
    answer and save a screenshot of it."""
    page.locator("#main-table a.name-hidden").first.wait_for()
    page.get_by_role("button", name="Show All Names").click()
    page.locator("#main-table a.name-shown", has_text=re.compile(f"^{student}$")).click()
    page.wait_for_url("**/formgrader/submissions/**")
    for box, api, value in ((f"input.score#{grade_id}", "grade", str(score)),
                            (f"textarea.comment#{grade_id}-comment", "comment", comment)):
        field = page.locator(box)
        field.scroll_into_view_if_needed()
        with page.expect_response(lambda r, api=api: f"/formgrader/api/{api}/" in r.url
                                  and r.request.method == "PUT") as saved:
            field.fill(value)
            field.press("Tab")
        assert saved.value.ok, f"formgrader did not save the {api}: {saved.value.status}"
    # Tab moves to formgrader's next input, which it scrolls to (animated)
    page.wait_for_function("() => !window.$('html, body').is(':animated')")
    page.locator(f".cell:has(input#{grade_id})").first.evaluate(
        "e => e.scrollIntoView({block: 'start'})")
    page.evaluate("window.scrollBy(0, -60)")
    page.mouse.move(0, 0)
    save_screenshot(page, screenshot)


@contextmanager
def offline_page(browser, width: int) -> Iterator[tuple[object, list[str]]]:
    """A page in a fresh context of ``width`` px that may only reach this machine; the
    list collects every other request (each one refused)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(30_000)
    refused: list[str] = []

    def route(request_route) -> None:
        url = request_route.request.url
        if urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1"):
            request_route.continue_()
        else:
            refused.append(url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    try:
        yield page, refused
    finally:
        context.close()


def axe_counts(page, name: str) -> dict[str, int]:
    """axe-core's violations on the page by impact; prints them."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    counts = {impact: sum(v["impact"] == impact for v in violations)
              for impact in ("critical", "serious", "moderate", "minor")}
    print(f"\naxe {name}: {counts['critical']} critical, {counts['serious']} serious, "
          f"{counts['moderate']} moderate, {counts['minor']} minor")
    for v in violations:
        print(f"  {v['impact']}: {v['id']} ({len(v['nodes'])}) {v['help']}")
    return counts


def nb_meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


CELLS = ".jp-NotebookPanel .jp-Notebook .jp-Cell"


def lab_menu(page, menu: str, item: str) -> None:
    """Click ``menu`` in JupyterLab's menu bar, then its entry ``item``."""
    page.locator(".lm-MenuBar-item").filter(
        has=page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(menu)}$"))
    ).click()
    page.locator(".lm-Menu .lm-Menu-item").filter(
        has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$"))
    ).first.click()


def paste_into_cell(page, index: int, text: str) -> None:
    """Click into a cell's editor, select everything and paste ``text`` over it."""
    editor = page.locator(CELLS).nth(index).locator(".cm-content")
    editor.scroll_into_view_if_needed()
    editor.click()
    page.keyboard.press("Control+a")
    page.evaluate("text => navigator.clipboard.writeText(text)", text)
    page.keyboard.press("Control+v")
    page.keyboard.press("Escape")
    got = editor.inner_text()
    assert got == text, f"cell {index} editor holds {got!r}, not the pasted {text!r}"


def save_notebook(page) -> None:
    lab_menu(page, "File", "Save Notebook")
    page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty").wait_for(state="detached")


def shown(score: float) -> str:
    """A score as nbgrader's feedback template prints it (``| float | round(2)``)."""
    return str(round(float(score), 2))

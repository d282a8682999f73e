"""Every place the kit reaches into another project's internals, named and switchable.

The kit's speed comes partly from hooks into nbgrader, nbconvert, nbclient, jupyter_client,
and Dask that those projects do not promise to keep. Each hook lives in this
subpackage (the warm kernels, in ``attnkit.sandbox``, are the one exception: they are the
sandbox's own provisioner) and is listed in ``HOOKS`` with what it relies on and what it buys.
``tests/test_upstream.py`` checks, in seconds and without kernels, every reliance named here,
so an upgrade that breaks one fails there first; ``benchmarks/autograde_throughput.py
--hooks`` times the kit with all of them, with none, and without each one.

Each hook also names the releases it was checked on. On any other release of one of them
the hook steps aside (``applies`` is False, one warning line per process) and the stock path
runs: a shared hub may upgrade nbconvert or Dask under the kit without breaking grading.

``ATTNKIT_HOOKS`` switches them (read by every grading process, Dask workers included):
unset or ``all``: every hook; ``none``: nbgrader, nbconvert, jupyter_client and Dask as they
come; or a comma list applied left to right, for example ``all,-one_engine`` or
``none,+warm_kernels``. Grades never depend on the switch, only time does; the one hook
that buys safety instead, ``escaped_formgrader``, is a server extension whose switch is read
by the Jupyter server formgrader runs in.

This module imports only the standard library: it is read before the grader is imported.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

SWITCH = "ATTNKIT_HOOKS"


@dataclass(frozen=True)
class Hook:
    relies_on: str
    buys: str
    # (distribution, release series) the reliances were checked on: "7.17" is 7.17.x
    checked_on: tuple[tuple[str, str], ...] = ()


HOOKS = {
    "one_engine": Hook(
        "nbgrader.api.Gradebook: __init__(db_url, course_id, authenticator) sets engine, db, "
        "course_id and authenticator and calls check_course; close() removes the session "
        "and disposes the engine",
        "one SQLAlchemy engine per worker instead of ~9 per notebook (schema check and "
        "statement compilation each time)",
        (("nbgrader", "0.9"), ("SQLAlchemy", "2.1"))),
    "prompt_client": Hook(
        "jupyter_client.asynchronous.AsyncKernelClient: wait_for_ready(timeout) is the only "
        "readiness wait; _handle_kernel_info_reply(msg) and _async_is_alive() exist",
        "a kernel is ready when it answers kernel_info, not after a fixed wait for IOPub "
        "silence; ZMQ reconnects every 10 ms instead of 100 ms",
        (("jupyter_client", "8.10"),)),
    "kernel_retry": Hook(
        "nbclient.NotebookClient: start_new_kernel(**kw), start_new_kernel_client(), "
        "_cleanup_kernel(), create_kernel_manager() and the km attribute",
        "a kernel that fails to start is started again (up to 3 times) instead of failing "
        "the submission; kernel banners stay off the terminal",
        (("nbclient", "0.11"), ("jupyter_client", "8.10"))),
    "warm_kernels": Hook(
        "jupyter_client.provisioning.LocalProvisioner: launch_kernel sets process, pid and "
        "pgid; kill/wait/cleanup/poll go through self.process (a Popen-like object)",
        "sandboxed kernels forked from a server that imported ipykernel, numpy and "
        "matplotlib once, not once per notebook (attnkit.sandbox.Forkserver)",
        (("jupyter_client", "8.10"),)),
    "worker_server": Hook(
        "multiprocessing.forkserver.set_forkserver_preload; distributed.utils.get_mp_context "
        "names Dask's own preload on its first call; Dask honours "
        "distributed.worker.multiprocessing-method = forkserver",
        "Dask workers fork from a server that imported the grader once (a spawned worker "
        "spends 3 s or more importing nbgrader)",
        (("distributed", "2026.8"),)),
    "one_parse": Hook(
        "nbconvert.exporters.HTMLExporter: from_notebook_node registers the highlight_code and "
        "filter_data_type filters, calls _init_resources and TemplateExporter's "
        "from_notebook_node, then only adds img alt text and lab-template tab stops with "
        "BeautifulSoup",
        "feedback pages written by their template alone, not parsed and written again: "
        "one parse less per page",
        (("nbconvert", "7.17"),)),
    "escaped_formgrader": Hook(
        "nbgrader.server_extensions.formgrader (0.9): its handlers render with the Jinja "
        "environment in the tornado setting nbgrader_jinja2_env; the head blocks and "
        "breadcrumbs attnkit/templates/formgrader_pages re-states are nbgrader's own",
        "formgrader's pages with autoescape and ids in scripts by tojson: a student's id or "
        "name is text in the grader's session, never script",
        (("nbgrader", "0.9"),)),
}


def enabled(name: str) -> bool:
    """Whether hook ``name`` is on under ``ATTNKIT_HOOKS`` (see the module's docstring)."""
    if name not in HOOKS:
        raise KeyError(f"unknown hook {name!r}; the hooks are {', '.join(HOOKS)}")
    on = True
    for word in filter(None, (w.strip() for w in os.environ.get(SWITCH, "all").split(","))):
        if word in ("all", "none"):
            on = word == "all"
        elif word.lstrip("+-") == name:
            on = not word.startswith("-")
        elif word.lstrip("+-") not in HOOKS:
            raise ValueError(f"{SWITCH}={os.environ[SWITCH]!r}: unknown hook {word!r}; "
                             f"the hooks are {', '.join(HOOKS)}")
    return on


def applies(name: str) -> bool:
    """Whether hook ``name`` is on and every release it relies on is one it was checked on;
    if not the latter, say so once and let the stock path run."""
    return enabled(name) and not _unknown_release(name)


@functools.cache
def _unknown_release(name: str) -> str:
    for distribution, series in HOOKS[name].checked_on:
        try:
            installed = version(distribution)
        except PackageNotFoundError:
            installed = "absent"
        if installed != series and not installed.startswith(f"{series}."):
            said = (f"attnkit: hook {name} steps aside: {distribution} {installed} is not the "
                    f"{series}.x it was checked on; the stock path runs")
            logging.getLogger(__name__).warning(said)
            return said
    return ""

"""A hub site for the tests: real local accounts (created here, removed after), the course and
the exchange laid out by attnkit.deploy.site, the hub of deploy/jupyterhub on loopback."""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

from attnkit.deploy import site as deploy
from helpers.course import terminate

PS1 = "ps1_self_attention"
PS2 = "ps2_multihead_attention"


@dataclass
class HubSite:
    site: deploy.Site
    passwords: dict[str, str]

    @property
    def instructor(self) -> str:
        return self.site.instructor

    @property
    def ta(self) -> str:
        return self.site.tas[0]

    @property
    def students(self) -> list[str]:
        return self.site.students

    def as_user(self, name: str, args: list[str], cwd: Path | None = None,
                check: bool = True) -> subprocess.CompletedProcess:
        """A command as ``name`` with the environment the hub gives its servers."""
        home = Path(pwd.getpwnam(name).pw_dir)
        return deploy.as_user(name, args, cwd or home, self.site.env(), check=check)

    def instructor_run(self, *args: str) -> subprocess.CompletedProcess:
        """The instructor's command in the course directory."""
        return self.as_user(self.instructor, list(args), self.site.course_root)


def _free_ports(count: int) -> int:
    """The first of ``count`` consecutive free loopback ports (hub, its API, proxy API, service)."""
    for _ in range(50):
        first = 20000 + secrets.randbelow(30000)
        sockets = []
        try:
            for port in range(first, first + count):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError("no free block of loopback ports")


def _stop_users_processes(uids: set[int]) -> None:
    """Whatever the test's accounts still run (their servers, kernels), stopped by id."""
    procs = [p for p in psutil.process_iter(["uids"]) if p.info["uids"]
             and p.info["uids"].real in uids]
    terminate(procs, timeout=10)


@contextlib.contextmanager
def hub_site(students: int = 2, grade_on_submit: list[str] | None = None,
             tas: int = 1) -> Iterator[HubSite]:
    """Accounts (instructor, ``tas`` TAs, students, the grader account) with fresh names and
    passwords, the site under a scratch directory; all removed afterwards. The hub grades
    ``grade_on_submit``'s assignments as they are submitted (`attnkit serve`)."""
    assert os.geteuid() == 0, ("the hub tests create local users and run JupyterHub as "
                               "root, as a hub is run: run them as root")
    assert deploy.PROXY.exists(), (
        f"{deploy.PROXY} is missing: `make test` and `make hub` install it (npm ci)")
    tag = f"ak{secrets.token_hex(2)}"
    base = Path(tempfile.mkdtemp(prefix=f"attnkit-{tag}-", dir="/var/tmp"))
    site = deploy.Site(base, instructor=f"{tag}inst",
                       tas=[f"{tag}ta"] + [f"{tag}ta{i}" for i in range(2, tas + 1)],
                       students=[f"{tag}s{i}" for i in range(1, students + 1)],
                       port=_free_ports(4), grader=f"{tag}grader",
                       grade_on_submit=grade_on_submit or [])
    people = [site.instructor, *site.tas, *site.students]
    passwords = {name: secrets.token_urlsafe(12) for name in people}
    try:
        deploy.create_accounts(site, passwords)
        deploy.lay_out(site)
        yield HubSite(site, passwords)
    finally:
        uids = set()
        for name in [*people, site.grader]:
            with contextlib.suppress(KeyError):
                uids.add(pwd.getpwnam(name).pw_uid)
        _stop_users_processes(uids)
        for name in [*people, site.grader]:
            deploy.remove_user(name)
        with contextlib.suppress(KeyError):
            grp.getgrnam(site.grader)
            subprocess.run(["groupdel", site.grader], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def running_hub(hub: HubSite) -> Iterator[subprocess.Popen]:
    """deploy/jupyterhub's hub for ``hub``, as root on loopback; stopped with every server."""
    from helpers.browser import stop_process_tree, wait_http

    log = hub.site.state / "jupyterhub.log"
    with log.open("w") as out:
        proc = subprocess.Popen(deploy.hub_command(), env=deploy.hub_env(hub.site),
                                cwd=hub.site.state, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_http(f"{hub.site.url}/hub/api", proc, log, timeout=120)
        yield proc
    finally:
        # its servers, services and proxy killed first: the site is about to be removed, and
        # the hub's own clean-up would stop each in turn, waiting for it to shut down
        # (not waited for here: the hub reaps them)
        with contextlib.suppress(psutil.NoSuchProcess):
            for child in psutil.Process(proc.pid).children(recursive=True):
                with contextlib.suppress(psutil.NoSuchProcess):
                    child.kill()
        stop_process_tree(proc, grace=30)

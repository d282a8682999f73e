"""The jupyter_client side of the sandbox: ``SandboxProvisioner`` (kernel.json
``metadata.kernel_provisioner``) starts each kernel inside it, cold under bubblewrap or
forked warm by the warm-kernel server; the kernelspec that names it; and what the grader
asks of a kernel it starts (may it fork warm, may it run unsandboxed, let it step aside).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_client.provisioning import LocalProvisioner
from traitlets import Bool, Integer, Unicode
from traitlets.config import Config

from attnkit.sandbox.bwrap import (
    LIB_DIR,
    Box,
    UidLease,
    bwrap_args,
    check_sandbox,
    chown,
    kernel_env,
    mount_plan,
    privileged,
    tool,
)
from attnkit.sandbox.client import ForkedKernel, Forkserver
from attnkit.sandbox.scratch import SEED_DIR, WORK_DIR, seeded

PROVISIONER_NAME = "attnkit-sandbox-provisioner"
KERNEL_NAME = "attnkit-sandbox"
OPT_OUT_ENV = "ATTNKIT_UNSANDBOXED"
# the kernel's stdout and stderr, cut at $ATTNKIT_OUTPUT_LIMIT characters per cell with a note
OUTSTREAM_ARGUMENT = "--IPKernelApp.outstream_class=attnkit.outstream.CappedOutStream"
OPT_OUT_HINT = (
    f"To grade without a sandbox (unsafe for untrusted code), set {OPT_OUT_ENV}=1 "
    "or c.SandboxProvisioner.allow_unsandboxed = True."
)


def opted_out(config: Any = None) -> bool:
    """True if the instructor chose to grade without a sandbox (environment or config)."""
    configured = config.get("SandboxProvisioner", {}).get("allow_unsandboxed", False) \
        if config is not None else False
    return os.environ.get(OPT_OUT_ENV) == "1" or bool(configured)


def step_aside(pid: int) -> None:
    """Give the kernel under ``pid`` (its provisioner's process) the least CPU priority: nice 19
    for it and everything it started (later children inherit it), and for the scheduler
    autogroups of the sessions it opened (the sandbox gives every kernel one), where per-process
    nice would not count against other sessions. A kernel stuck in a loop then slows only its
    own grading."""
    import psutil

    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
        outer = os.getsid(pid)
    except (psutil.Error, OSError):
        return
    for proc in tree:  # each checked to be the process read above, not a pid reused since
        with contextlib.suppress(psutil.Error, OSError):
            proc.nice(19)
            if os.getsid(proc.pid) != outer and proc.is_running():  # never the provisioner's
                Path(f"/proc/{proc.pid}/autogroup").write_text("19")


def forks_warm(kernel: str, config: Config) -> bool:
    """Whether kernel ``kernel`` is this sandbox's, forked from the warm-kernel server under
    ``config`` (its kernelspec's provisioner config on top, as jupyter_client applies it)."""
    try:
        spec = KernelSpecManager(config=config).get_kernel_spec(kernel)
    except NoSuchKernel:
        return False
    provisioner = spec.metadata.get("kernel_provisioner", {})
    if provisioner.get("provisioner_name") != PROVISIONER_NAME:
        return False
    return SandboxProvisioner(config=config, **provisioner.get("config", {})).warm_start


class SandboxProvisioner(LocalProvisioner):
    """Start the kernel under prlimit, as its own unprivileged uid, inside bubblewrap."""

    cpu_limit = Integer(120, help="CPU seconds of the kernel process (RLIMIT_CPU)").tag(
        config=True)
    memory_limit = Integer(4 << 30, help="Address space in bytes (RLIMIT_AS)").tag(config=True)
    file_size_limit = Integer(64 << 20, help="Largest file in bytes (RLIMIT_FSIZE)").tag(
        config=True)
    process_limit = Integer(256, help="Processes and threads of the kernel (RLIMIT_NPROC, "
                            "counted in the kernel's own user namespace)").tag(config=True)
    tmp_size = Integer(256 << 20, help="Size in bytes of the private /tmp tmpfs").tag(config=True)
    work_copy_limit = Integer(256 << 20, help="Most bytes copied from the kernel's cwd").tag(
        config=True)
    scratch_limit = Integer(256 << 20, help="Size in bytes of the kernel's working dir "
                            "(/home/student): a tmpfs inside the sandbox holding the copy of "
                            "its cwd and all it writes there, so that no kernel can fill the "
                            "grader's disk. Its pages are memory, like /tmp's: allow "
                            "scratch_limit + tmp_size per kernel running at once").tag(config=True)
    uid_min = Integer(62000, help="First uid handed to sandboxed kernels (grading as root)"
                      ).tag(config=True)
    uid_max = Integer(62999, help="Last uid handed to sandboxed kernels (grading as root)"
                      ).tag(config=True)
    lock_dir = Unicode("/run/attnkit-uids", help="Root-only dir of per-uid lock files "
                       "(grading as root)").tag(config=True)
    warm_start = Bool(False, help="Fork kernels from a server that has imported ipykernel, "
                      "numpy and matplotlib once (same sandbox, built by the server instead "
                      "of bubblewrap), not once per kernel").tag(config=True)
    allow_unsandboxed = Bool(False, help=f"Run plain kernels if bwrap cannot start (also "
                             f"{OPT_OUT_ENV}=1)").tag(config=True)

    _verified = False  # class-wide: check_sandbox passed once in this process
    _box: Box | None = None
    _sandboxed = False
    _lease: UidLease | None = None  # the kernel's own uid, when we are root
    _warm: dict[str, Any] | None = None  # the forkserver request, when warm_start

    def _use_sandbox(self) -> bool:
        """True if the sandbox works; False (with a warning) if it fails and we may opt out."""
        if SandboxProvisioner._verified:
            return True
        problem = check_sandbox()
        if problem is None:
            SandboxProvisioner._verified = True
            return True
        if self.allow_unsandboxed or opted_out():
            self.log.warning("Kernel sandbox unavailable (%s); running the kernel WITHOUT a "
                             "sandbox because the instructor opted out.", problem)
            return False
        raise RuntimeError(f"Cannot sandbox the kernel: {problem}. {OPT_OUT_HINT}")

    async def pre_launch(self, **kwargs: Any) -> dict[str, Any]:
        km = self.parent
        if self._box is None:  # a restart keeps its uid, dirs and sockets
            sandboxed = self._use_sandbox()
            if sandboxed and km.transport != "ipc":
                raise RuntimeError('Sandboxed kernels need ZMQ ipc transport: set '
                                   'c.KernelManager.transport = "ipc" (or transport="ipc").')
            if km.transport == "ipc":
                self._start_box(kwargs.get("cwd"), sandboxed)
        kwargs = await super().pre_launch(**kwargs)
        if not self._sandboxed:
            return kwargs
        assert self._box is not None
        chown(self._box.connection_file, self._uid)
        kwargs["cmd"] = [*kwargs["cmd"], OUTSTREAM_ARGUMENT]
        if self.warm_start:
            # the kernel's extra arguments (nbclient's ``extra_arguments``), as a cold one gets
            extra = kwargs["cmd"][len(km.kernel_spec.argv):]
            self._warm = self._request(kwargs["env"], extra)
            return kwargs
        kwargs["cmd"] = self._wrap(kwargs["cmd"], kwargs["env"])
        kwargs["env"] = {"PATH": os.defpath}
        kwargs["cwd"] = str(self._box.work)
        return kwargs

    def _start_box(self, cwd: str | None, sandboxed: bool) -> None:
        """Create the kernel's private dir (and claim a uid); point the ipc sockets there."""
        box = Box()
        try:
            if sandboxed and privileged():
                self._lease = UidLease(self.lock_dir, range(self.uid_min, self.uid_max + 1))
            if sandboxed:
                box.fill(cwd, self._uid, min(self.work_copy_limit, self.scratch_limit))
        except BaseException:
            box.remove()
            if self._lease is not None:
                self._lease.release()
                self._lease = None
            raise
        self._box, self._sandboxed = box, sandboxed
        self.parent.connection_file = str(box.connection_file)
        self.parent.ip = str(box.sockets / "k")

    @property
    def _uid(self) -> int | None:
        """The kernel's own uid (root grades), or None: it keeps the grader's."""
        return None if self._lease is None else self._lease.uid

    def _wrap(self, cmd: list[str], parent_env: Mapping[str, str]) -> list[str]:
        """The kernel command wrapped in a uid switch (as root), bubblewrap and limits.

        The limits are set inside the sandbox's user namespace, where RLIMIT_NPROC counts
        the kernel's processes only (set outside, it would count all of the grader's)."""
        assert self._box is not None
        uid = self._uid
        drop = [] if uid is None else [
            tool("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
        limits = [tool("prlimit"), *(f"--{k}={v}" for k, v in self._limits().items()), "--"]
        env = [a for k, v in kernel_env(parent_env).items() for a in ("--setenv", k, v)]
        return [*drop, *bwrap_args(self._plan()), "--remount-ro", "/", "--remount-ro", "/dev",
                "--chdir", WORK_DIR, *env, "--", *seeded([*limits, *cmd])]

    def _plan(self) -> list[list]:
        assert self._box is not None
        return mount_plan(self.tmp_size) + self._box.plan(self.scratch_limit)

    def _request(self, parent_env: Mapping[str, str], argv: list[str]) -> dict[str, Any]:
        """What the forkserver needs to build this kernel's sandbox (see ``_wrap``) and start
        its kernel with ``argv`` after the connection file."""
        assert self._box is not None
        root = self._box.root / "root"
        root.mkdir(mode=0o700, exist_ok=True)
        return {"root": str(root), "plan": self._plan(), "cwd": WORK_DIR, "seed": SEED_DIR,
                "uid": self._uid, "env": kernel_env(parent_env),
                "path": [LIB_DIR], "connection_file": str(self._box.connection_file),
                "argv": argv,
                "log": str(self._box.root / "kernel.log"), "limits": self._limits()}

    def _limits(self) -> dict[str, int]:
        """The kernel's rlimits, by prlimit's option names (the forkserver uses the same)."""
        return {"cpu": self.cpu_limit, "as": self.memory_limit, "fsize": self.file_size_limit,
                "nproc": self.process_limit}

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
        if self._warm is None:
            return await super().launch_kernel(cmd, **kwargs)
        self.process = await asyncio.to_thread(Forkserver.spawn, self._warm)
        self.pid, self.pgid, self.cwd = self.process.pid, None, WORK_DIR
        return self.connection_info

    async def kill(self, restart: bool = False) -> None:
        await super().kill(restart=restart)
        if isinstance(self.process, ForkedKernel):  # gone on return: no 0.1 s poll after it
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.exited(), 5)

    async def wait(self) -> int | None:
        if isinstance(self.process, ForkedKernel):
            await self.process.exited()
        return await super().wait()

    async def cleanup(self, restart: bool = False) -> None:
        await super().cleanup(restart=restart)
        if restart:
            return
        if self._box is not None:
            self._box.remove()
            self._box, self._sandboxed = None, False
        if self._lease is not None:
            self._lease.release()
            self._lease = None


def install_kernelspec(prefix: str = sys.prefix, *, name: str = KERNEL_NAME,
                       config: Mapping[str, Any] | None = None) -> Path:
    """Write the sandboxed kernel's kernel.json under ``prefix``; return its path.

    ``config`` sets SandboxProvisioner traits for this kernel (e.g. ``memory_limit``).
    """
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (attnkit sandbox)",
        "language": "python",
        "interrupt_mode": "message",
        "metadata": {"kernel_provisioner": {"provisioner_name": PROVISIONER_NAME,
                                            "config": dict(config or {})}},
    }
    path = Path(prefix) / "share" / "jupyter" / "kernels" / name / "kernel.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(spec, indent=1) + "\n")
    return path

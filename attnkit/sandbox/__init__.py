"""Run grading kernels inside a bubblewrap sandbox, as root or as an ordinary instructor.

``SandboxProvisioner`` is a jupyter_client kernel provisioner (kernel.json
``metadata.kernel_provisioner``) that starts the kernel as::

    [setpriv --reuid=U ... --]  bwrap <namespaces and binds> -- prlimit <limits> -- python ...

The kernel sees read-only ``/usr``, ``/etc`` and the Python environment
(``sys.prefix``), a private copy of ``attnkit``'s kernel-side modules (``probe``,
``cases``), a scratch copy of the ``cwd`` it was started with (an empty dir if
none) in a size-limited tmpfs at ``/home/student`` (``scratch``), a private ``/tmp``,
and no network. The client must
use ZMQ ipc transport: the sockets live in a per-kernel directory bound into the
sandbox.

Isolation comes from what is mounted, so it holds for any grader. Started by root,
each kernel also runs as its own uid from a range (``setpriv``); started by an
ordinary user (an instructor on JupyterHub), it keeps that user's uid, mapped into
its own user namespace. Either way the limits are set inside the kernel's own user
namespace, where the kernel's processes are counted apart from the grader's: a fork
bomb stops at ``process_limit`` without touching the instructor's other processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import json
import logging
import os
import select
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_client.provisioning import LocalProvisioner
from traitlets import Bool, Integer, Unicode
from traitlets.config import Config

from attnkit.sandbox.scratch import SEED_DIR, WORK_DIR, scratch_plan, seeded

PROVISIONER_NAME = "attnkit-sandbox-provisioner"
KERNEL_NAME = "attnkit-sandbox"
OPT_OUT_ENV = "ATTNKIT_UNSANDBOXED"
OUTPUT_LIMIT_ENV = "ATTNKIT_OUTPUT_LIMIT"  # attnkit.outstream's cap, characters per cell
PASS_THROUGH_ENV = ("ATTNKIT_SEED", OUTPUT_LIMIT_ENV)
# the kernel's stdout and stderr, cut at $ATTNKIT_OUTPUT_LIMIT characters per cell with a note
OUTSTREAM_ARGUMENT = "--IPKernelApp.outstream_class=attnkit.outstream.CappedOutStream"
# What the kernel may import of the kit (paths in attnkit/): the kernel package and the
# ``attnkit.probe`` name that hidden test cells import. Never the judge.
PACKAGE = Path(__file__).resolve().parents[1]  # attnkit/
KERNEL_MODULES = ("__init__.py", "probe.py", "outstream.py", "kernel/*.py")  # in PACKAGE
LIB_DIR = "/opt/attnkit"  # the private copy of KERNEL_MODULES, inside the sandbox
OPT_OUT_HINT = (
    f"To grade without a sandbox (unsafe for untrusted code), set {OPT_OUT_ENV}=1 "
    "or c.SandboxProvisioner.allow_unsandboxed = True."
)


def _tool(name: str) -> str:
    """Absolute path of a required executable (bare name if missing)."""
    return shutil.which(name) or name


def mount_plan(tmp_size: int = 16 << 20) -> list[list]:
    """The filesystem every sandbox sees, as steps for bubblewrap or the forkserver: system
    dirs read-only, a private /tmp, then the environment (after /tmp, so an environment
    under /tmp stays visible), /proc and a minimal /dev."""
    plan: list[list] = [["ro", "/usr", "/usr"], ["ro", "/etc", "/etc"]]
    for name in ("bin", "sbin", "lib", "lib64"):
        path = f"/{name}"
        if os.path.islink(path):
            plan.append(["symlink", os.readlink(path), path])
        elif os.path.isdir(path):
            plan.append(["ro", path, path])
    return [*plan, ["tmpfs", "/tmp", tmp_size], ["ro", sys.prefix, sys.prefix],
            ["proc", "/proc"], ["dev", "/dev"]]


BWRAP_STEPS = {"ro": ["--ro-bind"], "rw": ["--bind"], "symlink": ["--symlink"],
               "proc": ["--proc"], "dev": ["--dev"]}


def _bwrap(plan: list[list]) -> list[str]:
    """bwrap, its namespaces and the plan's mounts."""
    args = [_tool("bwrap"), "--unshare-all", "--unshare-user", "--die-with-parent",
            "--new-session", "--clearenv"]
    for kind, *rest in plan:
        if kind == "tmpfs":
            args += ["--size", str(rest[1]), "--tmpfs", rest[0]]
        else:
            args += [*BWRAP_STEPS[kind], *map(str, rest)]
    return args


def privileged() -> bool:
    """True if kernels can be given uids of their own (we are root)."""
    return os.geteuid() == 0


USERNS_REMEDY = (
    "The sandbox needs unprivileged user namespaces. Ask an administrator to enable them: "
    "`sysctl -w user.max_user_namespaces=15000` (on Ubuntu 23.10 and later also "
    "`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; on Debian 10 and older "
    "`sysctl -w kernel.unprivileged_userns_clone=1`), made permanent in /etc/sysctl.d/; "
    "or grade as root")


def check_sandbox() -> str | None:
    """Why sandboxed kernels cannot start for this user on this machine, and the remedy;
    None if they can."""
    missing = [name for name in ("bwrap", "prlimit", "setpriv") if shutil.which(name) is None]
    if missing:
        return (f"{', '.join(missing)} not found on PATH. Remedy: install the Debian packages "
                "bubblewrap and util-linux (`make env` as root does it)")
    drop = [_tool("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    probe = [*(drop if privileged() else []), *_bwrap(mount_plan()), "--", sys.executable,
             "-c", "pass"]
    try:
        result = subprocess.run(probe, capture_output=True, text=True, timeout=30, env={})
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not run: {error}"
    if result.returncode == 0:
        return None
    error = result.stderr.strip() or f"exit code {result.returncode}"
    if "namespace" in error:
        return f"bubblewrap could not create its namespaces ({error}). {USERNS_REMEDY}"
    return (f"bubblewrap could not run {sys.executable} as an unprivileged user: {error} "
            "(is the environment outside /root and readable by every user?)")


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


def _process_uids() -> set[int]:
    """Real uids of all processes, zombies included (what RLIMIT_NPROC counts)."""
    uids = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as status:
                uids.update(int(line.split()[1]) for line in status if line.startswith("Uid:"))
        except OSError:  # the process has gone
            continue
    return uids


class UidLease:
    """An exclusive claim on one sandbox uid: an flock held until ``release``.

    Unlocked uids that still own processes (a killed fork bomb takes a moment to
    be reaped) are skipped, so a new kernel never inherits a full process count.
    """

    def __init__(self, lock_dir: str, uids: range) -> None:
        _ensure_private_dir(Path(lock_dir))
        busy = _process_uids()
        for uid in (uid for uid in uids if uid not in busy):
            fd = os.open(Path(lock_dir) / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW,
                         0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise RuntimeError(f"all sandbox uids {uids.start}-{uids.stop - 1} are in use")

    def release(self) -> None:
        os.close(self._fd)


def _private_dir(path: Path) -> bool:
    """Whether ``path`` is a directory (not a link) of ours that no one else may enter."""
    info = path.lstat()
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077


def _ensure_private_dir(path: Path) -> None:
    """Create ``path`` as a 0700 directory of ours, refusing one planted by someone else."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _private_dir(path):
        raise RuntimeError(f"{path} must be a directory owned by uid {os.geteuid()}, mode 0700")


def _chown(path: Path, uid: int | None) -> None:
    """Give ``path`` (never a link's target) to ``uid``; None leaves it ours."""
    if uid is not None:
        os.chown(path, uid, uid, follow_symlinks=False)


def _copy_tree(src: Path, dst: Path, uid: int | None, budget: list[int]) -> None:
    """Copy regular files and dirs (symlinks as links, never followed) owned by ``uid``."""
    dst.mkdir(mode=0o700)
    _chown(dst, uid)
    for entry in os.scandir(src):
        target = dst / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        elif entry.is_dir(follow_symlinks=False):
            _copy_tree(Path(entry.path), target, uid, budget)
        elif entry.is_file(follow_symlinks=False):
            budget[0] -= entry.stat(follow_symlinks=False).st_size
            if budget[0] < 0:
                raise RuntimeError(f"the kernel's working directory {src} is too large to copy "
                                   "(c.SandboxProvisioner.work_copy_limit, scratch_limit)")
            shutil.copyfile(entry.path, target, follow_symlinks=False)
        else:
            continue  # sockets, fifos, devices
        _chown(target, uid)


class Box:
    """One kernel's host-side dir: ipc sockets and connection file (always); scratch copy
    of the working dir and private kernel modules (sandboxed kernels only)."""

    def __init__(self) -> None:
        self.root = Path(os.path.realpath(private_dir("attnkit-k-")))
        self.root.chmod(0o711)  # a sandbox uid may traverse, not list
        self.work, self.sockets, self.lib = (self.root / n for n in ("work", "sock", "lib"))
        self.connection_file = self.root / "kernel.json"
        self.sockets.mkdir(mode=0o700)

    def fill(self, cwd: str | None, uid: int | None, copy_limit: int) -> None:
        """Hand the socket dir to ``uid`` (None: the kernel keeps ours); copy the working
        dir (if any) and the kernel modules."""
        _chown(self.sockets, uid)
        if cwd is None:  # never copy the grader's own cwd (it may be the course root)
            self.work.mkdir(mode=0o700)
            _chown(self.work, uid)
        else:
            _copy_tree(Path(cwd), self.work, uid, [copy_limit])
        package = self.lib / "attnkit"
        for pattern in KERNEL_MODULES:
            for source in PACKAGE.glob(pattern):
                target = package / source.relative_to(PACKAGE)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)

    def plan(self, scratch_size: int) -> list[list]:
        """Mount steps that bring this box into the sandbox: its copy of the working dir
        read-only, copied into a tmpfs of ``scratch_size`` bytes (nothing the kernel writes
        reaches the host's disk)."""
        return [["ro", str(self.lib), LIB_DIR], *scratch_plan(str(self.work), scratch_size),
                ["rw", str(self.sockets), str(self.sockets)],
                ["ro", str(self.connection_file), str(self.connection_file)]]

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _kernel_env(parent_env: Mapping[str, str]) -> dict[str, str]:
    """The complete environment of the sandboxed kernel."""
    # matplotlib's inline backend, as in Jupyter: the student's plots reach the feedback
    env = {"PATH": f"{sys.prefix}/bin:/usr/bin:/bin", "HOME": WORK_DIR, "LANG": "C.UTF-8",
           "MPLBACKEND": "module://matplotlib_inline.backend_inline",
           "MPLCONFIGDIR": "/tmp/matplotlib", "PYTHONPATH": LIB_DIR,
           "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1"}
    env.update({k: parent_env[k] for k in PASS_THROUGH_ENV if k in parent_env})
    return env


SHARED_ENV = "ATTNKIT_KERNEL_SERVER"  # the socket of the run's shared warm-kernel server
LISTEN_ENV = "ATTNKIT_KERNEL_SERVER_LISTEN"  # where a server listens (never on its command line)
TEMP_PREFIXES = ("attnkit-k-", "attnkit-ks-", "attnkit-ipc-", "attnkit-dask-")
MESSAGE = 1 << 20  # the longest request or answer, in bytes (as forkserver.py reads them)
ANSWER_TIMEOUT = 60.0  # seconds a worker waits for a kernel before it asks another server


def _connect_shared(path: str) -> socket.socket:
    """A connection to the run's server at ``path``, once it is known to be ours: the path
    is in a private directory of ours, and whoever answers has our uid. Anything else (the
    directory gone and planted again by another user) could hand us any process as a kernel
    to signal."""
    if not _private_dir(Path(path).parent):
        raise PermissionError(f"{Path(path).parent} is not a private directory of ours")
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        connection.connect(path)
        credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                            struct.calcsize("3i"))
        uid = struct.unpack("3i", credentials)[1]
        if uid != os.geteuid():
            raise PermissionError(f"{path} is served by uid {uid}, not ours")
    except OSError:
        connection.close()
        raise
    return connection


class Forkserver:
    """This process's warm-kernel server (``forkserver.py``): the run's shared one when
    ``$ATTNKIT_KERNEL_SERVER`` names its socket (``share``), else one of its own, started on
    first use, started again if it has died, stopped when this process exits."""

    _lock = threading.Lock()
    _own: subprocess.Popen | None = None  # a server this process started for itself
    _own_folder: Path | None = None  # its private folder
    _socket: socket.socket | None = None  # the connection its kernels are asked for on

    @classmethod
    def _launch(cls) -> tuple[subprocess.Popen, socket.socket, Path]:
        """Start a server of our own and wait until it serves; return it, our connection,
        which is its stdin (the server exits when it closes), and its private folder."""
        process, ours, folder = cls._spawn(listen=False)
        try:
            cls._await(process, ours)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return process, ours, folder

    @staticmethod
    def _spawn(listen: bool) -> tuple[subprocess.Popen, socket.socket, Path]:
        """Start a server, listening at ``socket`` in its private folder if ``listen``; it is
        ready once ``_await`` returns. The folder also holds matplotlib's cache."""
        sweep_stale()
        folder = private_dir("attnkit-ks-")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**_kernel_env({}), "MPLCONFIGDIR": str(folder / "mpl"),
               "PYDEVD_DISABLE_FILE_VALIDATION": "1"}  # debugpy's warning on import
        if listen:
            env[LISTEN_ENV] = str(folder / "socket")
        with theirs:
            process = subprocess.Popen(
                [sys.executable, "-I", "-P", str(Path(__file__).with_name("forkserver.py"))],
                stdin=theirs, env=env, cwd="/")
        return process, ours, folder

    @staticmethod
    def _await(process: subprocess.Popen, ours: socket.socket) -> None:
        if not ours.recv(MESSAGE):  # {"ready": pid} once the imports are done
            ours.close()
            raise RuntimeError(f"the warm-kernel server exited (code {process.wait()}); "
                               "its error is above")

    @classmethod
    def _connection(cls) -> socket.socket:
        if cls._socket is not None and (cls._own is None or cls._own.poll() is None):
            return cls._socket
        cls._drop()
        shared = os.environ.get(SHARED_ENV)
        if shared:
            try:
                cls._socket = _connect_shared(shared)
            except OSError as error:
                logging.getLogger(__name__).warning(
                    "the run's warm-kernel server (%s) is out of reach (%s): this process "
                    "starts its own", shared, error)
        if cls._socket is None:
            cls._own, cls._socket, cls._own_folder = cls._launch()
        cls._socket.settimeout(ANSWER_TIMEOUT)
        return cls._socket

    @classmethod
    def stop(cls) -> None:
        """Close this process's connection; a server of its own stops with it."""
        with cls._lock:
            cls._drop()

    @classmethod
    def _drop(cls) -> None:
        if cls._socket is not None:
            cls._socket.close()
        if cls._own is not None:
            cls._own.wait()
        if cls._own_folder is not None:
            shutil.rmtree(cls._own_folder, ignore_errors=True)
        cls._own = cls._socket = cls._own_folder = None

    @classmethod
    def start(cls) -> None:
        """Connect now (a server of our own imports for about 0.7 s of CPU), not on the
        first kernel."""
        with cls._lock:
            cls._connection()

    @classmethod
    def spawn(cls, request: Mapping[str, Any]) -> ForkedKernel:
        """Fork one sandboxed kernel. A server that has gone is replaced once: its kernels
        died with it, so asking again starts nothing twice."""
        message = json.dumps(request).encode()
        with cls._lock:
            for attempt in (1, 2):
                try:
                    connection = cls._connection()
                    connection.send(message)
                    reply, fds, _, _ = socket.recv_fds(connection, MESSAGE, 1)
                    if not reply:
                        raise ConnectionResetError("the warm-kernel server has gone")
                    break
                except OSError as error:
                    cls._drop()
                    if attempt == 2:
                        raise RuntimeError(
                            f"could not start a warm sandboxed kernel: {error}") from error
        answer = json.loads(reply)
        if "error" in answer:
            raise RuntimeError(f"could not start a warm sandboxed kernel: {answer['error']}")
        return ForkedKernel(answer["pid"], fds[0])

    @classmethod
    @contextlib.contextmanager
    def share(cls, ready: bool = True) -> Iterator[Callable[[], None]]:
        """Run one server for every process that starts while this lasts (the grading
        workers inherit ``$ATTNKIT_KERNEL_SERVER``): its imports are paid and held in memory
        once, not once per worker (about 0.7 CPU-s and 60 MB each). It listens in a private
        (0700) directory and refuses callers of another uid or from a sandbox.

        Yields the function that waits until the server serves. With ``ready=False`` it is
        not called on entry, so the caller can start its workers while the server imports
        (about 0.5 s), and calls it before any of them asks for a kernel."""
        process, owner, folder = cls._spawn(listen=True)
        path = str(folder / "socket")
        before = os.environ.get(SHARED_ENV)
        os.environ[SHARED_ENV] = path

        @functools.cache  # its one message is read once
        def serving() -> None:
            cls._await(process, owner)

        try:
            if ready:
                serving()
            yield serving
        finally:
            if before is None:
                os.environ.pop(SHARED_ENV, None)
            else:
                os.environ[SHARED_ENV] = before
            cls.stop()  # our connection to it, or a server of our own started after it
            owner.close()
            process.wait()
            shutil.rmtree(folder, ignore_errors=True)


def private_dir(prefix: str) -> Path:
    """A private (0700) temporary folder named after this process, so that one left behind
    by a process killed outright is removed by the next (``sweep_stale``)."""
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


def sweep_stale() -> None:
    """Remove this account's ``private_dir`` folders whose process has gone."""
    with os.scandir(tempfile.gettempdir()) as entries:
        for entry in entries:
            prefix = next((p for p in TEMP_PREFIXES if entry.name.startswith(p)), "")
            pid = entry.name[len(prefix):].split("-", 1)[0]
            if not prefix or not pid.isdigit() or _alive(int(pid)):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if info.st_uid == os.geteuid() and stat.S_ISDIR(info.st_mode):
                    shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another account's
        return True
    return True


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


class ForkedKernel:
    """A Popen-like handle on a kernel forked by the forkserver (not our child, so it is
    watched through a pidfd; its exit code is not ours to read). Hook ``warm_kernels`` of
    ``attnkit.upstream``: LocalProvisioner drives it as if it were its own Popen."""

    stdin = stdout = stderr = None
    EXITED = -1  # the code reported for a kernel that has exited

    def __init__(self, pid: int, pidfd: int) -> None:
        self.pid, self.returncode = pid, None
        self._fd: int | None = pidfd

    def _exited(self, timeout: float | None) -> None:
        """Note the exit if it happens within ``timeout`` seconds (None: wait for it)."""
        if self._fd is not None and select.select([self._fd], [], [], timeout)[0]:
            os.close(self._fd)
            self._fd, self.returncode = None, self.EXITED

    def poll(self) -> int | None:
        self._exited(0)
        return self.returncode

    def wait(self) -> int | None:
        self._exited(None)
        return self.returncode

    async def exited(self) -> None:
        """Return once the kernel has exited (jupyter_client would poll every 0.1 s)."""
        if self._fd is None:
            return
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        loop.add_reader(self._fd, lambda: done.done() or done.set_result(None))
        try:
            await done
        finally:
            loop.remove_reader(self._fd)
        self._exited(0)

    def send_signal(self, signum: int) -> None:
        if self._fd is not None:
            signal.pidfd_send_signal(self._fd, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


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
                      "of bubblewrap); ~1.5 s less per kernel").tag(config=True)
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
        _chown(self._box.connection_file, self._uid)
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
            _tool("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
        limits = [_tool("prlimit"), *(f"--{k}={v}" for k, v in self._limits().items()), "--"]
        env = [a for k, v in _kernel_env(parent_env).items() for a in ("--setenv", k, v)]
        return [*drop, *_bwrap(self._plan()), "--remount-ro", "/", "--remount-ro", "/dev",
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
                "uid": self._uid, "env": _kernel_env(parent_env),
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

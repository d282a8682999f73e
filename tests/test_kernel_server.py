"""The warm-kernel server a grading run shares (``Forkserver.share``), attacked and broken.

It forks sandboxed kernels for whoever connects, with the mounts and uid they ask for: a
caller of another uid must never reach it. A worker that dies takes its kernels with it, and
a server that dies is replaced. Runs as root and, through tests/test_unprivileged.py, as an
ordinary instructor (the tests marked ``root`` switch users, so run as root only)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from jupyter_client import BlockingKernelClient, KernelManager

from attnkit.sandbox import SHARED_ENV, Forkserver, check_sandbox, install_kernelspec
from attnkit.sandbox import provisioner as sandbox_provisioner

pytestmark = pytest.mark.kernel
NOBODY = 65534
WARM = "attnkit-sandbox-warm"
# What an attacker asks the server for: a kernel that sees the host's / writable.
ESCAPE = {"root": "/tmp/escape-root", "plan": [["rw", "/", "/host"]], "cwd": "/", "uid": None,
          "env": {}, "path": [], "connection_file": "/tmp/escape.json", "argv": [],
          "log": "/tmp/escape.log", "limits": {}}
ATTACK = f"""
import json, socket
def escape(address):
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        connection.connect(address)
    except OSError as error:
        return "refused: " + type(error).__name__
    try:
        connection.send(json.dumps({ESCAPE!r}).encode())
        return "answer: " + (connection.recv(1 << 20).decode() or "none (closed)")
    except OSError as error:
        return "answer: none " + type(error).__name__
"""
REACH = """
def reach(address):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(address)
    except OSError as error:
        return type(error).__name__
    return "connected"
"""

# Another user who has planted the run's socket path (its directory gone, say, to a /tmp
# cleaner): it answers every request with a pidfd of the victim, for the worker to kill.
IMPOSTOR = """
import json, os, socket, sys
folder, victim = sys.argv[1], int(sys.argv[2])
listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
listener.bind(os.path.join(folder, "socket"))
os.chmod(os.path.join(folder, "socket"), 0o777)
listener.listen(8)
print("listening", flush=True)
while True:
    connection = listener.accept()[0]
    connection.recv(1 << 20)
    socket.send_fds(connection, [json.dumps({"pid": victim}).encode()], [os.pidfd_open(victim)])
"""


@pytest.fixture(scope="module", autouse=True)
def warm_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A kernelspec forked warm, on JUPYTER_PATH."""
    assert check_sandbox() is None, f"the sandbox cannot start (run `make env`): " \
        f"{check_sandbox()}"
    prefix = tmp_path_factory.mktemp("prefix")
    install_kernelspec(str(prefix), name=WARM, config={"warm_start": True})
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
        yield


def servers() -> list[psutil.Process]:
    """The warm-kernel servers this process started (not the kernels forked from them)."""
    return [proc for proc in psutil.Process().children() if is_server(proc)]


def is_server(proc: psutil.Process) -> bool:
    """A child that has exited (a zombie not yet reaped, or gone) is no server."""
    try:
        return any(arg.endswith("forkserver.py") for arg in proc.cmdline())
    except (psutil.ZombieProcess, psutil.NoSuchProcess):
        return False


@contextlib.contextmanager
def kernel() -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    km = KernelManager(kernel_name=WARM, transport="ipc")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=30)
        yield km, kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def answer(kc: BlockingKernelClient, expr: str) -> object:
    out: list[str] = []
    kc.execute_interactive(f"import json, os, socket\nprint(json.dumps({expr}))",
                           output_hook=lambda msg: out.append(msg["content"].get("text", "")),
                           timeout=30)
    return json.loads("".join(out))


def attack(path: str) -> str:
    """Run the attack as uid 65534 (nobody): what it got."""
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    result = subprocess.run([*drop, sys.executable, "-I", "-c",
                             ATTACK + "import sys\nprint(escape(sys.argv[1]))", path],
                            capture_output=True, text=True, timeout=60, cwd="/")
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.root
def test_another_user_cannot_reach_the_server() -> None:
    with Forkserver.share():
        path = os.environ[SHARED_ENV]
        assert attack(path) == "refused: PermissionError"
    assert not Path(path).parent.exists()


@pytest.mark.root
def test_the_server_refuses_another_uid_even_through_an_open_directory(
        capfd: pytest.CaptureFixture) -> None:
    """Should the private directory be opened up (an administrator's chmod), the server
    still serves only its own uid: it would build the attacker's mounts as root."""
    with Forkserver.share():
        path = Path(os.environ[SHARED_ENV])
        path.parent.chmod(0o755)
        path.chmod(0o777)
        assert attack(str(path)).startswith("answer: none")
    assert f"refused a caller of uid {NOBODY}" in capfd.readouterr().err


@pytest.mark.root
def test_a_worker_refuses_a_server_planted_by_another_user(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """First in a directory of the attacker's, then in one that looks like ours (0700, our
    uid): whoever answers must have our uid. The worker starts a server of its own instead."""
    folder = Path(tempfile.mkdtemp(prefix="attnkit-ks-"))
    os.chown(folder, NOBODY, NOBODY)
    victim = subprocess.Popen(["sleep", "600"])
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    impostor = subprocess.Popen([*drop, sys.executable, "-I", "-c", IMPOSTOR, str(folder),
                                 str(victim.pid)], stdout=subprocess.PIPE, text=True)
    try:
        assert impostor.stdout is not None and impostor.stdout.readline() == "listening\n"
        monkeypatch.setenv(SHARED_ENV, str(folder / "socket"))
        for planted in ("its directory", "our directory"):
            if planted == "our directory":
                os.chown(folder, 0, 0)
                folder.chmod(0o700)
            Forkserver.stop()
            caplog.clear()
            with kernel() as (_, kc):
                assert answer(kc, "6 * 7") == 42, planted
            assert victim.poll() is None, f"the worker killed the victim ({planted})"
            assert "starts its own" in caplog.text, planted
        assert "served by uid 65534" in caplog.text
    finally:
        Forkserver.stop()
        impostor.kill()
        victim.kill()
        shutil.rmtree(folder)


def test_a_run_starts_its_workers_while_the_server_imports() -> None:
    """``share(ready=False)`` returns while the server still imports, so the run starts its
    workers meanwhile; it serves, once and for all, after ``serving()``."""
    with Forkserver.share(ready=False) as serving:
        path = Path(os.environ[SHARED_ENV])  # what the workers inherit
        assert not path.exists()  # the server binds it only after its imports
        serving()
        serving()
        assert path.is_socket()
        with kernel() as (_, kc):
            assert answer(kc, "6 * 7") == 42
        assert len(servers()) == 1


def test_a_kernels_first_traceback_finds_its_formatter_loaded() -> None:
    """The server formatted a traceback before it forked: what IPython loads for a failing
    cell's traceback is already in every kernel, and the traceback is the shell's usual."""
    with Forkserver.share(), kernel() as (_, kc):
        assert answer(kc, "[m for m in ('stack_data', 'pygments.lexers.python') "
                          "if m not in __import__('sys').modules]") == []
        reply = kc.execute_interactive("assert False, 'the first failure'", timeout=30)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["evalue"] == "the first failure"


def test_the_oom_killer_takes_a_kernel_before_the_server() -> None:
    """Every kernel of a run dies with the shared server: a memory bomb must not take it."""
    with Forkserver.share(), kernel() as (_, kc):
        assert answer(kc, "open('/proc/self/oom_score_adj').read().strip()") == "1000"
        (server,) = servers()
        assert Path(f"/proc/{server.pid}/oom_score_adj").read_text().strip() != "1000"


def test_a_kernel_cannot_reach_the_server() -> None:
    """A kernel runs as the server's uid when the instructor is not root: only the sandbox's
    own filesystem keeps it from the socket."""
    with Forkserver.share(), kernel() as (_, kc):
        path = os.environ[SHARED_ENV]
        assert answer(kc, f"os.environ.get({SHARED_ENV!r})") is None
        assert answer(kc, f"os.path.exists({os.path.dirname(path)!r})") is False
        kc.execute_interactive(REACH, timeout=30)
        assert answer(kc, f"reach({path!r})") == "FileNotFoundError"


def test_a_kernel_that_sees_the_socket_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                  capfd: pytest.CaptureFixture) -> None:
    """Should the socket's directory lie inside a path every sandbox sees (a TMPDIR inside
    the instructor's own environment, say), a kernel of the instructor's uid could connect
    and ask for any mounts: the server refuses a caller in another namespace, as every
    kernel is. (As root, the kernel's own uid cannot enter the directory.)"""
    with Forkserver.share():
        path = os.environ[SHARED_ENV]
        folder = os.path.dirname(path)
        plan = sandbox_provisioner.mount_plan  # the name SandboxProvisioner reads
        monkeypatch.setattr(sandbox_provisioner, "mount_plan",
                            lambda *args: [*plan(*args), ["ro", folder, folder]])
        with kernel() as (_, kc):
            kc.execute_interactive(ATTACK, timeout=30)
            got = answer(kc, f"escape({path!r})")
        assert got == "refused: PermissionError" or got.startswith("answer: none"), got
    if got.startswith("answer"):  # it connected: the server itself refused it
        assert "refused a sandboxed caller" in capfd.readouterr().err


WORKER = """
import os, signal
from jupyter_client import KernelManager
km = KernelManager(kernel_name=%r, transport="ipc")
km.start_kernel()
print(km.provisioner.process.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # no shutdown: as a worker killed mid-grading
"""


def test_a_worker_that_dies_takes_its_kernels_with_it() -> None:
    with Forkserver.share():
        worker = subprocess.run([sys.executable, "-c", WORKER % WARM], capture_output=True,
                                text=True, timeout=120)
        assert worker.returncode == -signal.SIGKILL, worker.stderr[-2000:]
        with contextlib.suppress(ProcessLookupError):  # gone, and reaped by the server already
            pidfd = os.pidfd_open(int(worker.stdout))
            try:
                assert select.select([pidfd], [], [], 10)[0], "the worker's kernel outlived it"
            finally:
                os.close(pidfd)
        assert len(servers()) == 1, "the server serves on"


def test_a_server_that_has_gone_is_replaced(caplog: pytest.LogCaptureFixture) -> None:
    with Forkserver.share():
        with kernel() as (km, kc):
            assert answer(kc, "6 * 7") == 42
            (shared,) = servers()
            shared.kill()
            shared.wait(10)
            deadline = time.monotonic() + 10
            while km.is_alive() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not km.is_alive(), "its kernels die with it"
        with kernel() as (_, kc):  # this process starts its own server
            assert answer(kc, "6 * 7") == 42
        assert "starts its own" in caplog.text
        assert [proc.pid for proc in servers()] != [shared.pid]
    assert servers() == [], "the server of its own went with the shared one's run"


PEEK = """
def peek(path):
    try:
        with open(path, "rb") as fh:
            return fh.read(1 << 16).decode("latin-1")
    except OSError as error:
        return "denied: " + type(error).__name__

def heap(pid):
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
        heap = [m for m in maps if "[heap]" in m][0]
        start, end = (int(x, 16) for x in heap.split()[0].split("-"))
        with open(f"/proc/{pid}/mem", "rb") as mem:
            mem.seek(start)
            return mem.read(min(end - start, 1 << 20)).decode("latin-1")
    except (OSError, IndexError) as error:
        return "denied: " + type(error).__name__
"""


def test_pid_one_shows_nothing_of_the_server() -> None:
    """The kernel's pid 1 (the sandbox's init) is a fork of the run's server: neither its
    command line nor its environment shows the socket's path, and its memory, where earlier
    requests (other students' kernels) linger, is not the kernel's to read."""
    with Forkserver.share(), kernel() as (_, kc):
        folder = os.path.dirname(os.environ[SHARED_ENV])
        with kernel():  # an earlier request, someone else's
            pass
        kc.execute_interactive(PEEK, timeout=30)
        cmdline = answer(kc, "peek('/proc/1/cmdline')")
        assert folder not in cmdline, cmdline
        assert answer(kc, "peek('/proc/1/environ')").startswith("denied"), (
            answer(kc, "peek('/proc/1/environ')")[:300])
        for path in ("/proc/1/maps", "/proc/1/mem"):
            assert answer(kc, f"peek({path!r})").startswith("denied"), path
        assert answer(kc, "heap(1)").startswith("denied")


def test_temporary_folders_of_a_killed_run_are_removed_by_the_next() -> None:
    """A run killed outright (SIGKILL) cannot clean up: the next run removes what it left,
    and nothing of a run that ends normally remains."""
    script = ("import os, signal, sys\nfrom attnkit.sandbox import Forkserver\n"
              "with Forkserver.share():\n    print(os.environ['ATTNKIT_KERNEL_SERVER'], "
              "os.getpid(), flush=True)\n    os.kill(os.getpid(), signal.SIGKILL)\n")
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    socket_path, pid = killed.stdout.split()
    left = Path(socket_path).parent
    assert left.is_dir(), "the killed run left nothing: the test would prove nothing"
    with Forkserver.share():
        assert not left.exists(), f"{left} survived the next run's start"
    assert not list(Path(tempfile.gettempdir()).glob(f"attnkit-*-{pid}-*"))

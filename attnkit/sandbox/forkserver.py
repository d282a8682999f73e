"""Warm sandboxed kernels: a process that has imported the kernel's libraries once and
forks one sandboxed kernel per request.

A fresh sandboxed kernel spends most of its start importing ipykernel, numpy and
matplotlib before it runs the first line of a notebook. This server pays that once, then, for
each request (a JSON message on a Unix seqpacket socket), forks::

    outer   (our child)       unshare mount, pid, net, ipc and uts namespaces (and the
                              user namespace, unless we are root); wait
    init    (pid 1 inside)    build the root (the same mount plan as bubblewrap's),
                              chroot, rlimits, drop to the kernel's uid (as root) or
                              drop every capability (in a user namespace); reap
    kernel  (pid 2)           clean environment, then ipykernel on the connection file

and answers with the outer pid and a pidfd of it (SCM_RIGHTS), through which the client
watches and signals the kernel. Killing the outer process kills init, and with it every
process in the kernel's pid namespace.

Its owner's connection is its stdin (one end of a socketpair); when it closes (the owner has
gone) the server exits and its kernels follow it. Given a path (in the environment, as
``$ATTNKIT_KERNEL_SERVER_LISTEN``: a command line is for every account to read) it also
listens there, so that every grading worker of a run shares one server: the path's
directory is private (0700), and a caller of another uid, or in another mount or network
namespace (a sandboxed kernel), is refused (``SO_PEERCRED``). When a caller's connection
closes (its worker has gone), its kernels are killed.

It runs as a script (``python -I -P forkserver.py``: its own dir, the ``attnkit``
package, is not on the path), so the kernel's memory holds nothing of the grader. Its one
sibling, ``rootfs.py`` (the sandbox's root), it loads from its file.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import importlib.util
import json
import os
import resource
import select
import selectors
import shutil
import signal
import socket
import struct
import sys
import traceback
import types

import ipykernel.kernelapp
import numpy

# What a kernel imports before and while it starts, and what every notebook imports first
# (measured with python -X importtime): most of every cold start.
PRELOAD = ("matplotlib.pyplot", "matplotlib.backends.backend_agg", "IPython",
           "IPython.core.oinspect", "IPython.core.completerlib", "ipykernel.ipkernel",
           "ipykernel.debugger", "psutil", "pdb", "sqlite3")
for _module in PRELOAD:
    importlib.import_module(_module)


def _format_one_traceback() -> None:
    """Format a traceback as the kernel's shell formats a failing cell's: the first one in a
    process imports stack_data, executing and pygments, which every kernel forked from here
    then finds loaded."""
    from IPython.core import ultratb

    try:
        raise AssertionError("warm-up")
    except AssertionError:
        ultratb.AutoFormattedTB(mode="Context", tb_offset=1).structured_traceback(
            *sys.exc_info())


with contextlib.suppress(Exception):  # only a head start: an IPython it fails on loses nothing
    _format_one_traceback()

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LIMITS = {"cpu": resource.RLIMIT_CPU, "as": resource.RLIMIT_AS,
          "fsize": resource.RLIMIT_FSIZE, "nproc": resource.RLIMIT_NPROC}
SETUP_FAILED = 70  # exit code of an init whose sandbox could not be built
LISTEN_ENV = "ATTNKIT_KERNEL_SERVER_LISTEN"  # as attnkit.sandbox.client names it


def _sibling(name: str) -> types.ModuleType:
    """Our sibling module ``name``, loaded from its file. Not imported as part of
    ``attnkit``: that package in ``sys.modules`` would hide the kernel's private copy of it
    (``attnkit.probe`` in ``/opt/attnkit``) from every kernel forked from here."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_attnkit_forkserver_{name}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_rootfs = _sibling("rootfs")  # the sandbox's root, built from the mount plan
_libc, _call, build_root = _rootfs.libc, _rootfs.call, _rootfs.build_root


def _die_with_parent() -> None:
    _call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


# -- one kernel ------------------------------------------------------------------------------

def _enter(request: dict, outer_alive: int) -> None:
    """As init of the new namespaces: build the root, enter it, drop to the uid, fill the
    working dir, then limit.
    ``outer_alive``: a pipe's read end, at EOF once the outer process has gone."""
    uid = request["uid"]
    owner = (os.getuid(), os.getgid()) if uid is None else (uid, uid)
    build_root(request["root"], request["plan"], owner)
    os.chroot(request["root"])
    os.chdir(request["cwd"])
    if uid is None:  # in our own user namespace: keep the uid, give up every capability
        _drop_capabilities()
    else:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # all three non-zero: every capability is dropped
    if request.get("seed"):  # the submission's copy, into the working dir's tmpfs (as `cp -a`)
        shutil.copytree(request["seed"], ".", symlinks=True, dirs_exist_ok=True)
    for name, value in request["limits"].items():  # after the copy, as bubblewrap's kernels
        resource.setrlimit(LIMITS[name], (value, value))
    _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _call("prctl", PR_SET_DUMPABLE, 1, 0, 0, 0)  # /proc/self readable, as after an exec
    _die_with_parent()  # again: changing uid cleared it
    if select.select([outer_alive], [], [], 0)[0]:  # the outer died before that: so do we
        raise RuntimeError("the kernel was stopped while it started")
    os.close(outer_alive)


def _drop_capabilities() -> None:
    """Empty the bounding, ambient, effective, permitted and inheritable sets: the caps a
    new user namespace grants would otherwise let the kernel undo its mounts or chroot."""
    _call("prctl", PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    cap = 0
    while _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:  # EINVAL past the last one
        cap += 1
    header = (ctypes.c_uint32 * 2)(LINUX_CAPABILITY_VERSION_3, 0)
    _call("capset", header, (ctypes.c_uint32 * 6)())


def _enter_user_namespace(uid: int, gid: int) -> None:
    """Map our own uid and gid, and nothing else, into the user namespace we just made."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as mapping:
            mapping.write(text)


def _run_kernel(request: dict) -> None:
    """Become the kernel, as a fresh interpreter would be."""
    _die_with_parent()
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[:0] = request["path"]
    sys.argv = ["ipykernel_launcher", "-f", request["connection_file"], *request["argv"]]
    numpy.random.seed()  # not the server's state: every kernel draws its own
    ipykernel.kernelapp.IPKernelApp.launch_instance(argv=sys.argv[1:])


def _reap_until(pid: int) -> int:
    """As init: reap every orphan until ``pid`` exits; return its exit code."""
    while True:
        child, status = os.wait()
        if child == pid:
            return os.waitstatus_to_exitcode(status)


def _init(request: dict, report: int, outer_alive: int) -> int:
    # a session of its own, as bwrap's --new-session gives the cold kernels: no controlling
    # terminal to inject keystrokes into, and its own scheduler autogroup, which the grader
    # lowers when the kernel runs long (attnkit.pipeline.preprocessors.ResilientExecute)
    os.setsid()
    try:
        _enter(request, outer_alive)
    except BaseException:
        os.write(report, traceback.format_exc(limit=3).encode())
        return SETUP_FAILED
    kernel = os.fork()
    if kernel == 0:
        os.close(report)
        _run_kernel(request)
        return 0
    # the kernel's pid 1 is a fork of this server: its memory (earlier requests) and its
    # environment are no business of the kernel's (owned by root once not dumpable)
    _call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)
    os.write(report, b"ok")
    os.close(report)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda signum, _: os.kill(kernel, signum))
    return _reap_until(kernel)


def _outer(request: dict, report: int, server: int) -> int:
    """Our child: new namespaces, then wait for their init (pid 1 inside)."""
    _die_with_parent()
    if os.getppid() != server:  # the server died before that was armed: no orphan kernels
        return SETUP_FAILED
    # the kernel, not the server every kernel dies with, is what the OOM killer takes first
    with open("/proc/self/oom_score_adj", "w") as badness:
        badness.write("1000")
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.dup2(report, 3)
    os.closerange(4, os.sysconf("SC_OPEN_MAX"))
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    own = request["uid"] is None  # not root: the namespaces need a user namespace of ours
    uid, gid = os.geteuid(), os.getegid()
    try:
        _call("unshare", flags | (CLONE_NEWUSER if own else 0))
        if own:
            _enter_user_namespace(uid, gid)
    except OSError:
        os.write(3, traceback.format_exc(limit=1).encode())
        return SETUP_FAILED
    outer_alive, alive = os.pipe()  # the write end stays open as long as we live
    init = os.fork()
    if init == 0:
        _die_with_parent()
        os.close(alive)
        os._exit(_init(request, 3, outer_alive))
    os.close(outer_alive)
    os.close(3)
    signal.signal(signal.SIGTERM, lambda *_: os.kill(init, signal.SIGKILL))
    signal.signal(signal.SIGINT, lambda *_: os.kill(init, signal.SIGINT))
    return os.waitstatus_to_exitcode(os.waitpid(init, 0)[1])


MESSAGE = 1 << 20  # the longest request or answer, in bytes
SO_PEERPIDFD = 77  # Linux 6.5+: a pidfd of the process that connected (not in socket 3.11)


def spawn(request: dict) -> tuple[dict, int | None]:
    """Fork one sandboxed kernel; return its outer pid and a pidfd of it, or why it could
    not start."""
    read, write = os.pipe()
    server = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        code = 1
        try:
            code = _outer(request, write, server)
        finally:
            os._exit(code)
    os.close(write)
    pidfd = os.pidfd_open(pid)  # our child, unreaped until its pidfd says it has exited
    with os.fdopen(read, "rb") as status:
        message = status.read().decode(errors="replace")
    if message == "ok":
        return {"pid": pid}, pidfd
    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(pidfd)
    return {"error": message.strip() or "the kernel's sandbox exited during setup"}, None


def peer(connection: socket.socket) -> tuple[int, int]:
    """The pid and uid of the process that connected (``SO_PEERCRED``)."""
    creds = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _ = struct.unpack("3i", creds)
    return pid, uid


def in_our_namespaces(connection: socket.socket, pid: int) -> bool:
    """Whether the process that connected (``pid``) shares our mount and network namespaces,
    which no sandboxed kernel does (False if that cannot be read). Through a pidfd of that
    very process where the kernel gives one: alive after the check, it held ``pid``
    throughout, so a pid reused meanwhile cannot pass for it."""
    try:
        pidfd = connection.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD)
    except OSError:  # Linux before 6.5: the pid alone
        pidfd = None
    try:
        same = all(os.stat(f"/proc/{pid}/ns/{ns}")[1:3] == os.stat(f"/proc/self/ns/{ns}")[1:3]
                   for ns in ("mnt", "net"))
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, 0)  # ProcessLookupError once it has gone
        return same
    except OSError:
        return False
    finally:
        if pidfd is not None:
            os.close(pidfd)


class Server:
    """The request loop: the owner's connection, the listening socket (if any), each
    caller's connection and each kernel's pidfd, in one selector."""

    def __init__(self, owner: socket.socket, listener: socket.socket | None) -> None:
        self.selector = selectors.DefaultSelector()
        self.owner = owner
        self.callers: dict[int, socket.socket] = {}  # a kernel's pidfd -> who asked for it
        self._watch(owner)
        if listener is not None:
            self.selector.register(listener, selectors.EVENT_READ,
                                   lambda: self._accept(listener))

    def _watch(self, connection: socket.socket) -> None:
        self.selector.register(connection, selectors.EVENT_READ,
                               lambda: self._request(connection))

    def _accept(self, listener: socket.socket) -> None:
        try:
            connection = listener.accept()[0]
        except OSError:  # the caller gave up before we got to it
            return
        pid, uid = peer(connection)
        # the private directory should have stopped both already; a kernel of our uid (an
        # instructor who is not root) reaches the socket only if a sandbox can see its path
        refusal = (f"a caller of uid {uid}" if uid != os.geteuid() else
                   None if in_our_namespaces(connection, pid) else
                   f"a sandboxed caller (pid {pid})")
        if refusal:
            print(f"warm-kernel server: refused {refusal}", file=sys.stderr)
            connection.close()
            return
        self._watch(connection)

    def _request(self, connection: socket.socket) -> None:
        try:
            data = connection.recv(MESSAGE)
        except OSError:  # reset: the caller has gone
            data = b""
        if not data:
            self._hang_up(connection)
            return
        pidfd = None
        try:
            answer, pidfd = spawn(json.loads(data))
        except Exception as error:  # noqa: BLE001 - the caller gets every failure as text
            answer = {"error": f"{type(error).__name__}: {error}"}
        try:
            socket.send_fds(connection, [json.dumps(answer).encode()],
                            [] if pidfd is None else [pidfd])
        except OSError:  # the caller has gone; its kernel goes with it
            if pidfd is not None:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        if pidfd is not None:
            self.callers[pidfd] = connection
            self.selector.register(pidfd, selectors.EVENT_READ,
                                   lambda: self._reap(pidfd, answer["pid"]))

    def _reap(self, pidfd: int, pid: int) -> None:
        """A kernel's outer process has exited."""
        del self.callers[pidfd]
        self.selector.unregister(pidfd)
        os.close(pidfd)
        os.waitpid(pid, 0)

    def _hang_up(self, connection: socket.socket) -> None:
        """The caller has gone: so do its kernels (reaped once their pidfds say so)."""
        if connection is self.owner:
            raise SystemExit(0)
        self.selector.unregister(connection)
        connection.close()
        for pidfd, caller in self.callers.items():
            if caller is connection:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)

    def run(self) -> None:
        while True:
            for key, _ in self.selector.select():
                key.data()


def main() -> None:
    owner = socket.socket(fileno=0)
    os.dup2(2, 1)  # stray prints from the libraries go to stderr, not to a caller
    listener = None
    listen = os.environ.pop(LISTEN_ENV, None)  # not in argv: /proc/*/cmdline is for all to see
    if listen:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(listen)
        listener.listen(64)
    owner.send(json.dumps({"ready": os.getpid()}).encode())
    Server(owner, listener).run()


if __name__ == "__main__":
    main()

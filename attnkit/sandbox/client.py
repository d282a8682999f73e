"""This process's side of the warm-kernel server (``forkserver.py``): the connection a
grading process asks it for kernels on, the run's shared server it starts for all its
workers (``Forkserver.share``), and the Popen-like handle on each kernel it forks.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from attnkit.sandbox.bwrap import kernel_env
from attnkit.sandbox.folders import is_private_dir, private_dir, sweep_stale

log = logging.getLogger(__package__)  # the sandbox's one logger, as the service's log names it

SHARED_ENV = "ATTNKIT_KERNEL_SERVER"  # the socket of the run's shared warm-kernel server
LISTEN_ENV = "ATTNKIT_KERNEL_SERVER_LISTEN"  # where a server listens (never on its command line)
MESSAGE = 1 << 20  # the longest request or answer, in bytes (as forkserver.py reads them)
ANSWER_TIMEOUT = 60.0  # seconds a worker waits for a kernel before it asks another server


def _connect_shared(path: str) -> socket.socket:
    """A connection to the run's server at ``path``, once it is known to be ours: the path
    is in a private directory of ours, and whoever answers has our uid. Anything else (the
    directory gone and planted again by another user) could hand us any process as a kernel
    to signal."""
    if not is_private_dir(Path(path).parent):
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
        env = {**kernel_env({}), "MPLCONFIGDIR": str(folder / "mpl"),
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
                log.warning(
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
        """Connect now (a server of our own starts by importing), not on the first
        kernel."""
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
        once, not once per worker. It listens in a private
        (0700) directory and refuses callers of another uid or from a sandbox.

        Yields the function that waits until the server serves. With ``ready=False`` it is
        not called on entry, so the caller can start its workers while the server imports,
        and calls it before any of them asks for a kernel."""
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


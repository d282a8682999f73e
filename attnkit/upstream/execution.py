"""Hooks ``kernel_retry`` and ``prompt_client``: how the kit's grading processes start
kernels and wait for them (see ``HOOKS``)."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import time

import zmq
from jupyter_client.asynchronous import AsyncKernelClient

KERNEL_START_ATTEMPTS = 3
TRANSIENT_START_ERRORS = (RuntimeError, TimeoutError, OSError, zmq.ZMQError)


class KernelStart:
    """Mixin for nbgrader's ``Execute``: a kernel that fails to start is started again, and
    its stdout (startup banners, stray prints) does not reach the terminal."""

    def start_new_kernel(self, **kwargs) -> None:
        kwargs = {"stdout": subprocess.DEVNULL, **kwargs}
        for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
            try:
                super().start_new_kernel(**kwargs)
                super().start_new_kernel_client()
                return
            except TRANSIENT_START_ERRORS as error:
                if attempt == KERNEL_START_ATTEMPTS:
                    raise
                self.log.warning("Kernel failed to start (%s: %s); attempt %d of %d",
                                 type(error).__name__, error, attempt + 1, KERNEL_START_ATTEMPTS)
                if self.km is not None:
                    with contextlib.suppress(Exception):
                        self._cleanup_kernel()
                time.sleep(attempt)
                self.km = self.create_kernel_manager()


class PromptClient(AsyncKernelClient):
    """A kernel client that is ready as soon as the kernel answers ``kernel_info`` with its
    IOPub connected. jupyter_client then also waits for IOPub to stay silent for 0.2 s, idle
    time on every notebook; nbclient ignores IOPub messages that answer other requests."""

    def start_channels(self, *args, **kwargs) -> None:
        # The kernel binds its sockets shortly after launch: retry the connection every
        # 10 ms rather than ZMQ's 100 ms.
        self.context.setsockopt(zmq.RECONNECT_IVL, 10)
        super().start_channels(*args, **kwargs)

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            self.kernel_info()
            with contextlib.suppress(queue.Empty):
                reply = await self.shell_channel.get_msg(timeout=1)
                if reply["msg_type"] == "kernel_info_reply":
                    await self.iopub_channel.get_msg(timeout=0.2)  # IOPub is connected
                    self._handle_kernel_info_reply(reply)
                    return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")


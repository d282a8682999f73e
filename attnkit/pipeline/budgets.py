"""Budgets per notebook, so that one hand-in cannot hold a grading worker for long or fill its
memory: a wall-clock budget for all of a notebook's cells together (the per-cell timeout alone
lets every cell run just under it), and a limit on the size of any message its kernel sends.

The message limit is ZMQ's own (``ZMQ_MAXMSGSIZE`` on the grader's receiving sockets): a frame
over it is refused from its length header, before anything is allocated, and the kernel's
connection is cut. No code in the kernel can undo it. The kernel's own, friendlier cap on
printing (``attnkit.outstream``, switched on by the sandbox) keeps ordinary huge prints under
it, with a note in the output.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

import zmq
from nbclient.exceptions import DeadKernelError
from nbclient.util import ensure_async, run_sync
from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.preprocessors import Execute
from traitlets import Float, Integer, default

from attnkit.kernel.probe import MIME
from attnkit.sandbox import OUTPUT_LIMIT_ENV

OUT_OF_TIME = "OutOfTime"  # ename of a cell not run because the notebook's budget was spent
NOT_RUN = ("this cell was not run: the notebook had used up its time budget of {seconds:g} s "
           "(all its cells together) before it; a long sleep or a slow loop in an earlier "
           "cell?")
SPENT = ("[grading note] this cell was stopped when the notebook's time budget of {seconds:g} s "
         "(all its cells together) ran out\n")
OUTPUT_CUT = ("output cut: this cell sent the grader a single output of more than {size} (a "
              "huge print or display?), so the grader cut off its kernel; the cells after it "
              "were run in a new kernel")


DROPPED = ("[output cut: this notebook's output passed its budget of {size} (every cell's "
           "output together); what it printed or displayed after that was dropped]\n")
KEPT_ERROR = 2000  # characters of an error's value and of each traceback line kept past it


class OutputCut(Exception):
    """The grader refused a message over its size limit and the kernel's connection is gone."""


class CappedClient:
    """Mixin for a jupyter_client kernel client: its sockets refuse any message frame over
    ``max_message`` bytes, and ``cut_off`` says whether one has been refused since the last
    call (ZMQ reports it as the connection dropped, and does not reconnect)."""

    max_message = 0

    @default("context")
    def _context_default(self) -> zmq.Context:
        context = super()._context_default()
        context.setsockopt(zmq.MAXMSGSIZE, self.max_message)
        return context

    def start_channels(self, *args: Any, **kwargs: Any) -> None:
        super().start_channels(*args, **kwargs)
        self._monitors = []
        for name in ("shell", "iopub", "control"):
            channel = getattr(self, f"{name}_channel", None)
            if channel is None or channel.socket is None:
                continue
            address = f"inproc://attnkit-cut-{id(self)}-{name}"
            channel.socket.monitor(address, zmq.EVENT_DISCONNECTED)
            monitor = self.context.socket(zmq.PAIR)  # closed with the client's context
            monitor.connect(address)
            self._monitors.append(monitor)

    def cut_off(self) -> bool:
        cut = False
        for monitor in getattr(self, "_monitors", []):
            events = zmq.Socket.shadow(monitor.underlying)  # read at once, outside the loop
            while True:
                try:
                    events.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                cut = True
        return cut


def capped(client_class: type, max_message: int) -> type:
    """``client_class`` whose sockets refuse frames over ``max_message`` bytes."""
    return type(f"Capped{client_class.__name__}", (CappedClient, client_class),
                {"max_message": max_message})


def _text_bytes(value: Any) -> int:
    """Roughly the bytes an output's content keeps: every string in it."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_text_bytes(v) for v in value.values())
    if isinstance(value, list):
        return sum(_text_bytes(v) for v in value)
    return 0


def _size(count: int) -> str:
    return f"{count / 2**20:g} MB" if count >= 2**20 else f"{count:,} bytes"


class BudgetedExecute(Execute):
    """nbgrader's Execute with a time budget per notebook and a limit on message size.

    ``start_budget`` starts the notebook's clock; a subclass that runs a notebook several
    times (replays after a crash) calls it once, so the replays count against it."""

    time_budget = Float(120.0, help="Seconds one notebook may take in all, kernel starts and "
                        "replays included; then the running cell is stopped and the cells "
                        "after it are not run, each with the reason (0: no budget)").tag(
                            config=True)
    output_limit = Integer(1 << 20, help="Characters one cell may print on stdout or stderr "
                           "in a sandboxed kernel; the rest is dropped in the kernel, with a "
                           "note (0: no cap)").tag(config=True)
    message_limit = Integer(32 << 20, help="Bytes of the largest message frame the grader "
                            "accepts from a kernel: a larger one is refused unread and the "
                            "kernel cut off, its cell given the reason (0: no limit)").tag(
                                config=True)

    output_budget = Integer(8 << 20, help="Bytes of output one notebook may keep, every "
                            "kind together (prints, displays, results); past it outputs are "
                            "dropped with a note, errors kept cut short (0: no budget)").tag(
                                config=True)

    _deadline = math.inf
    _output_bytes = 0
    _dropped = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._cell_limit: Callable[[NotebookNode], int | None] | None = self.timeout_func
        self.timeout_func = self._timeout_within_budget

    def start_budget(self) -> None:
        self._deadline = (time.monotonic() + self.time_budget if self.time_budget > 0
                          else math.inf)
        os.environ[OUTPUT_LIMIT_ENV] = str(self.output_limit)  # read by sandboxed kernels

    def _timeout_within_budget(self, cell: NotebookNode) -> int | None:
        """The cell's own timeout, cut to what is left of the notebook's budget."""
        own = self._cell_limit(cell) if self._cell_limit else self.timeout
        if self._deadline == math.inf:
            return own
        left = max(1, math.ceil(self._deadline - time.monotonic()))
        return left if not own or own < 0 else min(own, left)

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if self.message_limit > 0:
            km.client_factory = capped(km.client_factory, self.message_limit)
        return km

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int):
        runs = cell.cell_type == "code" and cell.source.strip()
        if runs and time.monotonic() >= self._deadline:
            cell.outputs = [from_dict({
                "output_type": "error", "ename": OUT_OF_TIME,
                "evalue": NOT_RUN.format(seconds=self.time_budget),
                "traceback": [f"{OUT_OF_TIME}: {NOT_RUN.format(seconds=self.time_budget)}"]})]
            return cell, resources
        try:
            result = super().preprocess_cell(cell, resources, index)
        except Exception as error:
            # a kernel that died dropped its connection too: that is a crash, not a cut
            if not isinstance(error, DeadKernelError) and self._cut_off() and self._alive():
                raise OutputCut(index) from error
            raise
        if self._cut_off() and self._alive():
            raise OutputCut(index)
        if (runs and time.monotonic() >= self._deadline
                and any(o.get("output_type") == "error" for o in cell.get("outputs", []))):
            cell.outputs.append(from_dict({"output_type": "stream", "name": "stdout",
                                           "text": SPENT.format(seconds=self.time_budget)}))
        return result

    def preprocess(self, nb: NotebookNode, resources: dict, km=None):
        self._output_bytes, self._dropped = 0, False  # each run: a replay starts afresh
        return super().preprocess(nb, resources, km=km)

    def output(self, outs: list, msg: dict, display_id: str | None, cell_index: int):
        if self._keeps(msg, outs):
            return super().output(outs, msg, display_id, cell_index)
        return None

    def _update_display_id(self, display_id: str, msg: dict) -> None:
        if self._keeps(msg, None):
            super()._update_display_id(display_id, msg)

    def _keeps(self, msg: dict, outs: list | None) -> bool:
        """Whether an output message stays within the notebook's output budget. Past it an
        error is kept, cut short (it decides a test cell's grade), and so is the probe's
        record up to twice the budget (it decides a verdict); the rest is dropped."""
        content = msg.get("content", {})
        self._output_bytes += _text_bytes(content)
        if self.output_budget <= 0 or self._output_bytes <= self.output_budget:
            return True
        if msg.get("msg_type") == "error":
            content["evalue"] = str(content.get("evalue", ""))[:KEPT_ERROR]
            content["traceback"] = [line[:KEPT_ERROR] for line in content.get("traceback", [])
                                    ][-20:]
            return True
        if MIME in content.get("data", {}) and self._output_bytes <= 2 * self.output_budget:
            return True
        if outs is not None and not self._dropped:
            self._dropped = True
            outs.append(from_dict({"output_type": "stream", "name": "stdout",
                                   "text": DROPPED.format(size=_size(self.output_budget))}))
        return False

    def output_cut(self) -> str:
        """The reason a cell whose output was refused is given."""
        return OUTPUT_CUT.format(size=_size(self.message_limit))

    def _alive(self) -> bool:
        return bool(self.km is not None and run_sync(ensure_async)(self.km.is_alive()))

    def _cut_off(self) -> bool:
        cut_off = getattr(self.kc, "cut_off", None)
        return bool(cut_off and cut_off())

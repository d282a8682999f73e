"""Running a submission: the grading seed for its hidden inputs, and an ``Execute`` that
survives kernel death so one crashing cell does not cost the rest of the notebook's grade.

The cell that killed the kernel gets an error, a fresh kernel replays the notebook without it,
and the remaining cells are still graded; the notebook's budgets are ``BudgetedExecute``'s.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode, from_dict
from traitlets import Float, Integer, Unicode

from attnkit import sandbox
from attnkit.kernel.probe import SEED_ENV
from attnkit.pipeline.budgets import BudgetedExecute, OutputCut
from attnkit.pipeline.cells import KERNEL_DIED, error_output

if TYPE_CHECKING:
    from jupyter_client.manager import KernelManager

CRASHED = ("this cell crashed the Python kernel (for example os._exit, a segfault or running out "
           "of memory); the cells after it were run in a new kernel")
UNRESPONSIVE = ("this cell ran past the time limit and the kernel did not respond to an interrupt; "
                "the cells after it were run in a new kernel")
GARBLED = ("this cell broke the kernel's connection to the grader (for example by forking "
           "the kernel); the cells after it were run in a new kernel")
TIMED_OUT = ("[grading note] this cell ran past the time limit of {seconds} s and was stopped "
             "(an infinite loop, or a very slow computation?)\n")


def course_salt(path: str) -> str:
    """The course's secret salt for grading seeds, made on first use (mode 0600).

    Each submission's hidden inputs derive from a hash of the salt, assignment, student and
    notebook: without it a student cannot rebuild them offline from ``attnkit/kernel``. Losing it
    only changes the fresh inputs of later regrades."""
    salt = Path(path)
    if not salt.exists():
        salt.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        draft = salt.with_name(f".{salt.name}-{os.getpid()}-{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
        with contextlib.suppress(FileExistsError):  # another process made it first: keep theirs
            os.link(draft, salt)
        draft.unlink()
    return salt.read_text().strip()


def grading_seed(resources: dict, salt: str = "") -> int:
    """The seed for one submission's fresh inputs: stable across regrades."""
    info = resources.get("nbgrader", {})
    key = "|".join([salt, str(info.get("assignment")), str(info.get("student")),
                    str(info.get("notebook"))])
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)


class ResilientExecute(BudgetedExecute):
    """nbgrader's Execute, with a grading seed, recovery from kernel death and the
    notebook's budgets (``BudgetedExecute``)."""

    salt_file = Unicode("", help="The course's secret salt for grading seeds, made on first "
                        "use; empty: no salt (anyone can rebuild the hidden inputs)").tag(
                            config=True)
    max_kernel_deaths = Integer(5, help="Give up replaying after this many crashes.").tag(
        config=True)
    step_aside_after = Float(2.0, help="Seconds one cell may run before its kernel gets the "
                             "least CPU priority for the rest of the notebook, so an endless "
                             "loop slows its own grading, not the other kernels' (0: never)"
                             ).tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict,
                   km: KernelManager | None = None) -> tuple[NotebookNode, dict]:
        seed = grading_seed(resources, course_salt(self.salt_file) if self.salt_file else "")
        resources.setdefault("attnkit", {})["seed"] = seed
        os.environ[SEED_ENV] = str(seed)
        self._crashed: dict[int, str] = {}  # cell index -> why it was skipped
        self._ipc_dirs: list[str] = []
        self.start_budget()
        while True:
            try:
                return super().preprocess(nb, resources, km=km)
            except Exception as error:  # noqa: BLE001 - whatever a cell did to its kernel
                index = self._running
                if index is None or len(self._crashed) >= self.max_kernel_deaths:
                    raise
                self._crashed[index] = (self.output_cut() if isinstance(error, OutputCut)
                                        else UNRESPONSIVE if isinstance(error, CellTimeoutError)
                                        else CRASHED if isinstance(error, DeadKernelError)
                                        else GARBLED)
                self.log.warning("Kernel lost in cell %d (%s); replaying without it",
                                 index, type(error).__name__)
                for cell in nb.cells:
                    if cell.cell_type == "code":
                        cell.outputs = []
            finally:
                self._cleanup_ipc()

    def create_kernel_manager(self) -> KernelManager:
        """Give ipc sockets an absolute, private path (the kernel runs in another cwd)."""
        km = super().create_kernel_manager()
        if km.transport == "ipc" and not os.path.isabs(km.ip):
            ipc_dir = str(sandbox.private_dir("attnkit-ipc-"))
            km.ip = os.path.join(ipc_dir, "kernel")
            self._ipc_dirs.append(ipc_dir)
        return km

    def _cleanup_ipc(self) -> None:
        while self._ipc_dirs:
            shutil.rmtree(self._ipc_dirs.pop(), ignore_errors=True)

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        index: int) -> tuple[NotebookNode, dict]:
        if index in self._crashed:
            cell.outputs = [error_output(KERNEL_DIED, self._crashed[index])]
            return cell, resources
        self._running = index
        started = time.monotonic()
        pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
        timer = None
        if self.step_aside_after and pid:
            timer = threading.Timer(self.step_aside_after, sandbox.step_aside, (pid,))
            timer.daemon = True
            timer.start()
        try:
            result = super().preprocess_cell(cell, resources, index)
        finally:
            if timer:
                timer.cancel()
        self._running = None
        if (self.timeout and time.monotonic() - started >= self.timeout
                and any(o.get("ename") == "KeyboardInterrupt" for o in cell.get("outputs", []))):
            cell.outputs.append(from_dict({"output_type": "stream", "name": "stdout",
                                           "text": TIMED_OUT.format(seconds=self.timeout)}))
        return result

    _running: int | None = None

"""nbgrader preprocessors that make autograding trustworthy.

Switched on in ``nbgrader_config.py``:

* ``ResilientExecute`` runs the notebook like nbgrader's ``Execute``, but picks
  the grading seed for the hidden checks and survives kernel death: the cell
  that killed the kernel gets an error, a fresh kernel replays the notebook
  without it, and the remaining cells are still graded.
* ``JudgeProbes`` scores every hidden-check cell from the raw outputs its
  probe reported, against the kit's reference, outside the student's kernel.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
import textwrap
import threading
import time
from pathlib import Path

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.api import Gradebook
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from nbgrader.utils import is_grade, is_solution
from traitlets import Float, Integer, Unicode

from attnkit import sandbox
from attnkit.judge.registry import checks, mark_schemes
from attnkit.judge.verdicts import Verdict, judge
from attnkit.kernel.probe import MIME, SEED_ENV
from attnkit.pipeline.budgets import OUT_OF_TIME, BudgetedExecute, OutputCut

KERNEL_DIED = "KernelDied"
CRASHED = ("this cell crashed the Python kernel (for example os._exit, a segfault or running out "
           "of memory); the cells after it were run in a new kernel")
UNRESPONSIVE = ("this cell ran past the time limit and the kernel did not respond to an interrupt; "
                "the cells after it were run in a new kernel")
GARBLED = ("this cell broke the kernel's connection to the grader (for example by forking "
           "the kernel); the cells after it were run in a new kernel")
TIMED_OUT = ("[grading note] this cell ran past the time limit of {seconds} s and was stopped "
             "(an infinite loop, or a very slow computation?)\n")
VERDICT = "attnkit"  # cell metadata key of a hidden check's verdict in autograded notebooks


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


def error_output(ename: str, evalue: str) -> NotebookNode:
    """An error output whose 'traceback' is just the message, wrapped for reading."""
    return from_dict({"output_type": "error", "ename": ename, "evalue": evalue,
                      "traceback": [textwrap.fill(f"{ename}: {evalue}", width=96)]})


def describe_error(output: NotebookNode) -> str:
    """One plain line for an error a test cell raised in the kernel (no traceback)."""
    if output.ename == "CellTimeoutError":
        return ("this cell did not finish within the time limit and was stopped "
                "(an infinite loop, or a very slow computation?)")
    if output.ename in (KERNEL_DIED, OUT_OF_TIME):
        return output.evalue
    return f"visible test: {output.ename}: {output.evalue}"


def is_test_cell(cell: NotebookNode) -> bool:
    """An autograded test cell: its source comes from the gradebook, never from the student."""
    return cell.cell_type == "code" and is_grade(cell) and not is_solution(cell)


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

    def preprocess(self, nb: NotebookNode, resources: dict, km=None):
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

    def create_kernel_manager(self):
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

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int):
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


def unregistered(cell: NotebookNode) -> str | None:
    """Why an autograded test cell is not judged by the kit, or None if it is: its grade id
    must name a registered check, and its hidden block must probe that check."""
    grade_id = cell.metadata["nbgrader"].get("grade_id")
    if grade_id not in checks():
        return f"no hidden check is registered for the graded test cell {grade_id!r}"
    if f'probe("{grade_id}"' not in cell.source:
        return (f"the graded test cell {grade_id!r} does not call "
                f'probe("{grade_id}", ...) in its hidden block')
    return None


class RequireRegisteredChecks(NbGraderPreprocessor):
    """Refuse to release a notebook with a graded test cell the kit would not judge: nbgrader
    would award its points whenever the visible asserts pass, hard-coded answers included.
    First in ``GenerateAssignment.preprocessors`` (``nbgrader_config.py``)."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        problems = [problem for cell in nb.cells if is_test_cell(cell)
                    if (problem := unregistered(cell))]
        if problems:
            name = resources.get("nbgrader", {}).get("notebook", "the notebook")
            raise ValueError(f"{name}: {'; '.join(problems)}. Register the check (a Probe "
                             "in attnkit/kernel/<assignment>.py, a Check in "
                             "attnkit/judge/<assignment>.py; see docs/adding-a-question.md) "
                             "before releasing.")
        return nb, resources


_UNDRAWN = re.compile(r"<Figure size [\d.]+x[\d.]+ with \d+ Axes>")  # matplotlib's repr


def is_undrawn_plot(output: NotebookNode) -> bool:
    """Whether an output is a plot made but not drawn (a kernel with no figure format)."""
    return (output.output_type == "display_data" and set(output.data) == {"text/plain"}
            and _UNDRAWN.fullmatch(output.data["text/plain"]) is not None)


class JudgeProbes(NbGraderPreprocessor):
    """Replace each hidden-check cell's outputs by a verdict computed here."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        self.seed = resources.get("attnkit", {}).get("seed",
                                                     int(os.environ.get(SEED_ENV, "0")))
        for cell in filter(is_test_cell, nb.cells):
            grade_id = cell.metadata["nbgrader"].get("grade_id")
            verdict = (self.judge_cell(cell, grade_id) if grade_id in checks()
                       else self.refuse_cell(cell))
            cell.metadata[VERDICT] = {
                "score": verdict.score, "points": verdict.points, "message": verdict.message,
                "misconception": verdict.misconception}
        return nb, resources

    def refuse_cell(self, cell: NotebookNode) -> Verdict:
        """0 points, loudly, for a test cell with no registered check (never its asserts)."""
        problem = unregistered(cell)
        self.log.error("%s: the cell scores 0 until the check is registered", problem)
        verdict = Verdict(str(cell.metadata["nbgrader"].get("grade_id")), 0.0,
                          float(cell.metadata["nbgrader"].get("points", 0)),
                          f"{problem}; the instructor must register it, and until then this "
                          "cell scores 0")
        cell.outputs = [error_output("UnregisteredCheck", verdict.message)]
        return verdict

    def judge_cell(self, cell: NotebookNode, grade_id: str):
        records = [o.data[MIME] for o in cell.outputs
                   if o.output_type == "display_data" and MIME in o.get("data", {})]
        verdict = judge(grade_id, self.seed, records,
                        float(cell.metadata["nbgrader"]["points"]))
        # keep what the visible tests printed and plotted; drop stderr and probe payloads
        notes = [o for o in cell.outputs
                 if (o.output_type == "stream" and o.name == "stdout")
                 or (o.output_type == "display_data" and "image/png" in o.get("data", {}))
                 or is_undrawn_plot(o)]
        notes += [from_dict({"output_type": "stream", "name": "stdout",
                             "text": f"{describe_error(o)}\n"})
                  for o in cell.outputs if o.output_type == "error"]
        points = f"{verdict.score:g}/{verdict.points:g}"
        if verdict.full:
            result = [from_dict({"output_type": "stream", "name": "stdout",
                                 "text": f"hidden check passed ({points}): {verdict.message}\n"})]
        elif verdict.score > 0:
            result = [from_dict({"output_type": "stream", "name": "stdout",
                                 "text": f"hidden check partly passed ({points}): "
                                         f"{verdict.message}\n"}),
                      from_dict({"output_type": "execute_result", "execution_count": None,
                                 "metadata": {}, "data": {"text/plain": f"{verdict.score:g}"}})]
        else:
            result = [error_output("HiddenCheckFailed", f"({points}) {verdict.message}")]
        cell.outputs = notes + result
        return verdict


MARK_SCHEME = "attnkit_mark_scheme"


class AddMarkSchemes(NbGraderPreprocessor):
    """Put each written answer's mark scheme under it, for TAs in formgrader."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        cells = []
        for cell in nb.cells:
            if cell.metadata.get(MARK_SCHEME):
                continue  # only the kit writes mark schemes
            cells.append(cell)
            scheme = mark_schemes().get(cell.metadata.get("nbgrader", {}).get("grade_id"))
            if scheme:
                cells.append(from_dict({"cell_type": "markdown", "source": scheme,
                                        "metadata": {MARK_SCHEME: True}}))
        nb.cells = cells
        return nb, resources


class ClearMarkSchemes(NbGraderPreprocessor):
    """Drop the TAs' mark schemes from students' feedback."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        nb.cells = [c for c in nb.cells if not c.metadata.get(MARK_SCHEME)]
        return nb, resources


class DropEmptyGradeMetadata(NbGraderPreprocessor):
    """Remove the empty ``nbgrader`` metadata DeduplicateIds leaves on duplicated cells.

    nbgrader 0.9's OverwriteCells (with ``add_missing_cells``) fails with a KeyError on
    them, which would drop the whole submission.
    """

    def preprocess(self, nb: NotebookNode, resources: dict):
        for cell in nb.cells:
            if cell.metadata.get("nbgrader") == {}:
                del cell.metadata["nbgrader"]
        return nb, resources


FORGED = ("**Grading note.** This cell claimed to be the graded cell {grade_id!r}, which is not "
          "part of this assignment, so it was not graded.\n\n")
RESTORED = ("**Grading note.** The cell {grade_id!r} was missing from the submission and was "
            "put back from the assignment.\n\n")


def _noted(cell_type: str, note: str, source: str) -> str:
    """``source`` with ``note`` on top, as a comment in code cells."""
    if cell_type == "code":
        note = "".join(f"# {line}\n" for line in note.replace("**", "").strip().splitlines())
    return note + source


class RestoreDeletedCells(NbGraderPreprocessor):
    """Make the submission's nbgrader cells exactly the assignment's, before ``OverwriteCells``.

    A cell claiming a grade id the gradebook does not know (forged) loses its nbgrader
    metadata; every source cell the student deleted (test, answer or locked helper cell) is
    put back after the nearest earlier cell still present. nbgrader's own
    ``add_missing_cells`` fails on both (a forged id: ``KeyError: 'grade_id'``; a deleted cell
    after a locked helper: ``KeyError``), which would leave the whole submission ungraded.
    """

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            source = gb.find_notebook(info["notebook"], info["assignment"])
            order = [cell.name for cell in source.source_cells]
            cells = {cell.name: cell for cell in source.source_cells}
            points = {cell.name: cell.max_score for cell in source.grade_cells}
            solutions = {cell.name for cell in source.solution_cells}
        present = {}
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader")
            if meta is None:
                continue
            grade_id = meta.get("grade_id")
            if grade_id not in cells or grade_id in present:
                del cell.metadata["nbgrader"]
                cell.source = _noted(cell.cell_type, FORGED.format(grade_id=grade_id),
                                     cell.source)
                continue
            present[grade_id] = cell
        for index, grade_id in enumerate(order):
            if grade_id in present:
                continue
            cell = self._restored(cells[grade_id], points.get(grade_id), grade_id in solutions)
            earlier = next((present[g] for g in reversed(order[:index]) if g in present), None)
            nb.cells.insert(nb.cells.index(earlier) + 1 if earlier is not None else 0, cell)
            present[grade_id] = cell
        return nb, resources

    @staticmethod
    def _restored(source_cell, points: float | None, solution: bool) -> NotebookNode:
        meta = {"grade": points is not None, "grade_id": source_cell.name,
                "locked": source_cell.locked, "solution": solution, "schema_version": 3}
        if points is not None:
            meta["points"] = points
        cell = {"cell_type": source_cell.cell_type, "metadata": {"nbgrader": meta},
                "source": _noted(source_cell.cell_type, RESTORED.format(grade_id=source_cell.name),
                                 source_cell.source)}
        if source_cell.cell_type == "code":
            cell.update(outputs=[], execution_count=None)
        return from_dict(cell)


class ClearHiddenTestsInTestCells(ClearHiddenTests):
    """nbgrader's ``ClearHiddenTests``, applied to the assignment's test cells only.

    A student's own cell that writes the markers (say a BEGIN line with no END) made
    nbgrader's version raise, and that student got no feedback at all; such text is the
    student's, so it is shown as written.
    """

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int):
        if not is_test_cell(cell):
            return cell, resources
        return super().preprocess_cell(cell, resources, index)


HIDDEN_SHOWN = "[hidden test]"


def hidden_lines(cells: list[NotebookNode], begin: str = "BEGIN HIDDEN TESTS",
                 end: str = "END HIDDEN TESTS", min_length: int = 8) -> set[str]:
    """The stripped lines inside the hidden regions of the test cells among ``cells``: not
    the markers, nor lines shorter than ``min_length`` (such as ``)``)."""
    lines: set[str] = set()
    for cell in filter(is_test_cell, cells):
        inside = False
        for line in cell.source.splitlines():
            if begin in line:
                inside = True
            elif end in line:
                inside = False
            elif inside and len(line.strip()) >= min_length:
                lines.add(line.strip())
    return lines


class ScrubHiddenOutputs(ClearHiddenTests):
    """Remove hidden-test source from every output, before ``ClearHiddenTests`` removes it
    from the cells: a student cell printing ``In`` (IPython's input history) or reading files
    in the kernel's directory would otherwise copy the hidden lines into the feedback.

    A ``ClearHiddenTests`` for its delimiters only (``c.ClearHiddenTests`` sets both)."""

    min_length = Integer(8, help="Shorter hidden lines (such as `)`) are left alone").tag(
        config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        begin, end = self.begin_test_delimeter, self.end_test_delimeter
        words = sorted(hidden_lines(nb.cells, begin, end, self.min_length), key=len,
                       reverse=True)
        pattern = re.compile("|".join(map(re.escape, [*words, begin, end])))
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                self._scrub(output, pattern)
        return nb, resources

    @staticmethod
    def _scrub(output: NotebookNode, pattern: re.Pattern) -> None:
        def clean(text: object) -> object:
            if isinstance(text, list):
                return [clean(t) for t in text]
            return pattern.sub(HIDDEN_SHOWN, text) if isinstance(text, str) else text

        for key in ("text", "evalue", "traceback"):
            if key in output:
                output[key] = clean(output[key])
        for mime, value in output.get("data", {}).items():
            if mime.startswith("text/"):
                output["data"][mime] = clean(value)

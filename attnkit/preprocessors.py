"""nbgrader preprocessors that make autograding trustworthy.

Switched on in ``nbgrader_config.py``:

* ``ResilientExecute`` runs the notebook like nbgrader's ``Execute``, but picks
  the grading seed for the hidden checks and survives kernel death: the cell
  that killed the kernel gets an error, a fresh kernel replays the notebook
  without it, and the remaining cells are still graded.
* ``JudgeProbes`` scores every hidden-check cell from the raw outputs its
  probe reported, against the kit's reference, outside the student's kernel.
* ``CompiledCheckCellMetadata`` is nbgrader's ``CheckCellMetadata`` with the
  metadata schema checked once per process instead of once per cell.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import textwrap
import traceback

import jsonschema
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import CheckCellMetadata, Execute, NbGraderPreprocessor
from nbgrader.utils import is_grade
from traitlets import Integer, Unicode

from attnkit.checks import CHECKS, judge
from attnkit.markschemes import MARK_SCHEMES
from attnkit.probe import MIME, SEED_ENV

KERNEL_DIED = "KernelDied"
CRASHED = ("this cell crashed the Python kernel (for example os._exit, a segfault or running out "
           "of memory); the cells after it were run in a new kernel")
UNRESPONSIVE = ("this cell ran past the time limit and the kernel did not respond to an interrupt; "
                "the cells after it were run in a new kernel")
VERDICT = "attnkit"  # cell metadata key of a hidden check's verdict in autograded notebooks


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
    if output.ename == KERNEL_DIED:
        return output.evalue
    return f"visible test: {output.ename}: {output.evalue}"


class ResilientExecute(Execute):
    """nbgrader's Execute, with a grading seed and recovery from kernel death."""

    seed_salt = Unicode("", help="Mixed into each submission's grading seed.").tag(config=True)
    max_kernel_deaths = Integer(5, help="Give up replaying after this many crashes.").tag(
        config=True)

    def preprocess(self, nb: NotebookNode, resources: dict, km=None):
        seed = grading_seed(resources, self.seed_salt)
        resources.setdefault("attnkit", {})["seed"] = seed
        os.environ[SEED_ENV] = str(seed)
        self._crashed: dict[int, str] = {}  # cell index -> why it was skipped
        self._ipc_dirs: list[str] = []
        while True:
            try:
                return super().preprocess(nb, resources, km=km)
            except (DeadKernelError, CellTimeoutError) as error:
                index = self._running
                if index is None or len(self._crashed) >= self.max_kernel_deaths:
                    raise
                self._crashed[index] = (UNRESPONSIVE if isinstance(error, CellTimeoutError)
                                        else CRASHED)
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
            ipc_dir = tempfile.mkdtemp(prefix="attnkit-ipc-")
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
        result = super().preprocess_cell(cell, resources, index)
        self._running = None
        return result

    _running: int | None = None


class _CompiledSchema(BaseMetadataValidator):
    """The schema step of nbgrader's ``validate_cell``, done as ``jsonschema.validate`` does it
    but without checking the schema itself again for every cell. A cell whose schema version
    is not this validator's goes to nbgrader's own check, which raises its error."""

    _validators: dict[int, jsonschema.protocols.Validator] = {}  # by schema version

    def _validator(self) -> jsonschema.protocols.Validator:
        if self.schema_version not in self._validators:
            cls = jsonschema.validators.validator_for(self.schema)
            cls.check_schema(self.schema)
            self._validators[self.schema_version] = cls(self.schema)
        return self._validators[self.schema_version]

    def validate_cell(self, cell: NotebookNode) -> None:
        if "nbgrader" not in cell.metadata:
            return
        meta = cell.metadata["nbgrader"]
        if meta.get("schema_version", 0) != self.schema_version:
            super().validate_cell(cell)
            return
        error = jsonschema.exceptions.best_match(self._validator().iter_errors(meta))
        if error is not None:
            raise error


class CompiledMetadataValidator(MetadataValidator, _CompiledSchema):
    """nbgrader's metadata validator (its own rules for each schema version) with the
    schema step of ``_CompiledSchema`` between it and ``BaseMetadataValidator``."""


class CompiledCheckCellMetadata(CheckCellMetadata):
    """nbgrader's ``CheckCellMetadata`` with ``CompiledMetadataValidator``: the same checks
    and errors, about 30 ms less per notebook (nbgrader runs it twice per autograde)."""

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        try:
            CompiledMetadataValidator().validate_nb(nb)
        except ValidationError as error:
            self.log.error(traceback.format_exc())
            message = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(message)
            raise ValidationError(message) from error
        return nb, resources


class JudgeProbes(NbGraderPreprocessor):
    """Replace each hidden-check cell's outputs by a verdict computed here."""

    def preprocess(self, nb: NotebookNode, resources: dict):
        self.seed = resources.get("attnkit", {}).get("seed",
                                                     int(os.environ.get(SEED_ENV, "0")))
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if cell.cell_type == "code" and is_grade(cell) and grade_id in CHECKS:
                verdict = self.judge_cell(cell, grade_id)
                cell.metadata[VERDICT] = {
                    "score": verdict.score, "points": verdict.points, "message": verdict.message,
                    "misconception": verdict.misconception}
        return nb, resources

    def judge_cell(self, cell: NotebookNode, grade_id: str):
        records = [o.data[MIME] for o in cell.outputs
                   if o.output_type == "display_data" and MIME in o.get("data", {})]
        verdict = judge(grade_id, self.seed, records,
                        float(cell.metadata["nbgrader"]["points"]))
        # keep what the visible tests printed and plotted; drop stderr and probe payloads
        notes = [o for o in cell.outputs
                 if (o.output_type == "stream" and o.name == "stdout")
                 or (o.output_type == "display_data" and "image/png" in o.get("data", {}))]
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
            scheme = MARK_SCHEMES.get(cell.metadata.get("nbgrader", {}).get("grade_id"))
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

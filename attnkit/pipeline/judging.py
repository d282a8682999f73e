"""The hidden checks: refuse to release a graded test cell the kit would not judge, and score
every hidden-check cell from the raw outputs its probe reported, outside the student's kernel.
"""

from __future__ import annotations

import os
import re

from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float

from attnkit.judge.carry import Charged, carry
from attnkit.judge.registry import checks
from attnkit.judge.verdicts import Verdict, judge
from attnkit.kernel.probe import MIME, SEED_ENV
from attnkit.pipeline.budgets import OUT_OF_TIME
from attnkit.pipeline.cells import KERNEL_DIED, VERDICT, error_output, is_test_cell


def describe_error(output: NotebookNode) -> str:
    """One plain line for an error a test cell raised in the kernel (no traceback)."""
    if output.ename == "CellTimeoutError":
        return ("this cell did not finish within the time limit and was stopped "
                "(an infinite loop, or a very slow computation?)")
    if output.ename in (KERNEL_DIED, OUT_OF_TIME):
        return output.evalue
    return f"visible test: {output.ename}: {output.evalue}"


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

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
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

    follow_through = Float(1.0, help=(
        "Follow-through credit: the fraction of its points a cell keeps when it is right given "
        "the student's own helpers, whose mistake is charged at the helper's cell "
        "(docs/grading.md). 0 turns it off.")).tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        self.seed = resources.get("attnkit", {}).get("seed",
                                                     int(os.environ.get(SEED_ENV, "0")))
        self.charged: dict[str, Charged] = {}  # grade id -> where its mistake is charged
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

    def carried(self, grade_id: str, verdict: Verdict, records: list) -> Verdict:
        """The verdict, with follow-through credit when the cell is right given the student's
        helpers; remembers where this cell's mistake is charged, for the cells after it."""
        verdict, self.charged[grade_id] = carry(grade_id, self.seed, records, verdict,
                                                self.charged, self.follow_through)
        return verdict

    def judge_cell(self, cell: NotebookNode, grade_id: str) -> Verdict:
        records = [o.data[MIME] for o in cell.outputs
                   if o.output_type == "display_data" and MIME in o.get("data", {})]
        verdict = self.carried(grade_id, judge(grade_id, self.seed, records,
                                               float(cell.metadata["nbgrader"]["points"])),
                               records)
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

"""A larger class for the grade-by-question page, made cheaply from a graded course: extra
students whose autograded notebook is a copy of a graded one with another written answer,
entered in the gradebook with nbgrader's own API (no grading runs)."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

from nbgrader.api import Gradebook

from attnkit.course import db_url
from helpers.graded import ASSIGNMENT, GRADED, NOTEBOOK
from helpers.xss import MARKDOWN_ATTACKS

QUESTION = "ps1_positional_answer"

# what the extra students wrote, a few ideas in a few wordings each
IDEAS = {
    "no": [
        "No. Adding positional encodings $\\mathbf{P}$ breaks equivariance: "
        "$Sa[\\mathbf{X}\\Pi + \\mathbf{P}] \\neq Sa[\\mathbf{X} + \\mathbf{P}]\\Pi$, because "
        "the encoding belongs to the position, not the token.",
        "No, it is not equivariant any more: the positional encoding is tied to the position, "
        "so permuting the tokens does not permute P.",
        "no - once positional encodings are added the tokens carry where they sit, so "
        "permuting the input changes the output, not just its order.",
    ],
    "yes": [
        "Yes, self-attention stays permutation equivariant because attention treats every "
        "token the same way.",
        "Yes it is still equivariant, the weights are shared between all tokens.",
        "Yes. The same matrices multiply every token, so the order still does not matter.",
    ],
    "blank": ["YOUR ANSWER HERE", ""],
}
HOSTILE = {"xss_script": MARKDOWN_ATTACKS["script"],
           "xss_onerror": MARKDOWN_ATTACKS["img_onerror_inline"]}


def class_answers(size: int) -> dict[str, str]:
    """``size`` students' answers, the ideas in turn, and two hostile ones."""
    wordings = [text for texts in IDEAS.values() for text in texts]
    found = {f"x{i:03d}": wordings[i % len(wordings)] for i in range(size)}
    return found | HOSTILE


def set_answer(notebook: Path, text: str) -> None:
    nb = json.loads(notebook.read_text())
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == QUESTION:
            cell["source"] = text
    notebook.write_text(json.dumps(nb))


def add_students(root: Path, written: dict[str, str]) -> None:
    """Each of ``written``'s students handed in a copy of a graded student's notebook with
    their own answer to the written question, which awaits a TA."""
    model = root / "autograded" / GRADED[0] / ASSIGNMENT
    with Gradebook(db_url(root)) as gb, warnings.catch_warnings():
        # nbgrader's add_submission trips SQLAlchemy's autoflush warnings; its rows are right
        warnings.simplefilter("ignore")
        for student, text in written.items():
            target = root / "autograded" / student / ASSIGNMENT
            shutil.copytree(model, target)
            set_answer(target / NOTEBOOK, text)
            gb.add_student(student)
            gb.add_submission(ASSIGNMENT, student)
            grade = gb.find_grade(QUESTION, ASSIGNMENT, ASSIGNMENT, student)
            grade.needs_manual_grade = True
        gb.db.commit()


def scores(root: Path) -> dict[str, tuple[float | None, str | None]]:
    """Student -> (manual score, manual comment) of the written question, read by nbgrader."""
    with Gradebook(db_url(root)) as gb:
        found = {}
        for sub in gb.find_assignment(ASSIGNMENT).submissions:
            grade = gb.find_grade(QUESTION, ASSIGNMENT, ASSIGNMENT, sub.student.id)
            comment = gb.find_comment(QUESTION, ASSIGNMENT, ASSIGNMENT, sub.student.id)
            found[sub.student.id] = (grade.manual_score, comment.manual_comment)
        return found

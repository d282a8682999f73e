"""What the report reads and counts: the gradebook, the hidden checks' verdicts in the
autograded notebooks, the ``submitted/`` and ``autograded/`` folders; and from them the
numbers the figures, the page and the summary show."""

from __future__ import annotations

import glob
import json
import os
import re
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import MissingEntry
from nbgrader.coursedir import CourseDirectory
from sqlalchemy.engine import make_url
from tqdm import tqdm

from attnkit.course import coursedir, open_gradebook
from attnkit.gradedata import (
    CRASHED,
    FAILED,
    GRADED,
    INVALID,
    MISSING,
    NOT_AUTOGRADED,
    NOT_GRADED,
    OUTDATED,
    TIMED_OUT,
    UNREADABLE,
    WAITING,
    AssignmentData,
    Cell,
    Mark,
    Problem,
    Submission,
)
from attnkit.judge import misconceptions
from attnkit.pipeline.cells import KERNEL_DIED, VERDICT

TIMEOUT_ERRORS = {"CellTimeoutError", "TimeoutError"}


# ------------------------------------------------------------------ reading


def _display_db(url: str) -> str:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return str(parsed.database)
    return parsed.render_as_string(hide_password=True)


def _cell_order(root: Path, cd: CourseDirectory, assignment: str, notebook: str) -> list[str]:
    """The grade ids of a notebook in the order the master notebook shows them."""
    for step in (cd.source_directory, cd.release_directory):
        path = Path(cd.format_path(step, ".", assignment)) / f"{notebook}.ipynb"
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return [c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                for c in nb.get("cells", []) if isinstance(c, dict)]
    return []


def _read_json_notebook(path: Path) -> tuple[dict | None, str | None]:
    """A notebook as plain JSON, or why it cannot be read."""
    import nbformat

    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        return None, f"cannot be read ({error.strerror or error})"
    except UnicodeDecodeError:
        return None, "is not UTF-8 text"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, (f"is not valid JSON ({error.msg}, line {error.lineno} "
                      f"column {error.colno})")
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return None, "is JSON but not a notebook (no list of cells)"
    try:
        nbformat.reads(text, as_version=4)
    except Exception as error:  # noqa: BLE001 - any reason nbformat refuses it is the reason
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return None, f"is not a valid notebook ({type(error).__name__}: {first[:200]})"
    return data, None


def _errors(cell: dict) -> list[tuple[str, str]]:
    return [(str(o.get("ename", "")), str(o.get("evalue", "")))
            for o in cell.get("outputs", []) or []
            if isinstance(o, dict) and o.get("output_type") == "error"]


def _cell_name(cell: dict, index: int) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or f"cell {index + 1}"


def _scan_autograded(student: str, filename: str, nb: dict) -> tuple[dict, list[Problem]]:
    """{grade_id: (verdict, first error)} and the crashes/timeouts of one autograded notebook."""
    found: dict[str, tuple[dict | None, str | None]] = {}
    crashed, timed_out = [], []
    for index, cell in enumerate(nb.get("cells", [])):
        if not isinstance(cell, dict):
            continue
        errors = _errors(cell)
        if any(_timed_out(ename, evalue) for ename, evalue in errors):
            timed_out.append(_cell_name(cell, index))
        elif any(ename == KERNEL_DIED for ename, _ in errors):
            crashed.append(_cell_name(cell, index))
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id:
            verdict = cell.get("metadata", {}).get(VERDICT)
            error = next((f"{e}: {v}".strip().rstrip(":") for e, v in errors), None)
            found[grade_id] = (verdict if isinstance(verdict, dict) else None, error)
    problems = []
    if crashed:
        problems.append(Problem(student, filename, CRASHED,
                                f"{_list(crashed)} crashed the kernel; the cells after "
                                f"{'it' if len(crashed) == 1 else 'them'} ran in a fresh kernel"))
    if timed_out:
        problems.append(Problem(student, filename, TIMED_OUT,
                                f"{_list(timed_out)} ran past the time limit and "
                                f"{'was' if len(timed_out) == 1 else 'were'} stopped"))
    return found, problems


def _timed_out(ename: str, evalue: str) -> bool:
    """nbgrader's timeout error, or ResilientExecute's restart after an unresponsive cell."""
    return ename in TIMEOUT_ERRORS or (ename == KERNEL_DIED and "time limit" in evalue)


def _list(names: list[str]) -> str:
    return ("cell " if len(names) == 1 else "cells ") + ", ".join(names)


def _submitted_students(cd: CourseDirectory, assignment: str) -> set[str]:
    """Students with a folder for the assignment under submitted/ or autograded/."""
    found = set()
    for step in (cd.submitted_directory, cd.autograded_directory):
        pattern = re.compile(cd.format_path(re.escape(step), "(?P<student_id>[^/\\\\]+)",
                                            re.escape(assignment), escape=True))
        wildcard = os.path.join(glob.escape(cd.root), cd.directory_structure.format(
            nbgrader_step=glob.escape(step), student_id="*",
            assignment_id=glob.escape(assignment)))
        for path in glob.glob(wildcard):
            match = pattern.fullmatch(path)
            if match and os.path.isdir(path):
                found.add(match.group("student_id"))
    return found


def collect(root: Path, assignment: str) -> AssignmentData:
    """Everything the report shows about one assignment."""
    root = Path(root).resolve()
    cd = coursedir(root)
    with open_gradebook(root) as gb:
        try:
            record = gb.find_assignment(assignment)
        except MissingEntry:
            known = ", ".join(sorted(a.name for a in gb.assignments)) or "none"
            raise SystemExit(f"assignment {assignment!r} is not in the gradebook (it has: "
                             f"{known}); run `nbgrader generate_assignment {assignment}`") from None
        notebooks = sorted(nb.name for nb in record.notebooks)
        many = len(notebooks) > 1
        cells: list[Cell] = []
        for nb in sorted(record.notebooks, key=lambda n: n.name):
            manual_names = {c.name for c in nb.solution_cells} | {c.name for c in nb.task_cells}
            graded = [(c.name, c.max_score, "manual" if c.name in manual_names else "auto")
                      for c in nb.grade_cells]
            graded += [(c.name, c.max_score, "manual") for c in nb.task_cells]
            order = {name: i for i, name in enumerate(_cell_order(root, cd, assignment, nb.name))}
            graded.sort(key=lambda g: (order.get(g[0], len(order)), g[0]))
            cells += [Cell(nb.name, name, kind, float(points),
                           f"{nb.name}/{name}" if many else name)
                      for name, points, kind in graded]
        max_score = float(record.max_score)

        submissions: dict[str, Submission] = {}
        for sub in gb.assignment_submissions(assignment):
            entry = Submission(sub.student.id, GRADED, float(sub.score), float(sub.max_score),
                               float(sub.late_submission_penalty or 0.0))
            for snb in sub.notebooks:
                comments = {c.name: c.comment for c in snb.comments}
                for grade in snb.grades:
                    pending = bool(grade.needs_manual_grade)
                    entry.marks[(snb.name, grade.name)] = Mark(
                        score=None if pending and grade.manual_score is None else float(
                            grade.score),
                        max_score=float(grade.max_score),
                        auto_score=grade.auto_score, manual_score=grade.manual_score,
                        needs_manual_grade=pending, comment=comments.get(grade.name))
            submissions[entry.student] = entry
        everyone = sorted(s.id for s in gb.students)

    problems: list[Problem] = []
    students = sorted(_submitted_students(cd, assignment) | set(submissions))
    for student in tqdm(students, desc=f"report {assignment}", unit="student"):
        sub_dir = Path(cd.format_path(cd.submitted_directory, student, assignment))
        ag_dir = Path(cd.format_path(cd.autograded_directory, student, assignment))
        entry = submissions.get(student)
        graded_any = False
        if not sub_dir.is_dir() and not ag_dir.is_dir():
            problems.append(Problem(student, "", NOT_GRADED, "the gradebook has a submission "
                                    "but there are no files under submitted/ or autograded/"))
        for notebook in notebooks:
            filename = f"{notebook}.ipynb"
            submitted, autograded = sub_dir / filename, ag_dir / filename
            if autograded.is_file():
                nb, why = _read_json_notebook(autograded)
                if nb is None:
                    problems.append(Problem(student, filename, UNREADABLE,
                                            f"autograded/{student}/{assignment}/{filename} {why}"))
                    continue
                graded_any = True
                found, trouble = _scan_autograded(student, filename, nb)
                problems += trouble
                if entry is not None:
                    for (nb_name, name), mark in entry.marks.items():
                        if nb_name == notebook and name in found:
                            mark.verdict, mark.error = found[name]
                if submitted.is_file() and submitted.stat().st_mtime > (
                        autograded.stat().st_mtime + 1):
                    problems.append(Problem(student, filename, OUTDATED,
                                            "submitted again after it was autograded: the "
                                            "grade is out of date until autograde runs again"))
            elif sub_dir.is_dir() and not submitted.is_file():
                others = sorted(p.name for p in sub_dir.glob("*.ipynb"))
                found_text = (f"; found {', '.join(others)}" if others
                              else "; the folder has no notebook")
                problems.append(Problem(student, filename, MISSING,
                                        f"no {filename} in submitted/{student}/{assignment}"
                                        f"{found_text}"))
            elif submitted.is_file():
                _, why = _read_json_notebook(submitted)
                if why:
                    problems.append(Problem(student, filename, INVALID, f"{filename} {why}"))
                elif entry is None:
                    problems.append(Problem(student, filename, NOT_AUTOGRADED,
                                            "submitted, but `nbgrader autograde` has not run "
                                            "on it yet"))
                else:
                    problems.append(Problem(student, filename, NOT_GRADED,
                                            "autograde wrote no notebook (see the `nbgrader "
                                            "autograde` log for the error)"))
        if entry is None:
            submissions[student] = Submission(student, WAITING, max_score=max_score)
        elif not graded_any:
            entry.status = FAILED
    absent = [s for s in everyone if s not in submissions]
    return AssignmentData(assignment, cd.course_id, _display_db(cd.db_url), cells, max_score,
                          submissions, problems, absent, db_url=cd.db_url, course_root=root)


# ------------------------------------------------------------------ counting


@dataclass(frozen=True)
class PassRate:
    cell: Cell
    passed: int
    total: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


@dataclass
class Hint:
    check: str
    label: str  # the misconception's name, or the hint itself when the check named none
    count: int
    example: str
    students: list[str]


@dataclass(frozen=True)
class Progress:
    cell: Cell
    graded: int  # graded by a TA
    pending: int  # awaiting a TA
    blank: int  # left as released: nbgrader scored it 0 itself
    mean: float | None  # over the answers a TA graded


def pass_rates(data: AssignmentData) -> list[PassRate]:
    """Share of graded students with full points on each autograded cell (verdicts first)."""
    rates = []
    for cell in data.auto_cells:
        marks = [s.marks[cell.key] for s in data.graded if cell.key in s.marks]
        rates.append(PassRate(cell, sum(m.full for m in marks), len(marks)))
    return rates


def hints(data: AssignmentData, top: int = 10) -> list[Hint]:
    """The most frequent (check, misconception) pairs the hidden checks reported.

    Ties go to named misconceptions before generic explanations ("error", "not
    finite"...), then in notebook order.
    """
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    order = {c.label: i for i, c in enumerate(data.cells)}
    for cell in data.auto_cells:
        for sub in data.graded:
            mark = sub.marks.get(cell.key)
            if mark is None or mark.verdict is None or mark.full:
                continue
            message = str(mark.verdict.get("message") or "").strip()
            label = str(mark.verdict.get("misconception") or message or "no hint")
            groups.setdefault((cell.label, label), []).append((sub.student, message))
    generic = set(getattr(misconceptions, "GENERIC", ()))

    def rank(item: tuple[tuple[str, str], list[tuple[str, str]]]) -> tuple:
        (check, label), seen = item
        vague = label in generic or all(label == message for _, message in seen)
        return -len(seen), vague, order[check], label  # named mistakes before generic ones

    ranked = sorted(groups.items(), key=rank)
    found = []
    for (check, label), seen in ranked[:top]:
        example = Counter(m for _, m in seen).most_common(1)[0][0]
        found.append(Hint(check, label, len(seen), example, sorted({s for s, _ in seen})))
    return found


def manual_progress(data: AssignmentData) -> list[Progress]:
    """Written answers (and any other cell awaiting a TA): graded vs pending."""
    rows = []
    for cell in data.cells:
        marks = [s.marks[cell.key] for s in data.graded if cell.key in s.marks]
        pending = sum(m.needs_manual_grade for m in marks)
        if cell.kind != "manual" and not pending:
            continue
        done = [m.score for m in marks if m.manual_score is not None and m.score is not None
                and not m.needs_manual_grade]
        blank = sum(1 for m in marks if m.manual_score is None and not m.needs_manual_grade)
        rows.append(Progress(cell, len(done), pending, blank,
                             statistics.fmean(done) if done else None))
    return rows


def cell_scores(data: AssignmentData, cell: Cell) -> list[float]:
    return [s.marks[cell.key].score for s in data.graded
            if cell.key in s.marks and s.marks[cell.key].score is not None]

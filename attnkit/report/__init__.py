"""``attnkit report ASSIGNMENT``: the instructor's view of one graded assignment.

Reads the nbgrader gradebook, the hidden checks' verdicts that ``JudgeProbes``
leaves in the autograded notebooks' cell metadata, and the ``submitted/`` and
``autograded/`` folders, and writes one self-contained HTML page (inline CSS,
figures embedded as base64 PNG and also saved beside it under ``figures/``):

* the distribution of the students' scores, and of each graded cell's scores;
* the pass rate of every autograded check (the share of students with full points);
* the most frequent misconceptions the checks named across the class;
* the submissions that failed to grade, and why;
* how far manual grading of the written answers has got.

Only submissions that were autograded count in the figures and the rates; the
ones that failed to grade are listed with their reason instead. A short text
summary goes to stdout.
"""

from __future__ import annotations

import argparse
import base64
import glob
import io
import json
import math
import os
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.coursedir import CourseDirectory
from sqlalchemy.engine import make_url
from tqdm import tqdm

from attnkit.course import load_config
from attnkit.judge import misconceptions
from attnkit.pipeline.preprocessors import KERNEL_DIED, VERDICT

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TIMEOUT_ERRORS = {"CellTimeoutError", "TimeoutError"}

# problem kinds: the first four mean nothing was graded, the rest that grading was partial
INVALID, MISSING, NOT_GRADED, NOT_AUTOGRADED = ("invalid notebook", "missing notebook",
                                                 "not graded", "not autograded yet")
CRASHED, TIMED_OUT, UNREADABLE, OUTDATED = ("kernel died", "timeout",
                                            "unreadable autograded notebook",
                                            "resubmitted after grading")

GRADED, FAILED, WAITING = "graded", "failed to grade", "not autograded yet"


# ------------------------------------------------------------------ the data


@dataclass(frozen=True)
class Cell:
    """One graded cell of the assignment."""

    notebook: str
    name: str
    kind: str  # "auto" (a test cell) or "manual" (a written answer or task a TA grades)
    max_score: float
    label: str  # how tables and figures name it

    @property
    def key(self) -> tuple[str, str]:
        return self.notebook, self.name


@dataclass
class Mark:
    """One student's grade on one cell."""

    score: float | None  # None while a written answer awaits a TA
    max_score: float
    auto_score: float | None
    manual_score: float | None
    needs_manual_grade: bool
    verdict: dict | None = None  # the hidden check's verdict, from the cell metadata
    error: str | None = None  # the first error the cell showed when autograded
    comment: str | None = None  # the TA's (or autograder's) comment from the gradebook

    @property
    def graded_by(self) -> str:
        if self.manual_score is not None:
            return "manual"
        return "auto" if self.auto_score is not None else ""

    @property
    def full(self) -> bool:
        if self.verdict is not None:
            return float(self.verdict.get("score", 0)) >= float(self.verdict.get("points", 0))
        return self.score is not None and self.score >= self.max_score

    @property
    def hint(self) -> str:
        if self.verdict is not None:
            return str(self.verdict.get("message") or "")
        return self.error or ""


@dataclass(frozen=True)
class Problem:
    """Why (part of) a submission did not grade."""

    student: str
    notebook: str  # file name, or "" for the whole submission
    kind: str
    detail: str


@dataclass
class Submission:
    student: str
    status: str  # GRADED, FAILED or WAITING
    score: float = 0.0
    max_score: float = 0.0
    penalty: float = 0.0
    marks: dict[tuple[str, str], Mark] = field(default_factory=dict)

    @property
    def final_score(self) -> float:
        """The score with the late penalty taken off, as ``nbgrader export`` gives it."""
        return max(0.0, self.score - self.penalty)

    @property
    def pending(self) -> int:
        return sum(1 for m in self.marks.values() if m.needs_manual_grade)


@dataclass
class AssignmentData:
    name: str
    course_id: str
    db: str
    cells: list[Cell]
    max_score: float
    submissions: dict[str, Submission]  # every student who handed something in
    problems: list[Problem]
    absent: list[str]  # in the gradebook's student list, with no submission
    db_url: str = ""  # where the regrade audit is (attnkit.review.regrades)
    course_root: Path | None = None  # where the grading service's journal is (attnkit.serve)

    @property
    def graded(self) -> list[Submission]:
        return [s for _, s in sorted(self.submissions.items()) if s.status == GRADED]

    @property
    def auto_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.kind == "auto"]

    def problems_of(self, student: str) -> list[Problem]:
        return [p for p in self.problems if p.student == student]


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


def coursedir(root: Path) -> CourseDirectory:
    return CourseDirectory(config=load_config(root), root=str(root))


def open_gradebook(root: Path) -> Gradebook:
    """The course's gradebook; refuses to create an empty SQLite file where none is."""
    cd = coursedir(root)
    url = make_url(cd.db_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        if not Path(url.database).is_file():
            raise SystemExit(f"no gradebook at {url.database}: run `nbgrader generate_assignment`"
                             " and `nbgrader autograde` first")
    return Gradebook(cd.db_url, cd.course_id)


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


# ------------------------------------------------------------------ the figures' numbers


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


# ------------------------------------------------------------------ figures

BLUE, GREEN, AMBER, RED, GREY, INK = ("#3b6ea8", "#3f9a5b", "#e0a030", "#c8553d", "#9aa3ad",
                                      "#1f2933")


def _style(ax) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color("#c5ccd3")
    ax.tick_params(colors="#52606d", labelsize=8)
    ax.set_axisbelow(True)


def _figure(**options: object) -> Figure:
    """A matplotlib figure (imported here: every ``attnkit`` command and grading worker
    imports this module, few of them draw)."""
    from matplotlib.figure import Figure

    return Figure(dpi=150, layout="constrained", **options)


def _png(fig: Figure) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    buffer = io.BytesIO()
    FigureCanvasAgg(fig).print_png(buffer)
    return buffer.getvalue()


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", color="#7b8794", fontsize=10,
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _step(top: float, bins: int) -> float:
    """A round bin width that splits 0..top into about ``bins`` bins."""
    raw = max(top, 1e-9) / bins
    for step in (0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100):
        if step >= raw:
            return step
    return 10 ** math.ceil(math.log10(raw))


def figure_scores(data: AssignmentData) -> bytes:
    scores = [s.score for s in data.graded]
    fig = _figure(figsize=(7.2, 2.4))
    ax = fig.add_subplot()
    _style(ax)
    if not scores:
        _empty(ax, "no graded submissions")
        return _png(fig)
    step = max(_step(data.max_score, 12), 0.5)
    edges = [i * step for i in range(int(math.ceil(data.max_score / step)) + 2)]
    counts, _, _ = ax.hist(scores, bins=edges, color=BLUE, edgecolor="white", linewidth=1.2,
                           rwidth=0.92)
    top = max(counts) * 1.22 + 0.1  # headroom for the labels
    ax.set_ylim(0, top)
    mean = statistics.fmean(scores)
    ax.axvline(mean, color=INK, linestyle="--", linewidth=1)
    ax.text(mean, top * 0.98, f" mean {fmt_score(mean, 2)}", color=INK, fontsize=8, va="top")
    ax.axvline(data.max_score, color=GREY, linewidth=1, linestyle=":")
    ax.text(data.max_score, top * 0.98, f" max {fmt_score(data.max_score)}", color="#7b8794",
            fontsize=8, va="top")
    ax.set_xlim(-step * 0.25, edges[-1])
    if len(edges) <= 25:
        ax.set_xticks(edges)
        ax.set_xticklabels([fmt_score(e) for e in edges])
    ax.set_xlabel(f"score (out of {data.max_score:g})", fontsize=9, color="#52606d")
    ax.set_ylabel("students", fontsize=9, color="#52606d")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", color="#e4e7eb", linewidth=0.8)
    return _png(fig)


def figure_cells(data: AssignmentData) -> bytes:
    """Small multiples: how many students got each score on each graded cell."""
    cells = data.cells
    cols = min(4, max(1, len(cells)))
    rows = max(1, math.ceil(len(cells) / cols))
    fig = _figure(figsize=(1.85 * cols + 0.4, 1.75 * rows + 0.2))
    axes = fig.subplots(rows, cols, squeeze=False)
    for index, ax in enumerate(axes.flat):
        if index >= len(cells):
            ax.set_visible(False)
            continue
        cell = cells[index]
        _style(ax)
        scores = cell_scores(data, cell)
        pending = sum(1 for s in data.graded
                      if cell.key in s.marks and s.marks[cell.key].needs_manual_grade)
        title = cell.label if len(cell.label) <= 26 else cell.label[:25] + "…"
        ax.set_title(title, fontsize=8, color=INK, loc="left")
        if not scores:
            _empty(ax, f"{pending} pending" if pending else "no scores")
            continue
        values = sorted(set(scores) | {0.0, cell.max_score})
        counts = [scores.count(v) for v in values]
        colors = [GREEN if v >= cell.max_score else RED if v <= 0 else AMBER for v in values]
        width = max(cell.max_score, 1) * 0.12
        ax.bar(values, counts, width=width, color=colors)
        ax.set_xticks(values)
        ax.set_xticklabels([f"{v:g}" for v in values], fontsize=7)
        ax.set_ylim(0, max(counts) * 1.25 + 0.1)
        ax.yaxis.get_major_locator().set_params(integer=True)
        mean = statistics.fmean(scores)
        note = f"mean {fmt_score(mean, 2)} / {fmt_score(cell.max_score)}"
        if pending:
            note += f" · {pending} pending"
        ax.text(0.99, 0.97, note, transform=ax.transAxes, ha="right", va="top", fontsize=7,
                color="#52606d")
        ax.grid(axis="y", color="#e4e7eb", linewidth=0.6)
    if not cells:
        axes[0][0].set_visible(True)
        _empty(axes[0][0], "no graded cells")
    return _png(fig)


def figure_pass_rates(data: AssignmentData, rates: list[PassRate]) -> bytes:
    fig = _figure(figsize=(7.2, 0.3 * max(len(rates), 2) + 0.55))
    ax = fig.add_subplot()
    _style(ax)
    if not rates or not any(r.total for r in rates):
        _empty(ax, "no autograded cells graded")
        return _png(fig)
    labels = [r.cell.label for r in rates][::-1]
    values = [100 * r.rate for r in rates][::-1]
    colors = [GREEN if v >= 75 else AMBER if v >= 40 else RED for v in values]
    ax.barh(labels, [100] * len(values), color="#eef1f4", height=0.62)
    ax.barh(labels, values, color=colors, height=0.62)
    for y, rate in enumerate(rates[::-1]):
        ax.text(101.5, y, f"{100 * rate.rate:.0f}%  ({rate.passed}/{rate.total})", va="center",
                fontsize=8, color=INK)
    ax.set_xlim(0, 125)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.set_xticklabels(["0", "25", "50", "75", "100%"])
    ax.tick_params(axis="y", labelsize=8, length=0)
    ax.spines["left"].set_visible(False)
    return _png(fig)


# ------------------------------------------------------------------ HTML

def fmt_score(value: float | None, places: int = 4) -> str:
    """A score as people write it: 2, 0.5, 5.79 (no trailing zeros)."""
    if value is None:
        return ""
    text = f"{round(value, places):f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


PROBLEM_TONE = {INVALID: "bad", MISSING: "bad", NOT_GRADED: "bad", UNREADABLE: "bad",
                CRASHED: "warn", TIMED_OUT: "warn", OUTDATED: "info", NOT_AUTOGRADED: "info"}


def review_sections(data: AssignmentData, folder: Path | None) -> list[tuple[str, str, str]]:
    """(id, nav title, HTML) of the sections from ``attnkit.review``: item statistics, the
    regrade audit, a link to the similarity page when one sits beside the report, and the
    grading service's status when it has run in this course."""
    from attnkit.review import itemstats, regrades
    from attnkit.review.pages import render
    from attnkit.serve import status as serve_status

    found = [("items", "Item statistics", itemstats.section(data))]
    if data.db_url:
        found.append(("regrades", "Regrades", regrades.section(data.db_url, data.name)))
    if folder is not None and (folder / "similarity.html").is_file():
        found.append(("similarity", "Similar submissions",
                      render("similarity_link.html.j2", assignment=data.name)))
    if data.course_root is not None and serve_status.status(data.course_root).running:
        found.append(("feedback-on-submit", "Feedback on submit",
                      serve_status.report_section(data.course_root)))
    return found


def render_html(data: AssignmentData, figures: dict[str, bytes], top: int = 10,
                folder: Path | None = None) -> str:
    """The page, from ``templates/report/index.html.j2`` (Jinja2, autoescaped; its CSS is
    inlined from ``report.css`` so the page stays one self-contained file)."""
    from markupsafe import Markup

    from attnkit.review.pages import render

    graded = data.graded
    scores = [s.score for s in graded]
    rates = pass_rates(data)
    found = hints(data, top)
    progress = manual_progress(data)
    failed = [s for s in data.submissions.values() if s.status == FAILED]
    unprocessed = [s for s in data.submissions.values() if s.status == WAITING]
    done = sum(p.graded for p in progress)
    waiting = sum(p.pending for p in progress)
    blank = sum(p.blank for p in progress)
    mean = statistics.fmean(scores) if scores else None
    pct = f" ({100 * mean / data.max_score:.0f}%)" if mean is not None and data.max_score else ""

    cards = [
        ("students graded", f"{len(graded)}", f"of {len(data.submissions)} who submitted", ""),
        ("mean score", fmt_score(mean, 2) or "–",
         f"out of {fmt_score(data.max_score)}{pct}", ""),
        ("median score", fmt_score(statistics.median(scores)) if scores else "–",
         f"range {fmt_score(min(scores))}–{fmt_score(max(scores))}" if scores else "", ""),
        ("failed to grade", f"{len(failed)}",
         f"{len(data.problems)} grading problem{'s' if len(data.problems) != 1 else ''} in all"
         + (f"; {len(unprocessed)} not autograded yet" if unprocessed else ""),
         "bad" if failed else ""),
        ("written answers graded", f"{done} / {done + waiting}",
         (f"{waiting} pending" if waiting else "none pending")
         + (f", {blank} left blank" if blank else ""), ""),
    ]

    cell_rows = []
    for cell in data.cells:
        got = cell_scores(data, cell)
        cell_rows.append({
            "label": cell.label, "kind": cell.kind, "points": fmt_score(cell.max_score),
            "mean": fmt_score(statistics.fmean(got), 2) if got else "–",
            "min": fmt_score(min(got)) if got else "–",
            "max": fmt_score(max(got)) if got else "–",
            "full": f"{sum(1 for v in got if v >= cell.max_score)} / {len(got)}"})

    named: dict[str, list[tuple[str, int]]] = {}
    for h in hints(data, top=10_000):
        named.setdefault(h.check, []).append(
            (h.label if h.label != h.example else "unnamed", h.count))
    rate_rows = [{"label": r.cell.label, "points": fmt_score(r.cell.max_score),
                  "passed": f"{r.passed} / {r.total}",
                  "rate": f"{100 * r.rate:.0f}%" if r.total else "–",
                  "named": named.get(r.cell.label, [])} for r in rates]
    hint_rows = [{"rank": i + 1, "count": h.count, "check": h.check,
                  "label": h.label if h.label != h.example else None, "example": h.example,
                  "who": ", ".join(h.students)} for i, h in enumerate(found)]
    problem_rows = [{"student": p.student, "notebook": p.notebook, "kind": p.kind,
                     "tone": PROBLEM_TONE.get(p.kind, "info"), "detail": p.detail}
                    for p in sorted(data.problems, key=lambda p: (p.student, p.notebook))]
    progress_rows = [{"label": p.cell.label, "points": fmt_score(p.cell.max_score),
                      "graded": p.graded, "pending": p.pending, "blank": p.blank,
                      "width": f"{100 * p.graded / max(p.graded + p.pending, 1):.1f}",
                      "mean": fmt_score(p.mean, 2) if p.mean is not None else "–"}
                     for p in progress]

    student_rows = []
    penalties = any(sub.penalty for sub in data.submissions.values())
    for student, sub in sorted(data.submissions.items()):
        trouble = data.problems_of(student)
        if sub.status == GRADED:
            status, tone = "graded", "warn" if trouble else "ok"
            score = fmt_score(sub.score)
            share = f"{100 * sub.score / data.max_score:.0f}%" if data.max_score else ""
        else:
            status, tone = sub.status, "bad" if sub.status == FAILED else "info"
            score, share = "–", ""
        student_rows.append({
            "student": student, "score": score, "max": fmt_score(data.max_score),
            "share": share, "late": fmt_score(sub.penalty) if sub.penalty else "",
            "pending": str(sub.pending) if sub.status == GRADED and sub.pending else "",
            "status": status, "tone": tone,
            "problems": "; ".join(sorted({p.kind for p in trouble}))})

    absent = (f" {len(data.absent)} student{'s' if len(data.absent) != 1 else ''} in the "
              f"gradebook handed nothing in: {', '.join(data.absent)}." if data.absent else "")
    review = review_sections(data, folder)
    nav = [("distribution", "Scores"), ("cells", "Cells"), ("checks", "Pass rates"),
           ("hints", "Misconceptions"), ("failures", "Failures"), ("manual", "Manual grading"),
           *[(ident, title) for ident, title, _ in review], ("students", "Students")]
    return render(
        "index.html.j2", name=data.name, course_id=data.course_id, db=data.db,
        stamp=datetime.now().strftime("%Y-%m-%d %H:%M"), nav=nav,
        cards=[{"key": k, "value": v, "sub": sub, "tone": tone} for k, v, sub, tone in cards],
        figures={k: base64.b64encode(v).decode("ascii") for k, v in figures.items()},
        distribution_lead=f"Total score per graded submission, out of "
                          f"{fmt_score(data.max_score)}. Written answers a TA has not graded "
                          "yet count as 0." + absent,
        hints_lead=f"The mistakes the hidden checks named most often (top {top}), counted per "
                   "check; the hint is the most common message the students saw.",
        manual_lead=f"Written answers graded by a TA: {done} of {done + waiting}"
                    f"{' — all done' if not waiting and done else ''}. Answers left as released "
                    "are scored 0 by nbgrader itself and need no TA (“left blank”).",
        cell_rows=cell_rows, rate_rows=rate_rows, hint_rows=hint_rows,
        problem_rows=problem_rows, progress_rows=progress_rows, student_rows=student_rows,
        penalties=penalties, review=[Markup(body) for _, _, body in review]) + "\n"


# ------------------------------------------------------------------ text summary


def summary_text(data: AssignmentData, top: int = 5) -> str:
    """The report's figures in a few lines of plain text."""
    graded = data.graded
    scores = [s.score for s in graded]
    failed = [s.student for s in data.submissions.values() if s.status == FAILED]
    unprocessed = [s.student for s in data.submissions.values() if s.status == WAITING]
    lines = [f"{data.name}: {len(graded)} of {len(data.submissions)} submissions graded"
             + (f", {len(failed)} failed to grade" if failed else "")
             + (f", {len(unprocessed)} not autograded yet" if unprocessed else "")
             + (f"; {len(data.absent)} in the gradebook did not submit" if data.absent else "")]
    if scores:
        mean = statistics.fmean(scores)
        share = f" ({100 * mean / data.max_score:.0f}%)" if data.max_score else ""
        lines.append(f"Mean score {fmt_score(mean, 2)} / {fmt_score(data.max_score)}{share}, "
                     f"median {fmt_score(statistics.median(scores))}, "
                     f"range {fmt_score(min(scores))}-{fmt_score(max(scores))}")
    rates = pass_rates(data)
    if rates:
        lines.append("Pass rate per hidden check (full points):")
        width = max(len(r.cell.label) for r in rates)
        lines += [f"  {r.cell.label:<{width}}  "
                  + (f"{100 * r.rate:4.0f}%" if r.total else "    –")
                  + f"  ({r.passed}/{r.total})" for r in rates]
    found = hints(data, top)
    lines.append("Most frequent misconceptions:" if found
                 else "Most frequent misconceptions: none")
    for h in found:
        label = h.label if len(h.label) <= 70 else h.label[:69] + "…"
        lines.append(f"  {h.count} x {h.check}: {label}")
    lines.append(f"Grading problems: {len(data.problems)}" if data.problems
                 else "Grading problems: none")
    for p in sorted(data.problems, key=lambda p: (p.student, p.notebook)):
        lines.append(f"  {p.student}: {p.kind}: {p.detail}")
    from attnkit.review import itemstats

    lines += itemstats.summary_lines(data)
    progress = manual_progress(data)
    if progress:
        done = sum(p.graded for p in progress)
        waiting = sum(p.pending for p in progress)
        blank = sum(p.blank for p in progress)
        lines.append(f"Written answers: {done} of {done + waiting} graded by a TA, {waiting} "
                     f"pending" + (f" ({blank} left blank, scored 0)" if blank else ""))
    return "\n".join(lines)


# ------------------------------------------------------------------ entry points


def default_out(root: Path, assignment: str) -> Path:
    return Path(root) / "reports" / assignment


def build(root: Path, assignment: str, out: Path | None = None, top: int = 10) -> Path:
    """Write the report for ``assignment``; returns the path of its ``index.html``.

    ``out`` is a directory (default ``<root>/reports/<assignment>``), or an ``.html`` file.
    """
    data = collect(Path(root), assignment)
    return write(data, out or default_out(root, assignment), top)


def write(data: AssignmentData, out: Path, top: int = 10) -> Path:
    out = Path(out)
    page = out if out.suffix.lower() in (".html", ".htm") else out / "index.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    figures = {"scores": figure_scores(data), "cells": figure_cells(data),
               "pass_rates": figure_pass_rates(data, pass_rates(data))}
    folder = page.parent / "figures"
    folder.mkdir(exist_ok=True)
    for name, png in figures.items():
        (folder / f"{name}.png").write_bytes(png)
    page.write_text(render_html(data, figures, top, page.parent), encoding="utf-8")
    return page


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Write an HTML report on one graded assignment: score distributions, "
                          "pass rate per hidden check, frequent misconceptions, submissions "
                          "that failed to grade and manual grading progress.")
    parser.add_argument("assignment", help="assignment name, e.g. ps1_self_attention")
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default: <root>/reports/<assignment>/)")
    parser.add_argument("--top", type=int, default=10,
                        help="how many misconceptions to list (default: 10)")


def main(args: argparse.Namespace) -> int:
    data = collect(Path(args.root), args.assignment)
    out = args.out or default_out(args.root, args.assignment)
    page = write(data, out, args.top)
    print(summary_text(data, min(args.top, 5)))
    print(f"Report: {page}")
    return 0

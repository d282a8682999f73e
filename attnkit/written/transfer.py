"""The offline round trip: ``attnkit export answers`` writes every written answer of an
assignment as CSV, a TA grades it in a spreadsheet, ``attnkit import answers`` reads it back.

One row per student and written question. ``rubric_positions`` names the rubric items by
their positions (``1;3``); ``rubric_text`` repeats their texts for the reader and is
ignored on import. ``comment`` is the TA's own comment, after the items'. ``score`` left as
exported (or empty) means the rubric's score; another value is a score given by hand,
kept and flagged. ``version`` is what the answer was at export: a row that would change an
answer someone graded since is refused.

The import checks every row before it writes anything and writes in one transaction, so a
bad file changes nothing; a row that would leave its answer as it is changes nothing, so a
second import of the same file says "nothing to change".
"""

from __future__ import annotations

import argparse
import csv
import getpass
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from nbgrader.coursedir import CourseDirectory

from attnkit.course import coursedir
from attnkit.course import db_url as course_db_url
from attnkit.gradedata import fmt_score
from attnkit.written import store
from attnkit.written.answers import (
    Answer,
    Question,
    UnknownAssignment,
    answer_text,
    answers,
    questions,
)
from attnkit.written.model import Item, Mark, rubric_score, same
from attnkit.written.rubric import RubricError, changed_since, plan
from attnkit.written.store import ANSWERS, Write

FIELDS = ["assignment", "student_id", "grade_id", "group", "answer", "score", "max_score",
          "rubric_positions", "rubric_text", "comment", "version"]
READ = ["assignment", "student_id", "grade_id", "answer", "score", "rubric_positions",
        "comment", "version"]  # what the import needs; the other columns are for the reader
Grouper = Callable[[Question, Sequence[Answer]], Mapping[str, str]]  # student -> group label


class BadFile(Exception):
    """Rows the import refused; nothing was written."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


# ------------------------------------------------------------------ export


def export_rows(root: Path, assignment: str, grouper: Grouper | None = None) -> list[dict]:
    """One row per student and written question; ``grouper`` labels each answer's group
    (``group`` is empty without one)."""
    rows = []
    for question in questions(root, assignment):
        found = answers(root, assignment, question.grade_id)
        groups = grouper(question, found) if grouper is not None else {}
        for answer in found:
            mark = answer.mark
            rows.append({
                "assignment": assignment, "student_id": answer.student,
                "grade_id": question.grade_id, "group": groups.get(answer.student, ""),
                "answer": answer.text or "", "score": fmt_score(answer.score),
                "max_score": fmt_score(answer.max_score),
                "rubric_positions": ";".join(str(i.position) for i in mark.items),
                "rubric_text": "; ".join(f"{i.position}: {i.text}" for i in mark.items),
                "comment": _comment(mark), "version": mark.version})
    return rows


def _comment(mark: Mark) -> str:
    """The TA's own comment: the note, or a comment typed in formgrader."""
    return (mark.manual_comment or "") if mark.hand_commented else (mark.note or "")


def write_export(root: Path, assignment: str, out: Path,
                 grouper: Grouper | None = None) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        writer.writeheader()
        writer.writerows(export_rows(root, assignment, grouper))
    return out


# ------------------------------------------------------------------ import


def read_rows(path: Path) -> tuple[list[tuple[int, dict[str, str]]], list[str]]:
    """(line where the row starts, row) for each row, and what is malformed."""
    rows, problems = [], []
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle, strict=True)
            missing = [f for f in READ if f not in (reader.fieldnames or [])]
            if missing:
                return [], [f"line 1: no column {', '.join(missing)} (export again)"]
            start = 2
            for row in reader:
                if None in row or None in row.values():
                    problems.append(f"line {start}: {len(reader.fieldnames or [])} fields "
                                    "expected, found another number")
                else:
                    rows.append((start, row))
                start = reader.line_num + 1
    except (OSError, UnicodeDecodeError) as error:
        return [], [f"{path}: cannot be read ({error})"]
    except csv.Error as error:
        problems.append(f"line {reader.line_num}: not valid CSV ({error})")
    return rows, problems


def import_answers(root: Path, path: Path, ta: str) -> list[str]:
    """Check every row, then write every change in one transaction; returns a line per
    answer changed. ``BadFile`` (and nothing written) if any row is wrong."""
    rows, problems = read_rows(path)
    cells = _written_cells(root, {r["assignment"] for _, r in rows})
    by_question: dict[tuple[str, str], list[tuple[int, dict[str, str]]]] = defaultdict(list)
    for line, row in rows:
        if row["assignment"] not in cells:
            problems.append(f"line {line}: no assignment {row['assignment']!r} in the gradebook")
        elif row["grade_id"] not in cells[row["assignment"]]:
            problems.append(f"line {line}: {row['assignment']} has no written question "
                            f"{row['grade_id']!r}")
        else:
            by_question[row["assignment"], row["grade_id"]].append((line, row))
    cd, done = coursedir(root), []
    with store.engine(course_db_url(root)).begin() as conn:
        store.lock(conn, ANSWERS)
        writes: dict[tuple[str, str], list[Write]] = {}
        for (assignment, grade_id), found in by_question.items():
            marks = store.marks(conn, assignment, grade_id)
            items = {i.position: i for i in store.items(conn, assignment, grade_id)}
            seen: set[str] = set()
            for line, row in found:
                try:
                    write = _check(row, marks, items, seen, cd)
                except RubricError as error:
                    problems.append(f"line {line}: {error}")
                    continue
                if write is not None:
                    writes.setdefault((assignment, grade_id), []).append(write)
                    done.append(f"line {line}: {row['student_id']} {grade_id}: "
                                + _describe(write))
        if problems:  # the transaction rolls back: nothing written
            raise BadFile(sorted(problems, key=_line))
        for (assignment, grade_id), planned in writes.items():
            store.write(conn, assignment, grade_id, planned, ta, "CSV import")
    return done


def _line(problem: str) -> tuple[int, str]:
    """Problems in the file's order ("line 12: ..." after "line 3: ...")."""
    head, _, _ = problem.partition(":")
    number = head.removeprefix("line ")
    return (int(number) if number.isdigit() else 0), problem


def _written_cells(root: Path, assignments: set[str]) -> dict[str, set[str]]:
    found = {}
    for assignment in assignments:
        try:
            found[assignment] = {q.grade_id for q in questions(root, assignment)}
        except UnknownAssignment:
            continue
    return found


def _check(row: dict[str, str], marks: dict[str, Mark], items: dict[int, Item],
           seen: set[str], cd: CourseDirectory) -> Write | None:
    """The row's write, None if it changes nothing; ``RubricError`` says what is wrong."""
    student, grade_id = row["student_id"], row["grade_id"]
    if student not in marks:
        raise RubricError(f"no student {student!r} with an answer to {grade_id}")
    if student in seen:
        raise RubricError(f"{student} {grade_id} appears twice")
    seen.add(student)
    mark = marks[student]
    try:
        positions = {int(p) for p in row["rubric_positions"].replace(",", ";").split(";")
                     if p.strip()}
    except ValueError:
        raise RubricError(f"rubric_positions {row['rubric_positions']!r} is not a list of "
                          "positions like 1;3") from None
    unknown = sorted(positions - set(items))
    if unknown:
        raise RubricError(f"{grade_id} has no rubric item at {', '.join(map(str, unknown))}")
    text = answer_text(cd, row["assignment"], mark.notebook, student, grade_id) or ""
    if text != row["answer"]:
        raise RubricError(f"{student}'s answer to {grade_id} changed since the export "
                          "(export again)")
    score = _score(row["score"], mark)
    note = row["comment"].strip() or None
    chosen = tuple(items[p] for p in sorted(positions))
    write = plan(mark, chosen, note)
    after = write.outcome.manual_score
    if score is not None and not same(score, mark.auto_score if after is None else after):
        write = plan(mark, chosen, note, score)
    changes = write.changes_gradebook or {i.id for i in chosen} != {i.id for i in mark.items}
    if not changes:
        return None
    if row["version"] != mark.version:
        raise RubricError(f"{changed_since(mark, row['version'])} since the export "
                          "(export again)")
    return write


def _score(text: str, mark: Mark) -> float | None:
    if not text.strip():
        return None
    try:
        score = float(text)
    except ValueError:
        raise RubricError(f"score {text!r} is not a number") from None
    if not 0 <= score <= mark.max_score:
        raise RubricError(f"score {text} is out of range 0-{fmt_score(mark.max_score)}")
    return score


def _describe(write: Write) -> str:
    old, new = write.mark, write.outcome
    score = new.manual_score if new.manual_score is not None else old.auto_score
    said = [f"score {fmt_score(old.score) or '-'} -> {fmt_score(score) or '-'}"]
    before = ";".join(str(i.position) for i in old.items) or "-"
    after = ";".join(str(i.position) for i in write.items) or "-"
    if before != after:
        said.append(f"items {before} -> {after}")
    if new.manual_comment != old.manual_comment:
        said.append("comment changed")
    rubric = rubric_score((i.points for i in write.items), old.max_score)
    if new.manual_score is not None and not same(new.manual_score, rubric):
        said.append("scored by hand, not by the rubric (flagged)")
    return ", ".join(said)


# ------------------------------------------------------------------ the command line


def add_export_arguments(kinds: argparse._SubParsersAction) -> None:
    """``attnkit export answers``, a kind beside the grade tables of ``attnkit export``."""
    kind = kinds.add_parser(
        "answers", help="every written answer of an assignment, to grade offline",
        description="One CSV row per student and written question: the answer, its score, "
                    "rubric items (by position) and comment; `attnkit import answers` reads "
                    "it back.")
    kind.add_argument("assignment")
    kind.add_argument("--out", type=Path, default=None,
                      help="CSV file (default: <root>/exports/<assignment>_answers.csv)")
    kind.set_defaults(func=export_main)


def export_main(args: argparse.Namespace) -> int:
    root = Path(args.root)
    out = args.out or root / "exports" / f"{args.assignment}_answers.csv"
    try:
        print(f"wrote {write_export(root, args.assignment, out)}")
    except UnknownAssignment as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


def add_import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Read back into the gradebook what `attnkit export` wrote."
    kinds = parser.add_subparsers(dest="import_kind", required=True, metavar="KIND")
    kind = kinds.add_parser(
        "answers", help="scores, rubric items and comments of written answers, from CSV",
        description="Check every row (student, question, score, rubric items, the answer "
                    "unchanged since the export, no one grading it since) and write nothing "
                    "unless all are right; then say what changed.")
    kind.add_argument("file", type=Path, help="the CSV `attnkit export answers` wrote")
    kind.add_argument("--ta", default=None, help="who is grading (default: your user name)")
    kind.set_defaults(func=import_main)


def import_main(args: argparse.Namespace) -> int:
    try:
        done = import_answers(Path(args.root), args.file, args.ta or getpass.getuser())
    except BadFile as error:
        for problem in error.problems:
            print(f"{args.file}: {problem}", file=sys.stderr)
        print(f"nothing imported: {len(error.problems)} problem"
              f"{'s' if len(error.problems) != 1 else ''}", file=sys.stderr)
        return 1
    for line in done:
        print(line)
    print(f"changed {len(done)} answer{'s' if len(done) != 1 else ''}" if done
          else "nothing to change")
    return 0

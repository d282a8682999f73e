"""The offline round trip on ps1 graded by real ``nbgrader autograde``: ``attnkit export
answers`` and ``attnkit import answers`` in a subprocess, a bad file that changes nothing, a
second import that changes nothing, and nbgrader's own feedback and the report showing the
result."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from helpers.course import run
from helpers.graded import ASSIGNMENT, GRADED, NOTEBOOK, copy_graded
from helpers.written_store import dump
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.report import cli as report_cli
from attnkit.report.data import collect
from attnkit.written import answers, rubric, transfer

pytestmark = pytest.mark.slow
Q = "ps1_positional_answer"


@pytest.fixture(scope="module")
def course(graded_ps1: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared graded course, copied, with a rubric for ps1's written question."""
    root = copy_graded(graded_ps1, tmp_path_factory.mktemp("written") / "course")
    url = kit_course.db_url(root)
    rubric.add_item(url, ASSIGNMENT, Q, "says no", 1, "ann", comment="Not equivariant.")
    rubric.add_item(url, ASSIGNMENT, Q, "the encoding stays with the positions", 1, "ann")
    rubric.add_item(url, ASSIGNMENT, Q, "no reason given", -0.5, "ann")
    return root


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, transfer.FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    return path


def _lines(rows: list[dict[str, str]]) -> list[int]:
    """The line of the file each row starts on: the header is line 1, and a row takes a line
    more for each line break in its answer or comment."""
    starts, line = [], 2
    for row in rows:
        starts.append(line)
        line += 1 + row["answer"].count("\n") + row["comment"].count("\n")
    return starts


def _import(root: Path, path: Path) -> tuple[int, str, str]:
    result = run(["attnkit", "import", "answers", str(path), "--ta", "ann"], root, check=False)
    return result.returncode, result.stdout, result.stderr


def test_the_written_questions_and_answers_are_the_gradebooks(course: Path) -> None:
    found = answers.questions(course, ASSIGNMENT)
    assert [(q.grade_id, q.max_score) for q in found] == [(Q, 2.0)]
    assert "**1 point**" in found[0].mark_scheme
    got = {a.student: a for a in answers.answers(course, ASSIGNMENT, Q)}
    assert set(GRADED) <= set(got)
    for student in GRADED:
        nb = json.loads((course / "autograded" / student / ASSIGNMENT / NOTEBOOK).read_text())
        cell = next(c for c in nb["cells"]
                    if c["metadata"].get("nbgrader", {}).get("grade_id") == Q)
        assert got[student].text == "".join(cell["source"])
        assert got[student].max_score == 2.0 and not got[student].hand_scored


def test_export_then_import_round_trip(course: Path, tmp_path: Path) -> None:
    url = kit_course.db_url(course)
    out = tmp_path / "answers.csv"
    run(["attnkit", "export", "answers", ASSIGNMENT, "--out", str(out)], course)
    rows = _read(out)
    by = {r["student_id"]: r for r in rows}
    assert set(GRADED) <= set(by) and {r["grade_id"] for r in rows} == {Q}
    assert all(r["group"] == "" and r["rubric_positions"] == "" for r in rows)
    aisha, chen, dara = (by[s] for s in GRADED)

    # a file with one bad row of each kind changes nothing, and names every row
    bad = [{**aisha, "score": "two"},
           {**aisha, "student_id": "nobody"},
           {**chen, "grade_id": "ps1_no_such_cell"},
           {**chen, "score": "3"},
           {**dara, "rubric_positions": "1;7", "comment": "a change, but not this one"}]
    before = dump(url)
    code, stdout, stderr = _import(course, _write(tmp_path / "bad.csv", bad))
    print(f"$ attnkit import answers bad.csv --ta ann  (exit {code})\n{stdout}{stderr}")
    assert code == 1, stdout + stderr
    line = _lines(bad)
    expected = [f"line {line[0]}: score 'two' is not a number",
                f"line {line[1]}: no student 'nobody'",
                f"line {line[2]}: ps1_self_attention has no written question 'ps1_no_such_cell'",
                f"line {line[3]}: score 3 is out of range 0-2",
                f"line {line[4]}: ps1_positional_answer has no rubric item at 7"]
    found = [next(i for i, text in enumerate(stderr.splitlines()) if want in text)
             for want in expected]
    assert found == sorted(found), f"not in the file's order:\n{stderr}"
    assert "nothing imported: 5 problems" in stderr
    assert dump(url) == before, "a refused file changed the gradebook"
    malformed = tmp_path / "malformed.csv"  # the exported rows, then one cut short
    malformed.write_text(out.read_text(encoding="utf-8") + f"{ASSIGNMENT},aisha\n",
                         encoding="utf-8")
    last = len(out.read_text(encoding="utf-8").splitlines()) + 1
    with pytest.raises(transfer.BadFile, match=f"line {last}: 11 fields expected"):
        transfer.import_answers(course, malformed, "ann")

    # an answer that changed since the export is refused
    path = course / "autograded" / "dara" / ASSIGNMENT / NOTEBOOK
    original = path.read_text()
    nb = json.loads(original)
    next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == Q)[
        "source"] = "a new answer"
    path.write_text(json.dumps(nb))
    with pytest.raises(transfer.BadFile, match=f"line 2: dara's answer to {Q} changed since"):
        transfer.import_answers(course, _write(tmp_path / "d.csv", [{**dara, "score": "1"}]),
                                "ann")
    path.write_text(original)
    assert dump(url) == before

    # the good file: items, a hand score, a comment
    edited = [{**aisha, "rubric_positions": "1;2"},
              {**chen, "rubric_positions": "1", "score": "0.75"},
              {**dara, "rubric_positions": "3", "comment": "See me in office hours."}]
    good = _write(tmp_path / "good.csv", edited)
    code, stdout, stderr = _import(course, good)
    print(f"$ attnkit import answers good.csv --ta ann  (exit {code})\n{stdout}{stderr}")
    assert code == 0, stdout + stderr
    line = _lines(edited)
    assert f"line {line[0]}: aisha {Q}: score" in stdout and "items - -> 1;2" in stdout
    assert f"line {line[1]}: chen {Q}: score" in stdout
    assert "scored by hand, not by the rubric (flagged)" in stdout
    assert "changed 3 answers" in stdout, stdout
    with Gradebook(url) as gb:
        got = {s: (gb.find_grade(Q, ASSIGNMENT, ASSIGNMENT, s).manual_score,
                   gb.find_comment(Q, ASSIGNMENT, ASSIGNMENT, s).manual_comment)
               for s in GRADED}
    assert got["aisha"] == (2.0, "+1 says no: Not equivariant.\n"
                                 "+1 the encoding stays with the positions")
    assert got["chen"] == (0.75, "+1 says no: Not equivariant.")
    assert got["dara"] == (0.0, "-0.5 no reason given\n\nSee me in office hours.")
    flagged = {a.student: a.hand_scored for a in answers.answers(course, ASSIGNMENT, Q)}
    assert flagged["chen"] and not flagged["aisha"]

    # the same file again: nothing to change, nothing written
    before = dump(url)
    code, stdout, _ = _import(course, good)
    print(f"$ attnkit import answers good.csv --ta ann  (again, exit {code})\n{stdout}")
    assert (code, stdout.strip()) == (0, "nothing to change")
    assert dump(url) == before
    # and a fresh export imported as it is changes nothing either
    transfer.write_export(course, ASSIGNMENT, out)
    assert {r["student_id"]: r["rubric_positions"] for r in _read(out)}["aisha"] == "1;2"
    assert transfer.import_answers(course, out, "ann") == []

    # nbgrader's own feedback shows the score and comment; the report counts the items
    run(["nbgrader", "generate_feedback", ASSIGNMENT, "--student", "aisha", "--force"], course)
    page = (course / "feedback" / "aisha" / ASSIGNMENT /
            NOTEBOOK.replace(".ipynb", ".html")).read_text()
    assert "Not equivariant." in page and "the encoding stays with the positions" in page
    summary = report_cli.summary_text(collect(course, ASSIGNMENT))
    assert f"Rubric items, {Q}: 3 of" in summary and "says no (2)" in summary, summary
    html = report_cli.build(course, ASSIGNMENT).read_text()
    assert 'id="rubrics"' in html and "1 scored by hand outside the rubric" in html

    # a row for an answer someone graded since the export is refused
    chen_now = {a.student: a for a in answers.answers(course, ASSIGNMENT, Q)}["chen"]
    rubric.grade(url, ASSIGNMENT, Q, "chen", chen_now.version, "bob", [2])
    with pytest.raises(transfer.BadFile,
                       match=rf"line {line[1]}: chen: graded by bob at .* since the export"):
        transfer.import_answers(course, good, "ann")

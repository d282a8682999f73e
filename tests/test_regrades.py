"""The regrade audit: fingerprints of checks, the table beside nbgrader's, the summary; then
end to end through stock ``nbgrader autograde`` and ``attnkit autograde`` with a changed
check, a resubmission and a TA's manual score that must survive."""

from __future__ import annotations

import csv
import dataclasses
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from helpers.course import copy_course, run
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.judge import registry
from attnkit.pipeline import audit, fingerprint
from attnkit.review import regrades
from attnkit.samples import SAMPLES, build_submission

A = "ps1_self_attention"
pytest_plugins = ["helpers.postgres"]  # the real PostgreSQL server: fixture postgres


PS1 = "attnkit.judge.ps1_self_attention"


def test_a_check_is_defined_by_its_module_what_it_imports_and_the_judge() -> None:
    """The files a check's fingerprint covers: the judge module that holds it, the kit's
    modules it imports (its probe and inputs on the kernel side) and the verdicts."""
    text = fingerprint.check_definition("ps1_softmax")
    modules = {line.split()[0] for line in text.splitlines() if line.startswith("attnkit.")}
    assert {PS1, "attnkit.kernel.ps1_self_attention", "attnkit.kernel.cases",
            "attnkit.judge.check", "attnkit.judge.reference", "attnkit.judge.misconceptions",
            "attnkit.judge.verdicts"} <= modules, modules
    assert not any("ps2_" in m for m in modules), "another assignment's module was included"
    assert "rtol=0.0001" in text and "/" not in text, "a path, not a module name, was hashed"


def _edit(path: Path, text: str, stamp: int) -> None:
    path.write_text(text)
    os.utime(path, ns=(stamp, stamp))  # a new modification time, however coarse the clock


def test_an_edited_module_changes_the_fingerprints_of_its_checks_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A check's module read from a copy: a changed tolerance there changes that module's
    checks' fingerprints and no other's; the text put back gives the fingerprint back."""
    copy = tmp_path / "ps1_self_attention.py"
    original = Path(registry.assignments()["ps1_self_attention"].__file__).read_text()
    assert 'label="softmax"' in original
    _edit(copy, original, 1_000_000_000)
    where = fingerprint._where
    monkeypatch.setattr(fingerprint, "_where",
                        lambda m: (str(copy), False) if m == PS1 else where(m))
    before = {g: fingerprint.check_hash(g, "cell", 1.0) for g in registry.checks()}
    _edit(copy, original.replace('label="softmax"', 'label="softmax", rtol=1e-3', 1), 2_000_000_000)
    after = {g: fingerprint.check_hash(g, "cell", 1.0) for g in registry.checks()}
    changed = {g for g in before if before[g] != after[g]}
    assert changed == set(registry.assignments()["ps1_self_attention"].CHECKS), changed
    _edit(copy, original, 3_000_000_000)
    assert {g: fingerprint.check_hash(g, "cell", 1.0) for g in registry.checks()} == before


def test_a_fingerprint_does_not_depend_on_which_string_names_the_check() -> None:
    """A caller may name a check by the registry's own key; a grading names it by the grade
    id read from the notebook: an equal string, not the same object."""
    for grade_id in registry.checks():
        by_key = fingerprint.check_definition(grade_id)
        assert fingerprint.check_definition(grade_id.encode().decode()) == by_key, grade_id


def test_a_check_the_course_config_replaced_is_fingerprinted_with_that_file(
        tmp_path: Path) -> None:
    """A course replaces a check in its ``nbgrader_config.py`` (``registry.reset()`` first):
    that file joins the check's fingerprint, and an edit to it changes that check's only."""
    config = tmp_path / "nbgrader_config.py"
    _edit(config, "# the course's config\n", 1_000_000_000)
    before = {g: fingerprint.check_definition(g, config)
              for g in ("ps1_softmax", "ps1_softmax_cols")}
    try:
        registry.reset()
        checks = registry.checks()
        checks["ps1_softmax"] = dataclasses.replace(checks["ps1_softmax"], rtol=1e-3)
        first = fingerprint.check_definition("ps1_softmax", config)
        assert "replaced by the course's config" in first and first != before["ps1_softmax"]
        _edit(config, "# the course's config, edited\n", 2_000_000_000)
        assert fingerprint.check_definition("ps1_softmax", config) != first
        cols = fingerprint.check_definition("ps1_softmax_cols", config)
        assert cols == before["ps1_softmax_cols"]
    finally:
        registry.reset()
    assert fingerprint.check_definition("ps1_softmax", config) == before["ps1_softmax"]


def test_changing_one_check_changes_only_its_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    checks = registry.checks()
    before = {g: fingerprint.check_hash(g, "cell", 1.0) for g in checks}
    assert len(set(before.values())) == len(before)
    monkeypatch.setitem(checks, "ps1_softmax", dataclasses.replace(
        checks["ps1_softmax"], per_case=True))
    after = {g: fingerprint.check_hash(g, "cell", 1.0) for g in checks}
    assert [g for g in before if before[g] != after[g]] == ["ps1_softmax"]
    assert fingerprint.check_hash("ps1_softmax", "cell", 2.0) != after["ps1_softmax"]


def test_record_and_summary_in_a_real_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    rows = [{"cell": "q1", "max_score": 2.0, "old_auto": None, "new_auto": 2.0, "manual": None,
             "check_hash": "c1"},
            {"cell": "q2", "max_score": 1.0, "old_auto": None, "new_auto": 0.0, "manual": None,
             "check_hash": "c1"}]
    assert audit.record(url, "ps", "nb", "ann", "s1", rows) == []  # first grading
    assert audit.record(url, "ps", "nb", "bob", "s9", rows) == []
    start = audit.now()
    again = [{**rows[0], "old_auto": 2.0, "new_auto": 1.0, "check_hash": "c2"},
             {**rows[1], "old_auto": 0.0, "new_auto": 1.0, "manual": 0.5}]
    changed = audit.record(url, "ps", "nb", "ann", "s1", again)
    assert [(r["cell"], r["changed"]) for r in changed] == [("q1", "check"), ("q2", "")]
    up = [{**rows[1], "old_auto": 0.0, "new_auto": 1.0}]
    assert [r["changed"] for r in audit.record(url, "ps", "nb", "bob", "s10", up)] == [
        "submission"]
    found = regrades.changes(url, "ps", since=start)
    text = regrades.summary(found)
    assert text.startswith("2 students changed: 1 up, 1 down"), text
    assert "1 cell kept a TA's manual score" in text and "ann/q2 (TA 0.5, auto 0 -> 1)" in text
    tables = {r[0] for r in sqlite3.connect(tmp_path / "gradebook.db").execute(
        "select name from sqlite_master where type='table'")}
    assert tables == {"attnkit_regrade"}, "the audit touched a table other than its own"


CHANGE_CHECK = '''
# The instructor tightens ps1_softmax: the reference is now 1% larger (a deliberate change).
import dataclasses as _dc
from attnkit.judge import registry as _registry
_checks = _registry.checks()
_checks["ps1_softmax"] = _dc.replace(
    _checks["ps1_softmax"], reference=lambda a, _ref=_checks["ps1_softmax"].reference:
    _ref(a) * 1.01)
'''


SOFTMAX_RATIO = """
def softmax_ratio():
    \"\"\"ps1_softmax's reference as the config left it, over the kit's own.\"\"\"
    from attnkit.judge import registry
    pristine = registry.assignments()["ps1_self_attention"].CHECKS["ps1_softmax"]
    args = pristine.cases(0)[0].args
    now = registry.checks()["ps1_softmax"].reference(args) / pristine.reference(args)
    return str(round(float(now.mean()), 6))
"""

LONG_RUNNING = SOFTMAX_RATIO + """
import sys
from pathlib import Path
from attnkit.grading import grader
from attnkit.pipeline import fingerprint

root, db = sys.argv[1], "sqlite:///" + sys.argv[1] + "/gradebook.db"
described = fingerprint.check_definition("ps1_softmax")  # before the course's config ran

grader._worker_api(root, db, None, ())
grader._worker_api(root, db, None, ("--InlineBackend.figure_formats=[]",))  # plots or not
first = (softmax_ratio(), fingerprint.check_definition("ps1_softmax"))
config = Path(root, "nbgrader_config.py")
config.write_text(config.read_text().replace("1.01", "1.02"))
grader._worker_api(root, db, None, ())
second = (softmax_ratio(), fingerprint.check_definition("ps1_softmax"))
print(first[0], second[0], described != first[1], first[1] != second[1])
"""


def test_a_long_running_worker_applies_the_course_config_once_and_follows_its_edits(
        tmp_path: Path) -> None:
    """A service's worker loads the course's config for each of its grading pipelines (plots
    drawn or not), and again when the file changes: a changed check must count once, and
    its fingerprint must follow the file, as a fresh ``attnkit autograde`` worker's does."""
    root = copy_course(tmp_path / "course")
    config = root / "nbgrader_config.py"
    config.write_text(config.read_text() + CHANGE_CHECK)
    out = run([sys.executable, "-c", LONG_RUNNING, str(root)], root).stdout.split()
    assert out == ["1.01", "1.02", "True", "True"], out


RATIO = SOFTMAX_RATIO + """
import sys as _sys
print("ratio", softmax_ratio(), file=_sys.stderr)
"""


def test_stock_nbgrader_applies_a_changed_check_once(tmp_path: Path) -> None:
    """Stock ``nbgrader`` runs ``nbgrader_config.py`` three times in one process: a change to
    a check there must not compound (1.01, then 1.0201, then 1.0303)."""
    root = copy_course(tmp_path / "course")
    config = root / "nbgrader_config.py"
    config.write_text(config.read_text() + CHANGE_CHECK + RATIO)
    result = run(["nbgrader", "autograde", "no_such_assignment"], root, check=False)
    ratios = [line.split()[1] for line in result.stderr.splitlines()
              if line.startswith("ratio ")]
    assert len(ratios) >= 2 and set(ratios) == {"1.01"}, ratios


TWO_COURSES = SOFTMAX_RATIO + """
import sys
from attnkit.grading import grader

ratios = []
for root in (sys.argv[1], sys.argv[2], sys.argv[1]):
    grader._worker_api(root, "sqlite:///" + root + "/gradebook.db", None, ())
    ratios.append(softmax_ratio())
print(*ratios)
"""


def test_a_shared_worker_grades_each_course_with_its_own_checks(tmp_path: Path) -> None:
    """On a ``--scheduler`` cluster one worker may grade two courses: the checks are global
    to the process, so switching back to a course runs its config again."""
    roots = []
    for name, factor in (("a", "1.01"), ("b", "1.05")):
        root = copy_course(tmp_path / name)
        config = root / "nbgrader_config.py"
        config.write_text(config.read_text() + CHANGE_CHECK.replace("1.01", factor))
        roots.append(str(root))
    out = run([sys.executable, "-c", TWO_COURSES, *roots], tmp_path).stdout.split()
    assert out == ["1.01", "1.05", "1.01"], out


@pytest.mark.slow
@pytest.mark.kernel
def test_regrade_through_stock_and_kit_autograde(tmp_path: Path) -> None:
    root = copy_course(tmp_path / "course")
    run(["nbgrader", "generate_assignment", A, "--force"], root)
    master, release = root / "source" / A / f"{A}.ipynb", root / "release" / A / f"{A}.ipynb"
    students = ["aisha", "chen", "dara"]
    for student in students:
        out = root / "submitted" / student / A / f"{A}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(build_submission(master, release, SAMPLES[A][student]), out)
    first = run(["nbgrader", "autograde", A], root)
    assert "changed:" not in first.stdout
    db = kit_course.db_url(root)
    with Gradebook(db) as gb:  # a TA overrides aisha's softmax by hand
        grade = gb.find_grade("ps1_softmax", A, A, "aisha")
        grade.manual_score = 0.5
        gb.db.commit()
        softmax_points = grade.max_score

    # chen resubmits with aisha's (correct) softmax; the instructor changes the softmax check
    nb = build_submission(master, release, SAMPLES[A]["aisha"])
    nbformat.write(nb, root / "submitted" / "chen" / A / f"{A}.ipynb")
    config = root / "nbgrader_config.py"
    original = config.read_text()
    config.write_text(original + CHANGE_CHECK)
    second = run(["nbgrader", "autograde", A, "--force"], root)
    assert f"{A} regrade: " in second.stdout, second.stdout[-2000:]
    summary = second.stdout.split(f"{A} regrade: ", 1)[1]
    assert "students changed:" in summary and "down" in summary
    assert "aisha/ps1_softmax (TA 0.5" in summary, summary
    with Gradebook(db) as gb:
        grade = gb.find_grade("ps1_softmax", A, A, "aisha")
        assert grade.manual_score == 0.5 and grade.score == 0.5, "a TA's score was overwritten"
        assert grade.needs_manual_grade
    found = regrades.changes(db, A)
    by_key = {(c.student, c.cell): c for c in found}
    assert by_key[("dara", "ps1_softmax")].changed == "check"
    assert by_key[("dara", "ps1_softmax")].new == 0 < by_key[("dara", "ps1_softmax")].old
    assert by_key[("aisha", "ps1_softmax")].manual == 0.5
    assert softmax_points == by_key[("dara", "ps1_softmax")].old
    assert all(c.changed in ("check", "submission", "check+submission") for c in found)

    # the instructor puts the check back; `attnkit autograde --force` regrades and summarises
    config.write_text(original)
    started = audit.now()
    third = run(["attnkit", "autograde", A, "--force", "--no-progress", "--workers", "2"], root)
    assert "students changed:" in third.stdout and " up" in third.stdout, third.stdout
    line = next(x for x in third.stdout.splitlines() if "students changed:" in x)
    assert "0 up" not in line, line
    assert len({c.run for c in regrades.changes(db, A, since=started)}) == 1, "one run, "\
        "whichever worker graded"
    latest = run(["attnkit", "regrades", A], root).stdout
    assert line.split("regrade: ")[1] in latest, (line, latest)

    run(["attnkit", "report", A], root)
    page = (root / "reports" / A / "index.html").read_text()
    assert 'id="regrades"' in page and "kept: 0.5, needs review" in page
    run(["attnkit", "export", "regrades", "--assignment", A], root)
    rows = list(csv.DictReader((root / "exports" / "regrades.csv").open()))
    assert {r["student"] for r in rows} == set(students)
    assert len({r["check_hash"] for r in rows if r["cell"] == "ps1_softmax"}) == 2


def test_check_fingerprints_agree_across_processes() -> None:
    """Grading workers are separate processes, with their own string-hash seeds."""
    code = ("from attnkit.judge.registry import checks; from attnkit.pipeline import fingerprint; "
            "print(sorted((g, fingerprint.check_hash(g, '', 1.0)) for g in checks()))")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}) for seed in "12"]
    seen = {proc.communicate(timeout=300)[0] for proc in procs}
    assert all(proc.returncode == 0 for proc in procs) and "" not in seen
    assert len(seen) == 1, "a check's fingerprint depends on the process"


def _record_as_worker(args: tuple[str, str]) -> int:
    url, student = args
    rows = [{"cell": "q1", "max_score": 1.0, "old_auto": None, "new_auto": 1.0, "manual": None,
             "check_hash": "c"}]
    audit.record(url, "ps", "nb", student, "s", rows)
    audit.record(url, "ps", "nb", student, "s2", [{**rows[0], "old_auto": 1.0,
                                                       "new_auto": 0.0}])
    return 1


@pytest.mark.postgres
def test_audit_in_a_real_postgres_gradebook_with_racing_workers(postgres: str) -> None:
    """Grading workers on a shared PostgreSQL gradebook create the table at once and write."""
    import multiprocessing

    from sqlalchemy import create_engine, inspect

    students = [f"s{i}" for i in range(8)]
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        assert sum(pool.map(_record_as_worker, [(postgres, s) for s in students])) == 8
    found = regrades.changes(postgres, "ps")
    assert sorted(c.student for c in found) == students
    assert all(c.changed == "submission" for c in found)
    assert regrades.summary(found).startswith("8 students changed: 0 up, 8 down")
    tables = set(inspect(create_engine(postgres)).get_table_names())
    assert "attnkit_regrade" in tables

"""Permissions on a shared hub, each tried as the offending local user (setpriv to their uid).

The site is laid out by attnkit.deploy.site with the shipped configs; the students fetch and
submit with nbgrader's own commands, the instructor collects, autogrades (`attnkit
autograde`, unprivileged, sandbox on) and releases feedback. Where nbgrader's defaults leave
a hole that our layout closes, the test also shows the hole (see docs/hub.md, "Weak spots,
and what closes them": which weak spots are nbgrader's and which ours).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from helpers.hub import PS1, HubSite, hub_site
from nbgrader.api import Gradebook

from attnkit import course as kit_course
from attnkit.samples import SAMPLES, build_submission

pytestmark = [pytest.mark.slow, pytest.mark.root]

NOTEBOOK = f"{PS1}.ipynb"
STOCK_SUBMIT = "--ExchangeFactory.submit=nbgrader.exchange.default.submit.ExchangeSubmit"
# Student code that looks around while it is being graded; prints what it could reach.
SNOOP = """
import json as _json, os as _os
_seen = {{}}
for _path in {paths!r}:
    try:
        if _os.path.isdir(_path):
            _seen[_path] = sorted(_os.listdir(_path))
        else:
            _seen[_path] = open(_path, 'rb').read(64).hex()
    except OSError as _error:
        _seen[_path] = type(_error).__name__
print('SNOOP' + _json.dumps(_seen))
"""


def denied(result) -> bool:
    return result.returncode != 0 and re.search(
        r"Permission denied|Operation not permitted", result.stderr) is not None


def sh(hub: HubSite, user: str, command: str):
    return hub.as_user(user, ["sh", "-c", command], check=False)


@pytest.fixture(scope="module")
def submitted() -> Iterator[HubSite]:
    """ps1 released; the first student submitted once with nbgrader's stock submit, then
    with the shipped config; the second's work snoops around during grading."""
    with hub_site(students=2) as hub:
        first, second = hub.students
        hub.instructor_run("nbgrader", "generate_assignment", PS1, "--force")
        hub.instructor_run("nbgrader", "release_assignment", PS1, "--force")
        snoop_paths = [str(hub.site.exchange), str(hub.site.course_root),
                       str(hub.site.course_root / "gradebook.db"),
                       f"/home/{hub.instructor}", f"/home/{first}", str(hub.site.base)]
        for student, sample in ((first, SAMPLES[PS1]["aisha"]), (second, SAMPLES[PS1]["chen"])):
            home = Path(f"/home/{student}")
            hub.as_user(student, ["nbgrader", "fetch_assignment", PS1])
            nb = build_submission(hub.site.course_root / "source" / PS1 / NOTEBOOK,
                                  home / PS1 / NOTEBOOK, sample)
            if student == second:
                nb.cells.insert(1, nbformat.v4.new_code_cell(SNOOP.format(paths=snoop_paths)))
            nbformat.write(nb, home / PS1 / NOTEBOOK)  # the student's work, theirs
            shutil.chown(home / PS1 / NOTEBOOK, student, student)
            if student == first:
                hub.as_user(student, ["nbgrader", "submit", PS1, STOCK_SUBMIT])
            hub.as_user(student, ["nbgrader", "submit", PS1])
        hub.instructor_run("nbgrader", "collect", PS1)
        yield hub


@pytest.fixture(scope="module")
def released_hub(submitted: HubSite) -> HubSite:
    """Autograded by the instructor (unprivileged, sandbox on), feedback released and
    fetched by each student."""
    hub = submitted
    result = hub.instructor_run("attnkit", "autograde", PS1)
    assert "failed 0" in result.stdout + result.stderr, result.stdout + result.stderr
    hub.instructor_run("nbgrader", "generate_feedback", PS1, "--force")
    hub.instructor_run("nbgrader", "release_feedback", PS1)
    for student in hub.students:
        hub.as_user(student, ["nbgrader", "fetch_feedback", PS1])
    return hub


def submissions(hub: HubSite, student: str) -> list[Path]:
    inbound = hub.site.exchange / hub.site.course_id / "inbound"
    return sorted(p for p in inbound.iterdir() if p.name.startswith(f"{student}+"))


def test_a_student_cannot_list_the_inbound(submitted: HubSite) -> None:
    """nbgrader's own protection: inbound is 0733 (students drop, nobody lists)."""
    inbound = submitted.site.exchange / submitted.site.course_id / "inbound"
    assert denied(sh(submitted, submitted.students[1], f"ls {shlex.quote(str(inbound))}"))


def test_a_student_cannot_read_another_submission_even_knowing_its_name(
        submitted: HubSite) -> None:
    """nbgrader's weak spot (its submit makes the folder 0777 and files 0644; only the name's
    random end hides it). The shipped PrivateSubmit closes it: 0770/0640, staff group."""
    first, second = submitted.students
    stock, shipped = submissions(submitted, first)  # submitted in that order
    for folder in (stock, shipped):
        assert (folder / NOTEBOOK).exists()
    path = lambda folder: shlex.quote(str(folder / NOTEBOOK))  # noqa: E731
    stock_read = sh(submitted, second, f"cat {path(stock)}")
    assert stock_read.returncode == 0 and "cells" in stock_read.stdout, (
        "nbgrader's stock submit is no longer readable by others: update docs/hub.md's list")
    assert denied(sh(submitted, second, f"cat {path(shipped)}"))
    assert denied(sh(submitted, second, f"ls {shlex.quote(str(shipped))}"))
    assert denied(sh(submitted, second, f"touch {shlex.quote(str(shipped / 'x'))}"))
    secret = shlex.quote(str(shipped / "submission_secret.txt"))
    assert denied(sh(submitted, second, f"cat {secret}"))  # it names the feedback file


def test_a_student_cannot_move_the_course_exchange_away(submitted: HubSite) -> None:
    """nbgrader asks for an exchange root of 0777, where anyone may rename the course's
    folder and put their own in its place (then read every later submission). The shipped
    root is sticky (1777)."""
    root = submitted.site.exchange
    course = shlex.quote(str(root / submitted.site.course_id))
    assert denied(sh(submitted, submitted.students[1], f"mv {course} {course}.old"))
    assert (root / submitted.site.course_id / "inbound").is_dir()


def test_a_student_cannot_enter_the_course_directory(submitted: HubSite) -> None:
    root = submitted.site.course_root
    student = submitted.students[1]
    for command in (f"ls {root}", f"cat {root}/gradebook.db", f"ls {root}/submitted",
                    f"cat {root}/source/{PS1}/{NOTEBOOK}", f"cat {root}/.attnkit/seed-salt"):
        assert denied(sh(submitted, student, command)), command


def test_a_student_cannot_read_another_home(submitted: HubSite) -> None:
    """Fetched work lives in the home (nbgrader issue 1711); homes are 0700 here, where
    useradd's default follows the umask (0755)."""
    first, second = submitted.students
    assert denied(sh(submitted, second, f"cat /home/{first}/{PS1}/{NOTEBOOK}"))
    assert denied(sh(submitted, second, f"ls /home/{first}"))


def test_a_ta_grades_but_cannot_edit_source(released_hub: HubSite) -> None:
    """The TA's formgrader is the hub's grading service, running as the grader account: it
    writes grades to the gradebook, but source/ stays the instructor's. The TA's own
    account cannot enter the course at all."""
    hub = released_hub
    root = hub.site.course_root
    master = shlex.quote(str(root / "source" / PS1 / NOTEBOOK))
    assert denied(sh(hub, hub.ta, f"ls {root}"))
    assert denied(sh(hub, hub.site.grader, f"echo x >> {master}"))
    assert denied(sh(hub, hub.site.grader, f"mv {root}/source {root}/source.old"))
    assert denied(sh(hub, hub.site.grader, f"touch {root}/source/{PS1}/new.ipynb"))
    assert denied(sh(hub, hub.site.grader, f"cat {root}/.attnkit/seed-salt"))
    grade = hub.as_user(hub.site.grader, [
        "python", "-c",
        "import sys; from nbgrader.api import Gradebook\n"
        "with Gradebook(sys.argv[1]) as gb:\n"
        "    g = gb.find_grade('ps1_positional_answer', sys.argv[2], sys.argv[2], sys.argv[3])\n"
        "    g.manual_score = 1.0; gb.db.commit()",
        kit_course.db_url(root), PS1, hub.students[0]], root)
    assert grade.returncode == 0, grade.stderr
    with Gradebook(kit_course.db_url(root)) as gb:
        assert gb.find_grade("ps1_positional_answer", PS1, PS1,
                             hub.students[0]).manual_score == 1.0


def test_a_student_cannot_read_another_feedback(released_hub: HubSite) -> None:
    hub = released_hub
    first, second = hub.students
    feedback = hub.site.exchange / hub.site.course_id / "feedback"
    assert len(list(feedback.glob("*.html"))) == 2
    assert denied(sh(hub, second, f"ls {feedback}"))  # nbgrader's 0711
    fetched = sorted(Path(f"/home/{first}/{PS1}/feedback").glob(f"*/{PS1}.html"))
    assert fetched, "the first student fetched no feedback"
    assert denied(sh(hub, second, f"cat {shlex.quote(str(fetched[0]))}"))


def test_student_code_during_grading_sees_neither_exchange_nor_instructor(
        released_hub: HubSite) -> None:
    hub = released_hub
    second = hub.students[1]
    nb = nbformat.read(hub.site.course_root / "autograded" / second / PS1 / NOTEBOOK,
                       as_version=4)
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))
    match = re.search(r"SNOOP(\{.*\})", printed)
    assert match, f"the snooping cell did not run:\n{printed[:2000]}"
    seen = json.loads(match.group(1))
    assert len(seen) == 6, seen
    for path, what in seen.items():
        assert what in ("FileNotFoundError", "PermissionError"), (path, what)

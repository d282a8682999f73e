"""The exchange's inbound folder attacked by students' shells, with `attnkit serve` running as
the ordinary instructor on the kit's hub layout.

Inbound is writable by every local user: a student can put any name there, links, FIFOs,
huge sparse files, clocks set to 1999 or 2099. Each test plants what a student could, as that
student (setpriv to their uid), then checks what reached the journal, the gradebook, the
submitted copies, the log and the instructor's terminal, and that the service still serves.
"""

from __future__ import annotations

import json
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import psutil
import pytest
from helpers.course import copy_course
from helpers.hostile import BUDGETS, write_suite
from helpers.hub import PS1, PS2, HubSite, hub_site

from attnkit.deploy import site as deploy
from attnkit.serve.exchange import RECENT

pytestmark = [pytest.mark.slow, pytest.mark.root]

RATE_PERIOD = 15.0
SLACK = 2.0  # c.HandInPolicy.timestamp_slack, short so a test need not wait long past it
TIME_BUDGET = 40  # seconds per notebook; hostile.SLEEP_EVERY_CELL sleeps 8 s per cell
# a cell may take 30 s: the kernel takes seconds to send a 250 MB line on a busy machine, and
# the output limit, not the cell's, must be what stops it (the sleeper's cells stay under it)
CONFIG = f"""
c.GradeOnSubmit.rate_limit = 1
c.GradeOnSubmit.rate_period = {RATE_PERIOD}
c.GradeOnSubmit.plots = "never"
c.Execute.timeout = 30
c.ResilientExecute.time_budget = {TIME_BUDGET}
c.HandInPolicy.timestamp_slack = {SLACK}
"""
SECRET = "submission_secret.txt"
XSS = 'x";document.title="XSS-"+document.domain;"'
FAKE_STATUS = "\x1b[2K\rgraded 999, failed 0"

# Run by a student: a hand-in written the way nbgrader's submit writes one, or a forgery.
HAND_IN = r"""
import json, os, sys

def hand_in(spec):
    folder = os.path.join(spec["inbound"], spec["name"])
    if spec.get("link") is not None:
        os.symlink(spec["link"], folder)
    else:
        os.mkdir(folder)
    if spec.get("notebook"):
        with open(spec["notebook"], "rb") as src, \
             open(os.path.join(folder, os.path.basename(spec["notebook"])), "wb") as dst:
            dst.write(src.read())
    if spec.get("timestamp") is not None:
        with open(os.path.join(folder, "timestamp.txt"), "w") as fh:
            fh.write(spec["timestamp"])
    secret = os.path.join(folder, "submission_secret.txt")
    kind = spec.get("secret", "text")
    if kind == "text":
        with open(secret, "w") as fh:
            fh.write(os.urandom(16).hex())
    elif kind == "fifo":
        os.mkfifo(secret)
    elif kind == "latin1":
        with open(secret, "wb") as fh:
            fh.write(b"\xff\xfe not utf-8 \xe9")
    elif kind == "sparse":
        with open(secret, "wb") as fh:
            fh.truncate(64 << 30)

for spec in json.loads(sys.argv[1]):
    hand_in(spec)
"""
# Run by a student: many folders with nothing in them.
JUNK = r"""
import os, sys
inbound, student, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(count):
    name = f"{student}+ps1_self_attention+2026-01-01 00:00:00.000000 UTC+junk{i}"
    os.mkdir(os.path.join(inbound, name))
"""
# Run by the instructor: the service's journal, read-only, as JSON rows.
JOURNAL = r"""
import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
db.row_factory = sqlite3.Row
print(json.dumps([dict(r) for r in db.execute("SELECT * FROM submission")], default=repr))
"""


def stamp(seconds: float) -> str:
    """nbgrader's timestamp format (to the microsecond: two hand-ins of one second keep
    their order)."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


@dataclass
class Service:
    hub: HubSite
    proc: subprocess.Popen | None = None
    planted: list[Path] = field(default_factory=list)  # removed after each test

    @property
    def log(self) -> Path:
        return self.hub.site.state / "serve.log"

    @property
    def inbound(self) -> Path:
        return self.hub.site.exchange / self.hub.site.course_id / "inbound"

    def start(self) -> None:
        command = deploy.command_as(self.hub.instructor, ["attnkit", "serve", PS1, "--workers",
                                                          "1"], self.hub.site.env())
        mark = len(self.log.read_text()) if self.log.exists() else 0
        with self.log.open("a") as out:
            self.proc = subprocess.Popen(command, cwd=self.hub.site.course_root, stdout=out,
                                         stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 240
        while "serving" not in self.log.read_text()[mark:]:
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            assert time.monotonic() < deadline, self.log.read_text()[-3000:]
            time.sleep(0.5)

    def stop(self, timeout: float = 60) -> int | None:
        """SIGTERM; the exit status, or None if it had to be killed."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.terminate()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def hand_in(self, student: str, name: str | None = None, assignment: str = PS1,
                when: float | None = None, **spec) -> str:
        """A hand-in written by ``student``'s account (nbgrader's layout unless ``spec`` says
        otherwise); returns its folder's name."""
        when = time.time() if when is None else when
        name = name or f"{student}+{assignment}+{stamp(when)}+{secrets.token_hex(4)}"
        notebook = self.hub.site.exchange / self.hub.site.course_id / "outbound" / \
            assignment / f"{assignment}.ipynb"
        spec = {"inbound": str(self.inbound), "name": name, "notebook": str(notebook),
                "timestamp": stamp(when), **spec}
        self.planted.append(self.inbound / name)
        if spec.get("link") is not None:  # what is written through it lands in inbound
            self.planted += [self.inbound / n for n in ("timestamp.txt", SECRET,
                                                         Path(notebook).name)]
        self.hub.as_user(student, ["python", "-c", HAND_IN, json.dumps([spec])])
        return name

    def clear(self) -> None:
        """Remove what the last test planted (as root)."""
        for path in self.planted:
            if path.is_symlink() or path.is_file() or path.is_fifo():
                path.unlink()
            elif path.exists():
                shutil.rmtree(path)
        self.planted.clear()

    def journal(self) -> dict[str, dict]:
        path = self.hub.site.course_root / ".attnkit" / "serve" / "journal.db"
        result = self.hub.as_user(self.hub.instructor, ["python", "-c", JOURNAL, str(path)])
        return {row["name"]: row for row in json.loads(result.stdout)}

    def settle(self, timeout: float = 60) -> None:
        """Until the service has scanned past everything planted so far: a fresh hand-in of
        the barrier student (whose folder name nbgrader cannot read) is in the journal."""
        barrier = self.hub.students[-1]
        name = self.hand_in(barrier, f"{barrier}+{PS1}+not a time+{secrets.token_hex(4)}")
        self.wait(f"the service to scan {name}", lambda: name in self.journal(), timeout)

    def wait(self, what: str, test, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not test():
            assert self.alive(), f"the service died waiting for {what}:\n" + \
                self.log.read_text()[-3000:]
            assert time.monotonic() < deadline, f"timed out waiting for {what}:\n" + \
                self.log.read_text()[-3000:]
            time.sleep(0.3)

    def students_in_gradebook(self) -> set[str]:
        result = self.hub.instructor_run("python", "-c", (
            "import json, sqlite3, sys\n"
            "db = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True)\n"
            "print(json.dumps([r for (r,) in db.execute('SELECT id FROM student')]))"),
            str(self.hub.site.course_root / "gradebook.db"))
        return set(json.loads(result.stdout))


@pytest.fixture(scope="module")
def site() -> Iterator[Service]:
    """Twelve students (the last one the barrier's), ps1 graded on submit, ps2 released for
    the instructor's own collect."""
    with hub_site(students=12) as hub:
        with (hub.site.course_root / "nbgrader_config.py").open("a") as config:
            config.write(CONFIG)
        for assignment in (PS1, PS2):
            hub.instructor_run("nbgrader", "generate_assignment", assignment, "--force")
            hub.instructor_run("nbgrader", "release_assignment", assignment, "--force")
        service = Service(hub)
        service.start()
        try:
            yield service
        finally:
            service.stop()


@pytest.fixture
def service(site: Service) -> Iterator[Service]:
    """The module's service, started again if an earlier test left it dead; what the test
    planted is removed afterwards."""
    if not site.alive():
        site.start()
    try:
        yield site
    finally:
        site.clear()


# -- item 2: inbound is read, never followed -------------------------------------------------

def test_a_link_in_inbound_is_not_a_hand_in(service: Service) -> None:
    """``inbound/<me>+ps1+<ts>+x -> .`` with a secret, a timestamp and a notebook written
    through it into inbound itself: it passed for the instructor's own folder, and the whole
    inbound (every student's secret) was copied into the attacker's grading."""
    attacker = service.hub.students[0]
    name = service.hand_in(attacker, link=".")
    assert (service.inbound / "submission_secret.txt").exists()  # written through the link
    service.settle()
    row = service.journal().get(name)
    assert row is None or row["state"] == "failed", row
    copied = service.hub.site.course_root / "submitted" / attacker / PS1
    assert not copied.exists() or not any(p.name.startswith(f"{attacker}+")
                                          for p in copied.iterdir()), sorted(copied.iterdir())
    assert service.alive()


def test_ids_off_the_roster_reach_nothing(service: Service) -> None:
    """Invented ids (a sock puppet with a rate limit of its own; a script for formgrader's
    ``var student_id = "{{ student_id }}"``) in folders the attacker owns."""
    attacker = service.hub.students[0]
    names = [service.hand_in(attacker, f"{who}+{PS1}+{stamp(time.time())}+{secrets.token_hex(4)}")
             for who in ("sock-puppet-1", XSS)]
    service.settle()
    journal = service.journal()
    reached = [name for name in names if name in journal]
    assert not reached, {name: journal[name] for name in reached}
    assert not {"sock-puppet-1", XSS} & service.students_in_gradebook()
    assert "sock-puppet-1" not in service.log.read_text()


def test_a_hand_in_owned_by_another_account_is_refused(service: Service) -> None:
    """A real folder under the victim's name, written by the attacker, refused; and the
    victim's own folder written by the instructor's account (the owner the link trick gave)
    is no hand-in of the victim's either."""
    attacker, victim = service.hub.students[0], service.hub.students[1]
    forged = service.hand_in(attacker, f"{victim}+{PS1}+{stamp(time.time())}+forged")
    planted = service.hand_in(service.hub.instructor,
                              f"{victim}+{PS1}+{stamp(time.time())}+instructor")
    service.settle()
    journal = service.journal()
    for name in (forged, planted):
        assert name not in journal or journal[name]["state"] == "failed", journal.get(name)


def collect(service: Service, student: str) -> subprocess.CompletedProcess:
    """The instructor's stock ``nbgrader collect`` of ps2 (not served) for ``student``."""
    return service.hub.as_user(service.hub.instructor, [
        "nbgrader", "collect", PS2, "--update", f"--student={student}"],
        service.hub.site.course_root, check=False)


def test_stock_collect_follows_no_link_and_takes_no_stranger(service: Service) -> None:
    attacker = service.hub.students[1]
    link = service.hand_in(attacker, assignment=PS2, link=".")
    puppet = service.hand_in(attacker, f"sock-puppet-2+{PS2}+{stamp(time.time())}+p",
                             assignment=PS2)
    submitted = service.hub.site.course_root / "submitted"
    for student in (attacker, "sock-puppet-2"):
        collect(service, student)
    copied = submitted / attacker / PS2
    assert not copied.exists() or not any(p.name.startswith(f"{attacker}+")
                                          for p in copied.iterdir()), (
        f"collect followed {link}: {sorted(p.name for p in copied.iterdir())}")
    assert not (submitted / "sock-puppet-2").exists(), f"collect took {puppet}"


def test_stock_collect_bounds_a_back_dated_timestamp(service: Service) -> None:
    """A folder name and timestamp.txt dated an hour back: the folder's ctime, which its
    owner can only move later, bounds the time collect records."""
    student = service.hub.students[2]
    now = time.time()
    service.hand_in(student, assignment=PS2, when=now - 3600)
    result = collect(service, student)
    copied = service.hub.site.course_root / "submitted" / student / PS2 / "timestamp.txt"
    assert copied.exists(), result.stdout + result.stderr
    recorded = copied.read_text().strip()
    assert recorded >= stamp(now - 60), f"collect recorded {recorded}, an hour back"


def test_stock_collect_dates_a_hand_in_edited_after_it_came(service: Service) -> None:
    """An honest hand-in, then its notebook rewritten in place later (a file's change moves
    the file's ctime, not its folder's): the hand-in counts as handed in when last changed,
    or a stub before the deadline would let its student work on past it."""
    student = service.hub.students[4]
    name = service.hand_in(student, assignment=PS2)
    time.sleep(SLACK + 1)
    notebook = service.inbound / name / f"{PS2}.ipynb"
    editing = time.time()
    service.hub.as_user(student, ["sh", "-c", 'echo >> "$1"', "edit", str(notebook)])
    result = collect(service, student)
    copied = service.hub.site.course_root / "submitted" / student / PS2 / "timestamp.txt"
    assert copied.exists(), result.stdout + result.stderr
    recorded = copied.read_text().strip()
    # the edit's time (a file's ctime runs on the kernel's coarser clock), not the hand-in's
    assert recorded >= stamp(editing - 0.5), f"collect recorded {recorded}, before the edit"


def test_stock_collect_refuses_a_hand_in_of_too_many_files(service: Service) -> None:
    """Entries, not bytes: a hundred thousand empty files held a grading worker for hours
    (nbgrader lists the folder again for every file it ignores)."""
    student = service.hub.students[6]
    name = service.hand_in(student, assignment=PS2)
    service.hub.as_user(student, ["python", "-c", (
        "import os, sys\nos.mkdir(sys.argv[1])\n"
        "for i in range(3000):\n    open(os.path.join(sys.argv[1], str(i)), 'w').close()\n"),
        str(service.inbound / name / "junk")])
    started = time.monotonic()
    result = collect(service, student)
    assert time.monotonic() - started < 60
    assert not (service.hub.site.course_root / "submitted" / student / PS2).exists(), (
        "collected a hand-in of 3000 files")
    assert "files" in result.stdout + result.stderr, result.stdout + result.stderr


# -- item 4: time is the service's ------------------------------------------------------------

def test_a_back_dated_hand_in_is_graded_as_late_as_it_came(service: Service) -> None:
    student = service.hub.students[5]
    now = time.time()
    name = service.hand_in(student, when=now - 7200)
    service.wait("its grading", lambda: service.journal().get(name, {}).get("state")
                 in ("graded", "failed"), 240)
    assert service.journal()[name]["state"] == "graded", service.journal()[name]
    copied = service.hub.site.course_root / "submitted" / student / PS1 / "timestamp.txt"
    recorded = copied.read_text().strip()  # what AssignLatePenalties reads
    assert recorded >= stamp(now - 60), f"graded as submitted at {recorded}"


def test_a_hand_in_dated_2099_does_not_freeze_later_ones(service: Service) -> None:
    student = service.hub.students[6]
    future = service.hand_in(student, when=4070908800.0)  # 2099-01-01
    time.sleep(1.5)
    genuine = service.hand_in(student)
    service.wait("both", lambda: all(service.journal().get(n, {}).get("state") in
                                     ("graded", "failed", "superseded", "not counted")
                                     for n in (future, genuine)), 240)
    journal = service.journal()
    assert journal[genuine]["state"] == "graded", journal[genuine]
    copied = service.hub.site.course_root / "submitted" / student / PS1 / "timestamp.txt"
    assert not copied.read_text().startswith("2099"), copied.read_text()


# -- item 5: budgets per hand-in, other students unaffected ----------------------------------

def hostile_notebook(service: Service, attack: str, tmp_path: Path) -> Path:
    """``hostile.BUDGETS``' row ``attack`` as a notebook any student may read and hand in."""
    (row,) = [h for h in BUDGETS if h.student == attack]
    root = copy_course(tmp_path / "course")
    write_suite(root, [PS1], [row])
    folder = Path(tempfile.mkdtemp(prefix="attnkit-budget-", dir="/var/tmp"))
    service.planted.append(folder)
    notebook = folder / f"{PS1}.ipynb"
    shutil.copy(root / "submitted" / row.student / PS1 / notebook.name, notebook)
    folder.chmod(0o755)
    notebook.chmod(0o644)
    return notebook


def graded_note(service: Service, student: str) -> str:
    """The student's autograded notebook as text (what feedback is made from)."""
    path = service.hub.site.course_root / "autograded" / student / PS1 / f"{PS1}.ipynb"
    return path.read_text()


def test_a_sleeping_notebook_stops_at_its_budget_and_a_classmate_still_gets_feedback(
        service: Service, tmp_path: Path) -> None:
    """One worker, a notebook sleeping 8 s before every cell, then an honest classmate: the
    sleeper is stopped at the notebook's time budget, the classmate is graded after it."""
    sleeper, classmate = service.hub.students[9], service.hub.students[11]
    started = time.monotonic()
    slow = service.hand_in(sleeper, notebook=str(hostile_notebook(
        service, "b02_sleep_every_cell", tmp_path)))
    time.sleep(1)
    honest = service.hand_in(classmate)
    done = ("graded", "failed")
    service.wait("both gradings", lambda: all(
        service.journal().get(n, {}).get("state") in done for n in (slow, honest)), 300)
    waited = time.monotonic() - started
    journal = service.journal()
    assert journal[honest]["state"] == "graded", journal[honest]
    assert journal[slow]["state"] == "graded", journal[slow]  # a grade row, with a reason
    assert "time budget" in graded_note(service, sleeper)
    # 13 cells of 8 s would be 104 s before the classmate's turn; the budget ends it at 20
    assert waited < TIME_BUDGET + 60, f"both graded only after {waited:.0f} s"


def test_a_250_mb_line_is_cut_before_the_worker_and_the_service_goes_on(
        service: Service, tmp_path: Path) -> None:
    student = service.hub.students[10]
    name = service.hand_in(student, notebook=str(hostile_notebook(
        service, "b04_huge_line_uncapped", tmp_path)))
    service.wait("its grading", lambda: service.journal().get(name, {}).get("state")
                 in ("graded", "failed"), 300)
    assert service.journal()[name]["state"] == "graded", service.journal()[name]
    note = graded_note(service, student)
    assert "output cut" in note, "no note says the output was cut"
    assert len(note) < 16 << 20, f"the graded notebook keeps {len(note)} characters"
    assert service.alive()


# -- item 3: one folder cannot stop the service ----------------------------------------------

@pytest.mark.parametrize("secret", ["latin1", "sparse"])
def test_an_odd_secret_fails_one_hand_in(service: Service, secret: str) -> None:
    student = service.hub.students[3]
    name = service.hand_in(student, secret=secret)
    service.settle()
    row = service.journal()[name]
    assert row["state"] == "failed" and row["reason"], row
    assert service.alive()


def test_a_timestamp_past_every_calendar_fails_one_hand_in(service: Service) -> None:
    student = service.hub.students[3]
    name = service.hand_in(student, f"{student}+{PS1}+99999999999999999999999+x")
    service.settle()
    row = service.journal()[name]
    assert row["state"] == "failed" and row["reason"], row


def test_deleting_the_secret_of_a_queued_hand_in_fails_only_it(service: Service) -> None:
    """A hand-in graded, the next queued by the rate limit; the student deletes the queued
    one's secret, then the whole folder."""
    student = service.hub.students[4]
    first = service.hand_in(student)
    service.wait("the first grading", lambda: service.journal().get(first, {}).get("state")
                 in ("grading", "graded"), 120)  # else nbgrader's rule counts the second
    second = service.hand_in(student)
    service.wait("the queue", lambda: service.journal().get(second, {}).get("state")
                 == "queued", 120)
    folder = service.inbound / second
    service.hub.as_user(student, ["rm", str(folder / "submission_secret.txt")])
    time.sleep(1)
    service.hub.as_user(student, ["rm", "-r", str(folder)])
    service.wait("the queued one to end", lambda: service.journal()[second]["state"] in
                 ("graded", "failed", "superseded", "not counted"), RATE_PERIOD + 240)
    assert service.journal()[first]["state"] == "graded"
    service.settle()


# -- item 5 and 7: floods and names ----------------------------------------------------------

def test_thirty_thousand_empty_folders_do_not_keep_the_coordinator_busy(
        service: Service) -> None:
    student = service.hub.students[7]
    service.hub.as_user(student, ["python", "-c", JUNK, str(service.inbound), student,
                                  "30000"])
    try:
        service.settle()
        # settle() hands one in: inbound is listed on every scan while its mtime is RECENT
        time.sleep(RECENT + 0.5)
        coordinator = psutil.Process(service.proc.pid)
        before = sum(coordinator.cpu_times()[:2])
        time.sleep(8)
        busy = (sum(coordinator.cpu_times()[:2]) - before) / 8
        assert busy < 0.15, f"the coordinator used {busy:.0%} of a core"
        service.settle()
    finally:
        for path in service.inbound.glob(f"{student}+*+junk*"):
            path.rmdir()


def test_many_hand_ins_of_one_student_are_capped(service: Service) -> None:
    """Hand-ins beyond c.GradeOnSubmit.hand_in_limit per hand_in_period: no row, no page."""
    student = service.hub.students[7]
    specs = [{"inbound": str(service.inbound), "name": f"{student}+{PS1}+flood+{i}"}
             for i in range(200)]
    service.planted += [service.inbound / spec["name"] for spec in specs]
    service.hub.as_user(student, ["python", "-c", HAND_IN, json.dumps(specs)])
    service.settle()
    journaled = [n for n in service.journal() if n.startswith(f"{student}+")]
    assert len(journaled) <= 30, f"{len(journaled)} hand-ins journaled"


def test_folders_planted_under_another_name_do_not_flood_the_log(service: Service) -> None:
    """Each folder under another student's name was a warning line: one student could write
    gigabytes of log a day."""
    attacker, victim = service.hub.students[0], service.hub.students[1]
    before = service.log.read_text().count("\n")
    for batch in range(10):  # a few each scan, as a student planting in a loop would
        specs = [{"inbound": str(service.inbound), "secret": "text",
                  "name": f"{victim}+{PS1}+{stamp(time.time())}+planted{batch}-{i}"}
                 for i in range(30)]
        service.planted += [service.inbound / spec["name"] for spec in specs]
        service.hub.as_user(attacker, ["python", "-c", HAND_IN, json.dumps(specs)])
        service.settle()
    lines = service.log.read_text().count("\n") - before
    assert lines < 50, f"{lines} log lines for 300 planted folders"


def test_names_are_printed_safely(service: Service) -> None:
    """An escape sequence in a folder name cannot rewrite the instructor's terminal."""
    student = service.hub.students[3]
    service.hand_in(student, f"{student}+{PS1}+{FAKE_STATUS}+x")
    service.settle()
    status = service.hub.instructor_run("attnkit", "serve-status").stdout
    for text, where in ((status, "serve-status"), (service.log.read_text(), "the log")):
        assert "\x1b" not in text and "\r" not in text, f"{where}: {text[-2000:]!r}"


# -- last: a FIFO, and SIGTERM --------------------------------------------------------------

def test_a_fifo_secret_does_not_block_the_service(service: Service) -> None:
    student = service.hub.students[3]
    name = service.hand_in(student, secret="fifo")
    service.settle()
    assert service.journal()[name]["state"] == "failed"


def test_sigterm_stops_the_service_cleanly(service: Service) -> None:
    """With a FIFO planted and a hand-in being graded, SIGTERM stops the service."""
    student = service.hub.students[3]
    service.hand_in(student, secret="fifo")
    service.hand_in(service.hub.students[8])
    time.sleep(2)
    service.proc.send_signal(signal.SIGTERM)
    try:
        status = service.proc.wait(60)
    except subprocess.TimeoutExpired:
        status = None
    assert status == 0, f"SIGTERM: exit status {status}:\n" + service.log.read_text()[-2000:]

"""A hand-in in nbgrader's inbound, read without following anything a student planted.

Inbound is writable by every local user: any name can be there, as a link (to ``.``, to
another hand-in), a FIFO, a sparse file of any size. So every step works on file descriptors:
the folder is opened ``O_NOFOLLOW`` relative to inbound's descriptor and must be a directory
owned by the local account of the student it names; its files are opened relative to the
folder's descriptor, ``O_NOFOLLOW | O_NONBLOCK``, regular files only, read up to a cap; the
copy walks with ``os.fwalk``, which never leaves the tree it opened.
"""

from __future__ import annotations

import fnmatch
import os
import pwd
import re
import stat
from dataclasses import dataclass
from datetime import UTC, datetime

from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import parse_utc
from traitlets import Bool, Float, Int
from traitlets.config import LoggingConfigurable

SECRET = "submission_secret.txt"
TIMESTAMP = "timestamp.txt"
SAFE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}")
STAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"  # nbgrader's submit (timestamp_format, in UTC)
READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Refused(Exception):
    """Why an inbound entry is not a hand-in that may be collected."""


def shown(text: str, limit: int = 120) -> str:
    """``text`` safe for a terminal or a log line: control characters escaped, length capped."""
    text = text if len(text) <= limit else text[:limit] + "..."
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def stamp(seconds: float) -> str:
    """Seconds since the epoch in nbgrader's timestamp format."""
    return datetime.fromtimestamp(seconds, UTC).strftime(STAMP_FORMAT)


def parse_name(name: str) -> tuple[str, str, str]:
    """student, assignment and timestamp text of an inbound folder's name."""
    parts = name.rsplit("+", 3)
    if len(parts) < 3:
        raise Refused("the folder name is not nbgrader's student+assignment+timestamp")
    return parts[0], parts[1], parts[2]


def parse_stamp(text: str, what: str) -> float:
    """nbgrader's timestamp ``text`` as seconds since the epoch."""
    try:
        return parse_utc(text).replace(tzinfo=UTC).timestamp()
    except Exception:  # noqa: BLE001 - dateutil raises several kinds for a bad date
        raise Refused(f"{what} is not a timestamp nbgrader can read: "
                      f"{shown(text, 80)!r}") from None


def roster(coursedir: CourseDirectory) -> set[str]:
    """The course's students (``nbgrader db student``): the only ids a hand-in may name."""
    with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        return {student.id for student in gb.students}


def read_file(dir_fd: int, name: str, limit: int) -> bytes:
    """A regular file of a hand-in, at most ``limit`` bytes; never blocks, never follows."""
    try:
        fd = os.open(name, READ, dir_fd=dir_fd)
    except FileNotFoundError:
        raise Refused(f"it has no {name}") from None
    except OSError as error:
        raise Refused(f"its {name} cannot be opened ({error.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"its {name} is not a regular file")
        if info.st_size > limit:
            raise Refused(f"its {name} is larger than {limit} bytes")
        data = os.read(fd, limit + 1)
        if len(data) > limit:
            raise Refused(f"its {name} is larger than {limit} bytes")
        return data
    finally:
        os.close(fd)


@dataclass
class HandIn:
    """One inbound folder, open; ``close`` it (or use it as a context manager)."""

    name: str
    student: str
    assignment: str
    stamp: str  # nbgrader's timestamp in the folder's name
    fd: int
    info: os.stat_result

    def claimed(self) -> float:
        """nbgrader's timestamp from the folder's name, in seconds."""
        return parse_stamp(self.stamp, "the folder name's timestamp")

    def __enter__(self) -> HandIn:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def complete(self) -> bool:
        """Whether nbgrader's submit has written its last file, the secret."""
        try:
            os.stat(SECRET, dir_fd=self.fd, follow_symlinks=False)
        except OSError:
            return False
        return True


class HandInPolicy(LoggingConfigurable):
    """What a folder in inbound must be to count as a student's hand-in; set as
    ``c.HandInPolicy.*`` in ``nbgrader_config.py``."""

    single_account = Bool(False, help=(
        "Accept hand-ins written by the grading account itself, and only those: a course "
        "where every student's submit runs as the account that collects (a laptop, a test). "
        "Never on a hub: there each hand-in must be owned by the local account of the student "
        "it names, and one written by the grading account, root or anyone else is refused."
    )).tag(config=True)
    max_secret_bytes = Int(1024, help="Largest submission_secret.txt read.").tag(config=True)
    max_timestamp_bytes = Int(100, help="Largest timestamp.txt read.").tag(config=True)
    max_entries = Int(1000, help="Most files and folders one hand-in may hold; one with more "
                      "is refused (nbgrader's copy and autograde slow down with each entry)."
                      ).tag(config=True)
    timestamp_slack = Float(10.0, help=(
        "Seconds a hand-in's own timestamp may precede its folder's ctime (the time its "
        "last entry was written, which its owner can move later but never earlier); an "
        "earlier timestamp is replaced by the ctime, as is one later than the ctime."
    )).tag(config=True)

    def check_id(self, student: str, students: set[str]) -> None:
        if not SAFE_ID.fullmatch(student) or student not in students:
            raise Refused("its student id is not on the course's roster")

    def open(self, inbound_fd: int, name: str, students: set[str]) -> HandIn:
        """The folder ``name`` of inbound, checked: a student on the roster, a real
        directory, owned by that student's account."""
        student, assignment, moment = parse_name(name)
        self.check_id(student, students)
        try:
            fd = os.open(name, READ | os.O_DIRECTORY, dir_fd=inbound_fd)
        except OSError as error:
            raise Refused("it is not a folder" if error.errno in (20, 40) else
                          f"it cannot be opened ({error.strerror})") from None
        info = os.fstat(fd)
        try:
            self.check_owner(info.st_uid, student)
        except Refused:
            os.close(fd)
            raise
        return HandIn(name, student, assignment, moment, fd, info)

    def check_owner(self, uid: int, student: str) -> None:
        if self.single_account:
            if uid != os.getuid():
                raise Refused(f"it was written by uid {uid}, not by the grading account")
            return
        try:
            account = pwd.getpwnam(student).pw_uid
        except KeyError:
            raise Refused("its student has no local account") from None
        if uid != account or uid in (0, os.getuid()):
            raise Refused(f"it was written by uid {uid}, not by its student's account")

    def bounded(self, claimed: float, ctime: float) -> float:
        """The hand-in's time: its own claim if within ``timestamp_slack`` before its
        folder's ctime, else the ctime."""
        return claimed if ctime - self.timestamp_slack <= claimed <= ctime else ctime


def copy_hand_in(hand_in: HandIn, dest: str, coursedir: CourseDirectory, log,
                 max_entries: int) -> float:
    """Copy the open folder to ``dest`` (which must not exist) as nbgrader's ``do_copy``
    does (``ignore``, ``include``, ``max_file_size``, ``max_dir_size``), walking the
    descriptors it opened: links are copied as links, special files left out. Returns when
    anything in it last changed (the latest ctime, which no owner can move back): a file
    rewritten in place moves its own ctime, not its folder's."""
    budget = 1000 * coursedir.max_dir_size
    changed, entries = hand_in.info.st_ctime, 0
    os.mkdir(dest)
    for path, dirs, files, dir_fd in os.fwalk(".", dir_fd=hand_in.fd):
        target = os.path.normpath(os.path.join(dest, path))
        entries += len(dirs) + len(files)
        if entries > max_entries:
            raise Refused(f"it holds more than {max_entries} files and folders")
        changed = max(changed, os.fstat(dir_fd).st_ctime)
        for name in list(dirs):
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if _ignored(name, coursedir.ignore):
                dirs.remove(name)
            elif stat.S_ISLNK(info.st_mode):
                dirs.remove(name)
                os.symlink(os.readlink(name, dir_fd=dir_fd), os.path.join(target, name))
            else:
                os.mkdir(os.path.join(target, name))
        for name in files:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            changed = max(changed, info.st_ctime)
            if _ignored(name, coursedir.ignore) or (
                    coursedir.include and not _ignored(name, coursedir.include)):
                continue
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(name, dir_fd=dir_fd), os.path.join(target, name))
            elif stat.S_ISREG(info.st_mode):
                if info.st_size > 1000 * coursedir.max_file_size:
                    log.warning("Ignoring file too large %s", shown(name))
                    continue
                budget -= _copy_file(dir_fd, name, os.path.join(target, name), budget)
    return changed


def _ignored(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def _copy_file(dir_fd: int, name: str, dest: str, budget: int) -> int:
    fd = os.open(name, READ, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return 0
        copied = 0
        with open(dest, "xb") as out:
            while chunk := os.read(fd, 1 << 20):
                copied += len(chunk)
                if copied > budget:
                    raise RuntimeError("the submission is larger than the course's "
                                       "max_dir_size")
                out.write(chunk)
        return copied
    finally:
        os.close(fd)

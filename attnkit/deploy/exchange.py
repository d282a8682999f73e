"""nbgrader's exchange with submissions private to the course's staff, collected without
following anything a student planted in inbound (``SafeCollect``).

nbgrader's submit leaves each submission world-readable (folder 0777, files 0644) in an
inbound folder that others may not list; only the random end of the folder's name keeps
other students out. In the shipped layout the inbound folder is set-group-ID and belongs to
the staff group, so the submission inherits that group: group access is enough to collect.
(Copying drops the inherited set-group-ID bit from the copy's folder, as the student is not in
the group, so the copy is staged and moved into a folder the inbound made.)
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import stat
from datetime import UTC, datetime

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.submit import ExchangeSubmit

from attnkit.deploy.handin import (
    READ,
    TIMESTAMP,
    HandIn,
    HandInPolicy,
    Refused,
    copy_hand_in,
    shown,
    stamp,
)

PRIVATE_FILE = 0o640
PRIVATE_DIR = 0o2770  # the staff may delete (as nbgrader's 0777 allows), others see nothing


class PrivateSubmit(ExchangeSubmit):
    """nbgrader's submit, then the submission closed to everyone outside the inbound's group."""

    def do_copy(self, src: str, dest: str, log: object = None) -> None:
        if os.path.dirname(dest) != self.inbound_path:  # the student's own cache
            return super().do_copy(src, dest)
        staging = f"{dest}.partial"
        super().do_copy(src, staging)
        os.mkdir(dest)  # the inbound's group and set-group-ID: what is written next keeps them
        for name in os.listdir(staging):
            os.rename(os.path.join(staging, name), os.path.join(dest, name))
        os.rmdir(staging)

    def copy_files(self) -> None:
        super().copy_files()
        if not os.stat(self.inbound_path).st_mode & stat.S_ISGID:
            # without the inherited group, group access would lock the instructor out too
            self.log.warning("%s is not set-group-ID: submission left as nbgrader made it",
                             self.inbound_path)
            return
        dest = os.path.join(self.inbound_path, self.assignment_filename)
        self.set_perms(dest, fileperms=PRIVATE_FILE, dirperms=PRIVATE_DIR)


class SafeCollect(ExchangeCollect):
    """nbgrader's collect with inbound read through ``HandInPolicy``: nothing a student
    planted is followed, a hand-in counts only as a real folder of its own student's account
    and of a student on the roster, and its time is bounded by its folder's ctime, so a
    back-dated or 2099 timestamp neither escapes the late penalty nor wins "latest counts".
    The copy's ``timestamp.txt`` holds that time (``AssignLatePenalties`` reads it)."""

    def init_src(self) -> None:
        if not self.coursedir.course_id:
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        self.policy = HandInPolicy(parent=self)
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            self.students = {student.id for student in gb.students}
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        by_student: dict[str, list[dict]] = {}
        for record in self._records():
            by_student.setdefault(record["username"], []).append(record)
        self.src_records = []
        for records in by_student.values():
            records = self._sort_by_timestamp(records)
            early = [r for r in records if self.duedate and r["timestamp"] <= self.duedate]
            chosen = early if self.before_duedate and early else records
            self.src_records.append(chosen[0])

    def _inbound(self) -> int:
        try:
            return os.open(self.inbound_path, READ | os.O_DIRECTORY)
        except OSError as error:
            self.fail(f"Cannot read {self.inbound_path}: {error.strerror}")

    def _records(self) -> list[dict]:
        """nbgrader's records of the hand-ins that pass, with the time each counts as."""
        wanted, assignment = self.coursedir.student_id, self.coursedir.assignment_id
        inbound = self._inbound()
        records = []
        try:
            for name in os.listdir(inbound):
                parts = name.rsplit("+", 3)
                if len(parts) < 3 or parts[1] != assignment or wanted and \
                        not fnmatch.fnmatchcase(parts[0], wanted):  # nbgrader's glob, "*"
                    continue
                try:
                    with self.policy.open(inbound, name, self.students) as hand_in:
                        if not hand_in.complete():
                            continue  # nbgrader submit is still writing it
                        seconds = self.hand_in_time(hand_in)
                        inode = (hand_in.info.st_dev, hand_in.info.st_ino)
                except Refused as why:
                    self.log.warning("Not collecting %s: %s", shown(name), why)
                    continue
                moment = datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)
                records.append({"username": parts[0], "filename": name,
                                "timestamp": moment, "seconds": seconds, "inode": inode})
        finally:
            os.close(inbound)
        return records

    def hand_in_time(self, hand_in: HandIn) -> float:
        """The time a hand-in counts as: its claim, bounded by its folder's ctime."""
        return self.policy.bounded(hand_in.claimed(), hand_in.info.st_ctime)

    def copy_files(self) -> None:
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect",
                             self.coursedir.assignment_id, self.coursedir.course_id)
        for record in self.src_records:
            try:
                self.collect(record)
            except (Refused, OSError, RuntimeError) as why:
                self.log.error("Not collecting %s: %s", shown(record["filename"]), why)

    def collect(self, record: dict) -> bool:
        """Copy one record's hand-in into ``submitted/`` unless the copy there is as new
        (nbgrader's ``--update`` and ``before_duedate`` rules); whether it copied."""
        student, assignment = record["username"], self.coursedir.assignment_id
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, student,
                                          assignment)
        if os.path.isdir(dest):
            existing = self.coursedir.get_existing_timestamp(dest)
            newer = existing is None or record["timestamp"] > existing
            if not (self.update and newer or self.before_duedate
                    and existing != record["timestamp"]):
                self.log.info("No newer submission to collect: %s %s", student, assignment)
                return False
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        staging = f"{dest}.collecting"
        shutil.rmtree(staging, ignore_errors=True)
        inbound = self._inbound()
        try:
            with self.policy.open(inbound, record["filename"], {student}) as hand_in:
                if (hand_in.info.st_dev, hand_in.info.st_ino) != record["inode"]:
                    raise Refused("it was replaced while being collected")
                changed = copy_hand_in(hand_in, staging, self.coursedir, self.log,
                                       self.policy.max_entries)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        finally:
            os.close(inbound)
        if changed > record["seconds"] + self.policy.timestamp_slack:
            self.log.warning("%s changed after it was handed in: it counts as handed in at "
                             "%s", shown(record["filename"]), stamp(changed))
            record = {**record, "seconds": changed}
        self.finish_copy(staging, record)
        if os.path.isdir(dest):
            shutil.rmtree(dest)
        os.rename(staging, dest)
        self.log.info("Collected submission: %s %s", student, assignment)
        return True

    def finish_copy(self, staging: str, record: dict) -> None:
        """The copy's timestamp.txt says the time the hand-in counts as."""
        path = os.path.join(staging, TIMESTAMP)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        with open(path, "x") as out:
            out.write(stamp(record["seconds"]))

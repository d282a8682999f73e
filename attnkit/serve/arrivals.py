"""How ``attnkit serve`` takes in hand-ins: every newly completed folder in inbound becomes a
journal row, each in its own guard, so nothing a student plants stops the service.

Only ids on the roster are read at all, and at most ``hand_in_limit`` folders per student and
``hand_in_period``; an unreadable hand-in is answered at once with a page.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from nbgrader.coursedir import CourseDirectory

from attnkit.deploy.handin import SAFE_ID, Refused, parse_stamp, roster, shown
from attnkit.serve.exchange import Inbound, utc
from attnkit.serve.journal import FAILED, Journal
from attnkit.serve.quiet import Throttled

log = logging.getLogger("attnkit.serve")
ROSTER_REFRESH = 1.0  # seconds between reads of the roster when an unknown id shows up
LOOK_AGAIN = 30.0  # at most this many seconds between looks at a folder not yet complete


class Arrivals:
    """``GradeOnSubmit``'s look at inbound (a mixin: the service holds the state below)."""

    assignments: list[str]
    hand_in_limit: int
    hand_in_period: float
    poll_interval: float
    coursedir: CourseDirectory
    inbound: Inbound
    journal: Journal
    quiet: Throttled
    students: set[str]  # the roster
    _roster_read: float
    others: set[str]  # submissions of assignments this service leaves alone
    ignored: set[str]  # entries that are no hand-in, looked at once
    later: dict[str, tuple[float, float]]  # name -> (next look, delay)
    _names: list[str] | None  # inbound's last listing
    _notify_finish: Callable[[str, str, str], None]

    def scan(self) -> None:
        """Journal every newly completed hand-in, each in its own guard; answer unreadable
        ones at once. Folders not yet complete are looked at again less and less often."""
        now = time.time()
        names = self.inbound.names()
        if names is not self._names:  # forget what is gone, look at everything new
            self._names = names
            present = set(names)
            self.ignored &= present
            self.others &= present
            self.later = {n: when for n, when in self.later.items() if n in present}
        else:  # the same listing: only the folders due for another look
            names = [n for n, (when, _) in self.later.items() if when <= now]
        known = self.journal.known()
        budget: dict[str, int] = {}  # folders of each student this scan may still open
        for name in names:
            if name in known or name in self.ignored or name in self.others or \
                    self.later.get(name, (0.0, 0.0))[0] > now:
                continue
            try:
                self._look(name, now, budget)
            except Exception as error:  # noqa: BLE001 - one entry never stops the service
                self.ignored.add(name)
                self.quiet.warning("ignored %s: %s", shown(name), shown(
                    f"{type(error).__name__}: {error}", 300))

    def _look(self, name: str, now: float, budget: dict[str, int]) -> None:
        parts = name.rsplit("+", 3)
        if len(parts) < 3 or not self._on_roster(parts[0]):
            self._defer(name, now, 60.0)  # nothing of an id off the roster is printed
            return
        student, assignment = parts[0], parts[1]
        if assignment not in self.assignments:
            self.others.add(name)  # the instructor collects it; no page of ours
            return
        if student not in budget:
            budget[student] = self.hand_in_limit - self.journal.added_since(
                student, now - self.hand_in_period)
        if budget[student] <= 0:  # the cap, before any work is spent on the folder
            self._defer(name, now, 60.0)
            return
        budget[student] -= 1
        try:
            hand_in = self.inbound.open(name, self.students)
        except Refused as why:  # a link, not a folder, another account's: no hand-in at all
            self.ignored.add(name)
            self.quiet.warning("ignored %s: %s", shown(name), why)
            return
        with hand_in:
            if not hand_in.complete():
                self._defer(name, now, LOOK_AGAIN)  # nbgrader submit is still copying
                return
            reasons, secret, stamp, notebooks, claimed = [], None, None, [], None
            try:
                secret = self.inbound.secret(hand_in)
                notebooks = self.inbound.notebooks(hand_in)
            except Refused as why:
                reasons.append(str(why))
            try:
                claimed = hand_in.claimed()
                stamp = self.inbound.timestamp(hand_in)
                parse_stamp(stamp, "its timestamp.txt")
            except Refused as why:
                reasons.append(str(why))
            bound = min(hand_in.info.st_ctime, now)
            submitted = bound if claimed is None else self.inbound.policy.bounded(claimed, bound)
        flagged = claimed is None or abs(claimed - submitted) > self.poll_interval
        if not self.journal.add(name, student, assignment, submitted, seen=now,
                                claimed=claimed, flagged=flagged, secret=secret, stamp=stamp,
                                notebooks=notebooks):
            return
        log.info("new submission %s%s", shown(name), f" (its own time differs: counted as "
                 f"handed in at {utc(submitted)})" if flagged and claimed is not None else "")
        if reasons:
            self._notify_finish(name, FAILED, "not graded: " + "; ".join(reasons))

    def _defer(self, name: str, now: float, longest: float) -> None:
        delay = min(max(self.later.get(name, (0.0, 0.0))[1] * 2, self.poll_interval), longest)
        self.later[name] = (now + delay, delay)

    def _on_roster(self, student: str) -> bool:
        if not SAFE_ID.fullmatch(student):
            return False
        if student not in self.students and time.time() - self._roster_read > ROSTER_REFRESH:
            self._read_roster()
        return student in self.students

    def _read_roster(self) -> None:
        self.students = roster(self.coursedir)
        self._roster_read = time.time()

"""The service's durable record of every submission it has seen (SQLite in ``.attnkit/serve/``).

Each submission in the exchange's inbound folder is one row, keyed by its folder name
(``student+assignment+timestamp[+random]``), which nbgrader makes unique. A row moves
through ``pending`` -> (``queued``) -> ``grading`` -> one terminal state; every move is one
committed transaction, so a service killed at any instant restarts from the last committed
state and redoes only idempotent steps (collect, a grade that did not finish, feedback).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

JOURNAL = Path(".attnkit") / "serve" / "journal.db"

PENDING, QUEUED, GRADING = "pending", "queued", "grading"
GRADED, FAILED, SUPERSEDED, NOT_COUNTED = "graded", "failed", "superseded", "not counted"
WAITING = (PENDING, QUEUED, GRADING)
TERMINAL = (GRADED, FAILED, SUPERSEDED, NOT_COUNTED)

SCHEMA = """
CREATE TABLE IF NOT EXISTS submission (
    name TEXT PRIMARY KEY,          -- the inbound folder's name
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    submitted REAL NOT NULL,        -- the time it counts as, seconds since the epoch (UTC)
    seen REAL NOT NULL,             -- when the service first saw it complete
    state TEXT NOT NULL,
    not_before REAL,                -- queued by the rate limit until then
    started REAL,                   -- when its last grading attempt started
    finished REAL,                  -- when its feedback (or notice) was released
    attempts INTEGER NOT NULL DEFAULT 0,
    score REAL,
    max_score REAL,
    reason TEXT,
    claimed REAL,                   -- nbgrader's timestamp, from the folder's name
    flagged INTEGER NOT NULL DEFAULT 0,  -- claimed and submitted differ
    secret BLOB,                    -- submission_secret.txt, read once at scan time
    stamp TEXT,                     -- timestamp.txt, read once at scan time
    notebooks TEXT                  -- its notebooks' names, one a line
);
CREATE INDEX IF NOT EXISTS by_student ON submission (student, assignment, submitted);
CREATE INDEX IF NOT EXISTS by_state ON submission (state);
"""
ADDED = {"claimed": "REAL", "flagged": "INTEGER NOT NULL DEFAULT 0", "secret": "BLOB",
         "stamp": "TEXT", "notebooks": "TEXT"}  # columns a journal made before them lacks


@dataclass(frozen=True)
class Row:
    name: str
    student: str
    assignment: str
    submitted: float
    seen: float
    state: str
    not_before: float | None
    started: float | None
    finished: float | None
    attempts: int
    score: float | None
    max_score: float | None
    reason: str | None
    claimed: float | None = None
    flagged: int = 0
    secret: bytes | None = None
    stamp: str | None = None
    notebooks: str | None = None

    @property
    def secret_text(self) -> str | None:
        """The secret as nbgrader's fetch_feedback reads it, if it is text."""
        try:
            return self.secret.decode("ascii").strip() or None if self.secret else None
        except UnicodeDecodeError:
            return None


class Journal:
    """One connection to the journal; every method commits before it returns."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / JOURNAL
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # a committed move survives power loss
        self.db.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Add the columns a journal of an earlier version lacks."""
        with self._write() as db:
            have = {row[1] for row in db.execute("PRAGMA table_info(submission)")}
            for column, kind in ADDED.items():
                if column not in have:
                    db.execute(f"ALTER TABLE submission ADD COLUMN {column} {kind}")

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def known(self) -> set[str]:
        return {name for (name,) in self.db.execute("SELECT name FROM submission")}

    def add(self, name: str, student: str, assignment: str, submitted: float,
            seen: float | None = None, claimed: float | None = None, flagged: bool = False,
            secret: bytes | None = None, stamp: str | None = None,
            notebooks: list[str] = ()) -> bool:
        """Record a newly seen submission; False if it was known already."""
        with self._write() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO submission (name, student, assignment, submitted, seen, "
                "state, claimed, flagged, secret, stamp, notebooks) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, student, assignment, submitted, seen or time.time(), PENDING, claimed,
                 int(flagged), secret, stamp, "\n".join(notebooks)))
            return cursor.rowcount == 1

    def rows(self, *states: str) -> list[Row]:
        query = "SELECT * FROM submission"
        if states:
            query += f" WHERE state IN ({','.join('?' * len(states))})"
        return [Row(*row) for row in self.db.execute(query + " ORDER BY submitted, name",
                                                     states)]

    def get(self, name: str) -> Row:
        row = self.db.execute("SELECT * FROM submission WHERE name = ?", (name,)).fetchone()
        return Row(*row)

    def hand_ins(self, student: str, assignment: str) -> list[Row]:
        return [Row(*row) for row in self.db.execute(
            "SELECT * FROM submission WHERE student = ? AND assignment = ?",
            (student, assignment))]

    def added_since(self, student: str, since: float) -> int:
        """How many hand-ins of ``student`` the service first saw since ``since``."""
        return self.db.execute("SELECT count(*) FROM submission WHERE student = ? AND "
                               "seen >= ?", (student, since)).fetchone()[0]

    def recover(self) -> int:
        """After a crash: attempts that were running go back to pending (their steps are
        idempotent); returns how many."""
        with self._write() as db:
            return db.execute("UPDATE submission SET state = ? WHERE state = ?",
                              (PENDING, GRADING)).rowcount

    def start(self, name: str) -> None:
        with self._write() as db:
            db.execute("UPDATE submission SET state = ?, started = ?, attempts = attempts + 1 "
                       "WHERE name = ?", (GRADING, time.time(), name))

    def queue(self, name: str, not_before: float, reason: str) -> None:
        with self._write() as db:
            db.execute("UPDATE submission SET state = ?, not_before = ?, reason = ? "
                       "WHERE name = ?", (QUEUED, not_before, reason, name))

    def finish(self, name: str, state: str, finished: float, reason: str | None = None,
               score: float | None = None, max_score: float | None = None) -> None:
        if state not in TERMINAL:
            raise ValueError(f"{state!r} is not a terminal state")
        with self._write() as db:
            db.execute("UPDATE submission SET state = ?, finished = ?, reason = ?, score = ?, "
                       "max_score = ? WHERE name = ?",
                       (state, finished, reason, score, max_score, name))

    def gradings_since(self, student: str, assignment: str, since: float) -> list[float]:
        """When this student's attempts at this assignment started grading, since ``since``
        (every attempt counts, failed ones too: a crash is no free look at the checks)."""
        rows = self.db.execute(
            "SELECT started FROM submission WHERE student = ? AND assignment = ? AND "
            "state IN (?, ?, ?) AND started >= ? ORDER BY started",
            (student, assignment, GRADING, GRADED, FAILED, since)).fetchall()
        return [started for (started,) in rows]

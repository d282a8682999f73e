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
    submitted REAL NOT NULL,        -- nbgrader's timestamp, seconds since the epoch (UTC)
    seen REAL NOT NULL,             -- when the service first saw it complete
    state TEXT NOT NULL,
    not_before REAL,                -- queued by the rate limit until then
    started REAL,                   -- when its last grading attempt started
    finished REAL,                  -- when its feedback (or notice) was released
    attempts INTEGER NOT NULL DEFAULT 0,
    score REAL,
    max_score REAL,
    reason TEXT
);
CREATE INDEX IF NOT EXISTS by_student ON submission (student, assignment, submitted);
CREATE INDEX IF NOT EXISTS by_state ON submission (state);
"""


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


class Journal:
    """One connection to the journal; every method commits before it returns."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / JOURNAL
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # a committed move survives power loss
        self.db.executescript(SCHEMA)

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

    def add(self, name: str, student: str, assignment: str, submitted: float) -> bool:
        """Record a newly seen submission; False if it was known already."""
        with self._write() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO submission (name, student, assignment, submitted, seen, "
                "state) VALUES (?, ?, ?, ?, ?, ?)",
                (name, student, assignment, submitted, time.time(), PENDING))
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
        assert state in TERMINAL, state
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

"""Hook ``one_engine``: nbgrader's gradebooks sharing one database engine in a grading process.

Autograding one notebook, nbgrader opens ``Gradebook(db_url)`` about nine times (the
converter, OverwriteKernelspec, OverwriteCells, SaveAutoGrades, AssignLatePenalties, ...).
Each opens a new SQLAlchemy engine and connection, checks all 13 tables, and compiles every
statement again, since SQLAlchemy caches compiled SQL per engine. On two cores that was about
a sixth of ``attnkit autograde``'s time (docs/performance.md), and nbgrader
has no setting for it.

Inside ``shared_engine()`` the first gradebook for a URL in this process is opened exactly
as nbgrader opens it (engine, schema check, course row); later ones, in this block or a later
one, reuse its engine, each with its own session, and closing one ends only its session. A
course row, once this process has checked it, is not checked again (nbgrader never deletes
one; the check is a query and a commit, ten times per notebook). When a block ends its
engines close their connections (no connection outlives one submission) but keep their
compiled statements for the next submission.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from nbgrader.api import Gradebook
from nbgrader.auth import Authenticator
from sqlalchemy.engine import Engine
from sqlalchemy.orm import scoped_session, sessionmaker

from attnkit.upstream import applies

_ACTIVE = threading.Lock()
_ENGINES: dict[str, Engine] = {}
_COURSES: set[tuple[str, str]] = set()  # (URL, course id) rows this process has checked


@contextlib.contextmanager
def shared_engine() -> Iterator[dict[str, Engine]]:
    """Within the block, ``Gradebook`` objects for one URL share this process's engine for it
    (not re-entrant; one block at a time per process)."""
    if not _ACTIVE.acquire(blocking=False):
        raise RuntimeError("shared_engine() is already active in this process")
    if not applies("one_engine"):
        try:
            yield {}
        finally:
            _ACTIVE.release()
        return
    nbgrader_open, nbgrader_close = Gradebook.__init__, Gradebook.close

    def open_shared(self: Gradebook, db_url: str, course_id: str = "default_course",
                    authenticator: Authenticator | None = None) -> None:
        if db_url not in _ENGINES:
            nbgrader_open(self, db_url, course_id, authenticator)
            _ENGINES[db_url] = self.engine
            _COURSES.add((db_url, course_id))
            return
        self.engine = _ENGINES[db_url]
        self.db = scoped_session(sessionmaker(autoflush=True, bind=self.engine, future=True))
        if (db_url, course_id) not in _COURSES:
            self.check_course(course_id=course_id)
            _COURSES.add((db_url, course_id))
        self.course_id = course_id
        self.authenticator = authenticator

    def close_session(self: Gradebook) -> None:
        self.db.remove()  # the engine stays open until the block ends

    Gradebook.__init__, Gradebook.close = open_shared, close_session
    try:
        yield _ENGINES
    finally:
        Gradebook.__init__, Gradebook.close = nbgrader_open, nbgrader_close
        _ACTIVE.release()
        for engine in _ENGINES.values():
            engine.dispose()  # its connections; the engine keeps its compiled statements

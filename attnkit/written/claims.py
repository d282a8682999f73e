"""Claims, so that TAs grading one question at once each get different answers: "next
ungraded" gives a TA the first group that is neither graded nor claimed by another TA, and
claims it for them until it expires (a TA who walks away holds nothing for long).

A group is named by a key: a group of the grouping's, or one student's id when answers are
graded one by one. The claims live in the gradebook's database (``store.CLAIMS``), so TAs on
different servers of one course share them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlalchemy as sa

from attnkit.written import store
from attnkit.written.store import CLAIMS

TTL = timedelta(minutes=10)  # long enough to grade a group, short enough to lose little
BY_HAND = "formgrader"  # graded outside the kit: nbgrader records no name
LEFT_BLANK = "nbgrader (left blank)"  # an answer handed in as released, scored 0 by nbgrader
CHUNK = 200  # students "next ungraded" asks about first; then all the others at once


@dataclass(frozen=True)
class Claim:
    """``ta`` is grading the group ``key`` of one question until ``expires_at`` (UTC)."""

    assignment: str
    grade_id: str
    key: str
    ta: str
    claimed_at: datetime
    expires_at: datetime


class Taken(Exception):
    """Another TA holds the claim."""

    def __init__(self, holder: Claim) -> None:
        self.holder = holder
        super().__init__(f"{holder.key} is being graded by {holder.ta} (claimed "
                         f"{holder.claimed_at:%H:%M:%S}, until {holder.expires_at:%H:%M:%S} UTC)")


def _ttl(ttl: timedelta | float) -> timedelta:
    return ttl if isinstance(ttl, timedelta) else timedelta(seconds=ttl)


def _claim(row: sa.Row) -> Claim:
    return Claim(row.assignment, row.grade_id, row.group_key, row.ta, row.claimed_at,
                 row.expires_at)


def _key(assignment: str, grade_id: str, key: str) -> sa.ColumnElement[bool]:
    return sa.and_(CLAIMS.c.assignment == assignment, CLAIMS.c.grade_id == grade_id,
                   CLAIMS.c.group_key == key)


def _take(conn: sa.Connection, assignment: str, grade_id: str, key: str, ta: str,
          ttl: timedelta) -> Claim:
    """Claim in the caller's locked transaction; ``Taken`` if another TA's claim is live."""
    stamp = store.now()
    row = conn.execute(sa.select(CLAIMS).where(_key(assignment, grade_id, key))).first()
    if row is not None and row.ta != ta and row.expires_at > stamp:
        raise Taken(_claim(row))
    values = {"ta": ta, "claimed_at": row.claimed_at if row is not None and row.ta == ta
              else stamp, "expires_at": stamp + ttl}
    if row is None:
        conn.execute(sa.insert(CLAIMS).values(assignment=assignment, grade_id=grade_id,
                                              group_key=key, **values))
    else:
        conn.execute(sa.update(CLAIMS).where(_key(assignment, grade_id, key)).values(**values))
    return Claim(assignment, grade_id, key, ta, values["claimed_at"], values["expires_at"])


def claim(db_url: str, assignment: str, grade_id: str, key: str, ta: str,
          ttl: timedelta | float = TTL) -> Claim:
    """Claim (or renew the claim on) group ``key`` for ``ta``, for ``ttl`` (seconds or a
    timedelta). ``Taken`` when another TA's claim has not expired."""
    with store.engine(db_url).begin() as conn:
        store.lock(conn, CLAIMS)
        return _take(conn, assignment, grade_id, key, ta, _ttl(ttl))


def release(db_url: str, assignment: str, grade_id: str, key: str, ta: str) -> bool:
    """Give up ``ta``'s claim on ``key``; False if they held none."""
    with store.engine(db_url).begin() as conn:
        done = conn.execute(sa.delete(CLAIMS).where(_key(assignment, grade_id, key),
                                                    CLAIMS.c.ta == ta))
        return bool(done.rowcount)


def claims(db_url: str, assignment: str, grade_id: str | None = None) -> list[Claim]:
    """The live claims on the assignment's questions (or one question's), oldest first."""
    with store.engine(db_url).connect() as conn:
        return live(conn, assignment, grade_id)


def live(conn: sa.Connection, assignment: str, grade_id: str | None = None) -> list[Claim]:
    """``claims`` on the caller's connection."""
    query = sa.select(CLAIMS).where(CLAIMS.c.assignment == assignment,
                                    CLAIMS.c.expires_at > store.now())
    if grade_id is not None:
        query = query.where(CLAIMS.c.grade_id == grade_id)
    return [_claim(r) for r in conn.execute(query.order_by(CLAIMS.c.claimed_at))]


def next_ungraded(db_url: str, assignment: str, grade_id: str, keys: Sequence[str], ta: str,
                  members: Mapping[str, Iterable[str]] | None = None,
                  ttl: timedelta | float = TTL) -> str | None:
    """The first of ``keys`` (in the page's order) that still has an answer to grade and no
    other TA's live claim, now claimed for ``ta``; None when there is none. ``members``:
    each group's students (default: each key is one student's id). ``ta``'s other claims on
    the question are released: moving on means leaving them."""
    with store.engine(db_url).connect() as conn:
        return take_next(conn, assignment, grade_id, keys, ta, members, ttl)[0]


def take_next(conn: sa.Connection, assignment: str, grade_id: str, keys: Sequence[str],
              ta: str, members: Mapping[str, Iterable[str]] | None = None,
              ttl: timedelta | float = TTL) -> tuple[str | None, list[Claim]]:
    """``next_ungraded`` on the caller's connection, which it commits; also the question's
    live claims after it (``live``), known without asking again. In as few statements as
    it can: the lock, the question's claims, the waiting students (usually those of the
    first groups only), and one write that moves the TA's claim to the key found."""
    store.lock(conn, CLAIMS)
    stamp = store.now()
    rows = conn.execute(sa.select(CLAIMS).where(CLAIMS.c.assignment == assignment,
                                                CLAIMS.c.grade_id == grade_id)).all()
    others = [r for r in rows if r.ta != ta and r.expires_at > stamp]
    held = {r.group_key for r in others}
    found = None
    free = [(k, list(members[k]) if members is not None else [k]) for k in keys
            if k not in held]
    end, students = 0, 0
    while end < len(free) and (end == 0 or students + len(free[end][1]) <= CHUNK):
        students += len(free[end][1])
        end += 1
    # the first groups' students first; then every waiting student, in one query
    # without a list of names (long lists cost more than the rows they save)
    for part, names in ((free[:end], [s for _, group in free[:end] for s in group]),
                        (free[end:], None)):
        if part and found is None:
            waiting = store.waiting(conn, assignment, grade_id, names)
            found = next((k for k, group in part if any(s in waiting for s in group)), None)
    # what goes: the TA's own claims (moving on leaves them), an expired one on the key found
    stale = [r.group_key for r in rows if r.ta == ta or r.group_key == found]
    if found is None:
        if stale:
            _drop(conn, assignment, grade_id, stale)
        conn.commit()
        return None, [_claim(r) for r in others]
    taken = Claim(assignment, grade_id, found, ta, stamp, stamp + _ttl(ttl))
    values = {"group_key": found, "ta": ta, "claimed_at": stamp, "expires_at": taken.expires_at}
    if len(stale) == 1:  # as a rule: the group the TA held before
        conn.execute(sa.update(CLAIMS).where(_key(assignment, grade_id, stale[0]))
                     .values(**values))
    else:
        if stale:
            _drop(conn, assignment, grade_id, stale)
        conn.execute(sa.insert(CLAIMS).values(assignment=assignment, grade_id=grade_id,
                                              **values))
    conn.commit()
    return found, sorted([*(_claim(r) for r in others), taken], key=lambda c: c.claimed_at)


def _drop(conn: sa.Connection, assignment: str, grade_id: str, keys: list[str]) -> None:
    conn.execute(sa.delete(CLAIMS).where(CLAIMS.c.assignment == assignment,
                                         CLAIMS.c.grade_id == grade_id,
                                         CLAIMS.c.group_key.in_(keys)))


# ------------------------------------------------------------------ progress


@dataclass(frozen=True)
class Progress:
    """How far the grading of one question is: answers graded, by whom, who is at it."""

    grade_id: str
    answers: int
    graded: int
    by: dict[str, int] = field(default_factory=dict)  # grader -> answers graded
    claimed: dict[str, int] = field(default_factory=dict)  # TA -> groups claimed now

    @property
    def pending(self) -> int:
        return self.answers - self.graded


def progress(db_url: str, assignment: str, grade_ids: Iterable[str]) -> list[Progress]:
    """Per question: answers graded and by whom (the TA who last wrote it through the kit,
    ``BY_HAND`` or ``LEFT_BLANK``), and the live claims per TA."""
    found = []
    with store.engine(db_url).connect() as conn:
        held = conn.execute(sa.select(CLAIMS.c.grade_id, CLAIMS.c.ta).where(
            CLAIMS.c.assignment == assignment, CLAIMS.c.expires_at > store.now())).all()
        for grade_id in grade_ids:
            found.append(_count(conn, assignment, grade_id, [ta for g, ta in held
                                                             if g == grade_id]))
    return found


def count(conn: sa.Connection, assignment: str, grade_id: str,
          held: Iterable[Claim]) -> Progress:
    """One question's ``progress`` on the caller's connection, ``held`` its live claims."""
    return _count(conn, assignment, grade_id, [c.ta for c in held if c.grade_id == grade_id])


def _count(conn: sa.Connection, assignment: str, grade_id: str, tas: list[str]) -> Progress:
    rows = store.tally(conn, assignment, grade_id)
    by: Counter[str] = Counter()
    for graded_by, scored, needs, answers in rows:
        if not needs:
            by[_grader(graded_by, scored)] += answers
    claimed = Counter(tas)
    return Progress(grade_id, sum(r[3] for r in rows), by.total(), dict(by.most_common()),
                    dict(claimed.most_common()))


def _grader(graded_by: str | None, scored: bool) -> str:
    if graded_by:
        return graded_by
    return BY_HAND if scored else LEFT_BLANK

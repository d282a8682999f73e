"""One rubric item changed on a whole class's answers, against one answer at a time.

Builds N students' answers to ps1's written question in a scratch SQLite gradebook (nbgrader's
own tables, ``tests/helpers/written_store.py``), or with ``--postgres`` in a scratch PostgreSQL
server's (``tests/helpers/postgres.py``), gives every answer rubric items 1 and 2, then times,
in the same run, each on its own copy of that class:

* kit:      ``rubric.change_item`` (item 2's points from 1 to 0.5): one transaction, bulk
            statements; every score and comment re-written and an audit row per answer;
* baseline: the same new scores and comments written one answer at a time, as formgrader's
            score and comment boxes do: find the grade and the comment, set them, commit.

It prints both, the ratio, and checks that both leave every answer at the new score. Then, on
a copy with every answer ungraded, the p50 and p95 of "next ungraded" for two TAs taking
turns (each grades what they got before asking again).

    .venv/bin/python benchmarks/rubric_rescore.py -n 1000
    .venv/bin/python benchmarks/rubric_rescore.py -n 1000 --postgres
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import sqlalchemy as sa
from nbgrader.api import Gradebook

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.written_store import ASSIGNMENT, QUESTION, scratch_gradebook  # noqa: E402

from attnkit.pipeline import audit  # noqa: E402
from attnkit.written import claims, rubric, store  # noqa: E402
from attnkit.written.model import compose  # noqa: E402


def build(url: str, count: int, graded: bool = True,
          label: str = "kit") -> tuple[list[str], int]:
    """The gradebook, every answer graded with items 1 and 2 (unless not ``graded``);
    returns the students and item 2's id."""
    students = scratch_gradebook(url, count)
    rubric.add_item(url, ASSIGNMENT, QUESTION, "says no", 1, "bench")
    second = rubric.add_item(url, ASSIGNMENT, QUESTION, "says why", 1, "bench")
    if graded:
        with store.engine(url).connect() as conn:
            seen = {s: m.version for s, m in store.marks(conn, ASSIGNMENT, QUESTION).items()}
        start = time.perf_counter()
        rubric.apply(url, ASSIGNMENT, QUESTION, seen, "bench", add=[1, 2])
        print(f"{label + ': apply two items to all':28s} {time.perf_counter() - start:.3f} s")
    return students, second.id


def databases(folder: Path, stack: ExitStack, postgres: bool) -> Callable[[str], str]:
    """``fresh(name)``: the URL of an empty gradebook for one part of the run: a SQLite file
    in ``folder``, or the scratch PostgreSQL server's database emptied (its own URL, so the
    kit's engine, which creates its tables once per URL, creates them again)."""
    if not postgres:
        def sqlite(name: str) -> str:
            (folder / name).mkdir()
            return f"sqlite:///{folder / name / 'gradebook.db'}"
        return sqlite
    from helpers.postgres import postgres_server

    url = stack.enter_context(postgres_server())

    def emptied(name: str) -> str:
        engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql("DROP SCHEMA public CASCADE")
            conn.exec_driver_sql("CREATE SCHEMA public")
        engine.dispose()
        return f"{url}?application_name=rescore-{name}"
    return emptied


def kit(url: str, item: int) -> float:
    start = time.perf_counter()
    rubric.change_item(url, item, "bench", points=0.5)
    return time.perf_counter() - start


def baseline(url: str, students: list[str]) -> float:
    """Formgrader's way: per answer, find its grade and comment, set them, commit."""
    items = rubric.items(url, ASSIGNMENT, QUESTION)
    items[1] = dataclasses.replace(items[1], points=0.5)
    comment = compose(items, None)
    start = time.perf_counter()
    with Gradebook(url) as gb:
        for student in students:
            grade = gb.find_grade(QUESTION, ASSIGNMENT, ASSIGNMENT, student)
            grade.manual_score = 1.5
            grade.needs_manual_grade = False
            gb.find_comment(QUESTION, ASSIGNMENT, ASSIGNMENT, student).manual_comment = comment
            gb.db.commit()
    return time.perf_counter() - start


def next_ungraded(url: str, students: list[str], calls: int = 100) -> list[float]:
    """Seconds per "next ungraded" of two TAs taking turns, each claiming a new answer."""
    took = []
    for turn in range(calls):
        start = time.perf_counter()
        claims.next_ungraded(url, ASSIGNMENT, QUESTION, students, ("ann", "bob")[turn % 2])
        took.append(time.perf_counter() - start)
        if turn % 2:  # each TA grades what they got, so the next call moves on
            for claim in claims.claims(url, ASSIGNMENT, QUESTION):
                with store.engine(url).connect() as conn:
                    mark = store.marks(conn, ASSIGNMENT, QUESTION, [claim.key])[claim.key]
                rubric.apply(url, ASSIGNMENT, QUESTION, {claim.key: mark.version}, claim.ta,
                             add=[1])
    return sorted(took)


def scores(url: str) -> set[float | None]:
    with store.engine(url).connect() as conn:
        return {m.manual_score for m in store.marks(conn, ASSIGNMENT, QUESTION).values()}


def audited(url: str) -> int:
    with audit.engine(url).connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(audit.TABLE).where(
            audit.TABLE.c.changed.like("rubric item 2%"))).scalar_one()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--students", type=int, default=1000)
    parser.add_argument("--postgres", action="store_true",
                        help="the gradebook on a scratch PostgreSQL server, not SQLite")
    args = parser.parse_args()
    with ExitStack() as stack:
        folder = Path(tempfile.mkdtemp(prefix="attnkit-rescore-"))
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        fresh = databases(folder, stack, args.postgres)
        print(f"building {args.students} graded answers "
              f"({'PostgreSQL' if args.postgres else 'SQLite'}) ...", flush=True)
        kit_url = fresh("kit")
        students, item = build(kit_url, args.students)
        ours = kit(kit_url, item)
        kit_scores, rows = scores(kit_url), audited(kit_url)
        base_url = fresh("baseline")
        build(base_url, args.students, label="(baseline's copy)")
        theirs = baseline(base_url, students)
        ok = kit_scores == scores(base_url) == {1.5}
        print(f"answers                      {len(students)}")
        print(f"kit: change one item         {ours:.3f} s  ({rows} audit rows)")
        print(f"baseline: one at a time      {theirs:.3f} s")
        print(f"ratio                        {theirs / ours:.1f}x")
        print(f"every score 1.5 after both   {'yes' if ok else 'NO'}")
        ungraded = fresh("ungraded")
        build(ungraded, args.students, graded=False)
        took = next_ungraded(ungraded, students)
        print(f"next ungraded, two TAs       p50 {1000 * statistics.median(took):.0f} ms  "
              f"p95 {1000 * took[int(0.95 * len(took))]:.0f} ms  ({len(took)} calls)")
        return 0 if ok and rows == len(students) else 1


if __name__ == "__main__":
    sys.exit(main())

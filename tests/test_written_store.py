"""Rubric items, graded answers and claims in a real nbgrader gradebook, on SQLite and on a
real PostgreSQL server: nbgrader's own score and comment written, an item's change re-scoring
every answer with an audit row naming who, a hand score kept, two TAs who never overwrite each
other unseen, and claims that keep them apart and expire."""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from helpers.written_store import (
    POINTS,
    QUESTION,
    gradebook_state,
    scratch_gradebook,
    set_by_hand,
)
from helpers.xss import MARKDOWN_ATTACKS

from attnkit.gradedata import AssignmentData, Cell
from attnkit.pipeline import audit
from attnkit.written import claims, page, rubric, store
from attnkit.written import report as written_report
from attnkit.written.model import Item, Mark, compose, rubric_score

# the real PostgreSQL server (postgres) and a fresh gradebook in either (gradebook_url)
pytest_plugins = ["helpers.postgres", "helpers.gradebooks"]
Q = QUESTION


@pytest.fixture
def db(gradebook_url: str) -> tuple[str, str]:
    """(database URL, assignment): a fresh assignment of 12 students in either database."""
    url = gradebook_url
    assignment = f"ps1_{uuid.uuid4().hex[:8]}"
    scratch_gradebook(url, 12, assignment)
    return url, assignment


def _marks(url: str, assignment: str) -> dict[str, Mark]:
    with store.engine(url).connect() as conn:
        return store.marks(conn, assignment, Q)


def _rubric(url: str, a: str) -> list[Item]:
    return [rubric.add_item(url, a, Q, "says no: the encoding stays with the positions", 1,
                            "ann", comment="Right: permuting the tokens leaves Pi in place."),
            rubric.add_item(url, a, Q, "explains with the equations", 1, "ann"),
            rubric.add_item(url, a, Q, "claims the encoding moves with the tokens", -1, "ann")]


def test_the_score_is_the_sum_of_the_items_within_the_points() -> None:
    assert rubric_score([], 2) is None
    assert rubric_score([1, 1, 1], 2) == 2
    assert rubric_score([1, -1.5], 2) == 0
    assert rubric_score([1, 0.5], 2) == 1.5
    item = Item(1, "a", "q", 2, "says why", 0.5, "good")
    assert compose([item], " see me ") == "+0.5 says why: good\n\nsee me"
    assert compose([], None) is None


def test_applying_items_writes_nbgraders_score_and_comment(db: tuple[str, str]) -> None:
    url, a = db
    said_no, why, _ = _rubric(url, a)
    before = _marks(url, a)
    group = ["s0000", "s0001", "s0002"]
    done = rubric.apply(url, a, Q, {s: before[s].version for s in group}, "ann", add=[1, 2])
    assert sorted(done.changed) == group and not done.kept
    state = gradebook_state(url, a)
    for student in group:
        score, comment, pending = state[student]
        assert (score, pending) == (POINTS, False)
        assert comment == (f"+1 {said_no.text}: {said_no.comment}\n+1 {why.text}")
    assert state["s0003"] == (None, None, True), "an answer outside the group was touched"
    # one answer alone, with a note; removing an item lowers its score
    one = rubric.apply(url, a, Q, {"s0000": done.versions["s0000"]}, "bob", remove=[2],
                       note="Say why next time.")
    assert gradebook_state(url, a)["s0000"][:2] == (
        1.0, f"+1 {said_no.text}: {said_no.comment}\n\nSay why next time.")
    assert one.versions["s0000"] != done.versions["s0000"]


def test_changing_an_item_rescores_every_answer_and_audits_who(db: tuple[str, str]) -> None:
    url, a = db
    _, why, _ = _rubric(url, a)
    seen = {s: m.version for s, m in _marks(url, a).items()}
    rubric.apply(url, a, Q, seen, "ann", add=[1, 2])
    done = rubric.change_item(url, why.id, "carol", points=0.5, text="explains why")
    assert len(done.changed) == 12
    state = gradebook_state(url, a)
    assert {s: v[0] for s, v in state.items()} == {s: 1.5 for s in seen}
    assert all(v[1].endswith("\n+0.5 explains why") for v in state.values())
    with audit.engine(url).connect() as conn:
        rows = conn.execute(sa.select(audit.TABLE).where(
            audit.TABLE.c.assignment == a, audit.TABLE.c.changed_by == "carol")).all()
    assert len(rows) == 12
    assert {(r.old_manual, r.manual, r.cell) for r in rows} == {(2.0, 1.5, Q)}
    assert all("rubric item 2" in r.changed for r in rows)
    # removing the item takes it off every answer
    rubric.remove_item(url, why.id, "carol")
    assert {v[0] for v in gradebook_state(url, a).values()} == {1.0}
    assert [i.position for i in rubric.items(url, a, Q)] == [1, 3]


def test_a_score_given_by_hand_is_kept_and_flagged(db: tuple[str, str]) -> None:
    url, a = db
    said_no, _, _ = _rubric(url, a)
    set_by_hand(url, "s0005", 1.5, "typed in formgrader", a)
    mark = _marks(url, a)["s0005"]
    assert mark.hand_scored and mark.hand_commented
    done = rubric.apply(url, a, Q, {"s0005": mark.version}, "ann", add=[1, 2])
    assert done.kept == ["s0005"]
    assert gradebook_state(url, a)["s0005"][:2] == (1.5, "typed in formgrader")
    rubric.change_item(url, said_no.id, "ann", points=0.25)
    mark = _marks(url, a)["s0005"]
    assert (mark.manual_score, mark.rubric_score, mark.hand_scored) == (1.5, 1.25, True)
    # a TA who sees it and names a score decides; the rubric's own score clears the flag
    rubric.grade(url, a, Q, "s0005", mark.version, "ann", [1, 2], score=1.25)
    assert not _marks(url, a)["s0005"].hand_scored


def test_two_tas_never_overwrite_each_other_unseen(db: tuple[str, str]) -> None:
    url, a = db
    _rubric(url, a)
    seen = {s: m.version for s, m in _marks(url, a).items()}  # both TAs load the page
    group = {s: seen[s] for s in ("s0001", "s0002")}
    rubric.apply(url, a, Q, group, "ann", add=[1])
    with pytest.raises(rubric.Conflict) as refused:
        rubric.apply(url, a, Q, {**group, "s0003": seen["s0003"]}, "bob", add=[3])
    assert [c.student for c in refused.value.changed] == ["s0001", "s0002"]
    assert all(c.by == "ann" and c.when is not None for c in refused.value.changed)
    assert "s0001: graded by ann at " in str(refused.value)
    state = gradebook_state(url, a)
    assert state["s0001"][0] == 1.0 and state["s0003"] == (None, None, True), \
        "the refused write wrote something"
    # a score typed in formgrader since the page loaded is a change too
    set_by_hand(url, "s0004", 2.0, assignment=a)
    with pytest.raises(rubric.Conflict, match="s0004: changed in formgrader"):
        rubric.grade(url, a, Q, "s0004", seen["s0004"], "bob", [3])
    assert gradebook_state(url, a)["s0004"][0] == 2.0
    # an item's edit re-scores under its editor's name, and counts as a change too
    latest = rubric.apply(url, a, Q, {"s0006": seen["s0006"]}, "ann", add=[1]).versions
    rubric.change_item(url, rubric.items(url, a, Q)[0].id, "carol", points=0.5)
    with pytest.raises(rubric.Conflict, match="s0006: re-scored by carol at "):
        rubric.grade(url, a, Q, "s0006", latest["s0006"], "ann", [2])
    progress = claims.progress(url, a, [Q])[0]
    assert progress.by == {"ann": 3, claims.BY_HAND: 1}, "an item's edit took the credit"


def test_two_tas_writing_at_the_same_moment_one_wins(db: tuple[str, str]) -> None:
    """Two threads apply different items to the same answers, seen at the same version, at
    once: one write lands whole, the other is refused whole."""
    url, a = db
    _rubric(url, a)
    seen = {s: m.version for s, m in _marks(url, a).items()}
    start, outcome = threading.Barrier(2), {}

    def grade(ta: str, position: int) -> None:
        start.wait()
        try:
            rubric.apply(url, a, Q, seen, ta, add=[position])
            outcome[ta] = position
        except rubric.Conflict as refused:
            outcome[ta] = refused

    threads = [threading.Thread(target=grade, args=args) for args in (("ann", 1), ("bob", 2))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    won = [ta for ta, got in outcome.items() if isinstance(got, int)]
    lost = [got for got in outcome.values() if isinstance(got, rubric.Conflict)]
    assert len(won) == 1 and len(lost) == 1, outcome
    assert {c.by for c in lost[0].changed} == set(won)
    assert {tuple(i.position for i in m.items) for m in _marks(url, a).values()} == {
        (outcome[won[0]],)}


def test_claims_keep_tas_apart_and_expire(db: tuple[str, str]) -> None:
    url, a = db
    groups = {"g1": ["s0000", "s0001"], "g2": ["s0002"], "g3": ["s0003", "s0004"]}
    keys = list(groups)
    assert claims.next_ungraded(url, a, Q, keys, "ann", groups, ttl=30) == "g1"
    assert claims.next_ungraded(url, a, Q, keys, "bob", groups, ttl=0.5) == "g2"
    with pytest.raises(claims.Taken, match="g2 is being graded by bob"):
        claims.claim(url, a, Q, "g2", "ann")
    assert {c.key: c.ta for c in claims.claims(url, a, Q)} == {"g1": "ann", "g2": "bob"}
    time.sleep(0.6)  # bob's claim expires
    assert {c.key for c in claims.claims(url, a, Q)} == {"g1"}
    assert claims.claim(url, a, Q, "g2", "carol").ta == "carol"
    # a graded group is skipped: nothing is left for bob until ann lets g1 go
    _rubric(url, a)
    marks = _marks(url, a)
    rubric.apply(url, a, Q, {s: marks[s].version for s in groups["g3"]}, "ann", add=[1])
    assert claims.next_ungraded(url, a, Q, keys, "bob", groups) is None
    assert claims.next_ungraded(url, a, Q, keys, "ann", groups) == "g1"  # still hers
    assert claims.release(url, a, Q, "g1", "ann") and not claims.release(url, a, Q, "g1", "ann")
    assert claims.next_ungraded(url, a, Q, keys, "bob", groups) == "g1"
    # one answer at a time: the keys are student ids
    assert claims.next_ungraded(url, a, Q, ["s0003", "s0005"], "dan") == "s0005"
    progress = claims.progress(url, a, [Q])[0]
    assert (progress.answers, progress.graded, progress.by) == (12, 2, {"ann": 2})
    assert progress.claimed == {"bob": 1, "carol": 1, "dan": 1}


def test_moved_answers_are_kept_beside_the_other_tables(db: tuple[str, str],
                                                        tmp_path: Path) -> None:
    """A move is a row of the kit's ``attnkit_answer_group``, in the gradebook's database
    beside the rubric's: the latest move of an answer wins, and the page's stamp sees it."""
    url, a = db
    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(f"c.CourseDirectory.db_url = {url!r}\n")
    before = page.stamp(root, a, Q)
    assert page.move(root, a, Q, "s0003", "g-s0001", "ann") == "g-s0001"
    assert page.move(root, a, Q, "s0004", "a-anything", "bob") == "a-s0004"
    assert page.move(root, a, Q, "s0003", "g-s0002", "bob") == "g-s0002"
    with pytest.raises(ValueError, match="no group"):
        page.move(root, a, Q, "s0005", "elsewhere", "ann")
    with store.engine(url).connect() as conn:
        rows = conn.execute(sa.select(store.MOVES).where(store.MOVES.c.assignment == a)
                            .order_by(store.MOVES.c.student)).all()
    assert [(r.student, r.group_key, r.moved_by) for r in rows] == [
        ("s0003", "g-s0002", "bob"), ("s0004", "a-s0004", "bob")]
    assert page.stamp(root, a, Q) != before
    assert store.MOVES.name in sa.inspect(store.engine(url)).get_table_names()


def test_an_older_audit_table_gains_the_new_columns(tmp_path: Path) -> None:
    """A gradebook whose regrade audit was made before ``changed_by`` existed."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = sa.create_engine(url)
    old = sa.MetaData()
    sa.Table(audit.TABLE.name, old, *[sa.Column(c.name, c.type) for c in audit.TABLE.columns
                                      if c.name not in audit.ADDED])
    old.create_all(engine)
    audit.with_table(engine)
    assert set(audit.ADDED) <= {c["name"] for c in sa.inspect(engine).get_columns(
        audit.TABLE.name)}


def test_the_report_counts_each_item_given_in_words(db: tuple[str, str]) -> None:
    """The report's section and summary lines; item texts (typed by TAs) are escaped."""
    url, a = db
    said_no, why, wrong = _rubric(url, a)
    hostile = rubric.add_item(url, a, Q, MARKDOWN_ATTACKS["script"], 0, "ann")
    marks = _marks(url, a)
    rubric.apply(url, a, Q, {s: marks[s].version for s in ("s0000", "s0001", "s0002")}, "ann",
                 add=[said_no.position])
    rubric.apply(url, a, Q, {"s0003": marks["s0003"].version}, "bob",
                 add=[wrong.position, hostile.position])
    data = AssignmentData(a, "course", "db", [Cell(a, Q, "manual", POINTS, Q)], POINTS, {},
                          [], [], db_url=url)
    (line,) = written_report.summary_lines(data)
    assert line == (f"Rubric items, {Q}: 4 of 12 graded; {said_no.text} (3); "
                    f"{wrong.text} (1); {hostile.text} (1)")
    ((ident, title, html),) = written_report.sections(data, None)
    assert (ident, title) == ("rubrics", "Rubric items")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "ann 3, bob 1" in html and ">75%<" in html and ">0%<" in html
    assert why.text in html


def test_next_ungraded_moves_the_tas_claims_in_one_step(db: tuple[str, str]) -> None:
    """"n" releases every other claim of the TA's on the question, takes over a claim that
    expired on the group it gives, and leaves other TAs' live claims alone."""
    url, a = db
    groups = {"g1": ["s0000"], "g2": ["s0001"], "g3": ["s0002"], "g4": ["s0003"]}
    claims.claim(url, a, Q, "g1", "bob", ttl=0.2)  # will have expired
    claims.claim(url, a, Q, "g3", "ann")
    claims.claim(url, a, Q, "g4", "ann")
    claims.claim(url, a, Q, "g2", "carol")
    time.sleep(0.3)
    assert claims.next_ungraded(url, a, Q, list(groups), "ann", groups) == "g1"
    assert {c.key: c.ta for c in claims.claims(url, a, Q)} == {"g1": "ann", "g2": "carol"}
    assert claims.next_ungraded(url, a, Q, list(groups), "ann", groups) == "g1"  # still hers
    assert claims.next_ungraded(url, a, Q, ["g2"], "ann", groups) is None
    assert {c.key: c.ta for c in claims.claims(url, a, Q)} == {"g2": "carol"}

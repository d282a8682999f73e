"""Grouping written answers: the synthetic class's tune half meets the TA-action targets,
copies share a group, blanks are apart, and the result is the same every time.

Only the "tune" half of tests/data/written_answers is graded here: the "report" half is held
out for the figures in docs/written.md (benchmarks/written_groups.py). No kernels.
"""

from __future__ import annotations

import pytest
from helpers.written import QUESTIONS, load, resample, tally

from attnkit.written import stance
from attnkit.written.groups import PLACEHOLDER, group_answers, is_blank, normalise, parts


@pytest.fixture(scope="module", params=QUESTIONS)
def tune(request: pytest.FixtureRequest) -> tuple[list[dict], object]:
    rows = load(request.param, "tune")
    return rows, group_answers([row["answer"] for row in rows])


def test_the_tune_half_meets_the_targets(tune) -> None:
    """One action per group and per answer moved out: at most half of one per answer, with
    the points inside each group agreeing for at least 90 % of answers."""
    rows, grouping = tune
    figures = tally([row["points"] for row in rows], grouping)
    assert figures.share <= 0.50, figures
    assert figures.agreement >= 0.90, figures


def test_copied_answers_share_a_group(tune) -> None:
    rows, grouping = tune
    index = {row["id"]: i for i, row in enumerate(rows)}
    pairs = [(index[row["id"]], index[row["copy_of"]]) for row in rows
             if row["copy_of"] in index]
    assert pairs
    apart = [(rows[a]["id"], rows[b]["id"]) for a, b in pairs
             if grouping.group_of[a] != grouping.group_of[b]]
    assert not apart


def test_groups_cover_every_answer_once_largest_first(tune) -> None:
    rows, grouping = tune
    members = sorted(i for group in grouping.groups for i in group.members)
    assert members == list(range(len(rows)))
    sizes = [len(group.members) for group in grouping.groups]
    assert sizes == sorted(sizes, reverse=True)
    for index, group in enumerate(grouping.groups):
        assert group.representative in group.members
        assert all(grouping.group_of[i] == index for i in group.members)
        assert 0.0 <= group.confidence <= 1.0
    assert all(0.0 <= c <= 1.0 for c in grouping.confidence)


def test_blank_answers_form_their_own_group() -> None:
    rows = load(QUESTIONS[0], "tune")
    answers = [row["answer"] for row in rows] + ["", "  \n", PLACEHOLDER, f"**{PLACEHOLDER}**"]
    grouping = group_answers(answers)
    blank = [i for i, text in enumerate(answers) if is_blank(text)]
    assert len(blank) >= 4
    groups = {grouping.group_of[i] for i in blank}
    assert len(groups) == 1
    (only,) = groups
    assert grouping.groups[only].blank
    assert set(grouping.groups[only].members) == set(blank)
    assert sum(group.blank for group in grouping.groups) == 1


def test_the_same_answers_give_the_same_groups(tune) -> None:
    rows, grouping = tune
    again = group_answers([row["answer"] for row in rows])
    assert again == grouping


def test_the_order_of_the_class_does_not_change_who_is_together() -> None:
    rows = load(QUESTIONS[1], "tune")
    answers = [row["answer"] for row in rows]
    forward = group_answers(answers)
    backward = group_answers(answers[::-1])
    last = len(answers) - 1
    together = {frozenset(g.members) for g in forward.groups}
    assert together == {frozenset(last - i for i in g.members) for g in backward.groups}


def test_no_answers_and_one_answer() -> None:
    empty = group_answers([])
    assert empty.groups == () and empty.group_of == () and empty.confidence == ()
    one = group_answers(["No, because $\\Pi P \\neq \\Pi$."])
    assert len(one) == 1 and one.groups[0].members == (0,) and one.group_of == (0,)
    assert not one.groups[0].blank
    assert group_answers([""]).groups[0].blank
    two = group_answers(["Yes.", "No."])
    assert len(two) == 2


def test_a_thousand_answers_in_one_call() -> None:
    answers, points = resample(load(QUESTIONS[2]), 1000)
    grouping = group_answers(answers)
    assert len(grouping.group_of) == len(grouping.confidence) == 1000
    assert sorted(i for g in grouping.groups for i in g.members) == list(range(1000))
    assert len(grouping) < 500


@pytest.mark.parametrize(("text", "words"), [
    ("$\\mathbf{\\Pi} P \\neq \\Pi$", "pi p neq pi"),
    ("Π·P != Π", "pi times p neq pi"),
    ("* **No**: it doesn't hold\n* $W^Q_i$", "no it does not hold w q i"),
    ("```python\nx = 1\n```", "x eq 1"),
])
def test_normalise_spells_markup_and_maths_as_words(text: str, words: str) -> None:
    assert normalise(text) == words


def test_parts_are_split_at_their_marks() -> None:
    assert parts("(a) copies it.\n(b) No.") == {"a": "copies it.", "b": "No."}
    assert parts("Part a: copies\nb) no") == {"a": "copies", "b": "no"}
    assert parts("Intro.\n(a) one\n(a) more") == {"": "Intro.", "a": "one more"}
    assert parts("No marks at all") == {"": "No marks at all"}


def test_stances_are_read_from_the_words_of_any_yes_no_question() -> None:
    """Explicit verdicts, hedges, a "yes" argued as a "no", and the class's predicate negated
    or affirmed without a yes or no; nothing for a question that asks none."""
    class_ = [normalise(t) for t in ["No, it is not smooth anymore.", "It is still smooth.",
                                     "Yes, still smooth.", "It is no longer smooth.",
                                     "Not smooth.", "It remains smooth, nothing changes."]]
    reading = stance.Reading(class_ * 10)
    assert reading.word == "smooth"
    said = [reading(normalise(t))[0] for t in [
        "Yes.", "no", "Yes and no, it depends.", "I'm not sure.",
        "Yes, but the two are different and it is not the same.", "It is no longer smooth.",
        "It stays smooth.", "The function loses smoothness.", "Kernels are nice.",
        "The smoothness is lost.", "Smoothness doesn't hold anymore.", "Smoothness still holds.",
        "I would say no.", "It would not.", "Still smooth, nothing changes."]]
    assert said == [stance.YES, stance.NO, stance.HEDGE, stance.HEDGE, stance.HEDGE,
                    stance.NO, stance.YES, stance.NO, stance.NONE,
                    stance.NO, stance.NO, stance.YES, stance.NO, stance.NO, stance.YES]
    assert reading(normalise("It is rough, not smooth, never smooth."))[0] == stance.NO
    assert stance.confused(normalise("The layer is invariant now."), "equivariant")
    assert stance.confused(normalise("Invariance is lost."), "equivariant")
    assert not stance.confused(normalise("Not equivariant, nor invariant."), "equivariant")
    assert stance.predicate([normalise("Several heads attend to several places.")] * 40) is None


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_group_never_mixes_the_stances_of_whole_answers(question: str) -> None:
    rows = load(question, "tune")
    grouping = group_answers([row["answer"] for row in rows])
    # what is read as the whole answer: all of it, or what comes before its parts
    texts = [normalise(parts(row["answer"]).get("", "")) for row in rows]
    reading = stance.Reading(texts)
    for group in grouping.groups:
        if not group.blank:
            assert len({reading(texts[i])[0] for i in group.members}) == 1

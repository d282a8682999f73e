"""Grouping written answers: what it saves a TA, and how long it takes for a large class.

For each written question of the synthetic class (tests/data/written_answers: 360 answers,
each labelled by its author with the mark scheme's points), groups each half on its own with
``attnkit.written.groups.group_answers`` and prints:

* answers, groups;
* TA actions: one per group graded plus one per answer that must be moved out of its group
  (its labelled points differ from its group's most common points);
* share: actions / answers, against one action per answer graded alone (target <= 50 %);
* agreement: the share of answers whose points equal their group's most common points
  (target >= 90 %);
* flagged: of the answers to move, how many are among the quarter of the half with the lowest
  confidence, where a TA checking the least sure answers first would find them.

Each question is grouped as a whole too (the "all" row: 360 answers, all of them looked at
while tuning). ``--data DIR`` reads another folder of such files (one ``<question>.jsonl``
each); a file whose rows have no "tune" and "report" halves (every row ``"half": "fresh"``,
a held-out set nobody tuned on) is grouped and reported whole, as one row named after its
rows' half.

Then times grouping a class of ``--size`` answers (default 1,000) of each question, resampled
with replacement from the question's 360 answers (both halves), each copy lightly edited (a
word dropped, two letters swapped or a case changed; one in four unchanged): the median of
``--rounds`` calls, against the baseline of one TA action per answer.

    .venv/bin/python benchmarks/written_groups.py
    .venv/bin/python benchmarks/written_groups.py --data tests/data/written_answers_fresh
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.written import DATA, QUESTIONS, load, resample, tally  # noqa: E402

from attnkit.written.groups import group_answers  # noqa: E402


def _flagged(points: list[int], grouping) -> tuple[int, int]:
    """(answers to move among the least sure quarter, answers to move)."""
    majority = {}
    for index, group in enumerate(grouping.groups):
        values = [points[i] for i in group.members]
        majority[index] = max(sorted(set(values)), key=values.count)
    wrong = {i for i, g in enumerate(grouping.group_of) if points[i] != majority[g]}
    order = sorted(range(len(points)), key=lambda i: (grouping.confidence[i], i))
    return len(wrong & set(order[: len(points) // 4])), len(wrong)


def questions(data: Path) -> list[str]:
    """The questions with a file in ``data``: the kit's three in their order, then others."""
    found = sorted(path.stem for path in Path(data).glob("*.jsonl"))
    return [q for q in QUESTIONS if q in found] + [q for q in found if q not in QUESTIONS]


def halves(data: Path = DATA) -> None:
    print(f"{'question':24s} {'half':7s} {'answers':>7s} {'groups':>6s} {'actions':>7s} "
          f"{'share':>6s} {'agreement':>9s} {'flagged':>8s}")
    for question in questions(data):
        every = load(question, data=data)
        named = sorted({row["half"] for row in every})
        if {"tune", "report"} <= set(named):  # the halves, then the whole file
            parts = [(half, [r for r in every if r["half"] == half]) for half in
                     ("tune", "report")] + [("all", every)]
        else:  # held out: the whole file, one row
            parts = [("+".join(named) or "all", every)]
        for half, rows in parts:
            points = [row["points"] for row in rows]
            grouping = group_answers([row["answer"] for row in rows])
            figures = tally(points, grouping)
            found, wrong = _flagged(points, grouping)
            print(f"{question:24s} {half:7s} {figures.answers:7d} {figures.groups:6d} "
                  f"{figures.actions:7d} {figures.share:6.1%} {figures.agreement:9.1%} "
                  f"{found:>4d}/{wrong:<3d}")


def timing(size: int, rounds: int, data: Path = DATA) -> None:
    group_answers(["warm up", "warm up too"])  # the imports, once
    print(f"\n{size} answers of one question, resampled from its file with light edits; "
          f"median of {rounds} calls")
    print(f"{'question':24s} {'seconds':>7s} {'groups':>6s} {'actions':>7s} "
          f"{'baseline':>8s} {'ratio':>6s} {'agreement':>9s}")
    for question in questions(data):
        answers, points = resample(load(question, data=data), size)
        seconds = []
        for _ in range(rounds):
            start = time.perf_counter()
            grouping = group_answers(answers)
            seconds.append(time.perf_counter() - start)
        figures = tally(points, grouping)
        print(f"{question:24s} {statistics.median(seconds):7.2f} {figures.groups:6d} "
              f"{figures.actions:7d} {size:8d} {figures.actions / size:6.1%} "
              f"{figures.agreement:9.1%}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1000, help="answers in the timed class")
    parser.add_argument("--rounds", type=int, default=3, help="timed calls per question")
    parser.add_argument("--data", type=Path, default=DATA,
                        help="folder of <question>.jsonl files (default: %(default)s)")
    args = parser.parse_args(argv)
    halves(args.data)
    timing(args.size, args.rounds, args.data)


if __name__ == "__main__":
    main()

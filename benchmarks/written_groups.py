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

The "tune" half chose the thresholds; the "report" half is the held-out figure.

Then times grouping a class of ``--size`` answers (default 1,000) of each question, resampled
with replacement from the question's 360 answers (both halves), each copy lightly edited (a
word dropped, two letters swapped or a case changed; one in four unchanged): the median of
``--rounds`` calls, against the baseline of one TA action per answer.

    .venv/bin/python benchmarks/written_groups.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.written import QUESTIONS, load, resample, tally  # noqa: E402

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


def halves() -> None:
    print(f"{'question':24s} {'half':7s} {'answers':>7s} {'groups':>6s} {'actions':>7s} "
          f"{'share':>6s} {'agreement':>9s} {'flagged':>8s}")
    for question in QUESTIONS:
        for half in ("tune", "report"):
            rows = load(question, half)
            points = [row["points"] for row in rows]
            grouping = group_answers([row["answer"] for row in rows])
            figures = tally(points, grouping)
            found, wrong = _flagged(points, grouping)
            print(f"{question:24s} {half:7s} {figures.answers:7d} {figures.groups:6d} "
                  f"{figures.actions:7d} {figures.share:6.1%} {figures.agreement:9.1%} "
                  f"{found:>4d}/{wrong:<3d}")


def timing(size: int, rounds: int) -> None:
    group_answers(["warm up", "warm up too"])  # the imports, once
    print(f"\n{size} answers of one question, resampled from its 360 with light edits; "
          f"median of {rounds} calls")
    print(f"{'question':24s} {'seconds':>7s} {'groups':>6s} {'actions':>7s} "
          f"{'baseline':>8s} {'ratio':>6s} {'agreement':>9s}")
    for question in QUESTIONS:
        answers, points = resample(load(question), size)
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
    args = parser.parse_args(argv)
    halves()
    timing(args.size, args.rounds)


if __name__ == "__main__":
    main()

"""The synthetic class's written answers (tests/data/written_answers), the TA-action tally and
a resampled class of any size, for the grouping tests and benchmarks/written_groups.py."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from attnkit.written.groups import Grouping

DATA = Path(__file__).resolve().parents[1] / "data" / "written_answers"
QUESTIONS = ("ps1_positional_answer", "ps4_heads_answer", "ps5_decoder_answer")


def load(question: str, half: str | None = None, data: Path = DATA) -> list[dict]:
    """One question's labelled answers, in the file's order; one half ("tune", "report");
    from ``data``, by default the synthetic class's folder."""
    with open(Path(data) / f"{question}.jsonl", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    return [row for row in rows if half is None or row["half"] == half]


@dataclass(frozen=True)
class Tally:
    """What grading by groups costs a TA, against one action per answer."""

    answers: int
    groups: int
    moved: int  # answers whose points differ from their group's most common points

    @property
    def actions(self) -> int:
        return self.groups + self.moved

    @property
    def share(self) -> float:
        return self.actions / self.answers if self.answers else 0.0

    @property
    def agreement(self) -> float:
        return 1 - self.moved / self.answers if self.answers else 1.0


def tally(points: list[int], grouping: Grouping) -> Tally:
    moved = 0
    for group in grouping.groups:
        counts = Counter(points[i] for i in group.members)
        moved += len(group.members) - counts.most_common(1)[0][1]
    return Tally(answers=len(points), groups=len(grouping.groups), moved=moved)


def _perturb(text: str, rng: random.Random) -> str:
    """A light edit a student's copy might have: a dropped word, two letters swapped, a case."""
    words = text.split(" ")
    edit = rng.randrange(4)
    if edit == 0 and len(words) > 3:
        del words[rng.randrange(len(words))]
    elif edit == 1:
        at = rng.randrange(len(words))
        word = words[at]
        if len(word) > 3:
            k = rng.randrange(len(word) - 1)
            words[at] = word[:k] + word[k + 1] + word[k] + word[k + 2:]
    elif edit == 2 and words[0]:
        words[0] = words[0].swapcase()
    return " ".join(words)


def resample(rows: list[dict], size: int, seed: int = 38) -> tuple[list[str], list[int]]:
    """``size`` answers drawn with replacement from ``rows``, each lightly edited (one edit in
    four is none); their texts and their labelled points."""
    rng = random.Random(seed)
    drawn = [rows[rng.randrange(len(rows))] for _ in range(size)]
    return [_perturb(row["answer"], rng) for row in drawn], [row["points"] for row in drawn]

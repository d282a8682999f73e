"""Item statistics on synthetic classes whose true values are known.

* A class of four, worked by hand: an item orthogonal to the rest has discrimination 0
  exactly, the two others 1/sqrt(2), each difficulty 1/2.
* A class of 2000 drawn from a one-parameter logistic model (latent ability, item
  difficulty): eight good items discriminate positively; an item scored at random has true
  discrimination 0 and a reversed item (weak students pass it) a negative one: both are
  flagged, good ones are not; each difficulty is within sampling error of its true p.
* Misconception shares: a known number of students per named mistake.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnkit.report import GRADED, AssignmentData, Cell, Mark, Submission
from attnkit.report.cli import render_html
from attnkit.review import itemstats


def make_class(scores: dict[str, list[float]], points: list[float],
               verdicts: dict[tuple[str, int], dict] | None = None) -> AssignmentData:
    cells = [Cell("nb", f"q{i}", "auto", p, f"q{i}") for i, p in enumerate(points)]
    subs = {}
    for student, row in scores.items():
        sub = Submission(student, GRADED, sum(row), sum(points))
        for i, (cell, score) in enumerate(zip(cells, row, strict=True)):
            verdict = (verdicts or {}).get((student, i))
            sub.marks[cell.key] = Mark(score, cell.max_score, score, None, False, verdict)
        subs[student] = sub
    return AssignmentData("synthetic", "course", "db", cells, sum(points), subs, [], [])


def test_hand_worked_class_of_four(monkeypatch: pytest.MonkeyPatch) -> None:
    # q0 = q1 = [0, 0, 1, 1]; q2 = [0, 1, 0, 1] is orthogonal to them once centred.
    # rest(q0) = q1 + q2 = [0, 1, 1, 2]: r = 1 / (1 * sqrt(2)) after centring.
    scores = {"a": [0, 0, 0], "b": [0, 0, 1], "c": [1, 1, 0], "d": [1, 1, 1]}
    data = make_class({k: [float(v) for v in row] for k, row in scores.items()}, [1, 1, 1])
    monkeypatch.setattr(itemstats, "MIN_STUDENTS", 4)
    stats = itemstats.item_statistics(data, generic=set())
    assert [s.difficulty for s in stats] == [0.5, 0.5, 0.5]
    assert stats[0].discrimination == pytest.approx(1 / math.sqrt(2))
    assert stats[1].discrimination == pytest.approx(1 / math.sqrt(2))
    assert stats[2].discrimination == pytest.approx(0.0, abs=1e-12)


def test_points_weight_the_rest_score_and_fractions_the_difficulty() -> None:
    # q1 is worth 4 points; the student scores 2 of 4 on it, difficulty 0.5.
    data = make_class({f"s{i}": [float(i % 2), 2.0 * (i % 2) + (i % 3 == 0)] for i in range(9)},
                      [1, 4])
    stats = itemstats.item_statistics(data, generic=set())
    q1 = [2.0 * (i % 2) + (i % 3 == 0) for i in range(9)]
    assert stats[1].difficulty == pytest.approx(np.mean(q1) / 4)
    q0 = [float(i % 2) for i in range(9)]
    assert stats[0].discrimination == pytest.approx(np.corrcoef(q0, q1)[0, 1])


def test_simulated_class_flags_random_and_reversed_items() -> None:
    rng = np.random.default_rng(7)
    n = 2000
    ability = rng.normal(size=n)
    bounds = [-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0]  # good items, harder and harder

    def passes(b: float, sign: float = 1.0) -> np.ndarray:
        return (rng.random(n) < 1 / (1 + np.exp(-3 * sign * (ability - b)))).astype(float)

    items = [passes(b) for b in bounds]
    items.append((rng.random(n) < 0.6).astype(float))  # a broken check: passes at random
    items.append(passes(0.0, sign=-1.0))  # reversed: the weak pass it
    true_p = [float(np.mean(1 / (1 + np.exp(-3 * (ability - b))))) for b in bounds]
    true_p += [0.6, float(np.mean(1 / (1 + np.exp(3 * ability))))]
    matrix = np.stack(items, axis=1)
    data = make_class({f"s{i}": list(map(float, matrix[i])) for i in range(n)}, [1] * 10)
    stats = itemstats.item_statistics(data, generic=set())

    for stat, p in zip(stats, true_p, strict=True):
        assert stat.difficulty == pytest.approx(p, abs=0.035), (stat.cell.label, p)
    for stat in stats[:8]:
        assert stat.discrimination > 0.3 and not stat.flag, stat
    assert abs(stats[8].discrimination) < 0.06 and stats[8].flag.startswith("near zero")
    assert stats[9].discrimination < -0.2 and stats[9].flag.startswith("negative")


def test_misconception_shares_and_the_section() -> None:
    scores = {f"s{i}": [1.0 if i >= 6 else 0.0, 1.0] for i in range(10)}
    verdicts = {(f"s{i}", 0): {"score": 0, "points": 1, "message": "m",
                               "misconception": "no max subtraction" if i < 4 else "error"}
                for i in range(6)}
    verdicts |= {(f"s{i}", 0): {"score": 1, "points": 1, "message": "ok",
                                "misconception": None} for i in range(6, 10)}
    verdicts[("s0", 0)]["misconception"] = "<script>x</script>"
    data = make_class(scores, [1, 1], verdicts)
    stats = itemstats.item_statistics(data, generic={"error"})
    assert stats[0].misconceptions == [("no max subtraction", 0.3), ("<script>x</script>", 0.1),
                                       ("error", 0.2)]
    assert stats[1].discrimination is None and stats[1].flag == "everyone scored the same"
    page = render_html(data, {"scores": b"", "cells": b"", "pass_rates": b""})
    assert "Item statistics" in page and "Discrimination" in page
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert 'href="#items"' in page

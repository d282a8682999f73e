"""The misconception catalogue, run through the real grading path (probe's case runner, then judge).

``attnkit/dev/catalogue/*.py`` holds student-style implementations of every graded
skill, right and wrong. Each wrong one must lose points in the cell that tests
its skill, on every seed, with feedback that names its misconception; each
correct one must get full marks, on every seed, warnings or not.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from attnkit.dev.validate import CATALOGUE, SEEDS, Entry, grade, load_catalogue, main
from attnkit.judge.misconceptions import GENERIC
from attnkit.judge.registry import assignments, checks, names

REPO = Path(__file__).resolve().parents[1]
ENTRIES = load_catalogue()
WRONG_PAIRS = [(e, c) for e in ENTRIES for c, m in e.expect.items() if m]
RIGHT_PAIRS = [(e, c) for e in ENTRIES for c, m in e.expect.items() if not m]


def _id(pair: tuple[Entry, str]) -> str:
    return f"{pair[0].name}-{pair[1]}"


def _expected_names(misconception: str) -> list[str]:
    return misconception.split("; ")  # per-case checks name one mistake per wrong answer


# ------------------------------------------------------------------ the catalogue itself


def test_the_catalogue_is_large_and_spread_over_the_five_assignments():
    wrong = [e for e in ENTRIES if not e.correct]
    right = [e for e in ENTRIES if e.correct]
    assert len(wrong) >= 30 and len(right) >= 12, (len(wrong), len(right))
    for ps in ("ps1", "ps2", "ps3", "ps4", "ps5"):
        assert any(c.startswith(ps) for e in wrong for c in e.expect if e.expect[c]), ps
        assert any(c.startswith(ps) for e in right for c in e.expect), ps
    targeted = {c for e in ENTRIES for c in e.expect}
    assert targeted == set(checks()), f"cells without implementations: {set(checks()) - targeted}"


def test_the_catalogue_covers_the_classic_misconceptions():
    declared = {n for e in ENTRIES for m in e.expect.values() if m for n in _expected_names(m)}
    classic = {
        "softmax over rows", "softmax over columns", "no max subtraction", "unstable softmax",
        "no scaling", "scale D", "no square root", "scale sqrt(D)", "scaled after softmax",
        "keys and queries swapped", "biases forgotten", "value bias forgotten",
        "wrong weight matrix", "weighted sum of inputs", "heads reversed",
        "heads joined along columns", "output projection omitted", "output projection per head",
        "reshape without transpose", "broadcast instead of weighted sum", "init std 0.1",
        "hard-coded", "mask after the softmax", "masked with 0 instead of -inf", "mask transposed",
        "nan on a fully masked column", "sin and cos swapped", "wrong frequency base"}
    assert classic <= declared, classic - declared


def test_every_declared_misconception_exists():
    known = names()
    for e in ENTRIES:
        for check, m in e.expect.items():
            assert check in checks(), (e.name, check)
            if m:
                for name in _expected_names(m):
                    assert name in known, f"{e.name}: {name!r} is neither a Wrong nor GENERIC"


def test_every_known_misconception_has_a_student_implementation():
    """A variant nobody writes is untested: each Wrong name needs a catalogue entry."""
    declared = {(c, n) for e in ENTRIES for c, m in e.expect.items() if m
                for n in _expected_names(m)}
    declared_names = {n for _, n in declared}
    known = ({w.name for c in checks().values() for w in c.wrong}
             | {r.name for c in checks().values() for r in c.require})
    missing = sorted(known - declared_names)
    assert not missing, f"misconceptions without a student implementation: {missing}"
    for check, c in checks().items():
        if c.wrong:
            assert any(c == check for c, _ in declared), f"{check} has no wrong implementation"


def test_the_catalogue_is_student_code():
    """Catalogue files import numpy, scipy, math, warnings and the registry: never the kit."""
    for path in CATALOGUE.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and "attnkit" in node.module:
                assert node.module == "attnkit.dev.validate", (path.name, node.module)
                assert {a.name for a in node.names} <= {"entry", "values"}, path.name
            if isinstance(node, ast.Import):
                assert all("attnkit" not in a.name for a in node.names), path.name


# ------------------------------------------------------------------ verdicts


@pytest.mark.parametrize("pair", WRONG_PAIRS, ids=_id)
def test_wrong_code_loses_points_and_hears_its_misconception(pair):
    e, check = pair
    scores = set()
    for seed in SEEDS:
        verdict = grade(e, check, seed)
        scores.add(verdict.score)
        assert not verdict.full, f"seed {seed}: full marks for wrong code"
        assert verdict.misconception == e.expect[check], (seed, verdict.message)
        message = verdict.message
        for phrase in e.says:
            assert phrase.lower() in message.lower(), (seed, phrase, message)
        assert not re.search(r"[{}]|\(\?\)|= \?", message), f"unfilled placeholder: {message}"
        assert len(message) > 40, message
    assert len(scores) == 1, f"the same code scored {sorted(scores)} on seeds {SEEDS}"


@pytest.mark.parametrize("pair", RIGHT_PAIRS, ids=_id)
def test_correct_code_gets_full_marks(pair):
    e, check = pair
    for seed in SEEDS:
        verdict = grade(e, check, seed)
        assert verdict.full, f"seed {seed}: {verdict.score}/{verdict.points} {verdict.message}"
        assert verdict.misconception is None


def test_warnings_and_prints_never_cost_points():
    """Even with warnings turned into errors around it, the probe's runner swallows them."""
    noisy = next(e for e in ENTRIES if e.name == "softmax_with_fallback")
    with pytest.warns(RuntimeWarning):
        noisy.targets[0]([1000.0, 1001.0])  # it really warns (and prints)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for e, check in RIGHT_PAIRS:
            assert grade(e, check, 3).full, (e.name, check)


def test_verdicts_depend_on_the_seed_only():
    e = next(e for e in ENTRIES if e.name == "scaled_by_input_size")
    first = grade(e, "ps1_scaled_attention", 11)
    again = grade(e, "ps1_scaled_attention", 11)
    assert (first.score, first.message) == (again.score, again.message)


# ------------------------------------------------------------------ the kill matrix


def test_kill_matrix_command_meets_both_goals():
    result = subprocess.run([sys.executable, "-m", "attnkit.dev.validate", "--plain"], cwd=REPO,
                            capture_output=True, text=True, timeout=900)
    print(result.stdout)  # the kill matrix and its two figures, shown by pytest -rP
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    caught = re.search(r"misconceptions caught: (\d+)/(\d+) \(100%\)", result.stdout)
    assert caught and caught.group(1) == caught.group(2), result.stdout[-2000:]
    assert re.search(r"correct solutions wrongly marked down: 0/\d+", result.stdout)
    once = re.search(r"charged once: (\d+)/(\d+) call chains", result.stdout)
    assert once and once.group(1) == once.group(2) and int(once.group(2)) >= 14, result.stdout
    for assignment in assignments():
        assert f"{assignment}: score fraction per graded cell" in result.stdout


def test_kill_matrix_fails_when_a_goal_is_missed(tmp_path, capsys):
    (tmp_path / "bad.py").write_text(
        "import numpy as np\n"
        "from attnkit.dev.validate import entry\n\n\n"
        "@entry('ps1_softmax', wrong='no max subtraction')\n"
        "def softmax_right_but_declared_wrong(items_in):\n"
        "    z = np.asarray(items_in, dtype=float)\n"
        "    e = np.exp(z - z.max())\n"
        "    return e / e.sum()\n\n\n"
        "@entry('ps1_softmax')\n"
        "def softmax_declared_right_but_naive(items_in):\n"
        "    return np.exp(items_in) / np.sum(np.exp(items_in))\n")
    assert main(["--catalogue", str(tmp_path), "--seeds", "0", "--plain", "--no-chains"]) == 1
    out = capsys.readouterr().out
    assert "misconceptions caught: 0/1 (0%)" in out
    assert "correct solutions wrongly marked down: 1/1" in out
    assert "MISS" in out


def test_generic_names_are_documented():
    assert {"hard-coded", "error", "overflow", "wrong shape", "values differ"} <= set(GENERIC)

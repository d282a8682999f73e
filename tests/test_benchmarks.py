"""The benchmarks still run: a small deadline rush end to end (they import the tests' helpers
and the kit's catalogue, which move under them)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from helpers.course import ENV, ROOT

pytestmark = [pytest.mark.slow, pytest.mark.kernel]


def test_a_small_deadline_rush_loses_nothing() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "deadline_rush.py"), "--students", "2",
         "--per-student", "2", "--seconds", "3", "--hostile", "0", "--no-kill"],
        capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    graded = re.search(r"graded / submitted\s+(\d+) / (\d+)", result.stdout)
    assert graded and graded[1] == graded[2] == "4", result.stdout
    assert "lost 0   duplicated 0" in result.stdout, result.stdout
    p50, p95, most = map(float, re.search(r"p50 ([\d.]+) s\s+p95 ([\d.]+) s\s+max ([\d.]+) s",
                                          result.stdout).groups())
    assert p50 <= p95 <= most, result.stdout
    # every submission in the timeline's first ten seconds, beside how busy the cores were
    assert re.search(r"t =\s+0-\s*10 s\s+4 submitted .* cores busy\s+\d+%", result.stdout), \
        result.stdout

"""Time ``nbgrader generate_feedback`` with the kit's hooks and with one of them off.

A blind class (default ``tests/data/blind/class9``: 10 students x 5 problem sets) is graded
once into a scratch course, as ``benchmarks/blind_class.py`` grades it; then every round
writes every student's feedback pages (one stock ``nbgrader generate_feedback`` per problem
set) once with ``ATTNKIT_HOOKS=all`` and once with ``all,-HOOK``, in alternating order. It
prints each round and the medians: wall time, and the CPU time of the commands, which does
not depend on how busy the machine is.

    .venv/bin/python benchmarks/feedback_pages.py [--hook one_parse] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from blind_class import CLASS1_SALT, PROBLEM_SETS, REPO, grade_class


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def feedback(course: Path, hooks: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) to write every feedback page of the course once."""
    env = {**os.environ, "ATTNKIT_HOOKS": hooks}
    cpu, started = _children_cpu(), time.monotonic()
    for ps in PROBLEM_SETS:
        subprocess.run(["nbgrader", "generate_feedback", ps, "--force"], cwd=course, env=env,
                       check=True, capture_output=True)
    return time.monotonic() - started, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blind", type=Path, default=REPO / "tests/data/blind/class9")
    parser.add_argument("--hook", default="one_parse", help="the hook turned off")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    course = Path(tempfile.mkdtemp(prefix="attnkit-feedback-", dir="/var/tmp"))
    try:
        grade_class(args.blind, course, REPO, CLASS1_SALT)
        pages = sum(1 for _ in (course / "autograded").glob("*/*/*.ipynb"))
        switches = ("all", f"all,-{args.hook}")
        measured: dict[str, list[tuple[float, float]]] = {s: [] for s in switches}
        for r in range(args.rounds):
            for switch in switches if r % 2 == 0 else switches[::-1]:
                wall, cpu = feedback(course, switch)
                measured[switch].append((wall, cpu))
                print(f"round {r + 1}  ATTNKIT_HOOKS={switch:<16} wall {wall:6.1f} s  "
                      f"CPU {cpu:6.1f} s", flush=True)
        print(f"\n{pages} feedback pages per round, medians of {args.rounds} rounds")
        print(f"{'ATTNKIT_HOOKS':<18} {'wall s':>7} {'CPU s':>7} {'CPU s/page':>11}")
        cpu = {}
        for switch, runs in measured.items():
            wall, cpu[switch] = (statistics.median(x[i] for x in runs) for i in (0, 1))
            print(f"{switch:<18} {wall:7.1f} {cpu[switch]:7.1f} {cpu[switch] / pages:11.3f}")
        print(f"CPU with {args.hook} off / all = {cpu[switches[1]] / cpu['all']:.2f}x")
    finally:
        shutil.rmtree(course, ignore_errors=True)


if __name__ == "__main__":
    main()

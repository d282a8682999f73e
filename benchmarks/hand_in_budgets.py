"""Feedback for other students while hostile hand-ins are graded: ``attnkit serve`` on a scratch
copy of the course with a real exchange folder (loopback only), as in ``deadline_rush.py``.

A victim hands in a right ps1 notebook, one submission at a time, first to the idle service
(the baseline), then again just after the attackers have handed in: notebooks that sleep just
under the per-cell limit before every cell (``hostile.SLEEP_EVERY_CELL``, at 28 s), one per
worker by default, and notebooks that print one 250 MB line, capped by the kernel or past its
cap (``hostile.HUGE_LINE``, ``HUGE_LINE_UNCAPPED``). Prints the victim's submit-to-feedback
latency in both phases and their ratio, how long the attackers' own feedback took, and the peak
memory (PSS) of the service's process tree, kernels included, in each phase.

    .venv/bin/python benchmarks/hand_in_budgets.py [--sleepers 6] [--huge 2] [--victims 3]
"""

from __future__ import annotations

import argparse
import inspect
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from deadline_rush import Memory, Watch, machine_speed, ready, serve  # noqa: E402
from helpers.exchange import exchange_course, place, right, submit  # noqa: E402
from helpers.hostile import (  # noqa: E402
    HUGE_LINE,
    HUGE_LINE_UNCAPPED,
    SLEEP_EVERY_CELL,
    Hostile,
    write_suite,
)

ASSIGNMENT = "ps1_self_attention"
LOG = "serve-budgets.log"
ATTACKS = {
    "sleeper": Hostile("sleeper", "sleeps 28 s before every cell",
                       prefix=SLEEP_EVERY_CELL.replace("sleep(8)", "sleep(28)")),
    "huge": Hostile("huge", "prints one 250 MB line", prefix=HUGE_LINE),
    "uncapped": Hostile("uncapped", "prints one 250 MB line past the kernel's cap",
                        prefix=HUGE_LINE_UNCAPPED),
}


def victim(base: Path, root: Path, watch: Watch, label: str, count: int) -> list[float]:
    """Submit-to-feedback latency of ``count`` right notebooks, one after the other."""
    names = []
    for index in range(count):
        student = f"victim-{label}-{index}"
        place(base / "home" / student, ASSIGNMENT, right(root, ASSIGNMENT))
        moment = time.time()
        name = submit(root, base, student, ASSIGNMENT)
        watch.add(name, moment, ASSIGNMENT)
        names.append(name)
        while name not in watch.answered:
            time.sleep(0.05)
    return [watch.answered[n] - watch.submitted[n] for n in names]


def attack(base: Path, root: Path, staging: Path, watch: Watch, plan: dict[str, int]) -> list:
    """Hand in every attacker's notebook at once; return their inbound names and kinds."""
    handed = []
    for kind, count in plan.items():
        for index in range(count):
            student = f"{kind}-{index}"
            folder = base / "home" / student / ASSIGNMENT
            shutil.copytree(staging / "submitted" / kind / ASSIGNMENT, folder)
            moment = time.time()
            handed.append((submit(root, base, student, ASSIGNMENT), kind))
            watch.add(handed[-1][0], moment, ASSIGNMENT)
    return handed


def main() -> int:
    parser = argparse.ArgumentParser(description=inspect.getdoc(sys.modules[__name__]))
    parser.add_argument("--sleepers", type=int, default=6,
                        help="sleeping notebooks (the service's default on 2 cores: 6 workers)")
    parser.add_argument("--huge", type=int, default=2,
                        help="notebooks printing 250 MB, half of them past the kernel's cap")
    parser.add_argument("--victims", type=int, default=3, help="victim submissions per phase")
    parser.add_argument("--head-start", type=float, default=3.0,
                        help="seconds between the attackers' hand-ins and the victim's")
    args = parser.parse_args()
    plan = {"sleeper": args.sleepers, "huge": args.huge - args.huge // 2,
            "uncapped": args.huge // 2}
    print(machine_speed())
    with tempfile.TemporaryDirectory(prefix="attnkit-budgets-",
                                     ignore_cleanup_errors=True) as scratch:
        base = Path(scratch)
        root = exchange_course(base, [ASSIGNMENT])
        staging = base / "staging"
        staging.mkdir()
        for name in ("source", "release"):
            (staging / name).symlink_to(root / name)
        write_suite(staging, [ASSIGNMENT], list(ATTACKS.values()))
        memory = Memory()
        service = serve(root, memory, LOG)
        try:
            ready(root, service, LOG)
            watch = Watch(base / "exchange")
            victim(base, root, watch, "warm-up", 1)  # the workers' first grading
            memory.peak = 0
            baseline = victim(base, root, watch, "alone", args.victims)
            idle_peak, memory.peak = memory.peak, 0
            started = time.time()
            handed = attack(base, root, staging, watch, plan)
            time.sleep(args.head_start)
            attacked = victim(base, root, watch, "attacked", args.victims)
            while len(watch.answered) < len(watch.submitted) and time.time() - started < 900:
                time.sleep(0.2)
            attack_peak = memory.peak
        finally:
            service.terminate()
            service.wait(120)
            watch.stop.set()
            memory.stop.set()
        alone, under = statistics.median(baseline), statistics.median(attacked)
        print(f"attackers: {', '.join(f'{n} {k}' for k, n in plan.items())}, handed in "
              f"{args.head_start:g} s before the victim")
        print(f"victim alone     p50 {alone:6.2f} s   max {max(baseline):6.2f} s   "
              f"({args.victims} submissions)")
        print(f"victim attacked  p50 {under:6.2f} s   max {max(attacked):6.2f} s   "
              f"ratio {under / alone:.1f}x")
        for kind in plan:
            took = [watch.answered[n] - watch.submitted[n] for n, k in handed
                    if k == kind and n in watch.answered]
            if took:
                print(f"  {kind:9} feedback after {min(took):6.1f} to {max(took):6.1f} s "
                      f"({len(took)} of {plan[kind]})")
        print(f"peak memory (PSS) of the service's tree, kernels included: alone "
              f"{idle_peak / 2**20:.0f} MB, attacked {attack_peak / 2**20:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

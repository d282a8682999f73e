"""Deadline rush: 50 students submit 200 notebooks over 60 s to a running ``attnkit serve``.

A scratch copy of the course with a real exchange folder (loopback only, nothing leaves the
machine). Each student hands in the four assignments once, in a random order, at random
moments of the minute; 40 % of the notebooks are right (the masters' solutions), 40 % wrong
(ps1: a wrong function of ``attnkit/catalogue``; ps2-ps4: the demo class's typical mistakes,
``attnkit.samples``), 20 % hostile (a random row of ``tests/helpers/hostile.py``: loops, bombs,
crashes, tampering, broken files). Students submit through nbgrader's own ``ExchangeSubmit``.

The baseline, measured first in the same run: one submission at a time to the idle service.
Then the rush, and the rush again with the service killed (SIGKILL) at t = 30 s and started
again a second later, as systemd's ``Restart=always`` would (it also prints how long after
the kill the restarted service served again). For each it prints graded /
submitted, lost (no feedback page for a submission; must be 0), duplicated (a submission
autograded more than once, from nbgrader's post-convert hook; must be 0), p50 / p95 / max
submit-to-feedback latency (from the moment the student submits until the page
``fetch_feedback`` would copy is in the exchange) and the ratio of p50 to the idle baseline,
and the peak memory of the service's process tree. Targets on a 2-core machine: p50 < 3 s,
p95 < 10 s.

    .venv/bin/python benchmarks/deadline_rush.py [--students 50] [--per-student 4] [--seconds 60]
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from helpers.catalogue import SKILLS, sample_entries, student_code  # noqa: E402
from helpers.exchange import COURSE, exchange_course, place, right, submit  # noqa: E402
from helpers.hostile import write_suite  # noqa: E402

from attnkit.pipeline.feedback import UNDRAWN  # noqa: E402
from attnkit.samples import SAMPLES, Sample, build_submission  # noqa: E402
from attnkit.serve.exchange import feedback_page  # noqa: E402
from attnkit.serve.journal import GRADED, TERMINAL, Journal  # noqa: E402

BIN = Path(sys.executable).parent
ASSIGNMENTS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
               "ps4_encoder_decoder_attention"]
WITNESS = '''
def _witness(assignment, student, notebooks):
    stamp = open(os.path.join(HERE, "autograded", student, assignment, "timestamp.txt")).read()
    with open(os.path.join(HERE, "graded.log"), "a") as log:
        log.write(f"{student}|{assignment}|{stamp}\\n")
c.Autograde.post_convert_hook = _witness
'''


class Notebooks:
    """Right, wrong and hostile submissions of every assignment, as folders to copy."""

    def __init__(self, root: Path, staging: Path, hostile: float) -> None:
        self.root = root
        self.mix = [(100 - hostile) / 2, (100 - hostile) / 2, hostile]
        staging.mkdir()
        for name in ("source", "release"):
            (staging / name).symlink_to(root / name)
        write_suite(staging, ASSIGNMENTS)
        self.hostile = {a: sorted((staging / "submitted").glob(f"*/{a}")) for a in ASSIGNMENTS}
        self.wrong = {a: [self._sample(a, s) for s in SAMPLES[a].values()
                          if s.expect and not s.blank] for a in ASSIGNMENTS}
        a = ASSIGNMENTS[0]
        self.wrong[a] = [self._sample(a, Sample(e.name, {SKILLS[check][0]: code}))
                         for e in sample_entries(a) if not e.correct
                         for check, code in [student_code(e)]]

    def _sample(self, assignment: str, sample: Sample) -> nbformat.NotebookNode:
        name = f"{assignment}.ipynb"
        return build_submission(self.root / "source" / assignment / name,
                                self.root / "release" / assignment / name, sample)

    def put(self, home: Path, assignment: str, rng: random.Random) -> tuple[str, str]:
        """Hand-in ``assignment`` in ``home``; its kind and, if hostile, the suite's row."""
        kind = rng.choices(["right", "wrong", "hostile"], self.mix)[0]
        if kind == "hostile":
            folder = home / assignment
            shutil.rmtree(folder, ignore_errors=True)
            chosen = rng.choice(self.hostile[assignment])
            shutil.copytree(chosen, folder, symlinks=True)
            return kind, chosen.parent.name
        nb = right(self.root, assignment) if kind == "right" else rng.choice(
            self.wrong[assignment])
        place(home, assignment, nb)
        return kind, kind


class Sampler:
    """A daemon thread that calls ``sample`` every ``interval`` seconds until ``stop`` is set;
    a subclass sets its own state before calling ``__init__``, which starts the thread."""

    interval = 1.0

    def __init__(self) -> None:
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self.stop.wait(self.interval):
            self.sample()

    def sample(self) -> None:
        raise NotImplementedError


class Memory(Sampler):
    """Peak memory of a process tree, sampled every second: the sum of each process's
    proportional set size (PSS: a page shared by n processes counts 1/n in each), so the
    kernels forked from one server, or a fork bomb's children, are not counted n times as
    resident-set sizes would be. Reading PSS walks every page table, so sampling four times
    a second took 7 % of the two cores from the service under test."""

    def __init__(self) -> None:
        self.peak = 0
        self.pids: list[int] = []
        super().__init__()

    def sample(self) -> None:
        total = 0
        for pid in list(self.pids):
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(pid)
                for process in [root, *root.children(recursive=True)]:
                    total += pss(process.pid)
        self.peak = max(self.peak, total)


def pss(pid: int) -> int:
    """A process's proportional set size in bytes (0 once it is gone)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    return 0


RESTART_DELAY = 1.0  # seconds from the kill to the new service, as systemd's RestartSec
SERVE = [str(BIN / "attnkit"), "serve"]  # --workers N is added from the command line


def serve(root: Path, memory: Memory, log: str) -> subprocess.Popen:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    with (root / log).open("a") as out:
        service = subprocess.Popen(SERVE, cwd=root, stdout=out, stderr=out, env=env)
    memory.pids.append(service.pid)
    return service


def ready(root: Path, service: subprocess.Popen, log: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while "serving" not in (root / log).read_text():
        assert service.poll() is None and time.monotonic() < deadline, \
            (root / log).read_text()[-3000:]
        time.sleep(0.2)


class Watch(Sampler):
    """When each submission's page (other than 'queued') appears where fetch_feedback looks."""

    interval = 0.05

    def __init__(self, exchange: Path) -> None:
        self.inbound = exchange / COURSE / "inbound"
        self.feedback = exchange / COURSE / "feedback"
        self.submitted: dict[str, float] = {}
        self.pages: dict[str, Path] = {}
        self.answered: dict[str, float] = {}
        self.lock = threading.Lock()
        super().__init__()

    def add(self, name: str, moment: float, assignment: str) -> None:
        page = feedback_page(self.inbound.parent, name, assignment)
        with self.lock:
            self.submitted[name] = moment
            self.pages[name] = page

    def sample(self) -> None:
        with self.lock:
            waiting = [n for n in self.pages if n not in self.answered]
        for name in waiting:
            page = self.pages[name]
            with contextlib.suppress(OSError):
                if page.exists() and 'content="queued"' not in page.read_text():
                    self.answered[name] = time.time()

    def latencies(self) -> list[float]:
        return sorted(self.answered[n] - self.submitted[n] for n in self.answered)


def journal_done(root: Path, seed: int) -> bool:
    """Whether the service has recorded an outcome for every submission of this run."""
    journal = Journal(root)
    try:
        return all(r.state in TERMINAL for r in journal.rows() if r.student.startswith(f"r{seed}s"))
    finally:
        journal.close()


def machine_speed() -> str:
    """How fast this machine runs Python just now (best of three fresh interpreters adding
    10^7 numbers at module level): the same rush gives very different figures on a virtual
    machine in a slow spell, so every result says what it ran on."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "s = 0\nfor i in range(10**7): s += i"],
                       check=True)
        best = min(best, time.perf_counter() - start)
    return f"machine: 10^7 additions in {best:.2f} s (this 2-core VM: about 0.5 s when quiet)"


def busy_seconds() -> tuple[float, float]:
    """CPU seconds the whole machine has spent outside idle and I/O wait since boot, and the
    user time of them at lowered priority (nice): kernels that stepped aside, which take only
    what no one else wants (their system time, a memory bomb's page faults say, is not told
    apart)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(fields) - fields[3] - fields[4]) / tick, fields[1] / tick


class Load(Sampler):
    """The machine's busy CPU-seconds (all, and at lowered priority), sampled every second,
    to tell a service short of CPU (busy at full priority throughout) from one whose
    gradings wait on something else (idle cores, or only stepped-aside kernels running)."""

    def __init__(self) -> None:
        self.samples = [(time.time(), *busy_seconds())]
        super().__init__()

    def sample(self) -> None:
        self.samples.append((time.time(), *busy_seconds()))

    def share(self, since: float, until: float) -> tuple[float, float]:
        """The share of the cores busy between two moments, and of them at lowered
        priority."""
        inside = [s for s in self.samples if since <= s[0] <= until]
        if len(inside) < 2:
            return float("nan"), float("nan")
        (t0, busy0, nice0), (t1, busy1, nice1) = inside[0], inside[-1]
        cores = (t1 - t0) * (os.cpu_count() or 1)  # /proc/stat counts every core
        return (busy1 - busy0) / cores, (nice1 - nice0) / cores


def timeline(watch: Watch, load: Load, start: float, step: float = 10.0) -> str:
    """Latency by when the submission was made, beside how busy the cores were then: after
    a kill, a latency that stays high with the cores busy at full priority means the service
    lacks CPU to catch up, not that it is stuck."""
    bins: dict[int, list[float]] = defaultdict(list)
    for name, moment in watch.submitted.items():
        if name in watch.answered:
            bins[int((moment - start) // step)].append(watch.answered[name] - moment)
    lines = []
    for index in sorted(bins):
        latency = sorted(bins[index])
        busy, niced = load.share(start + index * step, start + (index + 1) * step)
        lines.append(f"    t = {index * step:3.0f}-{(index + 1) * step:3.0f} s  {len(latency):3} "
                     f"submitted  median {statistics.median(latency):5.2f} s  max "
                     f"{latency[-1]:5.2f} s   cores busy {busy:4.0%} ({niced:3.0%} of them "
                     f"stepped aside)")
    return "\n".join(lines)


def rush(base: Path, notebooks: Notebooks, root: Path, students: int, per_student: int,
         seconds: float, kill_at: float | None, seed: int) -> dict:
    rng = random.Random(seed)
    plan = []
    for index in range(students):
        for assignment in rng.sample(ASSIGNMENTS, per_student):
            plan.append((rng.uniform(0, seconds), f"r{seed}s{index:02d}", assignment))
    plan.sort()
    memory = Memory()
    load = Load()
    service = serve(root, memory, f"serve-{seed}.log")
    ready(root, service, f"serve-{seed}.log")
    watch = Watch(base / "exchange")
    kinds = Counter()
    made: dict[str, tuple[str, str]] = {}  # submission -> its kind and, if hostile, its row
    restarted = killed = None

    sitting = defaultdict(threading.Lock)  # a student submits one thing at a time

    def hand_in(student: str, assignment: str) -> None:
        home = base / "home" / student
        with sitting[student]:
            kind, what = notebooks.put(home, assignment, random.Random(f"{student}{assignment}"))
            moment = time.time()
            try:
                name = submit(root, base, student, assignment)
            except Exception as error:  # noqa: BLE001 - nbgrader's submit refused it
                kinds[f"refused by nbgrader submit ({type(error).__name__})"] += 1
                return
        kinds[kind] += 1
        made[name] = (kind, what)
        watch.add(name, moment, assignment)

    def kill_and_restart() -> tuple[float, subprocess.Popen]:
        """SIGKILL the service and, ``RESTART_DELAY`` later, start it again; returns when
        it was killed and the new one."""
        service.send_signal(signal.SIGKILL)
        service.wait()
        killed = time.time()
        time.sleep(RESTART_DELAY)
        return killed, serve(root, memory, f"serve-{seed}.log")

    start = time.time()
    cpu_start, own_start = busy_seconds(), time.process_time()
    with ThreadPoolExecutor(8) as pool:
        futures = []
        for at, student, assignment in plan:
            while time.time() - start < at:
                if kill_at is not None and restarted is None and time.time() - start >= kill_at:
                    killed, restarted = kill_and_restart()
                time.sleep(0.01)
            futures.append(pool.submit(hand_in, student, assignment))
        for future in futures:
            future.result()
    if kill_at is not None and restarted is None:
        killed, restarted = kill_and_restart()
    live = restarted or service
    deadline = time.time() + 900
    while ((len(watch.answered) < len(watch.submitted) or not journal_done(root, seed))
           and time.time() < deadline and live.poll() is None):
        time.sleep(0.2)
    submitted = len(watch.submitted)
    drained = time.time() - start
    cpu, niced = (now - then for now, then in zip(busy_seconds(), cpu_start, strict=True))
    own = time.process_time() - own_start
    live.terminate()
    live.wait(120)
    watch.stop.set()
    memory.stop.set()
    load.stop.set()

    journal = Journal(root)
    rows = [r for r in journal.rows() if r.student.startswith(f"r{seed}s")]
    journal.close()
    witness = [line for line in (root / "graded.log").read_text().splitlines()
               if line.startswith(f"r{seed}s")] if (root / "graded.log").exists() else []
    latency = watch.latencies()
    return {
        "submitted": submitted, "graded": sum(r.state == GRADED for r in rows),
        "states": Counter(r.state for r in rows), "kinds": kinds,
        "lost": submitted - len(watch.answered) + sum(r.state not in TERMINAL for r in rows),
        "duplicated": sum(count - 1 for count in Counter(witness).values() if count > 1),
        "p50": statistics.median(latency) if latency else float("nan"),
        "p95": (statistics.quantiles(latency, n=100, method="inclusive")[94]
                if len(latency) > 1 else float("nan")),
        "max": latency[-1] if latency else float("nan"),
        "peak_mb": memory.peak / 2**20, "drained": drained,
        "work": work(rows, made), "cpu": cpu - own, "niced": niced, "own": own,
        "failed": Counter(r.reason for r in rows if r.state != GRADED),
        "plots": plots_drawn(watch),
        "timeline": timeline(watch, load, start),
        "slow": Counter(made[n][1] for n in watch.answered
                        if watch.answered[n] - watch.submitted[n] > 10),
        "back": serving_since(root / f"serve-{seed}.log", killed) if killed else None,
    }


def serving_since(log: Path, killed: float) -> float | None:
    """Seconds from the kill until the restarted service logged that it serves."""
    for line in reversed(log.read_text().splitlines()):
        if " attnkit.serve INFO serving " in line:
            stamp = time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S"))
            return stamp + int(line[20:23]) / 1000 - killed
    return None


def plots_drawn(watch: Watch) -> Counter:
    """Feedback pages with their plots drawn, and those graded without (``plots = "when
    idle"``: a plot costs about as much again as the rest of the grading)."""
    drawn = Counter()
    for name in watch.answered:
        with contextlib.suppress(OSError):
            page = watch.pages[name].read_text()
            drawn["without" if UNDRAWN[:20] in page else  # its start: nothing to escape
                  "drawn" if "data:image/png" in page else "no plot"] += 1
    return drawn


def work(rows: list, made: dict[str, tuple[str, str]]) -> str:
    """Worker time (start of its last grading to its feedback) by kind, and the longest."""
    spent = {r.name: r.finished - r.started for r in rows
             if r.name in made and r.started and r.finished}
    lines = []
    for kind in ("right", "wrong", "hostile"):
        times = sorted(t for n, t in spent.items() if made[n][0] == kind)
        if times:
            lines.append(f"    {kind:8} {len(times):4} submissions  {sum(times):7.1f} s  "
                         f"median {statistics.median(times):5.2f} s  max {times[-1]:6.2f} s")
    longest = sorted(spent, key=spent.get, reverse=True)[:6]
    lines.append("    longest: " + ", ".join(f"{made[n][1]} {n.split('+')[1][:3]} {spent[n]:.0f} s"
                                          for n in longest))
    return "\n".join(lines)


def idle(base: Path, notebooks: Notebooks, root: Path, count: int) -> list[float]:
    """Submit-to-feedback latency of ``count`` submissions, one at a time, service idle."""
    memory = Memory()
    service = serve(root, memory, "serve-idle.log")
    ready(root, service, "serve-idle.log")
    watch = Watch(base / "exchange")
    for index in range(count):
        assignment = ASSIGNMENTS[index % len(ASSIGNMENTS)]
        place(base / "home" / f"idle{index}", assignment, right(root, assignment))
        moment = time.time()
        name = submit(root, base, f"idle{index}", assignment)
        watch.add(name, moment, assignment)
        while name not in watch.answered:
            time.sleep(0.05)
    service.terminate()
    service.wait(120)
    watch.stop.set()
    memory.stop.set()
    return watch.latencies()


def main() -> int:
    parser = argparse.ArgumentParser(description=inspect.getdoc(sys.modules[__name__]))
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--per-student", type=int, default=4, choices=range(1, 5))
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--kill-at", type=float, default=30.0)
    parser.add_argument("--hostile", type=float, default=20.0,
                        help="percent of hostile submissions (the rest: half right, half wrong)")
    parser.add_argument("--no-kill", action="store_true", help="only the rush without a kill")
    parser.add_argument("--workers", type=int, help="the service's workers (default: its own)")
    args = parser.parse_args()
    if args.workers:
        SERVE.extend(["--workers", str(args.workers)])
    print(f"{args.students} students x {args.per_student} submissions over {args.seconds:g} s, "
          f"{len(os.sched_getaffinity(0))} cores, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="attnkit-rush-", ignore_cleanup_errors=True) as scratch:
        base = Path(scratch)
        root = exchange_course(base, ASSIGNMENTS, WITNESS)
        notebooks = Notebooks(root, base / "staging", args.hostile)
        print(machine_speed())
        baseline = idle(base, notebooks, root, 8)
        floor = statistics.median(baseline)
        print(f"baseline (one at a time, idle service): p50 {floor:.2f} s, "
              f"max {baseline[-1]:.2f} s over {len(baseline)}")
        runs = [("rush", None, 1),
                (f"rush, SIGKILL at t = {args.kill_at:g} s", args.kill_at, 2)]
        for label, kill_at, seed in runs[:1] if args.no_kill else runs:
            speed = machine_speed()
            r = rush(base, notebooks, root, args.students, args.per_student, args.seconds,
                     kill_at, seed)
            print(f"\n{label}: {dict(r['kinds'])}\n  {speed}")
            print(f"  graded / submitted  {r['graded']} / {r['submitted']}   "
                  f"(states: {dict(r['states'])})")
            print(f"  lost {r['lost']}   duplicated {r['duplicated']}")
            for reason, count in r["failed"].most_common():
                print(f"  not graded ({count}): {reason}")
            print(f"  submit to feedback  p50 {r['p50']:.2f} s   p95 {r['p95']:.2f} s   "
                  f"max {r['max']:.2f} s   (p50 / idle p50 = {r['p50'] / floor:.1f}x)")
            print(f"  targets  p50 < 3 s: {'met' if r['p50'] < 3 else 'MISSED'}   "
                  f"p95 < 10 s: {'met' if r['p95'] < 10 else 'MISSED'}   "
                  f"lost 0: {'met' if r['lost'] == 0 else 'MISSED'}")
            if r["back"] is not None:
                print(f"  serving again {r['back']:.1f} s after the kill (restarted after "
                      f"{RESTART_DELAY:g} s)")
            print(f"  over 10 s: {dict(r['slow'].most_common())}")
            print(f"  by when it was submitted:\n{r['timeline']}")
            print(f"  plots in the feedback pages: {dict(r['plots'])}")
            print(f"  worker time per submission (its grading's start to its feedback):\n"
                  f"{r['work']}")
            print(f"  CPU: {r['cpu']:.0f} s for the service ({r['cpu'] / r['submitted']:.2f} s "
                  f"per submission; {r['niced']:.0f} s of it at lowered priority, kernels that "
                  f"stepped aside), {r['own']:.0f} s for the students' side (this script)")
            print(f"  peak memory (PSS) of the service's process tree {r['peak_mb']:.0f} MB; "
                  f"all answered {r['drained']:.0f} s after the first submission")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Autograding throughput: stock ``nbgrader autograde``, ``attnkit autograde``, the floor.

Makes K synthetic submissions (correct, a stub left in, a wrong body, two cells broken)
across the assignments under source/, in a scratch copy of the course, then times:

* stock: one ``nbgrader autograde ASSIGNMENT`` per assignment, serially, as an instructor would,
  its kernels started as nbgrader starts them (the course's warm kernels off);
* kit:   one ``attnkit autograde ASSIGNMENT...`` for all of them, on the default local cluster;
* floor: start a kernel the way the kit does (forked warm, for the sandbox kernel), run the
  autograded notebook's cells, stop it (no grading), for every notebook, divided by the
  machine's cores; "floor x2" measures it 2 at a time (on 2 cores); "floor cold" starts
  kernels as stock does.
  ``--rounds R`` times kit, floor and floor x2 R times, back to back, and prints each round.

It prints notebooks/s, the kit/stock and kit/floor ratios, the machine's CPU seconds per
notebook and the peak RSS of each command's process tree, then where one notebook's time
goes, stock pipeline against the kit's. ``--scaling`` times the kit alone for K = 25 ... 400.
``--as-user USER`` (as root) then runs the same benchmark again as that ordinary user, whose
kernels are sandboxed without root, and prints both modes' ratios side by side. ``--hooks``
times the kit alone with every private hook of ``attnkit.upstream`` on, with none (the stock
pipeline on the kit's Dask workers), and with each one off, to show what each buys.

    .venv/bin/python benchmarks/autograde_throughput.py -k 40 --kernel python3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import pwd
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import psutil
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbconvert.preprocessors import Preprocessor
from nbformat.validator import MissingIDFieldWarning
from nbgrader import api as nbgrader_api
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import is_solution
from traitlets.config import Config

from attnkit import upstream
from attnkit.grading import cluster, grader
from attnkit.pipeline import audit
from attnkit.probe import SEED_ENV

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SOLUTION = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION\n?", re.M | re.S)


# -- the scratch course and its submissions ----------------------------------------------------

def template(scratch: Path, only: list[str] | None) -> list[str]:
    """The course config and source/ in ``scratch/template``, each assignment generated;
    return their ids."""
    root = scratch / "template"
    root.mkdir()
    shutil.copy(REPO / "nbgrader_config.py", root)
    api = NbGraderAPI(config=grader.load_config(root))
    assignments = []
    for source in sorted((REPO / "source").iterdir()):
        if not source.is_dir() or (only and source.name not in only):
            continue
        shutil.copytree(source, root / "source" / source.name)
        result = api.generate_assignment(source.name)
        if result["success"]:
            assignments.append(source.name)
        else:
            print(f"skipping {source.name}: generate_assignment failed", file=sys.stderr)
    if not assignments:
        sys.exit("no assignment could be generated")
    return assignments


def broken(cell: nbformat.NotebookNode, stub: str, rng: random.Random) -> str:
    """The cell with its stub left in, or its solution replaced by a wrong body."""
    if rng.random() < 0.5:
        return stub
    def wrong(match: re.Match) -> str:
        indent = match.group(1)
        return f"{indent}return None  # wrong\n" if indent else "pass  # wrong\n"
    return SOLUTION.sub(wrong, cell.source)


def make_submissions(root: Path, assignments: list[str], count: int, seed: int = 0) -> None:
    """``count`` submissions, round robin over the assignments: a quarter correct, the rest
    with one or two solution cells stubbed or wrong."""
    rng = random.Random(seed)
    for index in range(count):
        assignment = assignments[index % len(assignments)]
        student = f"bench{index:04d}"
        dest = root / "submitted" / student / assignment
        dest.mkdir(parents=True)
        for path in sorted((root / "source" / assignment).glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            stubs = nbformat.read(root / "release" / assignment / path.name, as_version=4)
            stub_of = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source
                       for c in stubs.cells}
            cells = [c for c in nb.cells if c.cell_type == "code" and is_solution(c)]
            for cell in rng.sample(cells, min((0, 1, 1, 2)[index % 4], len(cells))):
                cell.source = broken(cell, stub_of.get(cell.metadata.nbgrader["grade_id"], ""),
                                     rng)
            nbformat.write(nb, dest / path.name)


def scratch_course(base: Path, name: str, assignments: list[str], count: int) -> Path:
    root = base / name
    shutil.copytree(base / "template", root)
    make_submissions(root, assignments, count)
    return root


# -- measuring -----------------------------------------------------------------------------

class Tree:
    """Peak RSS of this process's descendants, sampled in the background."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(0.2):
            total = 0
            for child in me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    total += child.memory_info().rss
            self.peak = max(self.peak, total)

    def __enter__(self) -> Tree:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def cpu_seconds() -> float:
    """The whole machine's busy CPU time so far: every process, the sandboxed kernels and the
    kit's workers included (they are not all waited-for children of this one)."""
    times = psutil.cpu_times()
    return sum(getattr(times, name, 0.0) for name in ("user", "nice", "system", "irq", "softirq"))


def measure(label: str, notebooks: int, action: Callable[[], None]) -> dict:
    print(f"{label}: {notebooks} notebooks ...", file=sys.stderr, flush=True)
    load = os.getloadavg()[0]
    cpu, start = cpu_seconds(), time.perf_counter()
    with Tree() as tree:
        action()
    seconds = time.perf_counter() - start
    return {"label": label, "seconds": seconds, "notebooks": notebooks,
            "cpu": cpu_seconds() - cpu, "rss": tree.peak, "load": (load + os.getloadavg()[0]) / 2}


def command(args: list[str], cwd: Path) -> None:
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if result.returncode not in (0, 1):  # 1: some submissions failed, reported below
        sys.exit(f"{' '.join(args)} failed:\n{result.stderr[-3000:]}")


def stock(root: Path, assignments: list[str], kernel: str) -> None:
    for assignment in assignments:
        command([str(BIN / "nbgrader"), "autograde", assignment,
                 f"--Execute.kernel_name={kernel}", "--SandboxProvisioner.warm_start=False"],
                root)


def kit(root: Path, assignments: list[str], kernel: str, workers: int,
        hooks: str = "all") -> None:
    with patched_env({upstream.SWITCH: hooks}):
        command([sys.executable, "-m", "attnkit", "autograde", *assignments, "--kernel", kernel,
                 "--workers", str(workers), "--no-progress"], root)


@contextlib.contextmanager
def patched_env(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


def hooks_table(base: Path, assignments: list[str], args: argparse.Namespace) -> str:
    """The kit's time with all hooks, none, and each one off; what each hook buys.

    ``--rounds`` repeats the whole set, every switch once per round in turn, so a slow spell
    of the machine falls on all of them; each row shows the median and every round's ratio."""
    switches = args.switch or ["all", "none", *(f"all,-{name}" for name in upstream.HOOKS)]
    if "all" not in switches:
        switches.insert(0, "all")
    seconds: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    for round_ in range(args.rounds):
        for number, switch in enumerate(switches):
            root = scratch_course(base, f"hooks{round_}-{number}", assignments, args.submissions)
            row = measure(f"kit {switch} (round {round_ + 1})", args.submissions,
                          lambda r=root, s=switch: kit(r, assignments, args.kernel,
                                                       args.workers, s))
            seconds[switch].append(row["seconds"])
            cpu[switch].append(row["cpu"] / args.submissions)
            shutil.rmtree(root)
    every = seconds["all"]
    lines = [f"{'ATTNKIT_HOOKS':24} {'seconds':>8} {'nb/s':>6} {'CPU s/nb':>8} {'vs all':>7} "
             f"{'CPU':>6} {'each round':>{6 * args.rounds}}  what the hook buys"]
    for switch, times in seconds.items():
        name = switch.removeprefix("all,-")
        buys = upstream.HOOKS[name].buys if name in upstream.HOOKS else (
            "every hook" if switch == "all" else "no hook: the stock pipeline on Dask")
        median = statistics.median(times)
        ratios = " ".join(f"{t / e:5.2f}" for t, e in zip(times, every, strict=True))
        per_nb = statistics.median(cpu[switch])
        lines.append(f"{switch:24} {median:8.1f} {args.submissions / median:6.2f} "
                     f"{per_nb:8.2f} {median / statistics.median(every):6.2f}x "
                     f"{per_nb / statistics.median(cpu['all']):5.2f}x "
                     f"{ratios:>{6 * args.rounds}}  {buys[:60]}")
    lines.append("vs all: median time / median time with every hook (above 1: turning the hook "
                 "off costs that much); CPU: the same for the machine's CPU seconds per "
                 "notebook; each round: that round's time / its own all")
    return "\n".join(lines)


def floor(notebooks: list[Path], kernel: str, parallel: int = 1, warm: bool = True) -> None:
    """Run each notebook's cells in a fresh kernel, ``parallel`` at a time; no grading.
    ``warm``: start kernels as the kit does (``grader.kernel_start_config``)."""
    config = grader.kernel_start_config(Config()) if warm else Config()

    async def run(path: Path) -> None:
        with tempfile.TemporaryDirectory(prefix="floor-") as sockets:
            km = AsyncKernelManager(kernel_name=kernel, transport="ipc",
                                    ip=os.path.join(sockets, "k"), config=config)
            client = NotebookClient(nbformat.read(path, as_version=4), km=km, timeout=30,
                                    allow_errors=True,
                                    resources={"metadata": {"path": str(path.parent)}})
            try:
                await client.async_execute(stdout=subprocess.DEVNULL)  # banners
            finally:
                if client.kc is not None:
                    client.kc.stop_channels()
                await km.shutdown_kernel(now=True)

    os.environ.setdefault(SEED_ENV, "1")
    with ThreadPoolExecutor(parallel) as pool:
        list(pool.map(lambda path: asyncio.run(run(path)), notebooks))


# -- where one notebook's time goes --------------------------------------------------------

PHASES = {
    (NotebookClient, "start_new_kernel"): "kernel start (launch)",
    (NotebookClient, "start_new_kernel_client"): "kernel start (until ready)",
    (NotebookClient, "execute_cell"): "running the cells",
    (NotebookClient, "_cleanup_kernel"): "kernel shutdown",
    (nbgrader_api.Gradebook, "__init__"): "gradebook: connect + schema check",
}


@contextlib.contextmanager
def timed(totals: dict[str, float]) -> Iterator[None]:
    """Add the time spent in each phase (and in every other preprocessor) to ``totals``."""
    saved = []

    def wrap(owner: type, name: str, label: str | None) -> None:
        original = owner.__dict__[name]

        @functools.wraps(original)
        def timed_call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                key = label or f"preprocessor {type(args[0]).__name__.removeprefix('Grading')}"
                totals[key] += time.perf_counter() - start
        saved.append((owner, name, original))
        setattr(owner, name, timed_call)

    for (owner, name), label in PHASES.items():
        wrap(owner, name, label)
    wrap(Preprocessor, "__call__", None)
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def breakdown(root: Path, assignment: str, students: list[str], kernel: str,
              kit_pipeline: bool) -> dict[str, float]:
    """Seconds per notebook in each phase, grading in this process: with nbgrader's API as
    configured, or as a kit worker grades (its pipeline, shared engine, final check)."""
    config = grader.load_config(root)
    if kit_pipeline:
        db_url = CourseDirectory(config=config).db_url

        def grade(student: str) -> None:
            grader.grade_submission(str(root), assignment, student, db_url, kernel)
    else:
        config.Execute.kernel_name = kernel
        config.SandboxProvisioner.warm_start = False  # kernels started as nbgrader does
        api = NbGraderAPI(config=config)

        def grade(student: str) -> None:
            api.autograde(assignment, student, force=True)
    totals: dict[str, float] = defaultdict(float)
    start = time.perf_counter()
    # one named regrade run, as a kit run names its own: no summary when this process exits,
    # by when the scratch course is gone
    with patched_env({audit.RUN_ENV: "breakdown"}), timed(totals):
        for student in students:
            grade(student)
    totals["total"] = time.perf_counter() - start
    return {phase: seconds / len(students) for phase, seconds in totals.items()}


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Point file descriptor 1, which child processes inherit, at /dev/null for a while."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "wb") as devnull:
        os.dup2(devnull.fileno(), 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


# -- reports ---------------------------------------------------------------------------------

def throughput_table(rows: list[dict], cores: int) -> str:
    rate = {row["label"]: row["notebooks"] / row["seconds"] for row in rows}
    lines = [f"{'':10} {'notebooks':>9} {'seconds':>8} {'nb/s':>6} {'CPU s/nb':>8} "
             f"{'peak RSS':>9} {'load':>5}"]
    for row in rows:
        lines.append(f"{row['label']:10} {row['notebooks']:9d} {row['seconds']:8.1f} "
                     f"{rate[row['label']]:6.2f} {row['cpu'] / row['notebooks']:8.2f} "
                     f"{row['rss'] / 2**20:7.0f}MB {row['load']:5.1f}")
    lines.append(f"floor: kernels started as the kit does, serial time / {cores} cores; "
                 f"floor x{cores}: {cores} kernels at a time, measured;\nfloor cold: kernels "
                 f"started as stock nbgrader does, serial time / {cores} cores; floor RSS: the "
                 "kernels alone; load: 1-min load average;\nCPU s/nb: the whole machine's busy CPU "
                 "time per notebook (every process; floor rows: all of it, not / cores)")
    measured = f"floor x{cores}"
    lines.append(f"kit/stock = {rate['kit'] / rate['stock']:.2f}x (target >= 5)   "
                 f"floor/kit = {rate['floor'] / rate['kit']:.2f}x (target <= 1.5)   "
                 f"{measured}/kit = {rate[measured] / rate['kit']:.2f}x\n"
                 f"(running {cores} at a time costs the floor itself "
                 f"{rate['floor'] / rate[measured]:.2f}x its serial time / {cores})")
    return "\n".join(lines)


def median(rows: list[dict]) -> dict:
    """The row with the median time (the upper one of an even count)."""
    return sorted(rows, key=lambda row: row["seconds"])[len(rows) // 2]


def rounds_table(rounds: list[list[dict]]) -> str:
    """Each round's times and ratios; the table above shows each row's median round."""
    measured = rounds[0][2]["label"]
    lines = [f"{'round':>5} {'kit':>7} {'floor':>7} {measured:>9} {'floor/kit':>10} "
             f"{measured + '/kit':>13}"]
    ratios = []
    for number, (kit_row, floor_row, pair_row) in enumerate(rounds, 1):
        ratios.append((kit_row["seconds"] / floor_row["seconds"],
                       kit_row["seconds"] / pair_row["seconds"]))
        lines.append(f"{number:5d} {kit_row['seconds']:7.1f} {floor_row['seconds']:7.1f} "
                     f"{pair_row['seconds']:9.1f} {ratios[-1][0]:9.2f}x {ratios[-1][1]:12.2f}x")
    middle = [statistics.median_high(column) for column in zip(*ratios, strict=True)]
    lines.append(f"{'median of the rounds':>31} {middle[0]:9.2f}x {middle[1]:12.2f}x")
    return "\n".join(lines)


EXECUTE = "preprocessor ResilientExecute"  # the kernel's part of a notebook's time


def breakdown_table(stock_phases: dict[str, float], kit_phases: dict[str, float]) -> str:
    lines = [f"{'seconds per notebook':40} {'stock':>7} {'kit':>7}"]
    phases = sorted((set(stock_phases) | set(kit_phases)) - {"total"},
                    key=lambda p: -stock_phases.get(p, 0))
    for phase in [*phases, "total"]:
        lines.append(f"{phase:40} {stock_phases.get(phase, 0):7.3f} "
                     f"{kit_phases.get(phase, 0):7.3f}")
    stock_out, kit_out = (p["total"] - p.get(EXECUTE, 0) for p in (stock_phases, kit_phases))
    lines.append(f"{'nbgrader outside the kernel':40} {stock_out:7.3f} {kit_out:7.3f}")
    lines.append("(in one process; preprocessors include their own gradebook queries; "
                 "ResilientExecute includes the kernel phases above it;\n nbgrader outside the "
                 "kernel: total - ResilientExecute)")
    return "\n".join(lines)


RATIOS = re.compile(r"kit/stock = ([\d.]+)x.*?floor/kit = ([\d.]+)x")


def without_option(argv: list[str], option: str) -> list[str]:
    """``argv`` without ``option`` and its value (given as ``--opt V`` or ``--opt=V``)."""
    rest, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == option:
            skip = True
        elif not arg.startswith(f"{option}="):
            rest.append(arg)
    return rest


def both_modes(user: str) -> int:
    """This benchmark as root, then as ``user``, each printed; then their ratios."""
    assert os.geteuid() == 0, "--as-user needs root (it switches to that user)"
    rest = without_option(sys.argv[1:], "--as-user")
    account = pwd.getpwnam(user)
    modes = {"root (a uid per kernel)": [],
             f"{user} (uid {account.pw_uid}, user namespaces)": [
                 "setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}",
                 "--init-groups", "--"]}
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}
    found = {}
    for mode, prefix in modes.items():
        print(f"\n=== sandbox mode: {mode} ===", flush=True)
        home = {"HOME": account.pw_dir if prefix else os.environ.get("HOME", "/root")}
        result = subprocess.run([*prefix, sys.executable, str(Path(__file__).resolve()), *rest],
                                env={**env, **home}, stdout=subprocess.PIPE, text=True,
                                cwd="/")
        print(result.stdout, end="", flush=True)
        if result.returncode != 0:
            return result.returncode
        found[mode] = RATIOS.search(result.stdout.replace("\n", " "))
    print("\nboth sandbox modes, measured in this run:")
    for mode, match in found.items():
        assert match is not None, f"no ratios in the output of {mode}"
        print(f"  {mode:45} kit/stock = {match[1]}x (target >= 5)   "
              f"floor/kit = {match[2]}x (target <= 1.5)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", "--submissions", type=int, default=100, help="K (default 100)")
    parser.add_argument("--kernel", default=os.environ.get(grader.KERNEL_ENV, "python3"),
                        help="kernel for every run (default: $ATTNKIT_KERNEL, else python3)")
    parser.add_argument("--workers", type=int, default=cluster.default_workers(),
                        help="kit workers (default: the kit's, one per core and one more)")
    parser.add_argument("--assignment", action="append", dest="assignments",
                        help="only this assignment (repeatable; default: all under source/)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time kit, floor and floor xN this many times, back to back; "
                             "the table shows each one's median")
    parser.add_argument("--breakdown", type=int, default=4, metavar="N",
                        help="notebooks per pipeline in the time breakdown (0: none)")
    parser.add_argument("--scaling", action="store_true",
                        help="only time the kit for K = --sizes")
    parser.add_argument("--sizes", default="25,50,100,200,400")
    parser.add_argument("--hooks", action="store_true",
                        help="only time the kit with all, none and each of attnkit.upstream's "
                             "hooks off")
    parser.add_argument("--switch", action="append",
                        help="with --hooks: time only this ATTNKIT_HOOKS value (repeatable; "
                             "all is always timed)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument("--as-user", metavar="USER",
                        help="as root: then run it all again as this ordinary user (the "
                             "sandbox without root) and compare the two modes")
    args = parser.parse_args()
    if args.as_user:
        return both_modes(args.as_user)

    warnings.filterwarnings("ignore", category=MissingIDFieldWarning)  # nbformat's noise
    os.environ.pop("ATTNKIT_DB_URL", None)  # the scratch course grades into its own SQLite
    os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    cores = cluster.cores()  # the floor is per core, whatever the number of kit workers
    base = Path(tempfile.mkdtemp(prefix="attnkit-bench-"))
    try:
        assignments = template(base, args.assignments)
        print(f"assignments: {', '.join(assignments)}; kernel {args.kernel}; "
              f"{args.workers} kit workers on {cores} cores", flush=True)
        if args.hooks:
            print(hooks_table(base, assignments, args))
            return 0
        if args.scaling:
            print(f"{'K':>5} {'seconds':>8} {'nb/s':>6} {'s/nb':>6}")
            for size in map(int, args.sizes.split(",")):
                root = scratch_course(base, f"scale{size}", assignments, size)
                row = measure("kit", size, lambda r=root: kit(r, assignments, args.kernel,
                                                                 args.workers))
                print(f"{size:5d} {row['seconds']:8.1f} {size / row['seconds']:6.2f} "
                      f"{row['seconds'] / size:6.2f}", flush=True)
                shutil.rmtree(root)
            return 0

        count = args.submissions
        stock_root = scratch_course(base, "stock", assignments, count)
        rows = [measure("stock", count, lambda: stock(stock_root, assignments, args.kernel))]

        def per_core(label: str, graded: list[Path], warm: bool) -> dict:
            row = measure(label, len(graded), lambda: floor(graded, args.kernel, warm=warm))
            row["seconds"] /= cores
            return row

        rounds = []  # kit, floor, floor xN back to back: this machine's speed drifts
        for number in range(args.rounds):
            kit_root = scratch_course(base, f"kit{number}", assignments, count)
            kit_row = measure("kit", count,
                              lambda r=kit_root: kit(r, assignments, args.kernel, args.workers))
            graded = sorted((kit_root / "autograded").glob("*/*/*.ipynb"))
            rounds.append([kit_row, per_core("floor", graded, warm=True),
                           measure(f"floor x{cores}", len(graded),
                                   lambda g=graded: floor(g, args.kernel, cores))])
        rows += [median(column) for column in zip(*rounds, strict=True)]
        rows.append(per_core("floor cold", graded, warm=False))
        print(throughput_table(rows, cores))
        if args.rounds > 1:
            print(rounds_table(rounds))

        if args.breakdown:
            assignment = assignments[0]
            students = sorted(p.parent.name for p in
                              (kit_root / "submitted").glob(f"*/{assignment}"))[:args.breakdown]
            with quiet_stdout():  # stock nbgrader lets kernels print their banners here
                stock_phases = breakdown(kit_root, assignment, students, args.kernel, False)
            kit_phases = breakdown(kit_root, assignment, students, args.kernel, True)
            print(f"\nwhere one {assignment} notebook's time goes "
                  f"({len(students)} notebooks each, serially)")
            print(breakdown_table(stock_phases, kit_phases))
        return 0
    finally:
        if args.keep:
            print(f"scratch directory kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

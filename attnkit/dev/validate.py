"""The kill matrix: run the student-style catalogue through the real grading path.

``python -m attnkit.dev.validate`` loads every implementation in
``attnkit/dev/catalogue/*.py`` (one module per assignment), runs it on each graded
cell it targets exactly as a hidden test would (``attnkit.kernel.probe.run_case``
on every case of the check, then ``attnkit.judge.verdicts.judge`` outside), for
several grading seeds, and prints one table per assignment: rows are implementations,
columns are graded cells, entries the score fraction ('-' where the
implementation does not target the cell). Then the two headline figures:

* misconceptions caught: wrong implementations that lose points on every seed
  *and* whose feedback names the misconception they declare (goal 100%);
* correct solutions marked down: correct implementations that lost any point
  on any seed (goal 0).

Last, the "charged once" table of every call chain (``attnkit.dev.charged``): a wrong
helper under a right caller must lose points at the helper only. It exits 1 if any goal is
missed. Options: ``--seeds 0 1 2``, ``--verbose``
(every verdict's message), ``--plain`` (no colours), ``--no-chains`` (no charged-once table).

Catalogue modules register implementations with ``entry`` / ``values`` below;
they never import the kit's reference or variants.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attnkit.dev.catalogue
from attnkit.dev import charged
from attnkit.judge import registry
from attnkit.judge.verdicts import Verdict, judge
from attnkit.kernel.probe import records

CATALOGUE = Path(attnkit.dev.catalogue.__file__).parent
SEEDS = (0, 1, 2, 7, 2024)
MARK = "__attnkit_catalogue__"


@dataclass(frozen=True)
class Entry:
    """One student-style implementation and what the grader should make of it."""

    name: str
    targets: tuple  # what the hidden test cell passes to probe: functions, a class, values
    expect: dict[str, str | None]  # check id -> misconception name, None when correct there
    says: tuple[str, ...] = ()  # phrases the feedback of every wrong check must contain
    about: str = ""
    module: str = ""

    @property
    def correct(self) -> bool:
        return all(v is None for v in self.expect.values())


def entry(*checks: str, wrong: str | dict[str, str | None] | None = None,
          says: Iterable[str] = (), name: str | None = None) -> Callable[[Any], Any]:
    """Register the decorated function or class as the target of ``checks``.

    ``wrong`` is the misconception the feedback must name (one name for every
    check, or a dict per check); leave it out for a correct implementation.
    """
    def register(target: Any) -> Any:
        expect = dict(wrong) if isinstance(wrong, dict) else {c: wrong for c in checks}
        for check in checks:
            expect.setdefault(check, None)
        doc = (target.__doc__ or "").strip().splitlines()
        setattr(target, MARK, Entry(name or target.__name__, (target,), expect, tuple(says),
                                    doc[0] if doc else ""))
        return target
    return register


def values(check: str, *targets: Any, name: str, wrong: str | None = None,
           says: Iterable[str] = (), about: str = "") -> Entry:
    """Register plain values (answers such as shapes) as the targets of ``check``."""
    return Entry(name, tuple(targets), {check: wrong}, tuple(says), about)


def load_catalogue(folder: Path = CATALOGUE) -> list[Entry]:
    """Every entry of ``folder/*.py`` (files starting with _ are skipped), in file order."""
    entries: list[Entry] = []
    for path in sorted(folder.glob("[!_]*.py")):
        spec = importlib.util.spec_from_file_location(f"attnkit_catalogue_{path.stem}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for value in vars(module).values():
            # vars(): a subclass of a registered class is not registered with it
            found = value if isinstance(value, Entry) else (
                vars(value).get(MARK) if hasattr(value, "__dict__") else None)
            if isinstance(found, Entry) and found.name not in {e.name for e in entries}:
                entries.append(Entry(found.name, found.targets, found.expect, found.says,
                                     found.about, path.stem))
    return entries


def grade(e: Entry, check: str, seed: int) -> Verdict:
    """What the hidden test cell of ``check`` would award ``e``, for grading seed ``seed``."""
    return judge(check, seed, records(check, e.targets, seed), 1.0)


@dataclass
class Outcome:
    """One implementation on one graded cell, over all seeds."""

    entry: Entry
    check: str
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def expected(self) -> str | None:
        return self.entry.expect[self.check]

    @property
    def scores(self) -> list[float]:
        return [v.score / v.points for v in self.verdicts]

    def problems(self) -> list[str]:
        """Why this outcome misses its goal (empty when it meets it)."""
        out = []
        for seed_verdict in self.verdicts:
            v = seed_verdict
            if self.expected is None:
                if not v.full:
                    out.append(f"correct code marked {v.score:g}/{v.points:g}: {v.message}")
            elif v.full:
                out.append("wrong code got full marks")
            elif v.misconception != self.expected:
                out.append(f"named {v.misconception!r}, not {self.expected!r}: {v.message}")
            else:
                out += [f"the message lacks {s!r}: {v.message}" for s in self.entry.says
                        if s.lower() not in v.message.lower()]
        if len(set(self.scores)) > 1:  # the same code must score the same for every student
            out.append(f"scored {', '.join(f'{s:g}' for s in self.scores)} on the seeds")
        return list(dict.fromkeys(out))

    @property
    def ok(self) -> bool:
        return not self.problems()

    def cell(self) -> str:
        worst = max(self.scores) if self.expected else min(self.scores)
        return f"{worst:.2f}".rstrip("0").rstrip(".") if worst % 1 else f"{worst:.0f}"


def evaluate(entries: list[Entry], seeds: Iterable[int] = SEEDS) -> list[Outcome]:
    seeds = list(seeds)
    outcomes = []
    for e in entries:
        for check in e.expect:
            outcome = Outcome(e, check)
            outcome.verdicts = [grade(e, check, seed) for seed in seeds]
            outcomes.append(outcome)
    return outcomes


@dataclass
class Summary:
    caught: int
    wrong: int
    marked_down: int
    correct: int

    @property
    def passed(self) -> bool:
        return self.caught == self.wrong and self.marked_down == 0


def summarise(outcomes: list[Outcome]) -> Summary:
    wrong = [o for o in outcomes if o.expected]
    right = [o for o in outcomes if not o.expected]
    return Summary(sum(o.ok for o in wrong), len(wrong), sum(not o.ok for o in right),
                   len(right))


# ------------------------------------------------------------------ printing


def _short(check: str) -> str:
    """The check's column heading: its ``label``, else its grade id without the prefix."""
    return registry.checks()[check].label or check.split("_", 1)[-1].replace("_", " ")


def report(outcomes: list[Outcome], seeds: list[int], *, verbose: bool = False,
           plain: bool = False) -> Summary:
    from rich.markup import escape
    from rich.table import Table

    console = _console(plain)
    by_entry: dict[str, dict[str, Outcome]] = {}
    for o in outcomes:
        by_entry.setdefault(o.entry.name, {})[o.check] = o
    for assignment, module in registry.assignments().items():
        columns = list(module.CHECKS)
        rows = [(name, cells) for name, cells in by_entry.items()
                if any(c in cells for c in columns)]
        if not rows:
            continue
        table = Table(title=f"{assignment}: score fraction per graded cell (worst seed)",
                      title_justify="left", show_lines=False, pad_edge=False)
        table.add_column("implementation", no_wrap=True)
        table.add_column("expected", style="dim", no_wrap=True, max_width=40)
        for c in columns:
            table.add_column(_short(c), justify="center", no_wrap=True)
        table.add_column("", no_wrap=True)
        for name, cells in rows:
            e = next(iter(cells.values())).entry
            expected = "correct" if e.correct else "; ".join(
                f"{v}" for v in dict.fromkeys(v for v in e.expect.values() if v))
            row = []
            for c in columns:
                o = cells.get(c)
                if o is None:
                    row.append("[dim]-[/]")
                else:
                    colour = "green" if o.ok else "bold red"
                    row.append(f"[{colour}]{o.cell()}[/]")
            good = all(o.ok for o in cells.values())
            row.append("[green]ok[/]" if good else "[bold red]MISS[/]")
            table.add_row(escape(name), escape(expected), *row)
        console.print(table)
    summary = summarise(outcomes)
    misses = [o for o in outcomes if not o.ok]
    if misses or verbose:
        console.print("\n[bold]details[/]")
    for o in outcomes if verbose else misses:
        lines = o.problems() or [o.verdicts[0].message]
        for line in lines:
            console.print(escape(f"  {o.entry.name} / {o.check}: {line}"), soft_wrap=True)
    pct = 100.0 * summary.caught / summary.wrong if summary.wrong else 100.0
    console.print(f"\nseeds: {', '.join(map(str, seeds))}; {len(by_entry)} implementations "
                  f"({sum(e.entry.correct for e in {id(o.entry): o for o in outcomes}.values())}"
                  f" correct), {len(outcomes)} implementation x cell pairs")
    colour = "green" if summary.caught == summary.wrong else "bold red"
    console.print(f"[{colour}]misconceptions caught: {summary.caught}/{summary.wrong} "
                  f"({pct:.0f}%)[/]   (goal 100%)")
    colour = "green" if summary.marked_down == 0 else "bold red"
    console.print(f"[{colour}]correct solutions wrongly marked down: {summary.marked_down}"
                  f"/{summary.correct}[/]   (goal 0)")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnkit.dev.validate",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE)
    parser.add_argument("--verbose", action="store_true", help="print every verdict")
    parser.add_argument("--plain", action="store_true", help="no colours")
    parser.add_argument("--no-chains", action="store_true",
                        help="leave out the charged-once table of the call chains")
    args = parser.parse_args(argv)
    outcomes = evaluate(load_catalogue(args.catalogue), args.seeds)
    summary = report(outcomes, args.seeds, verbose=args.verbose, plain=args.plain)
    once = args.no_chains or charged.report(charged.evaluate(tuple(args.seeds[:2])),
                                            _console(args.plain), verbose=args.verbose)
    return 0 if summary.passed and once else 1


def _console(plain: bool) -> Any:
    from rich.console import Console

    return Console(no_color=plain, highlight=False, width=max(Console().width, 150))


if __name__ == "__main__":
    # Run the copy importable as attnkit.dev.validate, so the catalogue's
    # ``from attnkit.dev.validate import entry`` and this loader share one Entry class.
    from attnkit.dev.validate import main as _main

    sys.exit(_main())

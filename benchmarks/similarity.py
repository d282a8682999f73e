"""``attnkit similarity`` on a large class: 500 submissions of ps1 against the 60 s target.

Builds N synthetic ps1 submissions in a scratch copy of the course: each student picks, for
every skill, one of the catalogue's implementations (right or wrong) at random, adds lines of
their own, renames a few names and adds a comment; a few students are planted copies of
others (renamed and re-commented).
Then times, in the same run:

* kit:      ``similarity.build`` (read, tokenise, fingerprint, index, every pair, HTML + CSV);
* baseline: naive all-pairs ``difflib.SequenceMatcher.ratio`` on the same student code, on a
  subset of S submissions, extrapolated to all N(N-1)/2 pairs (it is quadratic in pairs).

It prints both, the ratio, and whether the planted copies are the top-ranked pairs.

    .venv/bin/python benchmarks/similarity.py -n 500
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import random
import re
import shutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.catalogue import SKILLS  # noqa: E402

from attnkit.dev.validate import load_catalogue
from attnkit.review import similarity
from attnkit.samples import Sample, build_submission

ROOT = Path(__file__).resolve().parents[1]
A = "ps1_self_attention"
TARGET = 60.0


def implementations() -> dict[str, list[str]]:
    """Solution cell -> source of every catalogue function written for that skill."""
    found: dict[str, list[str]] = {}
    for e in load_catalogue():
        check = next(iter(e.expect))
        if len(e.expect) == 1 and check in SKILLS and inspect.isfunction(e.targets[0]):
            fn = e.targets[0]
            source = re.sub(r"^@entry\(.*?\)\n", "", textwrap.dedent(inspect.getsource(fn)),
                            flags=re.DOTALL | re.MULTILINE)
            found.setdefault(SKILLS[check][0], []).append(
                f"import numpy as np\n\n{source}\n{SKILLS[check][1]} = {fn.__name__}\n")
    return found


def own_lines(code: str, rng: random.Random) -> str:
    """A student's own structure: about every other line of a body is followed by one of
    theirs (scratch values, checks), so no two students' code runs alike for long."""
    out = []
    for line in code.splitlines():
        out.append(line)
        body = line.startswith("    ") and not line.rstrip().endswith((":", ",", "(", "[", "\\"))
        if body and rng.random() < 0.6:
            indent = line[:len(line) - len(line.lstrip())]
            out.append(f"{indent}check_{rng.randint(0, 999)} = {rng.randint(2, 999)} * "
                       f"{rng.randint(2, 999)}")
    return "\n".join(out) + "\n"


def vary(code: str, rng: random.Random) -> str:
    """A student's own touch: a few names renamed, a comment."""
    for name in rng.sample(["exps", "scores", "weights", "total", "top", "z", "Q", "K"], 3):
        code = re.sub(rf"\b{name}\b", f"{name}_{rng.randint(0, 99)}", code)
    return f"# attempt {rng.randint(1, 9)}\n{code}"


def make_class(root: Path, n: int, copies: int, seed: int = 0) -> set[tuple[str, str]]:
    rng = random.Random(seed)
    found = implementations()
    master, release = root / "source" / A / f"{A}.ipynb", root / "release" / A / f"{A}.ipynb"
    codes: dict[str, dict[str, str]] = {}
    planted = set()
    for i in range(n):
        student = f"student{i:03d}"
        if i >= n - copies:  # a planted copy of an earlier student, renamed and re-commented
            original = f"student{rng.randrange(n - copies):03d}"
            code = {cell: vary(source, rng) for cell, source in codes[original].items()}
            planted.add(tuple(sorted((original, student))))
        else:
            code = {cell: vary(own_lines(rng.choice(options), rng), rng)
                    for cell, options in found.items()}
        codes[student] = code
        out = root / "submitted" / student / A / f"{A}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(build_submission(master, release, Sample(student, code)), out)
    return planted


def difflib_all_pairs(codes: list[similarity.Code]) -> float:
    """Seconds for SequenceMatcher.ratio on every pair of the students' code texts."""
    texts = ["\n".join("\n".join(c.lines) for c in code.chunks) for code in codes]
    start = time.perf_counter()
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            difflib.SequenceMatcher(None, texts[i], texts[j]).ratio()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=500, help="submissions (default 500)")
    parser.add_argument("--subset", type=int, default=40,
                        help="submissions the difflib baseline compares (default 40)")
    parser.add_argument("--copies", type=int, default=5, help="planted copies (default 5)")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="attnkit-similarity-"))
    try:
        root = scratch / "course"
        root.mkdir()
        for name in ("source", "release"):
            shutil.copytree(ROOT / name, root / name)
        shutil.copy(ROOT / "nbgrader_config.py", root)
        planted = make_class(root, args.n, args.copies)

        start = time.perf_counter()
        page, pairs, problems = similarity.build(root, A)
        kit = time.perf_counter() - start
        top = {(p.a.student, p.b.student) for p in pairs[:len(planted)]}

        codes, _, _ = similarity.collect(root, A)
        subset = codes[:args.subset]
        base = difflib_all_pairs(subset)
        all_pairs = args.n * (args.n - 1) / 2
        sub_pairs = len(subset) * (len(subset) - 1) / 2
        estimate = base * all_pairs / sub_pairs
        print(f"similarity, {args.n} submissions of {A}: {kit:.1f} s "
              f"(target {TARGET:.0f} s: {'met' if kit < TARGET else 'MISSED'}), "
              f"{len(pairs)} pairs >= 10%, {sum(p.flagged for p in pairs)} flagged, "
              f"{len(problems)} unreadable")
        print(f"baseline, difflib all pairs: {base:.1f} s for {sub_pairs:.0f} pairs "
              f"({len(subset)} submissions) -> {estimate:.0f} s estimated for "
              f"{all_pairs:.0f} pairs; kit is {estimate / kit:.0f}x faster")
        print(f"planted copies ranked on top: {len(top & planted)} of {len(planted)}")
        return 0 if kit < TARGET and top == planted else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

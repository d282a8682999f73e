"""``attnkit similarity ASSIGNMENT``: which students' solution code is suspiciously alike.

The method is MOSS's, as Dolos and copydetect also use it: token fingerprints chosen by
winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003), an index from fingerprint to
students, and a score per pair from the fingerprints they share.

* **Only what the student wrote.** Code cells a student cannot change (nbgrader's locked and
  test cells, restored at autograde anyway) are left out, and every k-gram of the released
  notebooks (stubs, signatures, given helpers, data cells) is removed, as MOSS's base file
  and Dolos's template option do. Two students who hand in the blank release share nothing.
* **Normalised.** Python's own ``tokenize`` reads each cell; comments, docstrings, blank
  lines and layout disappear; every name the student chose becomes ``V`` (keywords, builtins,
  attributes such as ``.exp`` and imported modules such as ``np`` stay), string literals
  become ``S``. Renamed variables and re-commented code give the same tokens; functions in
  another order share every k-gram but the few that straddle a boundary.
* **Common code is not evidence.** A fingerprint held by more than ``max_holders``
  students (MOSS's ``-m``, default 10, or 10% of a large class) is dropped: that is the
  idiom everyone writes, not a copy.

The score of a pair is Dice's coefficient of their fingerprint sets,
``2 |A ∩ B| / (|A| + |B|)`` (Dolos's similarity): 1 for identical code after normalisation,
near 0 for independent work. Pairs are found through a sparse student x fingerprint matrix
(one product gives every pair's overlap), so 500 submissions take seconds, not the 125 000
pairwise comparisons of a naive diff.

Why not a library: copydetect tokenizes with pygments and writes its own HTML report without
a notion of nbgrader's locked cells; Dolos needs Node.js and has no notebook support. The
algorithm itself is short; what is particular to notebooks (which cells are the student's,
the release as template, lines per cell) is what these modules add: the student's code,
normalised and fingerprinted, in ``attnkit.review.fingerprints``; scoring pairs in
``attnkit.review.pairs``; the course's submissions, the page, the CSV and the command here.

It flags; it never touches a grade. Output: ``reports/ASSIGNMENT/similarity.html`` (pairs
ranked, matching fragments side by side; every student text escaped by Jinja's autoescape)
and ``similarity.csv``.
"""

from __future__ import annotations

import argparse
import csv
import glob
import math
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from nbgrader.coursedir import CourseDirectory

from attnkit.course import coursedir, default_out
from attnkit.pages import render
from attnkit.review.fingerprints import (
    WINDOW,
    Code,
    K,
    normalise,
    read_code,
    template_hashes,
)
from attnkit.review.fingerprints import _cells as _cells
from attnkit.review.fingerprints import _hash as _hash
from attnkit.review.fingerprints import _number as _number
from attnkit.review.fingerprints import _source as _source
from attnkit.review.fingerprints import _students_code as _students_code
from attnkit.review.pairs import FLAG, Pair, compare

__all__ = [
    "FLAG", "K", "WINDOW", "Code", "Pair", "add_arguments", "build", "collect", "compare",
    "describe_lines", "main", "normalise", "notebooks_of", "read_code", "render_html",
    "submitted_students", "template_hashes", "write_csv",
]


# ------------------------------------------------------------------ the course


def notebooks_of(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.ipynb") if p.is_file())


def submitted_students(cd: CourseDirectory, assignment: str) -> list[str]:
    """Students with a folder for ``assignment`` under submitted/, in nbgrader's layout."""
    step = re.escape(cd.submitted_directory)
    pattern = re.compile(cd.format_path(step, "(?P<student_id>[^/\\\\]+)", re.escape(assignment),
                                        escape=True))
    wildcard = cd.format_path(glob.escape(cd.submitted_directory), "*", glob.escape(assignment))
    return sorted(m.group("student_id") for p in glob.glob(wildcard)
                  if (m := pattern.fullmatch(p)) and Path(p).is_dir())


def collect(root: Path, assignment: str) -> tuple[list[Code], set[int], list[str]]:
    """Every submission's code, the release's k-grams, and what could not be read."""
    cd = coursedir(root)
    release = Path(cd.format_path(cd.release_directory, ".", assignment))
    released = notebooks_of(release)
    if not released:
        raise SystemExit(f"no released notebook in {release}: run `attnkit release` first, "
                         "so that the code every student was given is not counted")
    codes, problems = [], []
    for student in sorted(submitted_students(cd, assignment)):
        folder = Path(cd.format_path(cd.submitted_directory, student, assignment))
        code = read_code(student, notebooks_of(folder))
        if code.problem:
            problems.append(f"{student}: {code.problem}")
        elif not code.chunks:
            problems.append(f"{student}: no notebook in {folder}")
        codes.append(code)
    return codes, template_hashes(released), problems


# ------------------------------------------------------------------ the page and the CSV


def describe_lines(code: Code, spans: Iterable[tuple[int, int, int]]) -> str:
    """'ps1_softmax_code l.2-5; code cell 12 l.1-3' for the CSV."""
    return "; ".join(f"{code.chunks[c].label} l.{lo}-{hi}" if hi > lo
                     else f"{code.chunks[c].label} l.{lo}" for c, lo, hi in spans)


def write_csv(pairs: list[Pair], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["student_a", "student_b", "score", "shared_fingerprints",
                      "matched_lines_a", "matched_lines_b"])
        for p in pairs:
            out.writerow([p.a.student, p.b.student, f"{p.score:.3f}", p.shared,
                          describe_lines(p.a, (f.a for f in p.fragments)),
                          describe_lines(p.b, (f.b for f in p.fragments))])


def _side(code: Code, span: tuple[int, int, int], hot: set[int], context: int = 1) -> dict:
    chunk = code.chunks[span[0]]
    first, last = max(1, span[1] - context), min(len(chunk.lines), span[2] + context)
    return {"student": code.student, "cell": chunk.label,
            "lines": [{"number": n, "text": chunk.lines[n - 1], "hot": n in hot}
                      for n in range(first, last + 1)]}


def render_html(assignment: str, pairs: list[Pair], students: int, problems: list[str],
                top: int, max_holders: int | None) -> str:
    shown = []
    for rank, pair in enumerate(pairs[:top], start=1):
        shown.append({
            "rank": rank, "a": pair.a.student, "b": pair.b.student,
            "score": f"{100 * pair.score:.0f}%", "width": f"{100 * pair.score:.0f}",
            "flagged": pair.flagged, "shared": pair.shared,
            "fragments": [{"a": _side(pair.a, f.a, f.a_lines), "b": _side(pair.b, f.b, f.b_lines)}
                          for f in pair.fragments[:6]],
            "more": max(0, len(pair.fragments) - 6)})
    return render("similarity.html.j2", assignment=assignment, pairs=shown, total=len(pairs),
                  flagged=sum(p.flagged for p in pairs), students=students,
                  problems=problems, flag=f"{100 * FLAG:.0f}%", k=K, window=WINDOW,
                  guarantee=K + WINDOW - 1,
                  common=max_holders or max(10, math.ceil(0.1 * students)),
                  stamp=datetime.now().strftime("%Y-%m-%d %H:%M"))


def build(root: Path, assignment: str, out: Path | None = None, top: int = 25,
          max_holders: int | None = None, min_score: float = 0.1
          ) -> tuple[Path, list[Pair], list[str]]:
    """Write similarity.html and similarity.csv; returns the page, the pairs and problems."""
    codes, template, problems = collect(Path(root), assignment)
    pairs = compare(codes, template, max_holders, min_score)
    folder = Path(out or default_out(root, assignment))
    folder.mkdir(parents=True, exist_ok=True)
    write_csv(pairs, folder / "similarity.csv")
    page = folder / "similarity.html"
    page.write_text(render_html(assignment, pairs, len(codes), problems, top, max_holders),
                    encoding="utf-8")
    return page, pairs, problems


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Compare every pair of students' own code for one assignment "
                          "(release code removed; names, order, comments and layout "
                          "normalised). Flags pairs for a human to read; never changes a grade.")
    parser.add_argument("assignment", help="assignment name, e.g. ps1_self_attention")
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default: <root>/reports/<assignment>/)")
    parser.add_argument("--top", type=int, default=25,
                        help="pairs shown with their fragments in the page (default: 25)")
    parser.add_argument("--max-holders", type=int, default=None,
                        help="ignore code found in more than this many submissions "
                             "(default: 10, or 10%% of the class if larger)")
    parser.add_argument("--min-score", type=float, default=0.1,
                        help="pairs below this score are left out of the CSV (default: 0.1)")


def main(args: argparse.Namespace) -> int:
    page, pairs, problems = build(Path(args.root), args.assignment, args.out, args.top,
                                  args.max_holders, args.min_score)
    for problem in problems:
        print(f"could not read {problem}")
    flagged = [p for p in pairs if p.flagged]
    print(f"{args.assignment}: {len(flagged)} pair{'s' if len(flagged) != 1 else ''} flagged "
          f"(score >= {FLAG:.0%}), {len(pairs)} above {args.min_score:.0%}")
    for p in flagged[:10]:
        print(f"  {p.score:5.0%}  {p.a.student} ~ {p.b.student}")
    print(f"Similarity: {page}")
    return 0

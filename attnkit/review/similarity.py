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
the release as template, lines per cell) is what this module adds.

It flags; it never touches a grade. Output: ``reports/ASSIGNMENT/similarity.html`` (pairs
ranked, matching fragments side by side; every student text escaped by Jinja's autoescape)
and ``similarity.csv``.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import csv
import glob
import hashlib
import io
import json
import keyword
import math
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np
from nbgrader.coursedir import CourseDirectory
from scipy import sparse

from attnkit.course import coursedir, default_out
from attnkit.pages import render

K = 10  # tokens per k-gram: a short numpy line is about ten tokens
WINDOW = 6  # any common run of K + WINDOW - 1 = 15 tokens is sure to be found
FLAG = 0.5  # pairs at or above this score are flagged for a human to look at
KEEP = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))
MAGIC = re.compile(r"^\s*[%!]")  # IPython magics and shell lines: not Python


@dataclass(frozen=True)
class Token:
    text: str
    chunk: int  # which cell of the student's code
    line: int  # 1-based line within that cell


@dataclass
class Chunk:
    """One code cell the student could write in."""

    label: str
    lines: list[str]


@dataclass
class Code:
    """One student's own code and its fingerprints."""

    student: str
    chunks: list[Chunk]
    tokens: list[Token]
    prints: dict[int, list[int]] = field(default_factory=dict)  # hash -> token positions
    problem: str = ""  # why (part of) the submission could not be read

    def lines_of(self, start: int) -> tuple[int, int, int]:
        """(chunk, first line, last line) of the k-gram starting at token ``start``."""
        first, last = self.tokens[start], self.tokens[start + K - 1]
        return first.chunk, first.line, last.line


# ------------------------------------------------------------------ tokens


def normalise(source: str, chunk: int) -> list[Token]:
    """The tokens of one cell with names, strings, comments and layout normalised."""
    source = "\n".join("" if MAGIC.match(line) else line for line in source.splitlines())
    raw: list[tuple[int, str, int]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source + "\n").readline):
            raw.append((tok.type, tok.string, tok.start[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # Code that does not tokenize (a student's syntax error) is still compared, word by word.
        done = raw[-1][2] if raw else 0
        for number, line in enumerate(source.splitlines()[done:], start=done + 1):
            raw += [(tokenize.NAME if w[0].isalpha() or w[0] == "_" else tokenize.OP, w, number)
                    for w in re.findall(r"\w+|[^\w\s]", line.split("#")[0])]
    imported: set[str] = set()
    statement: list[tuple[int, str, int]] = []
    for item in raw:  # names an import statement binds (np, math, scipy) keep their spelling
        if item[0] in (tokenize.NEWLINE, tokenize.NL):
            if statement and statement[0][1] in ("import", "from"):
                imported |= {s for t, s, _ in statement if t == tokenize.NAME}
            statement = []
        elif item[0] not in (tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            statement.append(item)
    out: list[Token] = []
    previous = tokenize.NEWLINE
    for index, (kind, text, line) in enumerate(raw):
        if kind in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        if kind == tokenize.STRING:
            after = next((t for t, *_ in raw[index + 1:] if t != tokenize.COMMENT), None)
            if previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) and after in (
                    tokenize.NEWLINE, tokenize.ENDMARKER, None):
                previous = tokenize.NL  # a docstring or a bare string: a comment
                continue
            text = "S"
        elif kind == tokenize.NAME:
            dotted = bool(out) and out[-1].text == "."
            if not (dotted or text in KEEP or text in imported):
                text = "V"
        elif kind == tokenize.NUMBER:
            text = _number(text)
        elif kind == tokenize.NEWLINE:
            if previous == tokenize.NL:  # the line held only a docstring
                previous = kind
                continue
            text = ";"
        elif kind == tokenize.INDENT:
            text = "{"
        elif kind == tokenize.DEDENT:
            text = "}"
        previous = kind
        out.append(Token(text, chunk, line))
    return out


def _number(text: str) -> str:
    """1e-6, 1E-06 and 0.000001 alike."""
    try:
        return repr(ast.literal_eval(text))
    except (ValueError, SyntaxError):
        return text


def _hash(gram: Iterable[str]) -> int:
    digest = hashlib.blake2b("\x1f".join(gram).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1  # fits an int64 index


def kgrams(tokens: list[Token]) -> list[tuple[int, int]]:
    """(hash, start) of every k-gram that stays within one cell."""
    out = []
    for start in range(len(tokens) - K + 1):
        if tokens[start].chunk == tokens[start + K - 1].chunk:
            out.append((_hash(t.text for t in tokens[start:start + K]), start))
    return out


def winnow(grams: list[tuple[int, int]]) -> dict[int, list[int]]:
    """The smallest hash of every window of ``WINDOW`` k-grams (the rightmost on ties)."""
    chosen: dict[int, list[int]] = {}
    last = -1
    for end in range(WINDOW - 1, len(grams)) if len(grams) >= WINDOW else [len(grams) - 1]:
        window = grams[max(0, end - WINDOW + 1):end + 1]
        if not window:
            break
        low = min(h for h, _ in window)
        position = max(p for h, p in window if h == low)
        if position != last:
            chosen.setdefault(low, []).append(position)
            last = position
    return chosen


# ------------------------------------------------------------------ notebooks


def _cells(path: Path) -> list[dict]:
    data = json.loads(path.read_bytes().decode("utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError("is not a notebook (no list of cells)")
    return [c for c in data["cells"] if isinstance(c, dict) and c.get("cell_type") == "code"]


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _students_code(cell: dict) -> bool:
    """Cells the student writes: solution cells and cells they added, not locked or test ones."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if not isinstance(meta, dict):
        return True
    if meta.get("solution"):
        return True
    return not (meta.get("locked") or meta.get("grade"))


def read_code(student: str, notebooks: list[Path]) -> Code:
    """A student's code cells, tokenised; unreadable notebooks are named in ``problem``."""
    chunks, tokens, problems = [], [], []
    for path in notebooks:
        try:
            cells = _cells(path)
        except (OSError, UnicodeDecodeError, ValueError) as error:
            problems.append(f"{path.name} {error}")
            continue
        for index, cell in enumerate(cells):
            if not _students_code(cell):
                continue
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            label = str(grade_id or f"code cell {index + 1}")
            if len(notebooks) > 1:
                label = f"{path.stem}: {label}"
            source = _source(cell)
            tokens += normalise(source, len(chunks))
            chunks.append(Chunk(label, source.splitlines()))
    return Code(student, chunks, tokens, problem="; ".join(problems))


def template_hashes(notebooks: list[Path]) -> set[int]:
    """Every k-gram of the released notebooks: what every student was given."""
    found: set[int] = set()
    for path in notebooks:
        for index, cell in enumerate(_cells(path)):
            found |= {h for h, _ in kgrams(normalise(_source(cell), index))}
    return found


# ------------------------------------------------------------------ pairs


@dataclass
class Fragment:
    """A stretch of code two students share: cell and lines on each side."""

    a: tuple[int, int, int]  # chunk, first line, last line
    b: tuple[int, int, int]
    a_lines: set[int]  # lines of that cell covered by shared k-grams
    b_lines: set[int]
    grams: int


@dataclass
class Pair:
    a: Code
    b: Code
    score: float
    shared: int
    fragments: list[Fragment] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return self.score >= FLAG


def compare(codes: list[Code], template: set[int], max_holders: int | None = None,
            min_score: float = 0.1) -> list[Pair]:
    """Every pair scoring at least ``min_score``, best first, with its shared fragments."""
    for code in codes:
        code.prints = {h: p for h, p in winnow(kgrams(code.tokens)).items()
                       if h not in template}
    if max_holders is None:
        max_holders = max(10, math.ceil(0.1 * len(codes)))
    column: dict[int, int] = {}
    rows, cols = [], []
    for row, code in enumerate(codes):
        for h in code.prints:
            rows.append(row)
            cols.append(column.setdefault(h, len(column)))
    matrix = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)),
                               shape=(len(codes), max(len(column), 1)))
    holders = np.asarray(matrix.sum(axis=0)).ravel()
    common = holders > max_holders
    if common.any():
        matrix = matrix[:, np.flatnonzero(~common)]
        dropped = {h for h, c in column.items() if common[c]}
        for code in codes:
            code.prints = {h: p for h, p in code.prints.items() if h not in dropped}
    sizes = np.asarray(matrix.sum(axis=1)).ravel()
    overlap = sparse.triu(matrix @ matrix.T, k=1).tocoo()
    pairs = []
    for i, j, shared in zip(overlap.row, overlap.col, overlap.data, strict=True):
        score = 2 * float(shared) / float(sizes[i] + sizes[j])
        if score >= min_score:
            a, b = sorted((codes[i], codes[j]), key=lambda c: c.student)
            pairs.append(Pair(a, b, score, int(shared)))
    pairs.sort(key=lambda p: (-p.score, p.a.student, p.b.student))
    for pair in pairs:
        pair.fragments = fragments(pair.a, pair.b)
    return pairs


def fragments(a: Code, b: Code) -> list[Fragment]:
    """Shared fingerprints grouped by the pair of cells they fall in, one cell matched to one.

    A cell pair's fragment spans its first to last shared line on each side; the greedy
    one-to-one matching (most shared fingerprints first) keeps code repeated in several
    cells (imports pasted into each) from pairing every cell with every other.
    """
    groups: dict[tuple[int, int], Fragment] = {}
    for h in a.prints.keys() & b.prints.keys():
        for pa in a.prints[h]:
            for pb in b.prints[h]:
                ca, cb = a.lines_of(pa), b.lines_of(pb)
                frag = groups.get((ca[0], cb[0]))
                if frag is None:
                    frag = groups[ca[0], cb[0]] = Fragment(ca, cb, set(), set(), 0)
                frag.a = (ca[0], min(frag.a[1], ca[1]), max(frag.a[2], ca[2]))
                frag.b = (cb[0], min(frag.b[1], cb[1]), max(frag.b[2], cb[2]))
                frag.a_lines |= set(range(ca[1], ca[2] + 1))
                frag.b_lines |= set(range(cb[1], cb[2] + 1))
                frag.grams += 1
    out, used_a, used_b = [], set(), set()
    for (ia, ib), frag in sorted(groups.items(), key=lambda g: (-g[1].grams, g[0])):
        if ia not in used_a and ib not in used_b:
            out.append(frag)
            used_a.add(ia)
            used_b.add(ib)
    return out


def describe_lines(code: Code, spans: Iterable[tuple[int, int, int]]) -> str:
    """'ps1_softmax_code l.2-5; code cell 12 l.1-3' for the CSV."""
    return "; ".join(f"{code.chunks[c].label} l.{lo}-{hi}" if hi > lo
                     else f"{code.chunks[c].label} l.{lo}" for c, lo, hi in spans)


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

"""A student's own code as normalised tokens and winnowed fingerprints.

What counts as the student's code (which cells, the release as template) and how it is
normalised are decided here, so that scoring pairs (``attnkit.review.pairs``) sees only
fingerprints; the method is described in ``attnkit.review.similarity``.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import io
import json
import keyword
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

K = 10  # tokens per k-gram: a short numpy line is about ten tokens
WINDOW = 6  # any common run of K + WINDOW - 1 = 15 tokens is sure to be found
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

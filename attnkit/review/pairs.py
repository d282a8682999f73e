"""Scoring pairs of students from their fingerprints, and the code each pair shares.

Dice's coefficient of two fingerprint sets, found for every pair at once through a sparse
student x fingerprint matrix, so a large class is not compared pair by pair. Fingerprints
held by more than ``max_holders`` students are dropped first: the idiom everyone writes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from attnkit.review.fingerprints import Code, kgrams, winnow

FLAG = 0.5  # pairs at or above this score are flagged for a human to look at


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
    """Two students (``a`` before ``b`` by name), their score and what they share."""

    a: Code
    b: Code
    score: float
    shared: int
    fragments: list[Fragment] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        """Whether a human should read this pair's code side by side."""
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

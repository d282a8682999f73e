"""Group a written question's answers by what they say, so a TA grades a group, not a student.

Offline and deterministic: no model, no network, nothing random; the same answers in the
same order give the same groups.

* **Normalised first.** An answer is markdown with LaTeX, bullets and code; the same idea comes
  as ``$\\mathbf{\\Pi}$``, ``Π`` or ``Pi``, as ``\\neq``, ``≠`` or ``!=``, in prose or in
  bullets. Markup goes, a symbol becomes one word (``pi``, ``neq``, ``sum``), ``n't`` becomes
  ``not``, filler words go and suffixes are cut ("permuted", "permuting" -> "permut").
  Negations and yes/no stay: they decide a mark.
* **Words and characters.** TF-IDF of word uni- and bigrams catches the argument ("not
  permut", "b no"); TF-IDF of character n-grams within words catches typos and non-native
  spelling. A term only one answer uses is dropped: it cannot make two answers alike, it only
  makes its own answer look unlike the rest.
* **Parts and stances.** A question in parts ("(a) ... (b) ...") is compared part by part
  as well as whole, so a short part (b) weighs as much as a long part (a). Two answers whose
  stances differ (``attnkit.written.stance``: yes, no or a hedge, of the answer or of the
  same part) are pushed apart past any threshold, so a group never mixes the stances of
  whole answers: they rarely deserve the same mark. For the whole answer, an answer with a
  stance is apart from one without (off-topic), one that speaks of the predicate's sibling
  only ("invariant" for "equivariant") from one that does not, one that rests on a reported
  result only ("the check returned False") a little from one that explains; two that take
  the same side come a little closer.
* **Alike through the class.** Two answers that share few words but are alike to the same
  other answers (a paraphrase of a common idea) are brought closer: part of the similarity is
  the cosine of the two answers' rows of the similarity matrix.
* **As many groups as the answers need.** Agglomerative clustering, average linkage, cut at a
  distance threshold, so a class with few ideas gets few groups. An answer left alone then
  joins the nearest group if it is close enough: a TA pays one action to grade a lone answer
  and one to move a wrongly joined one, so joining never costs more, and a low confidence
  marks it for a look. Both thresholds were tuned on the "tune" half of the labelled class in
  ``tests/data/written_answers``, the stance weights on both labelled sets (figures in
  ``docs/written.md``).
* **Blank answers apart.** Empty cells and nbgrader's untouched ``YOUR ANSWER HERE`` form one
  group of their own, so no TA grades them by accident with a real answer.

How sure: an answer's confidence is its silhouette, ``(b - a) / max(a, b)`` clipped to
[0, 1], with ``a`` its mean distance to the rest of its group (a lone answer's is the
threshold, the distance at which it would have joined one) and ``b`` its mean distance to the
nearest other group. A group's confidence is its members' mean.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.cluster import AgglomerativeClustering
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from attnkit.written import stance

__all__ = ["ATTACH", "PLACEHOLDER", "THRESHOLD", "Group", "Grouping", "group_answers",
           "is_blank", "normalise", "parts"]

# nbgrader's text in a manual-graded markdown cell before the student writes anything
PLACEHOLDER = "YOUR ANSWER HERE"
# average cosine distance at which two groups are no longer merged
THRESHOLD = 0.57
# mean distance under which a lone answer joins the nearest group
ATTACH = 0.64
# the character n-grams' share of the text's similarity (the words have the rest)
CHAR_WEIGHT = 0.3
# the parts' share of the similarity, for a question answered in parts
PART_WEIGHT = 0.7
# added to the distance of two answers whose stances (``stance``) differ: yes, no, a hedge;
# for the whole answer also a stance against none; apart, whatever the words
VERDICT_PENALTY = 1.0
NONE_PENALTY = 1.0
# added when one of two answers speaks of the predicate's sibling ("invariant") only
CONFUSED_PENALTY = 1.0
# added when one of two answers with a stance rests on a reported result only
RESULT_PENALTY = 0.2
# taken off the distance of two answers that take the same side: evidence of the same mark
AGREE_BONUS = 0.05
# the share of the second-order similarity: alike when alike to the same answers
PROFILE_WEIGHT = 0.3

# ------------------------------------------------------------------ normalising the text

# Unicode symbols and LaTeX commands that carry meaning, as one word each
_SYMBOLS = {
    "π": " pi ", "Π": " pi ", "σ": " sigma ", "Σ": " sum ", "∑": " sum ", "√": " sqrt ",
    "≠": " neq ", "≈": " approx ", "≤": " leq ", "≥": " geq ", "×": " times ", "·": " times ",
    "→": " to ", "⇒": " implies ", "⟹": " implies ", "↔": " iff ", "’": "'", "‘": "'",
}
_COMMANDS = {"ne": "neq", "le": "leq", "ge": "geq", "cdot": "times", "rightarrow": "to",
             "mapsto": "to", "Rightarrow": "implies"}
# commands that only format: dropped, their argument kept
_FORMATTING = {"text", "mathbf", "mathrm", "boldsymbol", "mathit", "mathcal", "operatorname",
               "textbf", "emph", "left", "right", "big", "Big", "tilde", "hat", "bar", "frac",
               "tfrac", "dfrac", "dots", "ldots", "cdots", "quad", "qquad", "displaystyle"}
_OPERATORS = [("!=", " neq "), ("=/=", " neq "), ("<=", " leq "), (">=", " geq "),
              ("->", " to "), ("=>", " implies "), ("=", " eq ")]
# words that carry no argument; negations, quantifiers ("each", "own", "only") stay
_FILLER = frozenset("""a an the is are was were be been being am of to in on at for and or it its
this that these those there their they them we our you your i my me he she his her as by with
from so then than which who what when also just very can could would should will do does did
has have had into about""".split())
_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly", "ment")
# "(a)", "a)" or "**a.**" opening a line, "part a": where a part of the answer starts
_PART = re.compile(r"(?i)\(([a-d])\)|(?:^|\n)[ \t*]*(?:part\s+)?([a-d])[).:]\**(?=\s)"
                   r"|\bpart\s+([a-d])\b")


def _command(match: re.Match[str]) -> str:
    name = match.group(1)
    return " " if name in _FORMATTING else f" {_COMMANDS.get(name, name.lower())} "


def normalise(text: str) -> str:
    """The answer as lower-case words: markup gone, maths symbols spelt as words."""
    text = re.sub(r"```[^\n]*", " ", text)  # a code fence's marker, not its code
    for symbol, word in _SYMBOLS.items():
        text = text.replace(symbol, word)
    text = re.sub(r"\\([A-Za-z]+)", _command, text)
    for operator, word in _OPERATORS:
        text = text.replace(operator, word)
    text = re.sub(r"n't\b", " not", text, flags=re.IGNORECASE).replace("'", "")
    # markdown emphasis, bullets, headings, sub- and superscripts, braces, dollars: spaces
    return " ".join(re.sub(r"[^\w+<>]|_", " ", text.lower()).split())


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word


def _terms(text: str) -> str:
    """What the vectors are made of: the normalised words without filler, stemmed."""
    return " ".join(_stem(w) for w in normalise(text).split() if w not in _FILLER)


def is_blank(text: str) -> bool:
    """An empty cell, or nbgrader's placeholder left as it was."""
    words = normalise(text)
    return not words or words == normalise(PLACEHOLDER)


def parts(text: str) -> dict[str, str]:
    """The answer's parts by letter ("" for text before the first mark, or no marks)."""
    marks = list(_PART.finditer(text))
    found: dict[str, str] = {}
    if not marks or text[: marks[0].start()].strip():
        found[""] = (text[: marks[0].start()] if marks else text).strip()
    for mark, after in zip(marks, [*marks[1:], None], strict=False):
        letter = next(g for g in mark.groups() if g).lower()
        end = after.start() if after else len(text)
        found[letter] = f"{found.get(letter, '')} {text[mark.end():end].strip()}".strip()
    return found


# ------------------------------------------------------------------ the result


@dataclass(frozen=True)
class Group:
    """Answers that say the same thing, as indices into the question's answers."""

    members: tuple[int, ...]
    representative: int  # the member nearest the rest: the one a TA reads first
    confidence: float  # the members' mean confidence
    blank: bool = False


@dataclass(frozen=True)
class Grouping:
    """Groups largest first (ties: the earliest answer first); per answer, its group."""

    groups: tuple[Group, ...]
    group_of: tuple[int, ...]  # answer index -> index into ``groups``
    confidence: tuple[float, ...]  # answer index -> how sure its group is right, 0..1

    def __len__(self) -> int:
        return len(self.groups)


# ------------------------------------------------------------------ grouping


def _similarity(texts: list[str]) -> np.ndarray:
    """Cosine similarity of word and character TF-IDF, each block of unit length."""
    words = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2,
                            token_pattern=r"[a-z0-9]+|[<>+]")
    chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=2)
    blocks = []
    for vectorizer, weight in ((words, 1 - CHAR_WEIGHT), (chars, CHAR_WEIGHT)):
        try:
            blocks.append(normalize(vectorizer.fit_transform(texts)) * np.sqrt(weight))
        except ValueError:  # no term used twice: nothing alike
            continue
    if not blocks:
        return np.eye(len(texts))
    joined = sparse.hstack(blocks).tocsr()
    return (joined @ joined.T).toarray()


def _distance(answers: list[str]) -> np.ndarray:
    """1 - similarity of the whole and, for a question in parts, part by part; stances."""
    similarity = _similarity([_terms(a) for a in answers])
    split = [parts(a) for a in answers]
    letters = sorted({k for p in split for k in p if k and sum(k in q for q in split) > 1})
    if len(letters) > 1:
        # an answer without marks answers every part in one text
        by_part = [_similarity([_terms(p.get(k, "")) if len(p) > 1 or "" not in p
                                else _terms(p[""]) for p in split]) for k in letters]
        similarity = (1 - PART_WEIGHT) * similarity + PART_WEIGHT * np.mean(by_part, axis=0)
    profile = normalize(np.clip(similarity, 0.0, None))
    similarity = (1 - PROFILE_WEIGHT) * similarity + PROFILE_WEIGHT * (profile @ profile.T)
    distance = np.clip(1.0 - similarity, 0.0, 2.0)
    for key in [""] + letters:
        distance += _stance_distance([normalise(p.get(key, "")) for p in split], key == "")
    distance = np.clip(distance, 0.0, None)
    np.fill_diagonal(distance, 0.0)
    return distance


def _stance_distance(texts: list[str], whole: bool) -> np.ndarray:
    """How much further apart two answers are for what they say to a yes/no question. A
    part (``whole`` False) is read for its verdict only: a part's short argument is compared
    by its words already."""
    read = stance.read(texts, stance.AGAINST if whole else stance.NEVER_AGAINST)
    side = np.array([r.stance for r in read])
    apart = side[:, None] != side[None, :]
    quiet = (side[:, None] == stance.NONE) | (side[None, :] == stance.NONE)
    distance = VERDICT_PENALTY * (apart & ~quiet)
    if not whole:
        return distance
    confused = np.array([r.confused for r in read])
    result = np.array([r.only_result for r in read])
    return (distance + NONE_PENALTY * (apart & quiet)
            + CONFUSED_PENALTY * (confused[:, None] != confused[None, :])
            + RESULT_PENALTY * ((result[:, None] != result[None, :]) & ~quiet)
            - AGREE_BONUS * (~apart & ~quiet))


def _mean_distance(distance: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Answer x group: mean distance to the group's members; and the groups' sizes."""
    sizes = np.bincount(labels)
    onehot = np.zeros((len(labels), len(sizes)))
    onehot[np.arange(len(labels)), labels] = 1.0
    return distance @ onehot / sizes, sizes


def _cluster(distance: np.ndarray, threshold: float, attach: float) -> np.ndarray:
    if len(distance) == 1:
        return np.zeros(1, dtype=int)
    model = AgglomerativeClustering(n_clusters=None, distance_threshold=threshold,
                                    metric="precomputed", linkage="average")
    labels = model.fit_predict(distance)
    to_group, sizes = _mean_distance(distance, labels)
    to_group[:, sizes == 1] = np.inf  # a lone answer joins a group, never another lone one
    alone = np.flatnonzero(sizes[labels] == 1)
    nearest = np.argmin(to_group[alone], axis=1)
    close = to_group[alone, nearest] < attach
    labels[alone[close]] = nearest[close]
    return np.unique(labels, return_inverse=True)[1]


def _confidence(distance: np.ndarray, labels: np.ndarray, threshold: float) -> np.ndarray:
    """Each answer's silhouette (module docstring)."""
    to_group, sizes = _mean_distance(distance, labels)
    rows = np.arange(len(labels))
    own = sizes[labels]
    a = np.where(own > 1, to_group[rows, labels] * own / np.maximum(own - 1, 1), threshold)
    to_group[rows, labels] = np.inf
    b = to_group.min(axis=1) if len(sizes) > 1 else np.full(len(labels), 2.0)
    return np.clip((b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0, 1.0)


def group_answers(answers: Sequence[str], threshold: float = THRESHOLD,
                  attach: float = ATTACH) -> Grouping:
    """Group ``answers`` (one question's, in the class's order) by what they say."""
    blank = [is_blank(text) for text in answers]
    written = [i for i, empty in enumerate(blank) if not empty]
    found: list[tuple[list[int], int, bool]] = []  # members, representative, blank
    confidence = np.ones(len(answers))
    if written:
        distance = _distance([answers[i] for i in written])
        labels = _cluster(distance, threshold, attach)
        confidence[written] = _confidence(distance, labels, threshold)
        for label in range(int(labels.max()) + 1):
            rows = np.flatnonzero(labels == label)
            medoid = rows[int(np.argmin(distance[np.ix_(rows, rows)].sum(axis=1)))]
            found.append(([written[r] for r in rows], written[medoid], False))
    if any(blank):
        members = [i for i, empty in enumerate(blank) if empty]
        found.append((members, members[0], True))
    found.sort(key=lambda group: (-len(group[0]), group[0][0]))
    groups = tuple(Group(members=tuple(members), representative=representative,
                         confidence=float(confidence[members].mean()), blank=empty)
                   for members, representative, empty in found)
    group_of = [0] * len(answers)
    for index, group in enumerate(groups):
        for member in group.members:
            group_of[member] = index
    return Grouping(groups=groups, group_of=tuple(group_of),
                    confidence=tuple(float(c) for c in confidence))

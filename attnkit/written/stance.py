"""What a written answer says to a yes/no question, beside the words it says it with.

Two answers with the same words can deserve different marks: "Yes, it is still equivariant"
and "No, it is not equivariant anymore" share most of their words, and a mark scheme's first
test is the stance. So, from the normalised text (``groups.normalise``), for any question:

* **Stance:** yes, no, a hedge ("yes and no", "not sure", "depends") or none (no verdict:
  off-topic, or an answer to a question that asks no yes/no). An explicit yes or no in the
  first words decides (for a yes/no question also an opening "not" or "still"); else a
  conclusion ("so no", "the answer is no"); else the class's **predicate** (the word its
  answers both negate and affirm most, "not equivariant", "still equivariant") negated ("no
  longer", "not ... anymore", "breaks", "is lost") or affirmed ("still", "holds"). A
  "yes" whose own argument speaks of change ("different", "breaks", "not") more than of
  sameness ("the same", "does not change") is a hedge: it gives the mechanism behind "no"
  and answers "yes", a mark scheme's usual half mark.
* **Result only:** the answer rests on a result it reports ("the check returned False")
  and gives no reason ("because", "since", an implication, an inequality): a mark scheme
  gives evidence less than an explanation.
* **Confusion:** an answer that speaks of a sibling of the predicate (a word ending like it,
  "invariant" beside "equivariant") and not of the predicate itself answers another question.

Nothing here knows a question: the predicate and its siblings come from the class's answers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["AGAINST", "HEDGE", "NEVER_AGAINST", "NO", "NONE", "YES", "Reading", "Said",
           "confused", "only_result", "predicate", "read", "reasons", "stance"]

YES, NO, HEDGE, NONE = 1, -1, 2, 0

_YES = frozenset({"yes", "yeah", "yep", "true"})
_NO = frozenset({"no", "nope", "false"})
_STILL = frozenset({"still", "holds"})
_NOT = frozenset({"not", "never"})
# a verdict given as a conclusion: "so no", "the answer is no"
_CONCLUDED = re.compile(r"\b(?:answer is|answer|so|therefore|thus|hence|i e|say|think|guess"
                        r"|believe) (yes|no)\b")
# a hedge in the first words: the answer takes no side (or both); "I do not know" stays none:
# it is marked like a blank or an off-topic answer
_HEDGE = re.compile(r"\b(yes (and|or|but) no|no (and|or|but) yes|depends|not sure|unsure"
                    r"|unclear)\b")
# before the predicate (up to two words between): it no longer holds
_NEGATE = re.compile(r"\b(not|no longer|never|neither|nor|breaks?|broken|breaking|loses?|lost"
                     r"|losing|destroys?|destroyed|violates?|violated|fails?|without)"
                     r"(?: \w+){0,2} $")
# before the predicate: it holds
_AFFIRM = re.compile(r"\b(still|remains?|stays?|keeps?|preserves?|preserved|is|are)"
                     r"(?: \w+){0,1} $")
# after the predicate: "equivariant anymore" (with a "not" before), "is lost"
_AFTER = re.compile(r"^\w* ?(anymore|any more|any longer|no more)\b")
# after the predicate: it is gone ("equivariance is lost", "does not hold") or it holds
_GONE = re.compile(r"^\w* ?(?:is |gets |was |becomes |will be )?(?:lost|broken|destroyed|gone"
                   r"|violated|fails|does not hold|not hold|no longer holds?)\b")
_HOLDS = re.compile(r"^\w*(?: \w+)? (?:still |always |also )?holds?\b")
# words of change and of sameness ("does not change" is sameness)
_CHANGE = re.compile(r"\b(different|differs?|other|another|changes?|changed|changing|breaks?"
                     r"|broken|not|neq|no longer|anymore)\b")
_SAME = re.compile(r"\b(not|nothing|never|cannot) (\w+ )?(chang|differ|matter|affect"
                   r"|break|depend)\w*|\b(same|equal|eq|unchanged|identical|preserv\w*|commutes?"
                   r"|together|as well|also)\b")
# change words beyond sameness words that make a "yes" a hedge: it argues for "no"
AGAINST = 1
NEVER_AGAINST = 10**6  # no answer has this many: a "yes" is never read as a hedge
# words that give a reason, not only a verdict or a result
_REASON = re.compile(r"\b(because|since|due|reason|implies|so that|hence|thus|therefore|as a"
                     r"|neq|means|which)\b")
# a result reported: a function, a test or a check that returned True or False
_RESULT = re.compile(r"\b(returns?|returned|gives?|gave|give|prints?|printed|outputs?|says?|said"
                     r"|shows?|showed|got|get|obtain|is|was|result)(?: \w+){0,2} (true|false)\b")
# a negation or an affirmation and the two words after it: where the predicate is
_CUE_NO = re.compile(r"\b(not|no longer|never)((?: \w+){1,2})")
_CUE_YES = re.compile(r"\b(still|remains?|stays?)((?: \w+){1,2})")


def _after(cue: re.Pattern[str], text: str) -> set[str]:
    return {w for m in cue.finditer(text) for w in m.group(2).split() if len(w) > 4}


def predicate(texts: Sequence[str]) -> str | None:
    """The word the class's answers both negate and affirm most ("not equivariant", "still
    equivariant"), if one in forty answers does each: what its yes/no question asks about.
    None for a question that asks none, or whose answers only say yes or no."""
    negated: Counter[str] = Counter()
    affirmed: Counter[str] = Counter()
    for text in texts:
        negated.update(_after(_CUE_NO, text))
        affirmed.update(_after(_CUE_YES, text))
    both = sorted((min(n, affirmed[w]), w) for w, n in negated.items())
    if not both or both[-1][0] * 40 < len(texts) or both[-1][0] < 3:
        return None
    return both[-1][1]


def _stance_of_predicate(text: str, word: str) -> int:
    """From the predicate's uses: negated, affirmed, both (a hedge) or absent."""
    signs = set()
    for match in re.finditer(rf"\b\w*{re.escape(word[:-2])}\w*", text):
        before, after = text[: match.start()], text[match.end():]
        if (_NEGATE.search(before[-60:]) or _GONE.match(after)
                or (_AFTER.match(after) and "not" in before[-40:])):
            signs.add(NO)
        elif _AFFIRM.search(before[-30:]) or _HOLDS.match(after):
            signs.add(YES)
    if len(signs) == 2:
        return HEDGE
    return signs.pop() if signs else NONE


def _against(text: str) -> int:
    """How much more the text speaks of change than of sameness: a "yes" that argues that
    things differ argues for "no"."""
    same = _SAME.findall(text)
    return len(_CHANGE.findall(_SAME.sub(" ", text))) - len(same)


def stance(text: str, word: str | None, against: int = AGAINST) -> int:
    """YES, NO, HEDGE or NONE (module docstring); ``against``: the change words beyond
    sameness words that make a "yes" a hedge."""
    words = text.split()
    if _HEDGE.search(" ".join(words[:8])):
        return HEDGE
    # a "not" or a "still" opening the answer says no or yes to a yes/no question only
    yes, no = (_YES | _STILL, _NO | _NOT) if word else (_YES, _NO)
    for at, w in enumerate(words[:3]):
        if w in yes or w in no:
            if w in yes and _against(" ".join(words[at + 1:])) >= against:
                return HEDGE
            return YES if w in yes else NO
    if not word:
        return NONE
    concluded = _CONCLUDED.findall(text)
    if concluded:
        return YES if concluded[-1] in _YES else NO
    return _stance_of_predicate(text, word)


def only_result(text: str) -> bool:
    """Whether the answer rests on a result it reports ("the check returned False") and
    gives no reason: evidence, not an explanation."""
    return bool(_RESULT.search(text)) and not reasons(text)


def reasons(text: str) -> bool:
    """Whether the answer argues beyond a verdict or a result."""
    return bool(_REASON.search(text))


def confused(text: str, word: str | None) -> bool:
    """Speaks of the predicate's sibling ("invariant") and never of the predicate."""
    if not word or len(word) < 8:
        return False
    tail = word[-7:-1]  # "varian": "invariant", "invariance"
    used = set(re.findall(rf"\b\w*{re.escape(tail)}\w*", text))
    return bool(used) and not any(u.startswith(word[:-2]) for u in used)


class Said(NamedTuple):
    """What one answer says (module docstring)."""

    stance: int  # YES, NO, HEDGE or NONE
    reasons: bool
    confused: bool
    only_result: bool


class Reading:
    """One class's answers (or one part of them), its predicate found once."""

    def __init__(self, texts: Sequence[str], against: int = AGAINST) -> None:
        self.word = predicate(texts)
        self.against = against

    def __call__(self, text: str) -> Said:
        return Said(stance(text, self.word, self.against), reasons(text),
                    confused(text, self.word), only_result(text))


def read(texts: Sequence[str], against: int = AGAINST) -> list[Said]:
    """What each normalised text of one class says."""
    reading = Reading(texts, against)
    return [reading(text) for text in texts]

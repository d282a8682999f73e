"""``attnkit similarity``: planted copies rank above independent work; blank releases match nothing.

Independent students are built from the catalogue's different correct styles (one style per
student and skill); a planted copy is another student's notebook with every name renamed,
functions reordered, comments and docstrings rewritten, and one extra helper. No kernels:
similarity reads the submitted notebooks only.
"""

from __future__ import annotations

import csv
import html
import shutil
from pathlib import Path

import pytest
from helpers.course import run
from helpers.similarity import PAYLOAD, A, plant

from attnkit.review import similarity


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set, set]:
    return plant(tmp_path_factory.mktemp("similarity"))


def test_planted_copies_rank_above_every_independent_pair(planted) -> None:
    root, copies, independent = planted
    page, pairs, problems = similarity.build(root, A)
    assert not problems
    score = {(p.a.student, p.b.student): p.score for p in pairs}
    copy_scores = {c: score.get(tuple(sorted(c)), 0.0) for c in copies}
    honest = {p: score.get(p, 0.0) for p in independent}
    assert min(copy_scores.values()) > max(honest.values()), (copy_scores, honest)
    assert all(s >= similarity.FLAG for s in copy_scores.values()), copy_scores
    assert not any(s >= similarity.FLAG for s in honest.values()), honest
    ranked = [(p.a.student, p.b.student) for p in pairs]
    assert set(ranked[:len(copies)]) == {tuple(sorted(c)) for c in copies}, ranked


def test_two_blank_releases_are_not_flagged(planted) -> None:
    root, _, _ = planted
    _, pairs, _ = similarity.build(root, A)
    assert not [p for p in pairs if {"blank1", "blank2"} & {p.a.student, p.b.student}]
    codes, template, _ = similarity.collect(root, A)
    blank = next(c for c in codes if c.student == "blank1")
    similarity.compare(codes, template)
    assert blank.prints == {}, "the release's own code counted as the student's"


def test_report_and_csv_escape_student_text(planted) -> None:
    root, copies, _ = planted
    result = run(["attnkit", "similarity", A], root)
    assert "flagged" in result.stdout
    page = (root / "reports" / A / "similarity.html").read_text()
    assert "<script>window.__pwned" not in page and "onerror=alert" not in page.replace(
        "onerror=alert(1)&gt;", "")
    assert html.escape(PAYLOAD) in page or html.escape(PAYLOAD, quote=False) in page
    assert 'class="hot"' in page and 'href="similarity.csv"' in page
    rows = list(csv.DictReader((root / "reports" / A / "similarity.csv").open()))
    assert rows and {"student_a", "student_b", "score", "matched_lines_a",
                     "matched_lines_b"} <= set(rows[0])
    top = rows[0]
    assert (top["student_a"], top["student_b"]) in {tuple(sorted(c)) for c in copies}
    assert "l." in top["matched_lines_a"] and "l." in top["matched_lines_b"]


def test_normalisation_ignores_names_comments_and_layout() -> None:
    one = "import numpy as np\ndef f(x):\n    '''doc'''\n    e = np.exp(x - x.max())  # shift\n" \
          "    return e / e.sum()\n"
    two = "import numpy as np\n\ndef g(z):\n    # another comment\n    t = np.exp(z - z.max())\n" \
          "\n    return t / t.sum()\n"
    assert [t.text for t in similarity.normalise(one, 0)] == [
        t.text for t in similarity.normalise(two, 0)]
    other = "import numpy as np\ndef f(x):\n    return np.exp(x) / np.exp(x).sum()\n"
    assert [t.text for t in similarity.normalise(one, 0)] != [
        t.text for t in similarity.normalise(other, 0)]


def test_unreadable_notebook_is_named_not_fatal(planted, tmp_path: Path) -> None:
    root, _, _ = planted
    broken = root / "submitted" / "broken" / A / f"{A}.ipynb"
    broken.parent.mkdir(parents=True)
    broken.write_text("{ not json")
    try:
        _, pairs, problems = similarity.build(root, A, out=tmp_path)
    finally:
        shutil.rmtree(root / "submitted" / "broken")
    assert any(p.startswith("broken: ") and "line 1" in p for p in problems), problems
    assert pairs

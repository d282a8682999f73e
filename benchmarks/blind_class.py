"""Grade a blind-written class and print where each labelled bug was charged.

A blind class (``tests/data/blind/class1``: students x problem sets written from the
release notebooks only, ``labels.json`` naming each bug's cell, function and the functions
it also affects) is graded as a lecturer would: a scratch course from this tree's
``source/`` and config, ``nbgrader generate_assignment``, ``attnkit intake``, ``attnkit
autograde``. Scores come from the gradebook, hints from the autograded notebooks. Then the
figures of ``tests/data/blind/class1_before``:

* correct solutions marked down (the students without labelled bugs, autograded cells);
* bugs charged at their own cell, only at another cell, more than once, nowhere (a
  downstream cell already losing points for a bug of its own is "masked", not counted);
* hints naming the mistake: the own cell's hint matches the bug's pattern in ``NAMES``
  (what a hint must say to name that mistake, written once per bug);
* cells whose visible test failed although the hidden check gave full points.

    .venv/bin/python benchmarks/blind_class.py [--out tests/data/blind/class1_after] [--keep DIR]

The kit that grades is the one Python imports (run with PYTHONPATH=<tree> to grade with a
worktree); ``--tree`` gives the matching ``source/`` and config.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from attnkit.pipeline.cells import VERDICT

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
# The course salt class1_before was graded with (its grading seeds): the same seeds per
# student, so a before/after comparison differs by the kit only.
CLASS1_SALT = "8141babc93ec89c33a9ed46e6a406e773e47aaef471d2ffd31bd96bb20c55281"
PROBLEM_SETS = ("ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
                "ps4_encoder_decoder_attention", "ps5_masked_attention")

OWN = {  # function -> the graded test cell that tests it
    "softmax": {"ps1_self_attention": "ps1_softmax", "ps3_attention_layer": "ps3_softmax"},
    "self_attention_loop": "ps1_self_attention_loop", "softmax_cols": "ps1_softmax_cols",
    "self_attention": "ps1_self_attention",
    "scaled_dot_product_self_attention": "ps1_scaled_attention",
    "check_equivariance": "ps1_equivariance", "single_head_attention": "ps2_single_head",
    "multihead_scaled_self_attention": "ps2_multihead_scaled",
    "multihead_self_attention": "ps2_multihead_general", "SelfAttention.__init__": "ps3_init",
    "SelfAttention.forward": "ps3_forward", "get_scores": "ps4_get_scores",
    "scale_scores": "ps4_scale_scores", "get_attention_weights": "ps4_attention_weights",
    "get_context_vector": "ps4_context_vector", "single_query_attention": "ps4_single_query",
    "head_W_shape": "ps4_dimensions", "concat_shape": "ps4_dimensions",
    "W_O_shape": "ps4_dimensions", "split_heads": "ps4_split_heads",
    "causal_mask": "ps5_causal_mask", "masked_softmax_cols": "ps5_masked_softmax",
    "masked_self_attention": "ps5_masked_attention",
    "positional_encoding": "ps5_positional_encoding", "equivariance_gaps": "ps5_equivariance",
}

NAMES = {  # (student, function) -> what the own cell's hint says when it names the mistake
    ("blind1_s6", "softmax_cols"): r"one maximum for the whole matrix",
    ("blind1_s6", "scaled_dot_product_self_attention"): r"sqrt\(D\) = sqrt",
    ("blind1_s6", "single_head_attention"): r"H_D",
    ("blind1_s6", "multihead_self_attention"): r"heads\[0\] and heads\[1\]",
    ("blind1_s6", "softmax"): r"one maximum for the whole matrix",
    ("blind1_s6", "SelfAttention.__init__"): r"np\.random\.rand",
    ("blind1_s6", "get_context_vector"): r"broadcasts",
    ("blind1_s6", "concat_shape"): r"concat_shape: \(4, 4\) is the weight blocks",
    ("blind1_s6", "split_heads"): r"range\(h\)",
    ("blind1_s6", "causal_mask"): r"boolean",
    ("blind1_s6", "masked_softmax_cols"): r"softmax of every score",
    ("blind1_s6", "equivariance_gaps"): r"permuted X \+ Pi",
    ("blind1_s7", "self_attention_loop"): r"Q\^T K",
    ("blind1_s7", "self_attention"): r"Q\^T K",
    ("blind1_s7", "scaled_dot_product_self_attention"): r"sqrt\(D\) = sqrt",
    ("blind1_s7", "multihead_scaled_self_attention"): r"side by side",
    ("blind1_s7", "multihead_self_attention"): r"q, k, v",
    ("blind1_s7", "SelfAttention.__init__"): r"standard deviation 0\.\d+",
    ("blind1_s7", "SelfAttention.forward"): r"self\.dims",
    ("blind1_s7", "get_attention_weights"): r"no scipy",
    ("blind1_s7", "single_query_attention"): r"sqrt\(d_k\)",
    ("blind1_s7", "head_W_shape"): r"transposed",
    ("blind1_s7", "causal_mask"): r"hides the diagonal",
    ("blind1_s7", "positional_encoding"): r"own index in the exponent",
    ("blind1_s8", "self_attention_loop"): r"D x 1 column",
    ("blind1_s8", "softmax_cols"): r"axis=1",
    ("blind1_s8", "single_head_attention"): r"sqrt\(D/2\)",
    ("blind1_s8", "multihead_self_attention"): r"second call",
    ("blind1_s8", "SelfAttention.__init__"): r"np\.random\.seed",
    ("blind1_s8", "SelfAttention.forward"): r"without transposing K",
    ("blind1_s8", "get_scores"): r"1-D array",
    ("blind1_s8", "get_context_vector"): r"notebook globals",
    ("blind1_s8", "W_O_shape"): r"one head",
    ("blind1_s8", "masked_softmax_cols"): r"no allowed entry",
    ("blind1_s8", "equivariance_gaps"): r"notebook'?s? globals",
    # class 3 (the tuning set), from the criteria of class3_after/judged.md; blind3_s7's
    # in-place softmax_cols has none: ps1 does not forbid working on the caller's array
    ("blind3_s5", "self_attention_loop"): r"weighted sums of the inputs X",
    ("blind3_s5", "scaled_dot_product_self_attention"): r"sqrt\(D\) = sqrt",
    ("blind3_s5", "multihead_self_attention"): r"reshaped to",
    ("blind3_s5", "SelfAttention.__init__"): r"standard deviation 0\.1",
    ("blind3_s5", "get_context_vector"): r"hidden_encoder_matrix @ attention_weights",
    ("blind3_s5", "masked_self_attention"): r"sqrt\(D\) = sqrt",
    ("blind3_s5", "positional_encoding"): r"own index in the exponent",
    ("blind3_s6", "softmax"): r"unshifted exponentials",
    ("blind3_s6", "single_head_attention"): r"sqrt\(D\) = sqrt",
    ("blind3_s6", "SelfAttention.forward"): r"divided after the softmax",
    ("blind3_s6", "get_attention_weights"): r"mean of the scores",
    ("blind3_s6", "split_heads"): r"every h-th column",
    ("blind3_s6", "masked_softmax_cols"): r"-1e9",
    ("blind3_s7", "check_equivariance"): r"exactly \(np\.array_equal",
    ("blind3_s7", "multihead_scaled_self_attention"): r"beta_v1 instead of beta_v2",
    ("blind3_s7", "SelfAttention.__init__"): r"np\.random\.seed does not reach",
    ("blind3_s7", "get_scores"): r"1-D array",
    ("blind3_s7", "causal_mask"): r"boolean",
    ("blind3_s7", "masked_self_attention"): r"zeroed the masked weights and divided",
    ("blind3_s7", "equivariance_gaps"): r"notebook'?s? globals",
    ("blind3_s8", "self_attention_loop"): r"notebook globals",
    ("blind3_s8", "softmax_cols"): r"each row of your result sums to 1",
    ("blind3_s8", "multihead_self_attention"): r"queries were computed with omega_k",
    ("blind3_s8", "softmax"): r"one maximum for the whole matrix",
    ("blind3_s8", "SelfAttention.forward"): r"transposed weights",
    ("blind3_s8", "scale_scores"): r"n \*\* 1/2",
    ("blind3_s8", "head_W_shape"): r"transposed",
    ("blind3_s8", "positional_encoding"): r"even rows",
    ("blind3_s9", "softmax"): r"clipped",
    ("blind3_s9", "check_equivariance"): r"fixed absolute tolerance",
    ("blind3_s9", "multihead_self_attention"): r"leaves out heads\[0\]",
    ("blind3_s9", "SelfAttention.forward"): r"sqrt\(n\)",
    ("blind3_s9", "get_attention_weights"): r"nan_to_num",
    ("blind3_s9", "split_heads"): r"number of pieces",
    ("blind3_s9", "masked_softmax_cols"): r"0 / 0",
    ("blind3_s10", "self_attention_loop"): r"same array",
    ("blind3_s10", "self_attention"): r"notebook globals",
    ("blind3_s10", "single_head_attention"): r"H_D",
    ("blind3_s10", "softmax"): r"(?s)one maximum.*keepdims",  # two rows, both mistakes named
    ("blind3_s10", "concat_shape"): r"on top of each other",
    ("blind3_s10", "masked_self_attention"): r"D x D",
    # class 4, written from class4_after/judged.md's labels
    ("blind4_s5", "softmax"): r"subtracted the smallest score|one maximum for the whole matrix",
    ("blind4_s5", "self_attention_loop"): r"keys were computed with omega_q",
    ("blind4_s5", "single_head_attention"): r"sqrt\(D\) = sqrt",
    ("blind4_s5", "SelfAttention.__init__"): r"identical",
    ("blind4_s5", "get_attention_weights"): r"subtracted the mean",
    ("blind4_s5", "concat_shape"): r"concat_shape: \(4, 3\) is d_model x T",
    ("blind4_s5", "causal_mask"): r"np\.tril",
    ("blind4_s5", "positional_encoding"): r"own index in the exponent",
    ("blind4_s6", "softmax_cols"): r"each row's maximum",
    ("blind4_s6", "scaled_dot_product_self_attention"): r"sqrt\(D\) = sqrt",
    ("blind4_s6", "check_equivariance"): r"signed differences",
    ("blind4_s6", "multihead_scaled_self_attention"): r"order q, k, v",
    ("blind4_s6", "multihead_self_attention"): r"notebook globals",
    ("blind4_s6", "SelfAttention.forward"): r"sqrt\(n\)",
    ("blind4_s6", "get_context_vector"): r"broadcasts",
    ("blind4_s6", "split_heads"): r"rows \(axis 0\)",
    ("blind4_s6", "masked_softmax_cols"): r"-1e9",
    ("blind4_s6", "equivariance_gaps"): r"permuted X \+ Pi",
    ("blind4_s7", "self_attention_loop"): r"D x 1 column",
    ("blind4_s7", "_attend"): r"notebook globals",
    ("blind4_s7", "_head"): r"H_D",
    ("blind4_s7", "SelfAttention.__init__"): r"generator",
    ("blind4_s7", "SelfAttention.attention_weights"): r"binds tighter",
    ("blind4_s7", "scale_scores"): r"len\(scores\)",
    ("blind4_s7", "single_query_attention"): r"d_v",
    ("blind4_s7", "masked_softmax_cols"): r"softmax of every score",
    ("blind4_s7", "masked_self_attention"): r"N = 5",
    ("blind4_s8", "scaled_dot_product_self_attention"): r"attention matrix transposed",
    ("blind4_s8", "check_equivariance"): r"argsort",
    ("blind4_s8", "multihead_self_attention"): r"heads\[0\] and heads\[1\]",
    ("blind4_s8", "softmax"): r"without keepdims",
    ("blind4_s8", "SelfAttention.forward"): r"transposed weights",
    ("blind4_s8", "get_scores"): r"vector @ matrix",
    ("blind4_s8", "split_heads"): r"width of each block",
    ("blind4_s8", "positional_encoding"): r"start at 1",
    ("blind4_s8", "equivariance_gaps"): r"largest signed difference",
    ("blind4_s9", "softmax"): r"unshifted",
    ("blind4_s9", "self_attention"): r"Q\^T K",
    ("blind4_s9", "single_head_attention"): r"sqrt\(D\) = sqrt",
    ("blind4_s9", "multihead_scaled_self_attention"): r"not mixed",
    ("blind4_s9", "SelfAttention.forward"): r"(?s)by dims = \d+; divide by its square root.*W_v "
                                            r"again",  # two rows, both mistakes named
    ("blind4_s9", "get_scores"): r"1-D array",
    ("blind4_s9", "head_W_shape"): r"transposed",
    ("blind4_s9", "causal_mask"): r"boolean",
    ("blind4_s9", "masked_softmax_cols"): r"after the softmax",
    ("blind4_s10", "self_attention_loop"): r"notebook globals",
    ("blind4_s10", "check_equivariance"): r"first output column",
    ("blind4_s10", "multihead_self_attention"): r"heads\[i - 1\]",
    ("blind4_s10", "softmax"): r"each column of your result sums to 1",
    ("blind4_s10", "scale_scores"): r"binds tighter",
    ("blind4_s10", "single_query_attention"): r"d_model",
    ("blind4_s10", "split_heads"): r"not a list",
    ("blind4_s10", "positional_encoding"): r"cosines",
    ("blind4_s10", "masked_self_attention"): r"softmax of every score",
    # class 7, written from class7_after/judged.md's labels (what the hint must say)
    ("blind7_s5", "softmax"): r"starts at 0|one maximum for the whole matrix",  # ps1, ps3
    ("blind7_s5", "self_attention_loop"): r"Q\^T K",
    ("blind7_s5", "scaled_dot_product_self_attention"): r"sqrt\(D\) = sqrt",
    ("blind7_s5", "single_head_attention"): r"divide by its square root",
    ("blind7_s5", "multihead_self_attention"): r"heads\[0\] and heads\[1\]",
    ("blind7_s5", "get_attention_weights"): r"subtracted the smallest score",
    ("blind7_s5", "get_context_vector"): r"one per state",
    ("blind7_s5", "causal_mask"): r"m < n",
    ("blind7_s5", "positional_encoding"): r"exponent i/D",
    ("blind7_s6", "softmax_cols"): r"each row of your result sums to 1",
    ("blind7_s6", "check_equivariance"): r"P\[i, perm\[i\]\]",
    ("blind7_s6", "single_head_attention"): r"sqrt\(D\) = sqrt",
    ("blind7_s6", "multihead_scaled_self_attention"): r"side by side",
    ("blind7_s6", "SelfAttention.__init__"): r"np\.random\.rand\b",
    ("blind7_s6", "SelfAttention.forward"): r"K Q\^T",
    ("blind7_s6", "single_query_attention"): r"d_v",
    ("blind7_s6", "split_heads"): r"rows \(axis 0\)",
    ("blind7_s6", "masked_softmax_cols"): r"masked ones included",
    ("blind7_s6", "positional_encoding"): r"even rows hold cosines",
    ("blind7_s7", "softmax"): r"subtracted the mean",
    ("blind7_s7", "scaled_dot_product_self_attention"): r"sqrt\(N\)",
    ("blind7_s7", "check_equivariance"): r"X\[perm\]",
    ("blind7_s7", "multihead_self_attention"): r"head\.values\(\)",
    ("blind7_s7", "SelfAttention.__init__"): r"identical",
    ("blind7_s7", "SelfAttention.forward"): r"(?s)Q K\^T by dims.*not multiplied by W_o",  # two
    ("blind7_s7", "get_context_vector"): r"hidden_encoder_matrix @ attention_weights",
    ("blind7_s7", "head_W_shape"): r"transposed",
    ("blind7_s7", "causal_mask"): r"np\.tril",
    ("blind7_s7", "masked_self_attention"): r"notebook's N",
    ("blind7_s8", "_softmax_1d"): r"first score",
    ("blind7_s8", "_perm_matrix"): r"P\[i, perm\[i\]\]",
    ("blind7_s8", "_scores"): r"Q\^T K",
    ("blind7_s8", "_combine"): r"side by side|np\.hstack",
    ("blind7_s8", "SelfAttention._draw"): r"standard deviation 0\.\d+",
    ("blind7_s8", "SelfAttention._project"): r"keys and values are exchanged",
    ("blind7_s8", "_as_1d"): r"0-D|squeeze",
    ("blind7_s8", "get_context_vector"): r"axis 1",
    ("blind7_s8", "_masked_col"): r"np\.max of an empty array",
    ("blind7_s8", "_angle_rates"): r"own index in the exponent",
    ("blind7_s8", "equivariance_gaps"): r"permuted X \+ Pi",
    ("blind7_s9", "_proj"): r"Omega \(x \+ beta\)",
    ("blind7_s9", "single_head_attention"): r"(?s)Q\^T K.*values add beta_k",  # two rows
    ("blind7_s9", "_head_args"): r"query and key biases are swapped",
    ("blind7_s9", "SelfAttention._draw"): r"np\.random\.seed does not reach",
    ("blind7_s9", "SelfAttention._project"): r"transposed weights",
    ("blind7_s9", "_stable_exp"): r"before np\.exp",
    ("blind7_s9", "concat_shape"): r"on top of each other",
    ("blind7_s9", "_future"): r"m < n",
    ("blind7_s9", "masked_self_attention"): r"(?s)must be boolean.*transposed attention",  # two
    ("blind7_s10", "self_attention"): r"(?s)without beta_v.*transposed attention matrix",  # two
    ("blind7_s10", "softmax_cols"): r"range\(n_rows\)",
    ("blind7_s10", "single_head_attention"): r"H_D",
    ("blind7_s10", "multihead_scaled_self_attention"): r"reverse order",
    ("blind7_s10", "SelfAttention.__init__"): r"(?s)unpack.*first axis",
    ("blind7_s10", "SelfAttention.forward"): r"softmax\(scores\.T\)|down the columns",
    ("blind7_s10", "get_scores"): r"leaves out the last product",
    ("blind7_s10", "single_query_attention"): r"d_model",
    ("blind7_s10", "positional_encoding"): r"start at 1",
    ("blind7_s10", "equivariance_gaps"): r"globals D and N",
}


def own_cell(ps: str, function: str, code_cell: str = "", method_test: str = "") -> str:
    """The graded cell that tests ``function``; a student's own helper belongs to the cell
    of the solution cell it is written in (``ps1_self_attention_code`` -> ``ps1_self_attention``),
    a helper method of ps3's layer to the test of the method it serves (``method_test``, the
    label's ``visible_test_cell``; ``forward``'s when the label has none)."""
    if function not in OWN:
        if function.startswith("SelfAttention."):
            return method_test or "ps3_forward"
        return test_of(ps)[code_cell]
    cell = OWN[function]
    return cell[ps] if isinstance(cell, dict) else cell


@functools.cache
def test_of(ps: str) -> dict[str, str]:
    """Each solution code cell of ``ps`` -> the first graded test cell after it."""
    nb = nbformat.read(REPO / "source" / ps / f"{ps}.ipynb", as_version=4)
    found, waiting = {}, []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and cell.cell_type == "code":
            waiting.append(meta["grade_id"])
        elif meta.get("grade") and not meta.get("solution"):
            found.update(dict.fromkeys(waiting, meta["grade_id"]))
            waiting = []
    return found


def run(args: list[str], cwd: Path) -> None:
    result = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=cwd, text=True,
                            capture_output=True)
    if result.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{result.stdout[-2000:]}\n"
                         f"{result.stderr[-2000:]}")


def grade_class(blind: Path, course: Path, tree: Path, salt: str) -> None:
    """A scratch course from ``tree`` with the class handed in, autograded."""
    shutil.copytree(tree / "source", course / "source")
    shutil.copy(tree / "nbgrader_config.py", course)
    (course / ".attnkit").mkdir(mode=0o700)
    (course / ".attnkit" / "seed-salt").write_text(salt + "\n")
    (course / ".attnkit" / "seed-salt").chmod(0o600)
    students = sorted(p.name for p in blind.iterdir() if p.is_dir())
    (course / "roster.csv").write_text("id,first_name,last_name,email\n" + "".join(
        f"{s},Blind,{s},{s}@example.org\n" for s in students))
    run(["nbgrader", "db", "student", "import", "roster.csv"], course)
    for ps in PROBLEM_SETS:
        run(["nbgrader", "generate_assignment", ps, "--force"], course)
        for student in students:
            target = course / "submitted" / student / ps
            target.mkdir(parents=True)
            shutil.copy(blind / student / ps / f"{ps}.ipynb", target)
        run(["attnkit", "intake", ps], course)
    run(["attnkit", "autograde", *PROBLEM_SETS, "--force"], course)


def read_cells(course: Path) -> dict[tuple[str, str, str], dict]:
    """(student, ps, graded cell) -> score, max, hint, for every autograded cell."""
    out = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for ps in PROBLEM_SETS:
            for student in sorted(p.name for p in (course / "autograded").iterdir()):
                nb = nbformat.read(course / "autograded" / student / ps / f"{ps}.ipynb", 4)
                for cell in nb.cells:
                    meta = cell.metadata.get("nbgrader", {})
                    if not meta.get("grade") or cell.cell_type != "code":
                        continue
                    grade = gb.find_grade(meta["grade_id"], ps, ps, student)
                    verdict = cell.metadata.get(VERDICT, {})
                    errors = [o.get("text", "").strip()[:200] for o in cell.get("outputs", [])
                              if o.get("text", "").startswith("visible test:")]
                    out[(student, ps, meta["grade_id"])] = {
                        "score": grade.score, "max": grade.max_score,
                        "hint": verdict.get("message", ""), "visible_error": errors}
    return out


def figures(labels: list[dict], cells: dict[tuple[str, str, str], dict]) -> dict:
    """Where each labelled code bug was charged and whether its hint named it."""
    bugs = [b for b in labels  # a written answer's label is for its TA, not the checks
            if b["cell"] and b.get("function") and b["cell"] in test_of(b["ps"])]
    own_cells = {(b["student"], b["ps"], own_cell(b["ps"], b["function"], b["cell"],
                                                  b.get("visible_test_cell") or ""))
                 for b in bugs}
    patterned = any((b["student"], b["function"]) in NAMES for b in bugs)  # else by hand
    rows = []
    for b in bugs:
        student, ps, fn = b["student"], b["ps"], b["function"]
        mine = own_cell(ps, fn, b["cell"], b.get("visible_test_cell") or "")
        own = cells[(student, ps, mine)]
        down = sorted({own_cell(ps, f) for f in b.get("also_affects") or []
                       if f in OWN} - {mine})
        charged_down = [c for c in down if cells[(student, ps, c)]["score"]
                        < cells[(student, ps, c)]["max"] and (student, ps, c) not in own_cells]
        charged_own = own["score"] < own["max"]
        pattern = NAMES.get((student, fn))  # a class without patterns is judged by hand
        named = charged_own and pattern is not None and bool(re.search(pattern, own["hint"]))
        rows.append({"bug": f"{student}/{ps}/{b['cell']}/{fn}", "own_cell": mine,
                     "own_score": f"{own['score']:g}/{own['max']:g}",
                     "charged_at_own": charged_own, "charged_downstream": charged_down,
                     "hint_names_mistake": named if patterned else None,
                     "hint": own["hint"]})
    buggy = {b["student"] for b in bugs}
    marked_down = [f"{s}/{ps}/{c} {v['score']:g}/{v['max']:g}: {v['hint'][:120]}"
                   for (s, ps, c), v in sorted(cells.items())
                   if s not in buggy and v["score"] < v["max"]]
    contradictions = [f"{s}/{ps}/{c}: {v['visible_error'][0]}" for (s, ps, c), v
                      in sorted(cells.items()) if v["visible_error"] and v["score"] == v["max"]]
    n = len(rows)
    named = sum(r["hint_names_mistake"] for r in rows) if patterned else None
    return {
        "code_bugs": n,
        "correct_solutions_marked_down": marked_down,
        "correct_cells": sum(1 for s, _, _ in cells if s not in buggy),
        "charged_at_own_cell": sum(r["charged_at_own"] for r in rows),
        "charged_only_elsewhere": [r["bug"] for r in rows
                                   if not r["charged_at_own"] and r["charged_downstream"]],
        "charged_more_than_once": [r["bug"] for r in rows
                                   if r["charged_at_own"] and r["charged_downstream"]],
        "charged_nowhere": [r["bug"] for r in rows
                            if not r["charged_at_own"] and not r["charged_downstream"]],
        "hints_naming_mistake": named,  # None: no patterns for this class, judged by hand
        "hints_naming_mistake_pct": None if named is None else round(100 * named / n, 1),
        "visible_test_failed_with_full_points": contradictions,
        "bugs": rows,
    }


def table(f: dict) -> str:
    lines = [
        f"- Correct solutions marked down: **{len(f['correct_solutions_marked_down'])}** of "
        f"{f['correct_cells']} (student, cell) pairs",
        f"- Bugs charged at their own cell: **{f['charged_at_own_cell']} / {f['code_bugs']}**",
        f"- Charged only at another cell: {len(f['charged_only_elsewhere'])}: "
        + ", ".join(f["charged_only_elsewhere"]),
        f"- Charged more than once: **{len(f['charged_more_than_once'])}**: "
        + ", ".join(f["charged_more_than_once"]),
        f"- Charged nowhere: **{len(f['charged_nowhere'])}**: " + ", ".join(f["charged_nowhere"]),
        "- Hints naming the mistake (own cell): " + (
            "judged by hand (no `NAMES` patterns for this class)"
            if f["hints_naming_mistake"] is None else
            f"**{f['hints_naming_mistake']} / {f['code_bugs']} = "
            f"{f['hints_naming_mistake_pct']} %**"),
        f"- Visible test failed where the hidden check gave full points: "
        f"{len(f['visible_test_failed_with_full_points'])}"
        + "".join(f"\n  - {c}" for c in f["visible_test_failed_with_full_points"]),
        "", "| bug | own cell | score | charged downstream | hint names it | hint |",
        "|---|---|---|---|---|---|"]
    for r in f["bugs"]:
        hint = r["hint"].replace("|", "\\|")
        hint = hint if len(hint) <= 160 else hint[:159] + "…"
        lines.append(f"| {r['bug']} | {r['own_cell']} | {r['own_score']} | "
                     f"{', '.join(r['charged_downstream'])} | "
                     f"{ {True: 'yes', False: 'no', None: 'by hand'}[r['hint_names_mistake']]} | "
                     f"{hint} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blind", type=Path, default=REPO / "tests/data/blind/class1")
    parser.add_argument("--out", type=Path, help="write figures.json and table.md here")
    parser.add_argument("--keep", type=Path, help="grade in this (new) folder and keep it")
    parser.add_argument("--salt", default=CLASS1_SALT, help="the course's grading salt")
    parser.add_argument("--tree", type=Path, default=REPO,
                        help="the source/ and config to grade with (the kit is what imports)")
    parser.add_argument("--graded", type=Path, help="read a course graded before, no grading")
    args = parser.parse_args()
    course = args.graded or args.keep or Path(tempfile.mkdtemp(prefix="attnkit-blind-",
                                                               dir="/var/tmp"))
    course.mkdir(parents=True, exist_ok=True)
    try:
        if not args.graded:
            grade_class(args.blind, course, args.tree, args.salt)
        f = figures(json.loads((args.blind / "labels.json").read_text()), read_cells(course))
    finally:
        if not (args.keep or args.graded):
            shutil.rmtree(course, ignore_errors=True)
    text = table(f)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "figures.json").write_text(json.dumps(f, indent=1) + "\n")
        (args.out / "table.md").write_text(
            f"# {args.blind.name} graded by benchmarks/blind_class.py\n\n"
            f"`benchmarks/blind_class.py --out {args.out.name}` with class1_before's grading "
            "salt. Figures as in class1_before/table.md; a hint names the mistake when the own "
            "cell's hint matches the bug's pattern in the script's `NAMES`.\n\n" + text)


if __name__ == "__main__":
    main()

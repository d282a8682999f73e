"""The kill matrix's "charged once" column: for every call chain (helper -> caller) of the
five problem sets, where points are lost when the helper, the caller or both are wrong.

Each row runs the master notebook's code (its solutions and given cells) as one namespace,
the way a student's kernel holds it, replaces the helper, the caller or both by a
student-style mistake, and grades every autograded cell of the assignment in notebook order
through the real path: ``attnkit.kernel.probe.records`` on the hidden cell's targets, then
``judge`` and follow-through (``attnkit.judge.carry.carry``) outside. "Charged once" holds
when a wrong helper under a right caller loses points at the helper's cell and nowhere else.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from attnkit.judge.carry import Charged, carry
from attnkit.judge.verdicts import Verdict, judge
from attnkit.kernel.probe import records

SOURCE = Path(__file__).resolve().parents[2] / "source"
PROBE = re.compile(r'^probe\("(\w+)", (.*)\)$', re.MULTILINE)


@dataclass(frozen=True)
class Link:
    """One helper -> caller edge, with a mistake for each end (student-style code)."""

    assignment: str
    helper: str  # the helper's grade id
    caller: str  # the caller's grade id
    wrong_helper: str
    wrong_caller: str
    right_caller: str = ""  # a caller that uses the helper, where the master solution does not


_SQRT_D_HEAD = """
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))
"""
_MAX_NORMED_SOFTMAX = """
def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.max())
    return e / e.max()
"""
_ROWS_SOFTMAX_COLS = """
def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
"""
_QK_SWAPPED = """
def {name}(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(Q.T @ K{scale})
    return V @ attentions, attentions
"""
_UNSCALED_MASKED = """
def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = masked_softmax_cols(K.T @ Q, causal_mask(X.shape[1]))
    return V @ attentions, attentions
"""
_REVERSED_HEADS = """
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.vstack([head2, head1])
"""
_UNMIXED_HEADS = """
def multihead_self_attention(X, heads, omega_c):
    return np.vstack([single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                            h["beta_v"], h["beta_q"], h["beta_k"])
                      for h in heads])
"""
_TOKEN_SIZE_SCALE = """
def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    weights = get_attention_weights(scale_scores(get_scores(K, q), tokens.shape[1]))
    return weights, weights @ V
"""
_MEAN_GAPS = """
def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *params)[0],
            lambda Z: masked_self_attention(Z, *params)[0],
            lambda Z: scaled_self_attention(Z + Pi, *params)[0]]
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).mean() for f in maps])
"""

LINKS = (
    Link("ps1_self_attention", "ps1_softmax", "ps1_self_attention_loop", _MAX_NORMED_SOFTMAX,
         """
def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries = [beta_q + omega_q @ x for x in all_x]
    keys = [beta_k + omega_k @ x for x in all_x]
    attention = [softmax([(k.T @ q).item() for k in keys]) for q in queries]
    return [sum(a * x for a, x in zip(w, all_x)) for w in attention]
"""),
    Link("ps1_self_attention", "ps1_softmax", "ps1_softmax_cols", _MAX_NORMED_SOFTMAX, """
def softmax_cols(data_in):
    return np.vstack([softmax(row) for row in data_in])
""", """
def softmax_cols(data_in):
    return np.column_stack([softmax(column) for column in np.asarray(data_in).T])
"""),
    Link("ps1_self_attention", "ps1_softmax_cols", "ps1_self_attention", _ROWS_SOFTMAX_COLS,
         _QK_SWAPPED.format(name="self_attention", scale="")),
    Link("ps1_self_attention", "ps1_softmax_cols", "ps1_scaled_attention", _ROWS_SOFTMAX_COLS,
         _QK_SWAPPED.format(name="scaled_dot_product_self_attention",
                            scale=" / np.sqrt(Q.shape[0])")),
    Link("ps2_multihead_attention", "ps2_single_head", "ps2_multihead_scaled", _SQRT_D_HEAD,
         _REVERSED_HEADS),
    Link("ps2_multihead_attention", "ps2_single_head", "ps2_multihead_general", _SQRT_D_HEAD,
         _UNMIXED_HEADS),
    Link("ps3_attention_layer", "ps3_softmax", "ps3_forward", """
def softmax(X):
    X = np.asarray(X, dtype=float)
    e = np.exp(X - X.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
""", """
class SelfAttention:
    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.normal(0.0, 1.0, (dims, dims))
                                                  for _ in range(4))

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T) @ V @ self.W_o
"""),
    Link("ps4_encoder_decoder_attention", "ps4_get_scores", "ps4_single_query", """
def get_scores(matrix, vector):
    return matrix @ vector / np.linalg.norm(vector)
""", _TOKEN_SIZE_SCALE),
    Link("ps4_encoder_decoder_attention", "ps4_scale_scores", "ps4_single_query", """
def scale_scores(scores, n):
    return np.asarray(scores, dtype=float) / n
""", _TOKEN_SIZE_SCALE),
    Link("ps4_encoder_decoder_attention", "ps4_attention_weights", "ps4_single_query", """
def get_attention_weights(scores):
    s = np.asarray(scores, dtype=float)
    e = np.exp(s - s.max())
    return e / np.linalg.norm(e)
""", _TOKEN_SIZE_SCALE),
    Link("ps4_encoder_decoder_attention", "ps4_context_vector", "ps4_single_query", """
def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix / len(attention_weights)
""", _TOKEN_SIZE_SCALE.replace("weights @ V", "get_context_vector(weights, V)"),
         _TOKEN_SIZE_SCALE.replace("tokens.shape[1]", "W_K.shape[1]")
                          .replace("weights @ V", "get_context_vector(weights, V)")),
    Link("ps5_masked_attention", "ps5_causal_mask", "ps5_masked_attention", """
def causal_mask(N):
    return np.tril(np.ones((N, N), dtype=bool))
""", _UNSCALED_MASKED),
    Link("ps5_masked_attention", "ps5_masked_softmax", "ps5_masked_attention", """
def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, 0.0)
    e = np.exp(masked - masked.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
""", _UNSCALED_MASKED),
    Link("ps5_masked_attention", "ps5_masked_attention", "ps5_equivariance", _UNSCALED_MASKED,
         _MEAN_GAPS),
    Link("ps5_masked_attention", "ps5_positional_encoding", "ps5_equivariance", """
def positional_encoding(D, N):
    angles = np.arange(N)[None, :] / 10000 ** (np.arange(0, D, 2)[:, None] / D)
    Pi = np.zeros((D, N))
    Pi[0::2] = np.cos(angles)
    Pi[1::2] = np.sin(angles)
    return Pi
""", _MEAN_GAPS),
)
CASES = {"wrong caller": (False, True), "wrong helper": (True, False), "both wrong": (True, True)}


def _cells(assignment: str, notebook: Path | None = None) -> list[dict]:
    path = notebook or SOURCE / assignment / f"{assignment}.ipynb"
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def _is_test(cell: dict) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def kernel(assignment: str, *overrides: str, notebook: Path | None = None) -> dict[str, Any]:
    """The master notebook's code (or a hand-in's, ``notebook``) run as one namespace, then
    ``overrides`` (student code). A cell that raises is left half run, as in a kernel."""
    import matplotlib

    matplotlib.use("Agg")
    space: dict[str, Any] = {"__name__": "__main__"}
    code = ["".join(c["source"]) for c in _cells(assignment, notebook) if not _is_test(c)]
    with warnings.catch_warnings(), np.errstate(all="ignore"), \
            contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        for source in [*code, *overrides]:
            source = "\n".join(line for line in source.splitlines()
                               if not line.lstrip().startswith(("%", "!")))
            with contextlib.suppress(Exception):
                exec(compile(source, f"<{assignment}>", "exec"), space)  # noqa: S102
    return space


def targets(assignment: str) -> dict[str, str]:
    """Grade id -> the targets its hidden cell passes to ``probe``, in notebook order."""
    return {m.group(1): m.group(2) for c in _cells(assignment) if _is_test(c)
            for m in [PROBE.search("".join(c["source"]))] if m}


def grade_all(assignment: str, space: dict[str, Any], seed: int) -> dict[str, Verdict]:
    """Every autograded cell's final verdict, graded in notebook order as JudgeProbes does."""
    charged: dict[str, Charged] = {}
    out = {}
    for grade_id, names in targets(assignment).items():
        try:
            found = eval(f"({names},)", space)  # noqa: S307 - the hidden cell's own names
        except NameError:
            found = ()  # never defined: the probe records the error
        recs = records(grade_id, found, seed)
        out[grade_id], charged[grade_id] = carry(grade_id, seed, recs,
                                                 judge(grade_id, seed, recs, 1.0), charged)
    return out


@dataclass
class Row:
    link: Link
    lost: dict[str, tuple[float, float]]  # case -> (lost at the helper, lost at the caller)
    messages: dict[str, str]
    uneven: tuple[str, ...] = ()  # cases whose points differ between seeds

    @property
    def once(self) -> bool:
        """A wrong helper under a right caller costs points at the helper and only there,
        the same on every seed (the same code scores the same for every student)."""
        at_helper, at_caller = self.lost["wrong helper"]
        return at_helper > 0 and at_caller == 0 and not self.uneven

    @property
    def attributed(self) -> bool:
        """A wrong caller loses points at the caller, whatever its helper."""
        return self.lost["wrong caller"][1] > 0 and self.lost["both wrong"][1] > 0


def evaluate(seeds: tuple[int, ...] = (0, 1)) -> list[Row]:
    rows = []
    for link in LINKS:
        lost, messages, uneven = {}, {}, []
        for case, (bad_helper, bad_caller) in CASES.items():
            code = ([link.right_caller] + [link.wrong_helper] * bad_helper
                    + [link.wrong_caller] * bad_caller)
            space = kernel(link.assignment, *code)
            seen = set()
            for seed in seeds:
                verdicts = grade_all(link.assignment, space, seed)
                seen.add((1 - verdicts[link.helper].score, 1 - verdicts[link.caller].score))
                messages[case] = verdicts[link.caller].message
            lost[case] = (max(h for h, _ in seen), max(c for _, c in seen))
            uneven += [case] if len(seen) > 1 else []
        rows.append(Row(link, lost, messages, tuple(uneven)))
    return rows


def report(rows: list[Row], console: Any, *, verbose: bool = False) -> bool:
    """Print the table; True when every chain charges a helper's mistake once."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="call chains: points lost at (helper, caller), fraction of each "
                  "cell, worst seed", title_justify="left", pad_edge=False)
    for heading in ("helper -> caller", *CASES, "charged once"):
        table.add_column(heading, no_wrap=True)
    for row in rows:
        cells = [f"{h:.2g}, {c:.2g}" for h, c in row.lost.values()]
        good = row.once and row.attributed
        table.add_row(escape(f"{row.link.helper} -> {row.link.caller}"), *cells,
                      "[green]yes[/]" if good else "[bold red]NO[/]")
    console.print(table)
    for row in rows if verbose else [r for r in rows if not (r.once and r.attributed)]:
        for case, text in row.messages.items():
            console.print(escape(f"  {row.link.caller} / {case}: {text}"), soft_wrap=True)
        for case in row.uneven:
            console.print(escape(f"  {row.link.caller} / {case}: points differ between seeds"))
    done = sum(r.once and r.attributed for r in rows)
    colour = "green" if done == len(rows) else "bold red"
    console.print(f"[{colour}]charged once: {done}/{len(rows)} call chains[/]   (goal all)")
    return done == len(rows)

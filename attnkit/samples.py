"""A demo class: fictional students whose submissions show complete, blank and typical work.

Each student's submission is the released notebook with some solution cells
filled in. A cell a student does not mention gets the master solution, so
every mistake is isolated; ``expect`` says what each test cell should then
score, as a fraction of its points (cells not listed score 1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

SOLUTION = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*$\n?", re.MULTILINE)


@dataclass(frozen=True)
class Sample:
    about: str
    code: dict[str, str] = field(default_factory=dict)  # solution grade_id -> student code
    expect: dict[str, float] = field(default_factory=dict)  # test grade_id -> score fraction
    blank: bool = False  # hand in the release untouched


SAMPLES: dict[str, dict[str, Sample]] = {
    "ps1_self_attention": {
        "aisha": Sample("complete and correct"),
        "ben": Sample("handed in the blank notebook", blank=True),
        "chen": Sample(
            "softmax without the max shift; scaled by D instead of sqrt(D_q)",
            code={
                "ps1_softmax_code": """\
def softmax(items_in):
    e = np.exp(np.array(items_in, dtype=float))
    return e / np.sum(e)
""",
                "ps1_scaled_code": """\
def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    attentions = softmax_cols(K.T @ Q / X.shape[0])
    X_prime = V @ attentions
    return X_prime, attentions
""",
            },
            expect={"ps1_softmax": 0.5, "ps1_self_attention_loop": 0.5,
                    "ps1_scaled_attention": 0.0},
        ),
        "dara": Sample(
            "softmax_cols normalises rows, so both attention functions fail",
            code={"ps1_softmax_cols_code": """\
def softmax_cols(data_in):
    e = np.exp(data_in - np.max(data_in))
    return e / e.sum(axis=1, keepdims=True)
"""},
            expect={"ps1_softmax_cols": 0.0, "ps1_self_attention": 0.0,
                    "ps1_scaled_attention": 0.0},
        ),
        "emil": Sample(
            "Q^T K instead of K^T Q; an equivariance check that always says yes",
            code={
                "ps1_self_attention_code": """\
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    attentions = softmax_cols(Q.T @ K)
    X_prime = V @ attentions
    return X_prime, attentions
""",
                "ps1_equivariance_code": """\
def check_equivariance(f, X, perm):
    return True
""",
            },
            expect={"ps1_self_attention": 0.0, "ps1_equivariance": 0.0},
        ),
    },
    "ps2_multihead_attention": {
        "aisha": Sample("complete and correct"),
        "ben": Sample("handed in the blank notebook", blank=True),
        "chen": Sample(
            "each head scaled by sqrt(D) instead of sqrt(D/H); every cell reuses the head",
            code={"ps2_single_head_code": """\
def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))
"""},
            expect={"ps2_single_head": 0.0, "ps2_multihead_scaled": 0.0,
                    "ps2_multihead_general": 0.0},
        ),
        "dara": Sample(
            "stacks head 2 above head 1",
            code={"ps2_multihead_scaled_code": """\
def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.concatenate([h2, h1], axis=0)
"""},
            expect={"ps2_multihead_scaled": 0.0},
        ),
        "emil": Sample(
            "general version hard-wired to two heads",
            code={"ps2_multihead_general_code": """\
def multihead_self_attention(X, heads, omega_c):
    h1 = single_head_attention(X, heads[0]["omega_v"], heads[0]["omega_q"], heads[0]["omega_k"],
                               heads[0]["beta_v"], heads[0]["beta_q"], heads[0]["beta_k"])
    h2 = single_head_attention(X, heads[1]["omega_v"], heads[1]["omega_q"], heads[1]["omega_k"],
                               heads[1]["beta_v"], heads[1]["beta_q"], heads[1]["beta_k"])
    return omega_c @ np.vstack([h1, h2])
"""},
            expect={"ps2_multihead_general": 0.0},
        ),
    },
    "ps3_attention_layer": {
        "aisha": Sample("complete and correct"),
        "ben": Sample("handed in the blank notebook", blank=True),
        "chen": Sample(
            "the exam's sample answer: weights with std 0.1, softmax without the max shift",
            code={
                "ps3_softmax_code": """\
def softmax(X):
    e = np.exp(X)
    return e / np.sum(e, axis=1, keepdims=True)
""",
                "ps3_layer_code": """\
class SelfAttention:
    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_k = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_v = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_o = np.random.normal(0.0, 0.1, (dims, dims))

    def forward(self, x):
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        score = np.dot(Q, K.T) / np.sqrt(self.dims)
        return np.dot(np.dot(softmax(score), V), self.W_o)
""",
            },
            expect={"ps3_softmax": 0.5, "ps3_init": 0.0, "ps3_forward": 0.5},
        ),
        "dara": Sample(
            "softmax over columns (axis 0) in a row-major layer",
            code={"ps3_softmax_code": """\
def softmax(X):
    e = np.exp(X - X.max(axis=0))
    return e / e.sum(axis=0)
"""},
            expect={"ps3_softmax": 0.0, "ps3_forward": 0.0},
        ),
        "emil": Sample(
            "forgets W_o and scales by dims",
            code={"ps3_layer_code": """\
class SelfAttention:
    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / self.dims) @ V
"""},
            expect={"ps3_forward": 0.0},
        ),
    },
    "ps4_encoder_decoder_attention": {
        "aisha": Sample("complete and correct"),
        "ben": Sample("handed in the blank notebook", blank=True),
        "chen": Sample(
            "the worksheet's own answers: broadcast context vector, its dimension answers",
            code={
                "ps4_context_vector_code": """\
def get_context_vector(attention_weights, hidden_encoder_matrix):
    return sum(attention_weights * hidden_encoder_matrix)
""",
                "ps4_dimensions_code": """\
head_W_shape = (3, 2)
concat_shape = (4, 4)
W_O_shape = (4, 4)
""",
            },
            expect={"ps4_context_vector": 0.0, "ps4_dimensions": 1 / 3},
        ),
        "dara": Sample(
            "splits heads with a reshape, scales by the token size instead of d_k",
            code={
                "ps4_split_heads_code": """\
def split_heads(W, n):
    return list(W.reshape(n, W.shape[0], W.shape[1] // n))
""",
                "ps4_single_query_code": """\
def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    weights = get_attention_weights(scale_scores(K @ q, tokens.shape[1]))
    return weights, weights @ V
""",
            },
            expect={"ps4_split_heads": 0.0, "ps4_single_query": 0.0},
        ),
        "emil": Sample(
            "softmax without the max shift",
            code={"ps4_attention_weights_code": """\
def get_attention_weights(scores):
    return np.exp(scores) / np.sum(np.exp(scores))
"""},
            expect={"ps4_attention_weights": 0.5, "ps4_single_query": 0.5},
        ),
    },
    "ps5_masked_attention": {
        "aisha": Sample("complete and correct"),
        "ben": Sample("handed in the blank notebook", blank=True),
        "chen": Sample(
            "masks after the softmax; cosines in the even rows of the encoding",
            code={
                "ps5_masked_attention_code": """\
def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0])) * causal_mask(X.shape[1])
    X_prime = V @ attentions
    return X_prime, attentions
""",
                "ps5_positional_encoding_code": """\
def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            Pi[2 * i, n] = np.cos(n / 10000 ** (2 * i / D))
            Pi[2 * i + 1, n] = np.sin(n / 10000 ** (2 * i / D))
    return Pi
""",
            },
            expect={"ps5_masked_attention": 0.0, "ps5_positional_encoding": 0.0,
                    "ps5_equivariance": 0.0},
        ),
        "dara": Sample(
            "-inf and a stable softmax: nan on a fully masked column",
            code={"ps5_masked_softmax_code": """\
def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    e = np.exp(masked - masked.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
"""},
            expect={"ps5_masked_softmax": 0.5},
        ),
        "emil": Sample(
            "the lower-triangular mask of a rows-convention tutorial",
            code={"ps5_causal_mask_code": """\
def causal_mask(N):
    return np.tril(np.ones((N, N), dtype=bool))
"""},
            expect={"ps5_causal_mask": 0.0, "ps5_masked_attention": 0.0,
                    "ps5_equivariance": 0.0},
        ),
    },
}


def solution_code(source: str) -> str:
    """A master solution cell without its solution markers."""
    return SOLUTION.sub("", source)


def build_submission(master: Path, release: Path, sample: Sample) -> nbformat.NotebookNode:
    """The release notebook with the sample student's (or the master's) code filled in."""
    nb = nbformat.read(release, as_version=4)
    if sample.blank:
        return nb
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source
                 for c in nbformat.read(master, as_version=4).cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = sample.code.get(grade_id, solution_code(solutions[grade_id]))
    return nb


def write_submissions(root: Path, assignments: list[str] | None = None) -> list[tuple[str, str]]:
    """Write every sample submission under ``root/submitted``; returns (student, assignment)."""
    written = []
    for assignment, students in SAMPLES.items():
        if assignments and assignment not in assignments:
            continue
        for master in sorted((root / "source" / assignment).glob("*.ipynb")):
            release = root / "release" / assignment / master.name
            for student, sample in students.items():
                out = root / "submitted" / student / assignment / master.name
                out.parent.mkdir(parents=True, exist_ok=True)
                nbformat.write(build_submission(master, release, sample), out)
                written.append((student, assignment))
    return sorted(set(written))

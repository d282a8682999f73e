"""The catalogue's single-skill functions as a student would paste them into a notebook."""

from __future__ import annotations

import inspect
import re
import textwrap

from attnkit.dev.validate import load_catalogue

ASSIGNMENTS = {  # assignment -> {test cell -> (solution cell, the name the notebook calls)}
    "ps1_self_attention": {
        "ps1_softmax": ("ps1_softmax_code", "softmax"),
        "ps1_self_attention_loop": ("ps1_loop_code", "self_attention_loop"),
        "ps1_softmax_cols": ("ps1_softmax_cols_code", "softmax_cols"),
        "ps1_self_attention": ("ps1_self_attention_code", "self_attention"),
        "ps1_scaled_attention": ("ps1_scaled_code", "scaled_dot_product_self_attention"),
        "ps1_equivariance": ("ps1_equivariance_code", "check_equivariance"),
    },
    "ps5_masked_attention": {
        "ps5_causal_mask": ("ps5_causal_mask_code", "causal_mask"),
        "ps5_masked_softmax": ("ps5_masked_softmax_code", "masked_softmax_cols"),
        "ps5_masked_attention": ("ps5_masked_attention_code", "masked_self_attention"),
        "ps5_positional_encoding": ("ps5_positional_encoding_code", "positional_encoding"),
        "ps5_equivariance": ("ps5_equivariance_code", "equivariance_gaps"),
    },
}
SKILLS = {check: cells for skills in ASSIGNMENTS.values() for check, cells in skills.items()}
IMPORTS = "import math\nimport warnings\n\nimport numpy as np\nimport scipy.special\n\n"


def sample_entries(assignment: str) -> list:
    """Every other single-skill function of the assignment in the catalogue (wrong and correct)."""
    entries = [e for e in load_catalogue() if len(e.expect) == 1
               and next(iter(e.expect)) in ASSIGNMENTS[assignment]
               and inspect.isfunction(e.targets[0])]
    return entries[::2]


def source_of(function) -> str:
    source = textwrap.dedent(inspect.getsource(function))
    return re.sub(r"^@entry\(.*?\)\n", "", source, flags=re.DOTALL | re.MULTILINE)


def student_code(entry) -> tuple[str, str]:
    """The entry's function, the module helpers it may call, bound to the notebook's name."""
    check = next(iter(entry.expect))
    function = entry.targets[0]
    helpers = [source_of(f) for n, f in function.__globals__.items()
               if n.startswith("_") and inspect.isfunction(f)
               and f.__module__ == function.__module__]
    code = "\n".join([IMPORTS, *helpers, source_of(function)])
    return check, f"{code}\n{SKILLS[check][1]} = {function.__name__}\n"

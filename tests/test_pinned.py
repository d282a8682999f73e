"""Every number pinned in a master notebook, recomputed by an independent implementation."""

from __future__ import annotations

import ast
from pathlib import Path

import helpers.independent as independent
import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
RECOMPUTED = {
    "ps1_self_attention": independent.pinned_ps1,
    "ps2_multihead_attention": independent.pinned_ps2,
    "ps3_attention_layer": independent.pinned_ps3,
    "ps4_encoder_decoder_attention": independent.pinned_ps4,
    "ps5_masked_attention": independent.pinned_ps5,
}


def pinned_values(notebook: Path) -> dict[str, np.ndarray]:
    """``name = np.array(<literal>)`` assignments whose name contains ``_true``."""
    found = {}
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                    and "_true" in node.targets[0].id and isinstance(node.value, ast.Call)):
                found[node.targets[0].id] = np.array(ast.literal_eval(node.value.args[0]))
    return found


@pytest.mark.parametrize("notebook", sorted(ROOT.glob("source/*/*.ipynb")), ids=lambda p: p.stem)
def test_every_pinned_value_is_recomputed(notebook: Path) -> None:
    pinned = pinned_values(notebook)
    assert pinned, f"{notebook.name} pins no values"
    assert notebook.parent.name in RECOMPUTED, f"no independent recomputation for {notebook}"
    recomputed = RECOMPUTED[notebook.parent.name]()
    assert set(pinned) == set(recomputed), "pinned names and recomputed names differ"
    for name, value in pinned.items():
        want, atol = recomputed[name]
        assert value.shape == np.shape(want), name
        np.testing.assert_allclose(value, want, atol=atol, rtol=0, err_msg=name)

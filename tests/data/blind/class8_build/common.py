import copy, io, contextlib, traceback, warnings
import nbformat

RELEASE = "/work/blind8/release"
PS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
      "ps4_encoder_decoder_attention", "ps5_masked_attention"]

# solution cell -> visible test cell (for ps3_layer_code it depends on the method)
TEST_OF = {
    "ps1_softmax_code": "ps1_softmax", "ps1_loop_code": "ps1_self_attention_loop",
    "ps1_softmax_cols_code": "ps1_softmax_cols", "ps1_self_attention_code": "ps1_self_attention",
    "ps1_scaled_code": "ps1_scaled_attention", "ps1_equivariance_code": "ps1_equivariance",
    "ps1_positional_answer": None,
    "ps2_single_head_code": "ps2_single_head", "ps2_multihead_scaled_code": "ps2_multihead_scaled",
    "ps2_multihead_general_code": "ps2_multihead_general",
    "ps3_softmax_code": "ps3_softmax",
    "ps4_get_scores_code": "ps4_get_scores", "ps4_scale_scores_code": "ps4_scale_scores",
    "ps4_attention_weights_code": "ps4_attention_weights", "ps4_context_vector_code": "ps4_context_vector",
    "ps4_single_query_code": "ps4_single_query", "ps4_dimensions_code": "ps4_dimensions",
    "ps4_split_heads_code": "ps4_split_heads", "ps4_heads_answer": None,
    "ps5_causal_mask_code": "ps5_causal_mask", "ps5_masked_softmax_code": "ps5_masked_softmax",
    "ps5_masked_attention_code": "ps5_masked_attention", "ps5_positional_encoding_code": "ps5_positional_encoding",
    "ps5_equivariance_code": "ps5_equivariance", "ps5_decoder_answer": None,
}


def test_cell_for(cell, function):
    if cell == "ps3_layer_code":
        return "ps3_init" if function == "__init__" else "ps3_forward"
    return TEST_OF[cell]


def load_release(ps):
    return nbformat.read(f"{RELEASE}/{ps}/{ps}.ipynb", as_version=4)


def gid(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def fill(ps, sources):
    """Copy of the release notebook with the solution cells replaced by sources[grade_id]."""
    nb = load_release(ps)
    for c in nb.cells:
        g = gid(c)
        if g is not None and c.metadata["nbgrader"].get("solution"):
            c.source = sources[g].rstrip("\n")
        if c.cell_type == "code":
            c.outputs = []
            c.execution_count = None
    return nb


def run_inprocess(nb):
    """Execute code cells in one fresh namespace; return {grade_id: error line or None}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ns = {"__name__": "__main__"}
    results = {}
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        err = None
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(c.source, "<cell>", "exec"), ns)
        except Exception as e:
            err = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
        plt.close("all")
        g = gid(c)
        if g:
            results[g] = err
    return results

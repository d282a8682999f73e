"""Probe every student's functions on fresh valid inputs and compare with the reference.

A student's namespace is built by executing the non-test code cells of their notebook
(data cells, given cells, solution cells). The reference is blind4_s2; the four correct
students must agree with it on every probe. For every labelled bug, the buggy function (or
the public function that calls a helper) must differ on at least one probe; also_affects is
the list of callers that differ too.
"""
import contextlib, io, json, os, sys, warnings
import numpy as np
import nbformat
os.environ["MPLBACKEND"] = "Agg"
import matplotlib
matplotlib.use("Agg")
from build import OUT, PSS

warnings.filterwarnings("ignore")


def load(student, ps):
    nb = nbformat.read(f"{OUT}/{student}/{ps}/{ps}.ipynb", as_version=4)
    ns = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        nbg = cell.metadata.get("nbgrader", {})
        if nbg.get("grade") or nbg.get("grade_id") in ("ps4_heads_heatmap",):
            continue
        try:
            import ast
            for node in ast.parse(cell.source).body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    ns.setdefault("_src", {})[node.name] = ast.get_source_segment(cell.source, node)
        except SyntaxError:
            pass
        try:
            with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
                exec(compile(cell.source, f"{student}/{ps}", "exec"), ns)
        except Exception as e:   # noqa: BLE001
            ns.setdefault("_load_errors", []).append(repr(e))
    return ns


def same(a, b):
    if isinstance(a, Exception) or isinstance(b, Exception):
        return isinstance(a, Exception) and isinstance(b, Exception)
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if type(a) is not type(b) and not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
            return False
        if isinstance(a, list) != isinstance(b, list):
            return False
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return bool(a) == bool(b)
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or (a.dtype == bool) != (b.dtype == bool):
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(a.astype(float), b.astype(float), rtol=1e-6, atol=1e-9, equal_nan=True))


def call(fn, *args):
    try:
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            return fn(*args)
    except Exception as e:   # noqa: BLE001
        return e


# ------------------------------------------------------------------ random inputs
def params(rng, D, Dq, Dv, scale=1.0):
    return (rng.normal(size=(Dv, D)) * scale, rng.normal(size=(Dq, D)) * scale,
            rng.normal(size=(Dq, D)) * scale, rng.normal(size=(Dv, 1)), rng.normal(size=(Dq, 1)),
            rng.normal(size=(Dq, 1)))


def sa_cases(seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for D, N, Dq, Dv, sc in [(4, 3, 4, 4, 1), (6, 5, 3, 6, 1), (5, 7, 2, 3, 1), (3, 2, 3, 3, 30),
                              (8, 4, 8, 8, 1), (4, 6, 4, 4, 10)]:
        out.append((rng.normal(size=(D, N)) * sc,) + params(rng, D, Dq, Dv))
    return out


def probe_inputs(ps, name, ns_ref):
    """list of zero-arg callables' argument tuples per public function."""
    rng = np.random.default_rng(7)
    if name == "softmax" and ps.startswith("ps1"):
        return [([1, 2, 3],), ([1000.0, 1001.0, 999.0],), (list(rng.normal(size=6) * 400),),
                (np.array([0.0, 2000.0, -5.0]),), (np.array([5.0]),), (np.array([-3000.0, 0.0, 10.0]),)]
    if name == "self_attention_loop":
        return [([X[:, [n]] for n in range(X.shape[1])],) + tuple(p) for X, *p in sa_cases()]
    if name == "softmax_cols":
        return [(rng.normal(size=(3, 5)),), (rng.normal(size=(4, 2)) * 800,),
                (np.array([[0.0], [1.0], [2.0]]) + np.array([[0.0, 900.0, -50.0, 300.0]]),),
                (np.arange(6).reshape(2, 3),), (rng.normal(size=(5, 5)),)]
    if name in ("self_attention", "scaled_dot_product_self_attention", "masked_self_attention"):
        I2, z2 = np.eye(2), np.zeros((2, 1))
        spike = (np.array([[1.0, 1.0, 2000.0], [0.0, 0.5, 0.0]]), I2, I2, I2, z2, z2, z2)
        spike2 = (np.array([[6e4, 1.0, 2.0], [0.0, 0.5, 0.0]]), I2, I2, -I2, z2, z2, z2)  # scores < -1e9
        spike5 = (np.array([[1.0, 1.0, 1.0, 1.0, 2000.0], [0.0, 0.5, 0.0, 0.3, 0.0]]), I2, I2, I2, z2, z2, z2)
        return [tuple(c) for c in sa_cases()] + [spike, spike2, spike5] + [(np.ones((4, 5)) * np.array([[0, 0, 0, 0, 40.0]]),)
                                               + params(np.random.default_rng(3), 4, 4, 4, 5.0)]
    if name == "check_equivariance":
        p = params(np.random.default_rng(1), 4, 4, 4)
        att = lambda Z: ns_ref["scaled_dot_product_self_attention"](Z, *p)[0]
        X = rng.normal(size=(4, 5))
        last = np.zeros((4, 5)); last[:, -1] = 3.0
        return [(att, X, [1, 2, 0, 4, 3]), (lambda Z: Z[:, ::-1], X, [1, 2, 0, 4, 3]),
                (lambda Z: Z + last, X, [0, 2, 1, 4, 3]), (lambda Z: Z[:, ::-1], X[:, :3], [1, 2, 0]),
                (lambda Z: 2 * Z, X, [4, 3, 2, 1, 0]), (lambda Z: np.cumsum(Z, axis=1), X, [2, 0, 1, 3, 4])]
    if name == "single_head_attention":
        return [tuple(c) for c in sa_cases()]
    if name in ("multihead_scaled_self_attention", "multihead_self_attention"):
        cases = []
        r = np.random.default_rng(11)
        for D, N, H in [(8, 6, 2), (6, 4, 2), (12, 5, 3), (8, 3, 4), (4, 7, 1), (10, 4, 2)]:
            if name.startswith("multihead_scaled") and H != 2:
                continue
            X = r.normal(size=(D, N)) * (3 if N == 4 else 1)
            heads = []
            for _ in range(H):
                heads.append({k: r.normal(size=(D // H, D)) for k in ("omega_q", "omega_k", "omega_v")})
                heads[-1].update({k: r.normal(size=(D // H, 1)) for k in ("beta_q", "beta_k", "beta_v")})
            oc = r.normal(size=(D, D))
            if name == "multihead_self_attention":
                cases.append((X, heads, oc))
            else:
                flat = []
                for h in heads:
                    flat += [h["omega_v"], h["omega_q"], h["omega_k"], h["beta_v"], h["beta_q"], h["beta_k"]]
                cases.append((X, *flat, oc))
        return cases
    if name == "softmax" and ps.startswith("ps3"):
        return [(rng.normal(size=(3, 4)),), (rng.normal(size=(4, 4)) * 5,),
                (np.array([[0.0, 1.0, 2.0], [900.0, 901.0, 902.0]]),), (np.arange(6).reshape(2, 3),),
                (np.array([[1.0, 2.0], [-800.0, -801.0]]),)]
    if name == "SelfAttention.__init__":
        return [(s, d) for s, d in [(1, 5), (2, 3), (3, 96)]]
    if name == "SelfAttention.forward":
        r = np.random.default_rng(5)
        return [(d, r.normal(size=(d, d)), r.normal(size=(d, d)), r.normal(size=(d, d)),
                 r.normal(size=(d, d)), r.random(size=(n, d)) * sc)
                for d, n, sc in [(4, 3, 1), (6, 2, 1), (3, 7, 1), (9, 4, 3), (5, 5, 20), (4, 6, 300)]]
    if name == "get_scores":
        return [(rng.normal(size=(5, 3)), rng.normal(size=3)), (rng.normal(size=(4, 4)), rng.normal(size=4)),
                (np.arange(6).reshape(2, 3), np.array([1, 0, 2]))]
    if name == "scale_scores":
        return [(rng.normal(size=4), 4), (np.array([3.0, -6.0]), 9), (rng.normal(size=5), 16), (rng.normal(size=3), 2)]
    if name == "get_attention_weights":
        return [(rng.normal(size=4),), (np.array([0.0, 2000.0]),), (np.array([1000.0, 1001.0, 999.0]),),
                (np.array([-3000.0, 0.0, 10.0]),), (np.array([2.0]),)]
    if name == "get_context_vector":
        return [(np.array([0.2, 0.5, 0.3]), rng.normal(size=(3, 5))), (np.array([0.25] * 4), rng.normal(size=(4, 4))),
                (np.array([0.0, 1.0]), rng.normal(size=(2, 6)))]
    if name == "single_query_attention":
        cases = []
        r = np.random.default_rng(9)
        for T, dm, dk, dv, sc in [(3, 4, 4, 4, 1), (5, 6, 3, 2, 1), (4, 4, 2, 5, 1), (3, 5, 5, 3, 100), (2, 3, 6, 4, 1)]:
            toks = r.normal(size=(T, dm)) * sc
            cases.append((toks[1], toks, r.normal(size=(dm, dk)), r.normal(size=(dm, dk)), r.normal(size=(dm, dv))))
        return cases
    if name == "split_heads":
        return [(rng.normal(size=(4, 4)), 2), (np.arange(24.0).reshape(3, 8), 4), (rng.normal(size=(2, 9)), 3),
                (rng.normal(size=(5, 6)), 1), (rng.normal(size=(3, 6)), 2)]
    if name == "causal_mask":
        return [(1,), (3,), (5,), (8,)]
    if name == "masked_softmax_cols":
        r = np.random.default_rng(2)
        S = r.normal(size=(4, 5)); M = r.random(size=(4, 5)) < 0.6; M[:, 0] = False; M[1, 1] = True
        S2 = np.array([[0.0, 1.0], [1000.0, 2.0], [1.0, -2e9]]); M2 = np.array([[True, True], [False, True], [True, True]])
        return [(S, M), (S * 500, M), (S2, M2), (np.triu(np.ones((3, 3))) * 2.0, np.triu(np.ones((3, 3), dtype=bool)))]
    if name == "positional_encoding":
        return [(4, 5), (2, 3), (6, 7), (8, 1), (64, 10)]
    if name == "equivariance_gaps":
        cases = []
        r = np.random.default_rng(4)
        for D, N in [(4, 5), (6, 3), (2, 6), (8, 4)]:
            perm = list(r.permutation(N))
            cases.append((r.normal(size=(D, N)), perm) + params(r, D, D, D))
        return cases
    raise KeyError(name)


def runner(ps, name, ns):
    """Return a function args -> output for the public function name in namespace ns."""
    if name == "SelfAttention.__init__":
        def f(seed, d):
            np.random.seed(seed)
            layer = ns["SelfAttention"](d)
            return [np.asarray(getattr(layer, w)) for w in ("W_q", "W_k", "W_v", "W_o")] + [np.asarray(layer.dims)]
        return f
    if name == "SelfAttention.forward":
        def f(d, wq, wk, wv, wo, x):
            layer = ns["SelfAttention"](d)
            layer.W_q, layer.W_k, layer.W_v, layer.W_o = wq, wk, wv, wo
            return layer.forward(x)
        return f
    if name in ("head_W_shape", "concat_shape", "W_O_shape"):
        return lambda: ns[name]
    return ns[name]


# helper name -> public function that exposes it
HELPER_OF = {"_attend": "self_attention", "_head": "single_head_attention",
             "SelfAttention.attention_weights": "SelfAttention.forward"}


def differs(ps, name, ns, ref):
    if name in ("head_W_shape", "concat_shape", "W_O_shape"):
        return ns.get(name) != ref.get(name), [f"{ns.get(name)} vs {ref.get(name)}"]
    f, g = runner(ps, name, ns), runner(ps, name, ref)
    notes = []
    for args in probe_inputs(ps, name, ref):
        a, b = call(f, *args), call(g, *args)
        if not same(a, b):
            notes.append(f"student gives {repr(a)[:160]}; reference {repr(b)[:160]}")
            return True, notes
    return False, notes


PUBLIC = {
    "ps1_self_attention": ["softmax", "self_attention_loop", "softmax_cols", "self_attention",
                           "scaled_dot_product_self_attention", "check_equivariance"],
    "ps2_multihead_attention": ["single_head_attention", "multihead_scaled_self_attention", "multihead_self_attention"],
    "ps3_attention_layer": ["softmax", "SelfAttention.__init__", "SelfAttention.forward"],
    "ps4_encoder_decoder_attention": ["get_scores", "scale_scores", "get_attention_weights", "get_context_vector",
                                      "single_query_attention", "head_W_shape", "concat_shape", "W_O_shape",
                                      "split_heads"],
    "ps5_masked_attention": ["causal_mask", "masked_softmax_cols", "masked_self_attention",
                             "positional_encoding", "equivariance_gaps"],
}
# which public functions (may) call which: used for also_affects
CALLERS = {
    ("ps1_self_attention", "softmax"): ["self_attention_loop", "softmax_cols", "self_attention",
                                        "scaled_dot_product_self_attention"],
    ("ps1_self_attention", "softmax_cols"): ["self_attention", "scaled_dot_product_self_attention"],
    ("ps1_self_attention", "_attend"): ["self_attention", "scaled_dot_product_self_attention"],
    ("ps2_multihead_attention", "single_head_attention"): ["multihead_scaled_self_attention", "multihead_self_attention"],
    ("ps2_multihead_attention", "_head"): ["single_head_attention", "multihead_scaled_self_attention",
                                           "multihead_self_attention"],
    ("ps3_attention_layer", "softmax"): ["SelfAttention.forward"],
    ("ps3_attention_layer", "SelfAttention.__init__"): ["SelfAttention.forward"],
    ("ps3_attention_layer", "SelfAttention.attention_weights"): ["SelfAttention.forward"],
    ("ps4_encoder_decoder_attention", "get_scores"): ["single_query_attention"],
    ("ps4_encoder_decoder_attention", "scale_scores"): ["single_query_attention"],
    ("ps4_encoder_decoder_attention", "get_attention_weights"): ["single_query_attention"],
    ("ps4_encoder_decoder_attention", "get_context_vector"): ["single_query_attention"],
    ("ps5_masked_attention", "causal_mask"): ["masked_self_attention", "equivariance_gaps"],
    ("ps5_masked_attention", "masked_softmax_cols"): ["masked_self_attention", "equivariance_gaps"],
    ("ps5_masked_attention", "masked_self_attention"): ["equivariance_gaps"],
    ("ps5_masked_attention", "positional_encoding"): ["equivariance_gaps"],
}


def uses(ns, caller, callee, via=()):
    """Does the student's caller call callee (or an already affected function) by name?"""
    import inspect, re
    src = ns.get("_src", {}).get("SelfAttention" if caller.startswith("SelfAttention.") else caller)
    if src is None:
        raise KeyError(caller)
    short = callee.split(".")[-1]
    if any(re.search(r"\b" + re.escape(v.split(".")[-1]) + r"\s*\(", src) for v in via):
        return True
    if callee == "SelfAttention.__init__":
        return True
    if callee == "_head" and caller != "single_head_attention":
        return "single_head_attention" in src
    if callee == "_attend":
        return True
    return re.search(r"\b" + re.escape(short) + r"\s*\(", src) is not None


if __name__ == "__main__":
    from bugs import BUGGY
    from build import CORRECT
    report = {"correct": {}, "bugs": []}
    refs = {ps: load("blind4_s2", ps) for ps in PSS}
    ok = True
    for st in CORRECT:
        for ps in PSS:
            ns = load(st, ps)
            bad = [n for n in PUBLIC[ps] if differs(ps, n, ns, refs[ps])[0]]
            report["correct"][f"{st}/{ps}"] = bad
            if bad:
                ok = False
                print("CORRECT STUDENT DIFFERS:", st, ps, bad)
    print("correct students agree with reference on all probes:", ok)
    for st, spec in BUGGY.items():
        cache = {}
        for gid, fn, mistake, _aff in spec["bugs"]:
            ps = next(p for p in PSS if gid.startswith(p.split("_")[0] + "_"))
            if fn is None:
                report["bugs"].append(dict(student=st, ps=ps, cell=gid, function=None, changes_output=None, also_affects=[]))
                continue
            ns = cache.setdefault(ps, load(st, ps))
            public = HELPER_OF.get(fn, fn)
            d, notes = differs(ps, public, ns, refs[ps])
            affected = []
            patchable = fn in refs[ps] and not fn.startswith("_") and "." not in fn
            if patchable:
                # the same student with only the buggy function swapped for the reference one
                ns_fixed = load(st, ps)
                ns_fixed[fn] = refs[ps][fn]
            for caller in CALLERS.get((ps, fn), []):
                if caller == public:
                    continue
                if patchable:
                    if differs(ps, caller, ns, ns_fixed)[0]:
                        affected.append(caller)
                elif uses(ns, caller, fn, via=affected) and differs(ps, caller, ns, refs[ps])[0]:
                    affected.append(caller)
            if public != fn and public not in affected:
                affected.insert(0, public)
            report["bugs"].append(dict(student=st, ps=ps, cell=gid, function=fn, changes_output=d,
                                       probe_note=notes[:1], also_affects=affected))
            print(st, gid, fn, "changes output:", d, "affects:", affected)
    json.dump(report, open("/work/blind4/class4_build/probe_results.json", "w"), indent=1)

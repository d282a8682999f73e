import os, io, contextlib, numpy as np
os.environ["MPLBACKEND"] = "Agg"
from lib import *
from make import base_sources, student_sources
def ns_for(name, ps):
    nb = build(ps, student_sources(name, ps) if name.startswith("blind12_s") and int(name.split("_s")[1]) > 4 else base_sources(name, ps))
    ns = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for c in nb.cells:
            if c.cell_type != "code": continue
            g = c.metadata.get("nbgrader", {})
            if g.get("grade"): continue
            exec(c.source, ns)
    return ns
rng = np.random.default_rng(5)
def same(a, b): return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-4, atol=1e-6*(1+np.abs(b).max()))
def check(name):
    bad = []
    q = io.StringIO()
    with contextlib.redirect_stdout(q):
        # ps1
        r = ns_for("REF", P[0]); s = ns_for(name, P[0])
        D, N, Dq, Dv = 6, 5, 3, 4
        X = rng.normal(size=(D, N)) * 3; Xc = X.copy()
        oq, ok, ov = rng.normal(size=(Dq, D)), rng.normal(size=(Dq, D)), rng.normal(size=(Dv, D))
        bq, bk, bv = rng.normal(size=(Dq, 1)), rng.normal(size=(Dq, 1)), rng.normal(size=(Dv, 1))
        a = s["scaled_dot_product_self_attention"](X, ov, oq, ok, bv, bq, bk); b = r["scaled_dot_product_self_attention"](X, ov, oq, ok, bv, bq, bk)
        if not (same(a[0], b[0]) and same(a[1], b[1]) and np.array_equal(X, Xc)): bad.append("ps1 scaled")
        oq2, ok2, ov2 = [rng.normal(size=(D, D)) for _ in range(3)]; bq2, bk2, bv2 = [rng.normal(size=(D, 1)) for _ in range(3)]
        xs = [X[:, [n]] for n in range(N)]
        a = s["self_attention_loop"](xs, ov2, oq2, ok2, bv2, bq2, bk2); b = r["self_attention_loop"](xs, ov2, oq2, ok2, bv2, bq2, bk2)
        if len(a) != N or not all(same(x, y) and np.shape(x) == (D, 1) for x, y in zip(a, b)): bad.append("ps1 loop")
        z = rng.normal(size=7) * 500
        if not same(np.ravel(s["softmax"](list(z))), r["softmax"](z)): bad.append("ps1 softmax")
        Z = rng.normal(size=(5, 7)) * 800; Zc = Z.copy()
        if not (same(s["softmax_cols"](Z), r["softmax_cols"](Z)) and np.array_equal(Z, Zc)): bad.append("ps1 softmax_cols")
        a = s["self_attention"](X, ov2, oq2, ok2, bv2, bq2, bk2); b = r["self_attention"](X, ov2, oq2, ok2, bv2, bq2, bk2)
        if not (same(a[0], b[0]) and same(a[1], b[1])): bad.append("ps1 sa")
        f = lambda M: s["scaled_dot_product_self_attention"](M, ov2, oq2, ok2, bv2, bq2, bk2)[0]
        if s["check_equivariance"](f, X, [4, 2, 0, 1, 3]) is not True: bad.append("ps1 equiv")
        # ps2
        r = ns_for("REF", P[1]); s = ns_for(name, P[1])
        D, N, H = 12, 7, 3
        X = rng.normal(size=(D, N)) * 10
        heads = [{k: rng.normal(size=(D // H, D)) for k in ("omega_q", "omega_k", "omega_v")} for _ in range(H)]
        for h in heads: h.update({k: rng.normal(size=(D // H, 1)) for k in ("beta_q", "beta_k", "beta_v")})
        oc = rng.normal(size=(D, D))
        if not same(s["multihead_self_attention"](X, heads, oc), r["multihead_self_attention"](X, heads, oc)): bad.append("ps2 general")
        h = heads[0]; args = [h[k] for k in ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")]
        h2 = heads[1]; args2 = [h2[k] for k in ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")]
        oc2 = rng.normal(size=(2 * D // H, 2 * D // H))
        if not same(s["multihead_scaled_self_attention"](X, *args, *args2, oc2), r["multihead_scaled_self_attention"](X, *args, *args2, oc2)): bad.append("ps2 two")
        # ps3
        r = ns_for("REF", P[2]); s = ns_for(name, P[2])
        Z = rng.normal(size=(4, 6)) + 900; Zc = Z.copy()
        if not (same(s["softmax"](Z), r["softmax"](Z)) and np.array_equal(Z, Zc)): bad.append("ps3 softmax")
        np.random.seed(3); L = s["SelfAttention"](7); np.random.seed(3); L2 = s["SelfAttention"](7)
        if not np.array_equal(L.W_q, L2.W_q): bad.append("ps3 repeat")
        x = rng.random(size=(5, 7)); xc = x.copy()
        R = r["SelfAttention"](7)
        for k in ("W_q", "W_k", "W_v", "W_o"): setattr(R, k, getattr(L, k).copy())
        o1 = L.forward(x); o2 = L.forward(x)
        if not (same(o1, R.forward(x)) and same(o2, o1) and np.array_equal(x, xc)): bad.append("ps3 forward")
        # ps4
        r = ns_for("REF", P[3]); s = ns_for(name, P[3])
        T, dm, dk = 5, 6, 3
        toks = rng.normal(size=(T, dm)) * 30; WQ, WK, WV = rng.normal(size=(dm, dk)), rng.normal(size=(dm, dk)), rng.normal(size=(dm, dk))
        a = s["single_query_attention"](toks[2], toks, WQ, WK, WV); b = r["single_query_attention"](toks[2], toks, WQ, WK, WV)
        if not (same(a[0], b[0]) and same(a[1], b[1]) and np.ndim(a[0]) == 1): bad.append("ps4 sq")
        if (s["head_W_shape"], s["concat_shape"], s["W_O_shape"]) != ((4, 2), (3, 4), (4, 4)): bad.append("ps4 dims")
        W = rng.normal(size=(5, 12)); bl = s["split_heads"](W, 3)
        if not (isinstance(bl, list) and all(np.array_equal(x, y) for x, y in zip(bl, r["split_heads"](W, 3)))): bad.append("ps4 split")
        # ps5
        r = ns_for("REF", P[4]); s = ns_for(name, P[4])
        D, N, Dq = 6, 7, 4
        X = rng.normal(size=(D, N)) * 5; Xc = X.copy()
        oq, ok, ov = rng.normal(size=(Dq, D)), rng.normal(size=(Dq, D)), rng.normal(size=(D, D))
        bq, bk, bv = rng.normal(size=(Dq, 1)), rng.normal(size=(Dq, 1)), rng.normal(size=(D, 1))
        a = s["masked_self_attention"](X, ov, oq, ok, bv, bq, bk); b = r["masked_self_attention"](X, ov, oq, ok, bv, bq, bk)
        if not (same(a[0], b[0]) and same(a[1], b[1]) and np.array_equal(X, Xc)): bad.append("ps5 msa")
        S_ = rng.normal(size=(6, 5)) * 400; M = rng.random(size=(6, 5)) > 0.5; M[:, 0] = False; Sc = S_.copy()
        if not (same(s["masked_softmax_cols"](S_, M), r["masked_softmax_cols"](S_, M)) and np.array_equal(S_, Sc)): bad.append("ps5 msc")
        if not same(s["positional_encoding"](10, 9), r["positional_encoding"](10, 9)): bad.append("ps5 pe")
        perm = list(rng.permutation(N))
        if not same(s["equivariance_gaps"](X, perm, ov, oq, ok, bv, bq, bk), r["equivariance_gaps"](X, perm, ov, oq, ok, bv, bq, bk)): bad.append("ps5 gaps")
        if not np.asarray(s["causal_mask"](3)).dtype == bool: bad.append("ps5 mask dtype")
    return bad
P = PS
import sys
for n in sys.argv[1:]:
    print(n, check(n))

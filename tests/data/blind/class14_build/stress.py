"""My own extra checks (hidden-test-like) on the built notebooks; not part of the grading."""
import nbformat, numpy as np, matplotlib, sys, io, contextlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.show = lambda *a, **k: None
from bugs import PS

def ns_for(st, ps):
    nb = nbformat.read(f"/work/blind14/class14/{st}/{ps}/{ps}.ipynb", 4)
    g = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for c in nb.cells:
            if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade"):
                try: exec(c.source, g)
                except Exception: pass
    return g

def checks(st):
    fails = []
    def chk(name, fn):
        try:
            with np.errstate(all="ignore"), contextlib.redirect_stdout(io.StringIO()):
                ok = fn()
        except Exception as e:
            ok = False
        if not ok: fails.append(name)
    r = np.random.default_rng(5)
    g = ns_for(st, PS[1])
    D, N, Dq, Dv = 6, 5, 3, 2
    X = r.normal(size=(D, N)); oq, ok_, ov = r.normal(size=(Dq, D)), r.normal(size=(Dq, D)), r.normal(size=(Dv, D))
    bq, bk, bv = r.normal(size=(Dq, 1)), r.normal(size=(Dq, 1)), r.normal(size=(Dv, 1))
    def ref(X, ov, oq, ok_, bv, bq, bk, s):
        Q, K, V = bq + oq @ X, bk + ok_ @ X, bv + ov @ X
        S = K.T @ Q / s; E = np.exp(S - S.max(0)); A = E / E.sum(0); return V @ A, A
    Xc = X.copy()
    chk("ps1 scaled Dq<D", lambda: np.allclose(g["scaled_dot_product_self_attention"](X, ov, oq, ok_, bv, bq, bk)[0], ref(X, ov, oq, ok_, bv, bq, bk, np.sqrt(Dq))[0]) and np.array_equal(X, Xc))
    chk("ps1 softmax big", lambda: np.allclose(np.ravel(g["softmax"](np.array([5000., 0, 4999]))), [0.7310586, 0, 0.2689414]))
    o2 = r.normal(size=(D, D))
    chk("ps1 loop other size", lambda: np.allclose(np.hstack(g["self_attention_loop"]([X[:, [i]] for i in range(N)], o2, o2.T, o2 * 2, X[:, [0]], X[:, [1]], X[:, [2]])), ref(X, o2, o2.T, o2 * 2, X[:, [0]], X[:, [1]], X[:, [2]], 1)[0]))
    g = ns_for(st, PS[2])
    heads = [dict(omega_q=r.normal(size=(2, 6)), omega_k=r.normal(size=(2, 6)), omega_v=r.normal(size=(2, 6)), beta_q=r.normal(size=(2, 1)), beta_k=r.normal(size=(2, 1)), beta_v=r.normal(size=(2, 1))) for _ in range(3)]
    oc = r.normal(size=(6, 6)); X2 = r.normal(size=(6, 7))
    want = oc @ np.vstack([ref(X2, h["omega_v"], h["omega_q"], h["omega_k"], h["beta_v"], h["beta_q"], h["beta_k"], np.sqrt(2))[0] for h in heads])
    chk("ps2 general 3 heads", lambda: np.allclose(g["multihead_self_attention"](X2, heads, oc), want))
    h0, h1 = heads[0], heads[1]; oc4 = r.normal(size=(4, 4))
    want2 = oc4 @ np.vstack([ref(X2, h["omega_v"], h["omega_q"], h["omega_k"], h["beta_v"], h["beta_q"], h["beta_k"], np.sqrt(2))[0] for h in (h0, h1)])
    chk("ps2 two heads size 2", lambda: np.allclose(g["multihead_scaled_self_attention"](X2, *(h0[k] for k in ("omega_v","omega_q","omega_k","beta_v","beta_q","beta_k")), *(h1[k] for k in ("omega_v","omega_q","omega_k","beta_v","beta_q","beta_k")), oc4), want2))
    g = ns_for(st, PS[3])
    np.random.seed(3); L1 = g["SelfAttention"](5); np.random.seed(3); L2 = g["SelfAttention"](5)
    chk("ps3 init repeatable", lambda: np.array_equal(L1.W_q, L2.W_q))
    x = np.random.random((4, 5)); chk("ps3 forward twice", lambda: np.allclose(L1.forward(x), L1.forward(x)))
    S = np.array([[900., 0], [0, 1]]); Sc = S.copy(); chk("ps3 softmax", lambda: np.allclose(g["softmax"](S)[1], [0.26894142, 0.73105858]) and np.array_equal(S, Sc))
    g = ns_for(st, PS[4])
    tok = r.normal(size=(5, 4)); WQ, WK, WV = r.normal(size=(4, 3)), r.normal(size=(4, 3)), r.normal(size=(4, 2))
    q = tok[2] @ WQ; s = (tok @ WK) @ q / np.sqrt(3); a = np.exp(s - s.max()); a /= a.sum()
    chk("ps4 single query dv!=dk", lambda: np.allclose(g["single_query_attention"](tok[2], tok, WQ, WK, WV)[1], a @ (tok @ WV)))
    sc = np.array([3., 1, 2]); scc = sc.copy(); chk("ps4 weights no mutation", lambda: (g["get_attention_weights"](sc) is not None) and np.array_equal(sc, scc))
    chk("ps4 dims", lambda: (g["head_W_shape"], g["concat_shape"], g["W_O_shape"]) == ((4, 2), (3, 4), (4, 4)))
    g = ns_for(st, PS[5])
    chk("ps5 mask 7", lambda: np.array_equal(g["causal_mask"](7), np.triu(np.ones((7, 7), bool))) and g["causal_mask"](7).dtype == bool)
    chk("ps5 PE 8x3", lambda: np.allclose(g["positional_encoding"](8, 3)[5, 2], np.cos(2 / 10000 ** (4 / 8))))
    return fails

for st in sys.argv[1:]:
    print(st, checks(st))

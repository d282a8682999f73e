import sys, warnings
sys.path.insert(0, "/work/blind9/class9_build")
import matplotlib; matplotlib.use("Agg")
import numpy as np, io, contextlib
from nbtools import PSS, build
from styles import STYLES
warnings.simplefilter("error")
def ns_for(k, ps):
    nb = build(ps, STYLES[k]); ns = {}
    for c in nb.cells:
        if c.cell_type != "code": continue
        g = c.metadata.get("nbgrader", {})
        if g.get("grade"): continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(c.source, ns)
    return ns
rng = np.random.default_rng(5)
def chk(name, vals):
    ref = vals[0]
    for k, v in enumerate(vals[1:], 2):
        ok = all(np.allclose(a, b, rtol=1e-6, atol=1e-9) and np.shape(a) == np.shape(b) for a, b in zip(ref, v))
        if not ok: print("MISMATCH", name, "style", k)
N1 = [ns_for(k, PSS[0]) for k in (1,2,3,4)]
D, Dq, Dv, N = 6, 3, 5, 7
X = rng.normal(size=(D, N)) * 30
ov, oq, ok_ = rng.normal(size=(Dv, D)), rng.normal(size=(Dq, D)), rng.normal(size=(Dq, D))
bv, bq, bk = rng.normal(size=(Dv, 1)), rng.normal(size=(Dq, 1)), rng.normal(size=(Dq, 1))
args = [a.copy() for a in (X, ov, oq, ok_, bv, bq, bk)]
outs = []
oD = rng.normal(size=(D, D)); bD = rng.normal(size=(D, 1))
for ns in N1:
    r = []
    r.append(ns["softmax"](list(rng.normal(size=5) * 0 + np.array([0, 2000, 3, -900, 5.]))))
    r += list(ns["scaled_dot_product_self_attention"](*args))
    Xs = X[:, :4]; ovs = rng.normal(size=(D, D))
    r += list(ns["self_attention"](Xs, ovs, ovs, ovs, bq*0+1, bq*0+1, bq*0+1)) if False else []
    allx = [X[:, [i]] for i in range(N)]
    r.append(np.hstack(ns["self_attention_loop"](allx, oD, oD * 0.1, oD.T * 0.1, bD, bD, bD)))
    r.append(ns["self_attention"](X * 0.05, oD, oD * 0.1, oD.T * 0.1, bD, bD, bD)[0])
    r.append(ns["softmax_cols"](X * 40))
    r.append(ns["check_equivariance"](lambda Z: ns["scaled_dot_product_self_attention"](Z, *args[1:])[0], X, [3, 1, 0, 2, 6, 5, 4]))
    outs.append(r)
    assert all(np.array_equal(a, b) for a, b in zip(args, (X, ov, oq, ok_, bv, bq, bk)))
chk("ps1", outs)
print("ps1 check", outs[0][-1])
# ps2
N2 = [ns_for(k, PSS[1]) for k in (1,2,3,4)]
D, N, H = 12, 5, 3
X = rng.normal(size=(D, N)) * 20
heads = [{k: rng.normal(size=(D // H, D if k.startswith("omega") else 1)) for k in ("omega_q","omega_k","omega_v","beta_q","beta_k","beta_v")} for _ in range(H)]
oc = rng.normal(size=(D, D))
outs = [[ns["multihead_self_attention"](X, heads, oc), ns["single_head_attention"](X, *[heads[0][k] for k in ("omega_v","omega_q","omega_k","beta_v","beta_q","beta_k")])] for ns in N2]
chk("ps2", outs)
# ps3
N3 = [ns_for(k, PSS[2]) for k in (1,2,3,4)]
outs = []
for ns in N3:
    np.random.seed(3); L = ns["SelfAttention"](6)
    for nm in ("W_q","W_k","W_v","W_o"): setattr(L, nm, np.random.default_rng(1).normal(size=(6,6)) + ord(nm[-1]) * 0.01)
    x = np.random.default_rng(2).normal(size=(9, 6)) * 10
    outs.append([L.forward(x), L.forward(x), ns["softmax"](np.random.default_rng(3).normal(size=(4, 7)) * 900)])
chk("ps3", outs)
# ps4
N4 = [ns_for(k, PSS[3]) for k in (1,2,3,4)]
outs = []
T, dm, dk, dv = 5, 6, 3, 4
toks = rng.normal(size=(T, dm)) * 10; WQ, WK, WV = rng.normal(size=(dm, dk)), rng.normal(size=(dm, dk)), rng.normal(size=(dm, dv))
for ns in N4:
    outs.append([*ns["single_query_attention"](toks[2], toks, WQ, WK, WV), *ns["split_heads"](rng.normal(size=(3, 12)) * 0 + np.arange(36.).reshape(3, 12), 3),
                 ns["get_context_vector"](np.arange(5.) / 10, toks), ns["head_W_shape"], ns["concat_shape"], ns["W_O_shape"]])
chk("ps4", outs)
# ps5
N5 = [ns_for(k, PSS[4]) for k in (1,2,3,4)]
outs = []
D, N = 6, 7
X = rng.normal(size=(D, N)) * 20
p = [rng.normal(size=(D, D)) for _ in range(3)] + [rng.normal(size=(D, 1)) for _ in range(3)]
sc = rng.normal(size=(5, 4)) * 500; mk = rng.random((5, 4)) > 0.5; mk[:, 2] = False
for ns in N5:
    sc0 = sc.copy()
    outs.append([ns["causal_mask"](6), ns["masked_softmax_cols"](sc, mk), *ns["masked_self_attention"](X, *p), ns["positional_encoding"](8, 9),
                 ns["equivariance_gaps"](X, [3, 1, 0, 2, 6, 5, 4], *p)])
    assert np.array_equal(sc, sc0)
chk("ps5", outs)
print("done")

"""Compare the four correct styles on hidden-like inputs (other shapes, D_q < D, big logits)."""
import sys; sys.path.insert(0, "/work/blind8/class8_build")
import numpy as np, warnings
from common import *
from styles import STYLES

def namespace(style, ps):
    nb = fill(ps, STYLES[style]); ns = {}
    import io, contextlib, matplotlib; matplotlib.use("Agg")
    for c in nb.cells:
        if c.cell_type == "code" and not (gid(c) or "").startswith(ps[:3] + "_") or gid(c) in (None,) :
            pass
    for c in nb.cells:
        if c.cell_type != "code": continue
        g = gid(c) or ""
        if c.metadata.get("nbgrader", {}).get("grade"):  # skip test cells
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(c.source, ns)
    return ns

def cases(ps, ns, rng):
    out = []
    if ps == PS[0]:
        D, Dq, Dv, N = 5, 3, 2, 7
        X = rng.normal(size=(D, N)) * 30
        p = (rng.normal(size=(Dv, D)), rng.normal(size=(Dq, D)), rng.normal(size=(Dq, D)),
             rng.normal(size=(Dv, 1)), rng.normal(size=(Dq, 1)), rng.normal(size=(Dq, 1)))
        out.append(ns["softmax"]([0.0, 800.0, -3.0]))
        out.append(ns["softmax"](np.array([[1.0], [2.0]])))
        out.append(ns["softmax_cols"](rng.normal(size=(4, 6)) * 1000))
        out += list(ns["scaled_dot_product_self_attention"](X, *p))
        out += list(ns["scaled_dot_product_self_attention"](X / 30, *p))   # moderate scores
        p2 = (rng.normal(size=(D, D)),) * 3 + (rng.normal(size=(D, 1)),) * 3
        p3 = tuple(rng.normal(size=a.shape) for a in p2)
        out += list(ns["self_attention"](X / 30, *p3))
        out.append(np.hstack(ns["self_attention_loop"]([X[:, [i]] / 30 for i in range(N)], *p3)))
        out += list(ns["self_attention"](X / 30, *p2))
        out.append(np.hstack(ns["self_attention_loop"]([X[:, [i]] / 30 for i in range(N)], *p2)))
        f = lambda Z: ns["scaled_dot_product_self_attention"](Z, *p)[0]
        out.append(float(ns["check_equivariance"](f, X, [3, 1, 0, 2, 6, 5, 4])))
        out.append(float(ns["check_equivariance"](lambda Z: Z[:, ::-1], X, [3, 1, 0, 2, 6, 5, 4])))
    if ps == PS[1]:
        D, N, H = 12, 5, 3
        X = rng.normal(size=(D, N)) * 50
        heads = [{k: rng.normal(size=(D // H, D if k.startswith("omega") else 1)) for k in
                  ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")} for _ in range(H)]
        oc = rng.normal(size=(D, D))
        out.append(ns["multihead_self_attention"](X, heads, oc))
        order = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
        out.append(ns["single_head_attention"](X, *[heads[0][k] for k in order]))
        out.append(ns["single_head_attention"](X / 50, *[heads[0][k] for k in order]))
        out.append(ns["multihead_self_attention"](X / 50, heads, oc))
        oc2 = rng.normal(size=(2 * D // H, 2 * D // H))
        out.append(ns["multihead_scaled_self_attention"](X[:8], *[heads[0][k][:, :8] if k.startswith("omega") else heads[0][k] for k in order],
                   *[heads[1][k][:, :8] if k.startswith("omega") else heads[1][k] for k in order], oc2))
    if ps == PS[2]:
        np.random.seed(5); layer = ns["SelfAttention"](6)
        x = rng.normal(size=(9, 6)) * 20
        out.append(layer.forward(x))
        out.append(layer.forward(x / 20))
        out.append(ns["softmax"](rng.normal(size=(3, 5)) * 2000))
    if ps == PS[3]:
        T, dm, dk = 5, 6, 3
        toks = rng.normal(size=(T, dm)) * 40
        WQ, WK, WV = rng.normal(size=(dm, dk)), rng.normal(size=(dm, dk)), rng.normal(size=(dm, 2))
        out += list(ns["single_query_attention"](toks[2], toks, WQ, WK, WV))
        out += list(ns["single_query_attention"](toks[2] / 40, toks / 40, WQ, WK, WV))
        out.append(ns["get_context_vector"](np.array([0.2, 0.3, 0.5]), rng.normal(size=(3, 7))))
        out.append(ns["scale_scores"](np.array([3, -6]), 9))
        out += ns["split_heads"](rng.normal(size=(5, 12)), 3)
        out.append(np.array([ns["head_W_shape"], ns["concat_shape"], ns["W_O_shape"]]))
    if ps == PS[4]:
        out.append(ns["causal_mask"](7).astype(float))
        s = rng.normal(size=(6, 6)) * 1000; m = rng.random(size=(6, 6)) < 0.5; m[:, 2] = False
        out.append(ns["masked_softmax_cols"](s, m))
        D, N = 6, 7
        X = rng.normal(size=(D, N)) * 30
        p = (rng.normal(size=(D, D)), rng.normal(size=(2, D)), rng.normal(size=(2, D)),
             rng.normal(size=(D, 1)), rng.normal(size=(2, 1)), rng.normal(size=(2, 1)))
        out += list(ns["masked_self_attention"](X, *p))
        out += list(ns["masked_self_attention"](X / 30, *p))
        out.append(ns["positional_encoding"](8, 11))
        out.append(np.ravel(ns["equivariance_gaps"](X / 30, [6, 5, 4, 3, 2, 1, 0], *p)))
    return out

if __name__ == "__main__":
    for ps in PS:
        ref = None
        for s in STYLES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = cases(ps, namespace(s, ps), np.random.default_rng(0))
            if ref is None:
                ref = res; continue
            ok = all(np.shape(np.ravel(a)) == np.shape(np.ravel(b)) and np.allclose(np.ravel(a), np.ravel(b), rtol=1e-6, atol=1e-9, equal_nan=False) for a, b in zip(ref, res))
            print(ps, "style", s, "agrees with style 1" if ok else "DIFFERS",
                  "" if ok else [i for i, (a, b) in enumerate(zip(ref, res)) if not (np.shape(np.ravel(a)) == np.shape(np.ravel(b)) and np.allclose(np.ravel(a), np.ravel(b)))])
        print(ps, "style 1 finite:", all(np.all(np.isfinite(np.ravel(a))) for a in ref))

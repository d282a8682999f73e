"""Probe every labelled bug on fresh inputs (other sizes/seeds) against the reference style A,
and check that the four correct styles agree with each other. Each bug is probed ALONE
(applied to its base style), so both bugs of a two-bug function are verified separately.
Writes probe_results.json."""
import contextlib, io, json, os, sys, copy
import numpy as np
import matplotlib
matplotlib.use("Agg")
import nbformat
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from styles import STYLES
from bugs import BUGS, STUDENTS, PS_OF

REL = "/work/blind5/release"
HERE = os.path.dirname(os.path.abspath(__file__))
PSS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
       "ps4_encoder_decoder_attention", "ps5_masked_attention"]


def namespace(ps, sources):
    nb = nbformat.read(f"{REL}/{ps}/{ps}.ipynb", as_version=4)
    ns = {}
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
        for c in nb.cells:
            if c.cell_type != "code":
                continue
            md = c.metadata.get("nbgrader", {})
            if md.get("grade"):
                continue  # test cells
            src = sources.get(md.get("grade_id"), c.source) if md.get("solution") else c.source
            try:
                exec(compile(src, f"<{md.get('grade_id')}>", "exec"), ns)
            except Exception as e:  # noqa
                pass
    import matplotlib.pyplot as plt
    plt.close("all")
    return ns


def rng(seed):
    return np.random.default_rng(seed)


def params(r, D, Dq=None, Dv=None):
    Dq = Dq or D
    Dv = Dv or D
    return (r.normal(size=(Dv, D)), r.normal(size=(Dq, D)), r.normal(size=(Dq, D)),
            r.normal(size=(Dv, 1)), r.normal(size=(Dq, 1)), r.normal(size=(Dq, 1)))


def heads_list(r, D, H):
    return [{k: r.normal(size=(D // H, D if k.startswith("omega") else 1))
             for k in ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")} for _ in range(H)]


def cases(ps, fn, ns):
    """Yield (description, thunk) pairs; thunk(ns) -> result."""
    r = rng(2024)
    if ps == "ps1_self_attention":
        if fn == "softmax":
            for z in ([0.3, -1.2, 2.0, 0.1, 0.0], list(r.normal(size=7)), [1000.0, 1001.0, 999.0],
                      [-1000.0, -1001.0, -999.0], [5, 1, 3]):
                yield f"softmax({z})", (lambda ns, z=z: np.ravel(ns["softmax"](z)))
        elif fn == "self_attention_loop":
            for D, N, s in ((3, 5, 1), (6, 2, 1), (4, 3, 30)):
                xs = [s * r.normal(size=(D, 1)) for _ in range(N)]
                p = params(r, D)
                yield f"loop D={D} N={N}", (lambda ns, xs=xs, p=p: ns["self_attention_loop"](xs, *p))
        elif fn == "softmax_cols":
            far = np.array([[0.0], [1.0], [2.0]]) + np.array([[0.0, -800.0, 30.0, 600.0]])
            for M in (r.normal(size=(5, 3)), far, 300 * r.normal(size=(2, 6))):
                yield f"softmax_cols {M.shape}", (lambda ns, M=M: ns["softmax_cols"](M.copy()))
        elif fn in ("self_attention", "scaled_dot_product_self_attention"):
            sizes = ((5, 7, None, None, 1), (2, 4, None, None, 1), (4, 5, None, None, 30)) if fn == "self_attention" else \
                    ((6, 4, 3, 5, 1), (3, 3, None, None, 1), (5, 2, 2, 2, 1), (4, 5, None, None, 30))
            for D, N, Dq, Dv, s in sizes:
                X = s * r.normal(size=(D, N))
                p = params(r, D, Dq, Dv)
                yield f"{fn} D={D} N={N} Dq={Dq} Dv={Dv}", (lambda ns, X=X, p=p: ns[fn](X, *p))
        elif fn == "check_equivariance":
            X = r.normal(size=(5, 4))
            p = params(r, 5)
            att = lambda Z, ns=ns: ns["scaled_dot_product_self_attention"](Z, *p)[0]
            fs = {"attention": att, "reverse": lambda Z: Z[:, ::-1],
                  "cumsum": lambda Z: np.cumsum(Z, axis=1), "tiny": lambda Z: Z + 1e-3 * Z[:, [0]],
                  "identity": lambda Z: 2.0 * Z,
                  "small": lambda Z: Z + 1e-4 * np.cumsum(Z, axis=1)}
            for name, f in fs.items():
                for perm in ([1, 2, 3, 0], [3, 0, 2, 1]):
                    yield f"check_equivariance({name}, {perm})", \
                        (lambda ns, f=f, perm=perm: bool(ns["check_equivariance"](f, X, perm)))
    elif ps == "ps2_multihead_attention":
        if fn == "single_head_attention":
            for D, N, Dh, s in ((6, 5, 2, 1), (9, 3, 3, 1), (8, 4, 4, 100), (6, 4, 6, 1)):
                X = s * r.normal(size=(D, N))
                p = params(r, D, Dh, Dh)
                yield f"single_head D={D} N={N} Dh={Dh} scale={s}", (lambda ns, X=X, p=p: ns[fn](X, *p))
        elif fn == "multihead_scaled_self_attention":
            for D, N, s in ((6, 4, 1), (4, 7, 1), (8, 5, 100)):
                X = s * r.normal(size=(D, N))
                p1, p2 = params(r, D, D // 2, D // 2), params(r, D, D // 2, D // 2)
                oc = r.normal(size=(D, D))
                yield f"mh2 D={D} N={N}", (lambda ns, X=X, p1=p1, p2=p2, oc=oc: ns[fn](X, *p1, *p2, oc))
        elif fn == "multihead_self_attention":
            for D, N, H, s in ((6, 5, 3, 1), (4, 3, 1, 1), (8, 2, 2, 1), (12, 4, 6, 1), (8, 5, 4, 100)):
                X = s * r.normal(size=(D, N))
                hs = heads_list(r, D, H)
                oc = r.normal(size=(D, D))
                yield f"mhH D={D} N={N} H={H}", (lambda ns, X=X, hs=hs, oc=oc: ns[fn](X, hs, oc))
    elif ps == "ps3_attention_layer":
        if fn == "softmax":
            far = np.array([[0.0, 1.0, 2.0, 3.0]]) + np.array([[0.0], [-900.0], [400.0]])
            for M in (r.normal(size=(3, 5)), far, r.normal(size=(4, 4)), r.normal(size=(2, 3)) + 950):
                yield f"softmax {M.shape}", (lambda ns, M=M: ns["softmax"](M.copy()))
        elif fn == "SelfAttention.__init__":
            def props(ns, dims, seed):
                np.random.seed(seed)
                L = ns["SelfAttention"](dims)
                Ws = [np.asarray(getattr(L, n)) for n in ("W_q", "W_k", "W_v", "W_o")]
                np.random.seed(seed + 1)
                L2 = ns["SelfAttention"](dims)
                return (L.dims == dims, all(W.shape == (dims, dims) for W in Ws),
                        all(abs(W.std() - 1) < 0.1 for W in Ws), all(abs(W.mean()) < 0.1 for W in Ws),
                        all(not np.allclose(Ws[i], Ws[j]) for i in range(4) for j in range(i + 1, 4)),
                        not np.array_equal(np.asarray(L.W_q), np.asarray(L2.W_q)))
            for dims, seed in ((96, 5), (80, 11)):
                yield f"__init__ dims={dims}", (lambda ns, dims=dims, seed=seed: props(ns, dims, seed))
        elif fn == "SelfAttention.forward":
            for dims, n, s in ((5, 7, 1), (3, 2, 1), (6, 4, 10), (4, 5, 100)):
                Ws = [r.normal(size=(dims, dims)) for _ in range(4)]
                x = s * r.random(size=(n, dims))
                def run(ns, dims=dims, Ws=Ws, x=x):
                    L = ns["SelfAttention"](dims)
                    L.W_q, L.W_k, L.W_v, L.W_o = [W.copy() for W in Ws]
                    return L.forward(x.copy())
                yield f"forward dims={dims} n={n} scale={s}", run
    elif ps == "ps4_encoder_decoder_attention":
        if fn == "get_scores":
            for T, n in ((5, 3), (2, 6), (4, 4)):
                M, v = r.normal(size=(T, n)), r.normal(size=n)
                yield f"get_scores T={T} n={n}", (lambda ns, M=M, v=v: ns[fn](M, v))
        elif fn == "scale_scores":
            for T, n in ((5, 7), (3, 2), (4, 16)):
                s = r.normal(size=T)
                yield f"scale_scores T={T} n={n}", (lambda ns, s=s, n=n: ns[fn](s.copy(), n))
        elif fn == "get_attention_weights":
            for s in (r.normal(size=6), np.array([0.0, 800.0, -5.0]), np.array([-1000.0, -990.0]),
                      np.array([2.0, 1.0])):
                yield f"weights {s}", (lambda ns, s=s: ns[fn](s.copy()))
        elif fn == "get_context_vector":
            for T, n in ((5, 3), (2, 7), (4, 4)):
                w = r.dirichlet(np.ones(T))
                M = r.normal(size=(T, n))
                yield f"context T={T} n={n}", (lambda ns, w=w, M=M: ns[fn](w, M))
        elif fn == "single_query_attention":
            for T, dm, dk, dv, s in ((5, 6, 3, 2, 1), (3, 4, 4, 4, 1), (4, 5, 2, 3, 100)):
                toks = s * r.normal(size=(T, dm))
                WQ, WK, WV = r.normal(size=(dm, dk)), r.normal(size=(dm, dk)), r.normal(size=(dm, dv))
                yield f"single_query T={T} dm={dm} dk={dk} dv={dv} s={s}", \
                    (lambda ns, toks=toks, WQ=WQ, WK=WK, WV=WV: ns[fn](toks[1], toks, WQ, WK, WV))
        elif fn == "head_W_shape":
            yield "the three shapes", (lambda ns: (ns.get("head_W_shape"), ns.get("concat_shape"), ns.get("W_O_shape")))
        elif fn == "split_heads":
            for rows, cols, h in ((5, 12, 3), (2, 6, 2), (3, 8, 4)):
                W = r.normal(size=(rows, cols))
                yield f"split_heads {rows}x{cols} h={h}", (lambda ns, W=W, h=h: ns[fn](W, h))
    elif ps == "ps5_masked_attention":
        if fn == "causal_mask":
            for N in (1, 3, 7):
                yield f"causal_mask({N})", (lambda ns, N=N: ns[fn](N))
        elif fn == "masked_softmax_cols":
            S = r.normal(size=(6, 4))
            M = r.random(size=(6, 4)) < 0.6
            M[:, 2] = False
            M[0, 0] = True
            S2 = S.copy(); S2[~M] = 2000.0
            tri = np.triu(np.ones((5, 5), dtype=bool))
            for name, s_, m_ in (("random", S, M), ("big masked", S2, M), ("causal", r.normal(size=(5, 5)) * 50, tri)):
                yield f"masked_softmax {name}", (lambda ns, s_=s_, m_=m_: ns[fn](s_.copy(), m_.copy()))
        elif fn == "masked_self_attention":
            for D, N, Dq, s in ((6, 7, 3, 1), (3, 4, None, 1), (4, 6, None, 100), (5, 2, 5, 1)):
                X = s * r.normal(size=(D, N))
                p = params(r, D, Dq)
                yield f"masked_sa D={D} N={N} Dq={Dq} s={s}", (lambda ns, X=X, p=p: ns[fn](X, *p))
        elif fn == "positional_encoding":
            for D, N in ((6, 9), (2, 3), (8, 1)):
                yield f"PE({D},{N})", (lambda ns, D=D, N=N: ns[fn](D, N))
        elif fn == "equivariance_gaps":
            for D, N, s in ((6, 4, 1), (4, 6, 1), (2, 3, 1), (4, 5, 30), (4, 6, 100)):
                X = s * r.normal(size=(D, N))
                p = params(r, D)
                perm = list(r.permutation(N))
                yield f"gaps D={D} N={N} perm={perm}", (lambda ns, X=X, p=p, perm=perm: ns[fn](X, perm, *p))


def same(a, b, strict_dtype=False):
    if isinstance(a, Exception) or isinstance(b, Exception):
        return False
    if isinstance(b, tuple) and not isinstance(b[0], (int, np.integer)):
        return isinstance(a, tuple) and len(a) == len(b) and all(same(x, y, strict_dtype) for x, y in zip(a, b))
    if isinstance(b, list) and b and isinstance(b[0], np.ndarray):
        return isinstance(a, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(b, (bool, np.bool_)):
        return bool(a) == bool(b) and isinstance(a, (bool, np.bool_))
    if isinstance(b, tuple):
        return a == b
    try:
        a_, b_ = np.asarray(a), np.asarray(b)
    except Exception:
        return False
    if a_.shape != b_.shape:
        return False
    if strict_dtype and a_.dtype != b_.dtype:
        return False
    if b_.dtype == bool:
        return np.array_equal(a_, b_)
    a_, b_ = a_.astype(float), b_.astype(float)
    if np.any(np.isnan(a_) != np.isnan(b_)):
        return False
    fin = np.isfinite(b_)
    return bool(np.allclose(a_[fin], b_[fin], rtol=1e-4, atol=1e-6 * (1 + np.abs(b_[fin]).max(initial=0))))


def call(thunk, ns):
    try:
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            return thunk(ns)
    except Exception as e:
        return e


FUNCS = {
    "ps1_self_attention": ["softmax", "self_attention_loop", "softmax_cols", "self_attention",
                           "scaled_dot_product_self_attention", "check_equivariance"],
    "ps2_multihead_attention": ["single_head_attention", "multihead_scaled_self_attention", "multihead_self_attention"],
    "ps3_attention_layer": ["softmax", "SelfAttention.__init__", "SelfAttention.forward"],
    "ps4_encoder_decoder_attention": ["get_scores", "scale_scores", "get_attention_weights", "get_context_vector",
                                      "single_query_attention", "head_W_shape", "split_heads"],
    "ps5_masked_attention": ["causal_mask", "masked_softmax_cols", "masked_self_attention",
                             "positional_encoding", "equivariance_gaps"],
}
TARGET = {"_stable_exp": "softmax_cols", "_linear": "single_head_attention"}


def probe(ps, fn, ns_ref, ns_test):
    diffs = []
    n = 0
    ref_cases = list(cases(ps, fn, ns_ref))
    test_cases = list(cases(ps, fn, ns_test))  # same rng seed -> same inputs
    for (desc, t_ref), (_, t_test) in zip(ref_cases, test_cases):
        n += 1
        a, b = call(t_test, ns_test), call(t_ref, ns_ref)
        if isinstance(b, Exception):
            raise RuntimeError(f"reference raised on {ps} {desc}: {b!r}")
        if not same(a, b, strict_dtype=(fn == "causal_mask")):
            diffs.append(f"{desc}: {type(a).__name__ if isinstance(a, Exception) else 'differs'}"
                         + (f" ({a})" if isinstance(a, Exception) else ""))
    return n, diffs


if __name__ == "__main__":
    out = {"styles": {}, "bugs": []}
    ok = True
    refs = {ps: namespace(ps, STYLES["A"]) for ps in PSS}
    for style in "BCD":
        for ps in PSS:
            ns = namespace(ps, STYLES[style])
            for fn in FUNCS[ps]:
                n, d = probe(ps, fn, refs[ps], namespace(ps, STYLES[style]))
                out["styles"][f"{style}/{ps}/{fn}"] = d
                if d:
                    ok = False
                    print("STYLE MISMATCH", style, ps, fn, d)
    for b in BUGS:
        ps = PS_OF(b["cell"])
        src = dict(STYLES[STUDENTS[b["student"]]])
        if b["full"] is not None:
            src[b["cell"]] = b["full"]
        else:
            src[b["cell"]] = src[b["cell"]].replace(b["old"], b["new"])
        fn = TARGET.get(b["function"], b["function"])
        n, d = probe(ps, fn, refs[ps], namespace(ps, src))
        out["bugs"].append({"student": b["student"], "ps": ps, "function": b["function"], "probed": fn,
                            "cases": n, "differing_cases": d})
        status = "REAL" if d else "NOT DETECTED"
        if not d:
            ok = False
        print(f"{status:12s} {b['student']:11s} {ps:30s} {b['function']:35s} {len(d)}/{n}")
    json.dump(out, open(os.path.join(HERE, "probe_results.json"), "w"), indent=1)
    print("ALL OK" if ok else "PROBLEMS")

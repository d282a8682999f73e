"""Fresh-input probes of every notebook function, and the comparison used everywhere.

probe(ps, fname, ns) -> list of case results (value or ("RAISE", "ename: msg")).
"""
import io
import contextlib
import warnings
import numpy as np

FUNCS = {
    "ps1_self_attention": ["softmax", "self_attention_loop", "softmax_cols", "self_attention",
                           "scaled_dot_product_self_attention", "check_equivariance"],
    "ps2_multihead_attention": ["single_head_attention", "multihead_scaled_self_attention",
                                "multihead_self_attention"],
    "ps3_attention_layer": ["softmax", "SelfAttention.__init__", "SelfAttention.forward"],
    "ps4_encoder_decoder_attention": ["get_scores", "scale_scores", "get_attention_weights",
                                      "get_context_vector", "single_query_attention",
                                      "head_W_shape", "concat_shape", "W_O_shape", "split_heads"],
    "ps5_masked_attention": ["causal_mask", "masked_softmax_cols", "masked_self_attention",
                             "positional_encoding", "equivariance_gaps"],
}

TEST_CELL = {
    "ps1_self_attention": {"softmax": "ps1_softmax", "self_attention_loop": "ps1_self_attention_loop",
                           "softmax_cols": "ps1_softmax_cols", "self_attention": "ps1_self_attention",
                           "scaled_dot_product_self_attention": "ps1_scaled_attention",
                           "check_equivariance": "ps1_equivariance"},
    "ps2_multihead_attention": {"single_head_attention": "ps2_single_head",
                                "multihead_scaled_self_attention": "ps2_multihead_scaled",
                                "multihead_self_attention": "ps2_multihead_general"},
    "ps3_attention_layer": {"softmax": "ps3_softmax", "SelfAttention.__init__": "ps3_init",
                            "SelfAttention.forward": "ps3_forward"},
    "ps4_encoder_decoder_attention": {"get_scores": "ps4_get_scores", "scale_scores": "ps4_scale_scores",
                                      "get_attention_weights": "ps4_attention_weights",
                                      "get_context_vector": "ps4_context_vector",
                                      "single_query_attention": "ps4_single_query",
                                      "head_W_shape": "ps4_dimensions", "concat_shape": "ps4_dimensions",
                                      "W_O_shape": "ps4_dimensions", "split_heads": "ps4_split_heads"},
    "ps5_masked_attention": {"causal_mask": "ps5_causal_mask", "masked_softmax_cols": "ps5_masked_softmax",
                             "masked_self_attention": "ps5_masked_attention",
                             "positional_encoding": "ps5_positional_encoding",
                             "equivariance_gaps": "ps5_equivariance"},
}


def _params(rng, D, Dq=None, Dv=None):
    Dq = D if Dq is None else Dq
    Dv = D if Dv is None else Dv
    return (rng.normal(size=(Dv, D)), rng.normal(size=(Dq, D)), rng.normal(size=(Dq, D)),
            rng.normal(size=(Dv, 1)), rng.normal(size=(Dq, 1)), rng.normal(size=(Dq, 1)))


def _cases(ps, fname, ns):
    """Yield zero-argument callables, one per fresh-input case."""
    g = ns.get
    if ps == "ps1_self_attention":
        if fname == "softmax":
            rng = np.random.default_rng(1)
            for z in (list(rng.normal(size=7)), np.array([1000.0, 1001.0, 999.0, -5.0]),
                      np.array([0.0, 800.0, -800.0]), [2.0], np.array([-1000.0, -1001.0])):
                yield lambda z=z: np.ravel(g("softmax")(z))
        elif fname == "self_attention_loop":
            for seed, D, N, s in ((2, 5, 6, 1.0), (3, 3, 2, 1.0), (4, 4, 4, 20.0)):
                rng = np.random.default_rng(seed)
                xs = [s * rng.normal(size=(D, 1)) for _ in range(N)]
                p = _params(rng, D)
                yield lambda xs=xs, p=p: [np.asarray(o) for o in g("self_attention_loop")(xs, *p)]
        elif fname == "softmax_cols":
            rng = np.random.default_rng(5)
            far = np.array([[0.0], [1.0], [2.0], [5.0]]) + np.array([[0.0, 900.0, -50.0, 300.0, -900.0]])
            for a in (rng.normal(size=(5, 7)), far, rng.normal(size=(4, 4)) + 1000, rng.normal(size=(6, 2)) * 300):
                yield lambda a=a: g("softmax_cols")(a)
        elif fname in ("self_attention", "scaled_dot_product_self_attention"):
            shapes = ((5, 7, None, None, 1.0), (6, 3, None, None, 1.0), (4, 5, None, None, 30.0))
            if fname == "scaled_dot_product_self_attention":
                shapes += ((6, 5, 3, 4, 1.0), (8, 4, 2, 5, 10.0))
            for i, (D, N, Dq, Dv, s) in enumerate(shapes):
                rng = np.random.default_rng(10 + i)
                X = s * rng.normal(size=(D, N))
                p = _params(rng, D, Dq, Dv)
                yield lambda X=X, p=p: g(fname)(X, *p)
        elif fname == "check_equivariance":
            rng = np.random.default_rng(20)
            D, N = 5, 6
            X = rng.normal(size=(D, N))
            p = _params(rng, D)

            def att(Z):
                Q = p[4] + p[1] @ Z
                K = p[5] + p[2] @ Z
                V = p[3] + p[0] @ Z
                S = K.T @ Q / np.sqrt(Q.shape[0])
                e = np.exp(S - S.max(0))
                return V @ (e / e.sum(0))
            offset = lambda Z: Z + 1e-4 * np.arange(Z.shape[1])      # not equivariant, tiny gap
            rowmix = lambda Z: np.cumsum(Z, axis=0)                   # equivariant (acts on rows)
            colsum = lambda Z: np.cumsum(Z, axis=1)                   # not equivariant
            for f, perm in ((att, [1, 2, 0, 5, 4, 3]), (offset, [5, 4, 3, 2, 1, 0]), (rowmix, [3, 1, 0, 2, 5, 4]),
                            (colsum, [1, 0, 2, 3, 4, 5]), (lambda Z: Z[:, ::-1], [0, 2, 1, 3, 4, 5])):
                yield lambda f=f, perm=perm: bool(g("check_equivariance")(f, X, perm))
            Xs = rng.normal(size=(3, 3))
            yield lambda: bool(g("check_equivariance")(lambda Z: Z * 2.0, Xs, [2, 0, 1]))
    elif ps == "ps2_multihead_attention":
        if fname == "single_head_attention":
            for i, (D, Dh, N, s) in enumerate(((10, 5, 7, 1.0), (6, 2, 4, 1.0), (8, 8, 3, 1.0), (9, 3, 5, 40.0))):
                rng = np.random.default_rng(30 + i)
                X = s * rng.normal(size=(D, N))
                p = _params(rng, D, Dh, Dh)
                yield lambda X=X, p=p: g(fname)(X, *p)
        elif fname == "multihead_scaled_self_attention":
            for i, (D, N, s) in enumerate(((6, 5, 1.0), (4, 7, 1.0), (10, 3, 40.0))):
                rng = np.random.default_rng(40 + i)
                X = s * rng.normal(size=(D, N))
                p1 = _params(rng, D, D // 2, D // 2)
                p2 = _params(rng, D, D // 2, D // 2)
                oc = rng.normal(size=(D, D))
                yield lambda X=X, p1=p1, p2=p2, oc=oc: g(fname)(X, *p1, *p2, oc)
        elif fname == "multihead_self_attention":
            for i, (D, N, H, s) in enumerate(((12, 4, 3, 1.0), (12, 5, 6, 1.0), (6, 6, 1, 1.0), (8, 3, 2, 40.0))):
                rng = np.random.default_rng(50 + i)
                X = s * rng.normal(size=(D, N))
                heads = []
                for _ in range(H):
                    ov, oq, ok, bv, bq, bk = _params(rng, D, D // H, D // H)
                    heads.append(dict(omega_q=oq, omega_k=ok, omega_v=ov, beta_q=bq, beta_k=bk, beta_v=bv))
                oc = rng.normal(size=(D, D))
                yield lambda X=X, heads=heads, oc=oc: g(fname)(X, heads, oc)
    elif ps == "ps3_attention_layer":
        if fname == "softmax":
            rng = np.random.default_rng(60)
            for a in (rng.normal(size=(4, 6)), np.array([[0.0, 1500.0, 3.0], [2.0, 1.0, 0.0]]),
                      rng.normal(size=(5, 5)) + 900, rng.normal(size=(3, 3)) * 400,
                      np.array([[0.0, 1.0]]) + np.array([[0.0], [-900.0], [900.0]])):
                yield lambda a=a: g("softmax")(a)
        elif fname == "SelfAttention.__init__":
            def feats():
                cls = g("SelfAttention")
                out = []
                for seed, dims in ((11, 96), (12, 80)):
                    np.random.seed(seed)
                    L = cls(dims)
                    Ws = [np.asarray(getattr(L, k)) for k in ("W_q", "W_k", "W_v", "W_o")]
                    out.append((L.dims == dims, all(W.shape == (dims, dims) for W in Ws),
                                all(abs(W.std() - 1) < 0.05 for W in Ws), all(abs(W.mean()) < 0.05 for W in Ws),
                                all(not np.allclose(Ws[i], Ws[j]) for i in range(4) for j in range(i + 1, 4))))
                np.random.seed(11)
                a = np.asarray(cls(7).W_q)
                np.random.seed(11)
                b = np.asarray(cls(7).W_q)
                np.random.seed(13)
                c = np.asarray(cls(7).W_q)
                out.append((bool(np.array_equal(a, b)), not np.array_equal(a, c)))
                return out
            yield feats
        elif fname == "SelfAttention.forward":
            for i, (n, d, s) in enumerate(((5, 6, 1.0), (8, 3, 1.0), (4, 5, 10.0), (1, 4, 1.0), (6, 6, 3.0))):
                def run(i=i, n=n, d=d, s=s):
                    rng = np.random.default_rng(70 + i)
                    np.random.seed(70 + i)
                    L = g("SelfAttention")(d)
                    L.W_q, L.W_k, L.W_v, L.W_o = (rng.normal(size=(d, d)) for _ in range(4))
                    return L.forward(s * rng.random(size=(n, d)))
                yield run
    elif ps == "ps4_encoder_decoder_attention":
        if fname == "get_scores":
            for i, (T, n) in enumerate(((5, 3), (2, 6), (4, 4))):
                rng = np.random.default_rng(80 + i)
                M, v = rng.normal(size=(T, n)), rng.normal(size=n)
                yield lambda M=M, v=v: g(fname)(M, v)
        elif fname == "scale_scores":
            rng = np.random.default_rng(90)
            for s, n in ((rng.normal(size=5), 7), (rng.normal(size=3), 16), (np.array([2.0, -4.0, 1.0, 0.5]), 4)):
                yield lambda s=s, n=n: g(fname)(s.copy(), n)
        elif fname == "get_attention_weights":
            rng = np.random.default_rng(91)
            for s in (rng.normal(size=6), np.array([0.0, 1000.0]), np.array([1000.0, 1001.0, 999.0]),
                      np.array([-1000.0, 0.0, -3.0]), np.array([800.0, -800.0, 0.0])):
                yield lambda s=s: g(fname)(s.copy())
        elif fname == "get_context_vector":
            for i, (T, n) in enumerate(((5, 3), (2, 6), (4, 4))):
                rng = np.random.default_rng(100 + i)
                w = rng.random(T)
                w /= w.sum()
                M = rng.normal(size=(T, n))
                yield lambda w=w, M=M: g(fname)(w, M)
        elif fname == "single_query_attention":
            for i, (T, dm, dk, dv, s) in enumerate(((4, 5, 3, 2, 1.0), (3, 4, 2, 2, 1.0), (5, 6, 6, 3, 1.0),
                                                    (4, 3, 5, 5, 50.0))):
                rng = np.random.default_rng(110 + i)
                toks = s * rng.normal(size=(T, dm))
                WQ, WK, WV = rng.normal(size=(dm, dk)), rng.normal(size=(dm, dk)), rng.normal(size=(dm, dv))
                yield lambda toks=toks, WQ=WQ, WK=WK, WV=WV: g(fname)(toks[1], toks, WQ, WK, WV)
        elif fname in ("head_W_shape", "concat_shape", "W_O_shape"):
            yield lambda: g(fname)
        elif fname == "split_heads":
            for W, h in ((np.arange(24.0).reshape(3, 8), 4), (np.arange(30.0).reshape(5, 6), 3),
                         (np.arange(12.0).reshape(6, 2), 1), (np.arange(16.0).reshape(4, 4), 2)):
                yield lambda W=W, h=h: ("list" if isinstance(g(fname)(W, h), list) else "other",
                                        [np.asarray(b) for b in g(fname)(W, h)])
    elif ps == "ps5_masked_attention":
        if fname == "causal_mask":
            for N in (7, 1, 3):
                yield lambda N=N: (str(np.asarray(g(fname)(N)).dtype), np.asarray(g(fname)(N)))
        elif fname == "masked_softmax_cols":
            rng = np.random.default_rng(120)
            S = rng.normal(size=(6, 5))
            M = rng.random(size=(6, 5)) < 0.6
            M[:, 2] = False
            M[0, :] = True
            M[0, 2] = False
            S2 = S.copy()
            S2[~M] = 2000.0
            tri = np.triu(np.ones((4, 4), dtype=bool))
            for s, m in ((S, M), (S + 1000, M), (S2, M), (rng.normal(size=(4, 4)) * 500, tri)):
                yield lambda s=s, m=m: g(fname)(s.copy(), m.copy())
        elif fname == "masked_self_attention":
            for i, (D, N, Dq, s) in enumerate(((3, 7, None, 1.0), (6, 4, 2, 1.0), (4, 5, None, 30.0), (5, 2, 3, 1.0))):
                rng = np.random.default_rng(130 + i)
                X = s * rng.normal(size=(D, N))
                p = _params(rng, D, Dq, None)
                yield lambda X=X, p=p: g(fname)(X, *p)
        elif fname == "positional_encoding":
            for D, N in ((8, 10), (6, 3), (2, 4), (16, 5)):
                yield lambda D=D, N=N: g(fname)(D, N)
        elif fname == "equivariance_gaps":
            for i, (D, N, perm) in enumerate(((6, 7, [3, 0, 6, 1, 5, 2, 4]), (4, 3, [1, 2, 0]), (2, 5, [4, 3, 2, 1, 0]))):
                rng = np.random.default_rng(140 + i)
                X = rng.normal(size=(D, N))
                p = _params(rng, D)
                yield lambda X=X, p=p, perm=perm: np.ravel(g(fname)(X, perm, *p))


def probe(ps, fname, ns):
    results = []
    for case in _cases(ps, fname, ns):
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                results.append(case())
        except Exception as e:  # noqa
            results.append(("RAISE", f"{type(e).__name__}: {str(e)[:120]}"))
    return results


def is_raise(x):
    return isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and x[0] == "RAISE"


def same(a, b):
    """True when two probe values agree (used case by case)."""
    if is_raise(a):
        return is_raise(b)
    if is_raise(b):
        return False
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if not isinstance(b, type(a)) and not isinstance(a, type(b)):
            return False
        if len(a) != len(b):
            return False
        return all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, (bool, np.bool_, int, np.integer)) or isinstance(b, (bool, np.bool_, int, np.integer)):
        try:
            return bool(np.all(np.asarray(a) == np.asarray(b))) and np.shape(a) == np.shape(b)
        except Exception:
            return False
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype == bool or b.dtype == bool:
        return a.dtype == b.dtype and np.array_equal(a, b)
    try:
        af, bf = a.astype(float), b.astype(float)
    except (TypeError, ValueError):
        return False
    if not np.array_equal(np.isfinite(af), np.isfinite(bf)):
        return False
    fin = np.isfinite(bf)
    return bool(np.allclose(af[fin], bf[fin], rtol=1e-4, atol=1e-6 * (1 + (np.abs(bf[fin]).max() if fin.any() else 0))))


def compare(ref, cand):
    """List of indices of the cases where cand differs from ref."""
    return [i for i, (r, c) in enumerate(zip(ref, cand)) if not same(r, c)]

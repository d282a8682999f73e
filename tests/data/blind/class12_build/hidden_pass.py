import numpy as np, io, contextlib
from hiddenish import ns_for, same
from lib import PS
rng = np.random.default_rng(1)
out = []
# s8 ps1 scaled D_q from columns
s = ns_for("blind12_s8", PS[0]); r = ns_for("REF", PS[0])
D, N, Dq = 6, 5, 3
X = rng.normal(size=(D, N)); oq, ok, ov = rng.normal(size=(Dq, D)), rng.normal(size=(Dq, D)), rng.normal(size=(D, D))
bq, bk, bv = rng.normal(size=(Dq, 1)), rng.normal(size=(Dq, 1)), rng.normal(size=(D, 1))
out.append(("s8 scaled", same(s["scaled_dot_product_self_attention"](X, ov, oq, ok, bv, bq, bk)[0], r["scaled_dot_product_self_attention"](X, ov, oq, ok, bv, bq, bk)[0])))
# s8 ps2 globals
s = ns_for("blind12_s8", PS[1]); r = ns_for("REF", PS[1])
X2 = s["X"] * 0.5
s["head1"] = s["single_head_attention"](s["X"], *[s[k] for k in ("omega_v1","omega_q1","omega_k1","beta_v1","beta_q1","beta_k1")]); s["head2"] = s["single_head_attention"](s["X"], *[s[k] for k in ("omega_v2","omega_q2","omega_k2","beta_v2","beta_q2","beta_k2")])
args1 = [s[k] for k in ("omega_v1","omega_q1","omega_k1","beta_v1","beta_q1","beta_k1")]
args2 = [s[k] for k in ("omega_v2","omega_q2","omega_k2","beta_v2","beta_q2","beta_k2")]
out.append(("s8 multihead globals", same(s["multihead_scaled_self_attention"](X2, *args1, *args2, s["omega_c"]), r["multihead_scaled_self_attention"](X2, *args1, *args2, s["omega_c"]))))
# s8 ps3 repeatability
s = ns_for("blind12_s8", PS[2]); np.random.seed(3); a = s["SelfAttention"](5).W_q; np.random.seed(3); b = s["SelfAttention"](5).W_q
out.append(("s8 init repeatable", np.array_equal(a, b)))
# s8 ps5 mutation
s = ns_for("blind12_s8", PS[4]); S_ = rng.normal(size=(4, 4)); Sc = S_.copy(); M = np.triu(np.ones((4, 4), bool)); s["masked_softmax_cols"](S_, M)
out.append(("s8 masked softmax leaves input", np.array_equal(S_, Sc)))
# s9 ps1 loop other N
s = ns_for("blind12_s9", PS[0]); r = ns_for("REF", PS[0])
xs = [rng.normal(size=(4, 1)) for _ in range(5)]
pars = (s["omega_v"], s["omega_q"], s["omega_k"], s["beta_v"], s["beta_q"], s["beta_k"])
with contextlib.redirect_stdout(io.StringIO()):
    a = s["self_attention_loop"](xs, *pars)
out.append(("s9 loop N=5", len(a) == 5))
# s9 ps3 forward twice
s = ns_for("blind12_s9", PS[2]); np.random.seed(0); L = s["SelfAttention"](4); x = rng.random(size=(3, 4))
with contextlib.redirect_stdout(io.StringIO()):
    o1 = L.forward(x); o2 = L.forward(x)
out.append(("s9 forward twice", np.allclose(o1, o2)))
# s9 ps4 dims
s = ns_for("blind12_s9", PS[3]); out.append(("s9 head_W_shape", s["head_W_shape"] == (4, 2)))
# s10 ps2 H_D with two heads of size 3
s = ns_for("blind12_s10", PS[1]); r = ns_for("REF", PS[1])
X = rng.normal(size=(6, 4)); p = [rng.normal(size=(3, 6)) for _ in range(3)] + [rng.normal(size=(3, 1)) for _ in range(3)]
out.append(("s10 single head size 3", same(s["single_head_attention"](X, *p), r["single_head_attention"](X, *p))))
for o in out: print(o)

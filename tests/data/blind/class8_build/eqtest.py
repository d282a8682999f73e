"""Would an exact == comparison pass ps1's visible equivariance test? (a check of the notebook's warning)"""
import sys, io, contextlib
sys.path.insert(0, "/work/blind8/class8_build")
import numpy as np
from common import fill, PS
from styles import STYLES
ns = {}
import matplotlib; matplotlib.use("Agg")
for c in fill(PS[0], STYLES[1]).cells:
    if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade_id") != "ps1_equivariance":
        with contextlib.redirect_stdout(io.StringIO()):
            exec(c.source, ns)
X, p = ns["X"], [ns[k] for k in ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")]
f = lambda Z: ns["scaled_dot_product_self_attention"](Z, *p)[0]
for perm in ([1, 2, 0], [2, 0, 1], [0, 2, 1]):
    print(perm, "exact equal:", bool((f(X[:, perm]) == f(X)[:, perm]).all()), "max diff", np.abs(f(X[:, perm]) - f(X)[:, perm]).max())
rng = np.random.default_rng(1)
Xb = rng.normal(size=(4, 9)); pb = list(rng.permutation(9))
print("N=9 exact equal:", bool((f(Xb[:, pb]) == f(Xb)[:, pb]).all()), np.abs(f(Xb[:, pb]) - f(Xb)[:, pb]).max())

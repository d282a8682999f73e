"""Check a few statements the notebooks make in their text."""
import sys, io, contextlib, warnings
sys.path.insert(0, "/work/blind8/class8_build")
import numpy as np
from common import fill, PS
from styles import STYLES
print("numpy", np.__version__)
try:
    float(np.ones((1, 1))); print("float(1x1 array) works")
except TypeError as e:
    print("float(1x1) TypeError:", e)

def ns_of(ps):
    ns = {}
    import matplotlib; matplotlib.use("Agg")
    for c in fill(ps, STYLES[1]).cells:
        if c.cell_type == "code":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(c.source, ns)
    return ns
ns = ns_of(PS[1])
print("ps2 head attentions (columns = outputs):")
for A in ns["head_attentions"]:
    print(np.round(A, 2))
ns = ns_of(PS[3])
print("ps4 head attention (rows = query tokens; columns this, is, translation):")
for A in ns["head_attention"]:
    print(np.round(A, 2))

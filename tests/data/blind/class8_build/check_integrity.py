"""Every submission equals its release notebook except the source of the solution cells."""
import sys, json
sys.path.insert(0, "/work/blind8/class8_build")
from common import PS, gid
rel = {ps: json.load(open(f"/work/blind8/release/{ps}/{ps}.ipynb")) for ps in PS}
bad = 0
for s in range(1, 11):
    for ps in PS:
        nb = json.load(open(f"/work/blind8/class8/blind8_s{s}/{ps}/{ps}.ipynb"))
        r = rel[ps]
        assert nb["metadata"] == r["metadata"] and nb["nbformat"] == r["nbformat"] and nb["nbformat_minor"] == r["nbformat_minor"], (s, ps)
        assert len(nb["cells"]) == len(r["cells"])
        for a, b in zip(nb["cells"], r["cells"]):
            sol = b.get("metadata", {}).get("nbgrader", {}).get("solution", False)
            for key in set(a) | set(b):
                if key == "source" and sol:
                    continue
                if a.get(key) != b.get(key):
                    bad += 1; print("DIFF", s, ps, b.get("id"), key)
print("differences outside solution sources:", bad)

"""Check styles 2-4 against style 1 on every probe, and that style 1 itself never raises."""
import json, sys
from common import PSETS, code_cells, exec_namespace
from probes import FUNCS, probe, compare, is_raise

report = {}
ok = True
for ps in PSETS:
    ref_ns, err = exec_namespace(ps, code_cells(ps, 1))
    assert not err, (ps, err)
    ref = {f: probe(ps, f, ref_ns) for f in FUNCS[ps]}
    for f, r in ref.items():
        raised = [x for x in r if is_raise(x)]
        if raised:
            print("STYLE 1 RAISES", ps, f, raised); ok = False
    for style in (2, 3, 4):
        ns, err = exec_namespace(ps, code_cells(ps, style))
        if err:
            print("EXEC ERR", ps, style, err); ok = False
        for f in FUNCS[ps]:
            d = compare(ref[f], probe(ps, f, ns))
            report[f"{ps}/{style}/{f}"] = d
            if d:
                ok = False
                print("DIFF", ps, style, f, d)
json.dump(report, open("style_check.json", "w"), indent=1)
print("ALL STYLES AGREE" if ok else "PROBLEMS")

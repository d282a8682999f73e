"""Prove every bug: apply it ALONE to its base style and compare every notebook function with the
correct base style on fresh inputs. Writes probe_results.json."""
import json
from common import BUGS, BASE, PSETS, code_cells, exec_namespace
from probes import FUNCS, probe, compare
from callgraph import callers

cache = {}


def ref_results(ps, style):
    if (ps, style) not in cache:
        ns, err = exec_namespace(ps, code_cells(ps, style))
        assert not err
        cache[ps, style] = {f: probe(ps, f, ns) for f in FUNCS[ps]}
    return cache[ps, style]


def short(x):
    s = repr(x)
    return s if len(s) < 200 else s[:200] + "..."


out = []
for bug in BUGS:
    ps, style = bug["ps"], BASE[bug["student"]]
    ref = ref_results(ps, style)
    cells = code_cells(ps, style, [bug["id"]])
    ns, exec_err = exec_namespace(ps, cells)
    cand = {f: probe(ps, f, ns) for f in FUNCS[ps]}
    differs = {f: compare(ref[f], cand[f]) for f in FUNCS[ps]}
    call = callers(list(cells.values()), bug["function"])
    notebook_callers = [f for f in FUNCS[ps] if f in call]
    also = [f for f in notebook_callers if differs[f]]
    own = bug["function"]
    if own in FUNCS[ps]:
        real = bool(differs[own])
        shown_by = own
    else:  # a private helper: shown through the notebook functions that call it
        real = bool(also)
        shown_by = also[0] if also else None
    example = None
    if shown_by:
        i = differs[shown_by][0]
        example = {"function": shown_by, "case": i, "correct": short(ref[shown_by][i]), "buggy": short(cand[shown_by][i])}
    out.append(dict(id=bug["id"], student=f"blind6_s{bug['student']}", ps=ps, base_style=style,
                    function=own, real=real, shown_by=shown_by,
                    differing_cases={f: d for f, d in differs.items() if d},
                    callers=sorted(call), also_affects=also, exec_errors=exec_err, example=example))
    print(bug["id"], own, "REAL" if real else "NOT SHOWN", "also:", also)
json.dump(out, open("probe_results.json", "w"), indent=1)
print(sum(o["real"] for o in out), "of", len(out), "bugs shown real")

"""Write /work/blind5/class5/labels.json from bugs.py, run_results.json (nbclient runs) and
fresh probes (also_affects = callers that call the buggy function in the student's own code,
directly or through another affected function, AND that give a different result on fresh inputs
when only this bug is present)."""
import json, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bugs import BUGS, STUDENTS, PS_OF, CALLERS, TEST_CELL
from build import cell_sources, PSS
from styles import STYLES
import probes

HERE = os.path.dirname(os.path.abspath(__file__))
FUNC_CELL = {
    "self_attention_loop": "ps1_loop_code", "softmax_cols": "ps1_softmax_cols_code",
    "self_attention": "ps1_self_attention_code", "scaled_dot_product_self_attention": "ps1_scaled_code",
    "multihead_scaled_self_attention": "ps2_multihead_scaled_code", "multihead_self_attention": "ps2_multihead_general_code",
    "single_head_attention": "ps2_single_head_code", "SelfAttention.forward": "ps3_layer_code",
    "single_query_attention": "ps4_single_query_code", "masked_self_attention": "ps5_masked_attention_code",
    "equivariance_gaps": "ps5_equivariance_code",
}
HELPER_TEST = {"_stable_exp": "softmax_cols", "_linear": "single_head_attention"}


def calls(src, name):
    name = name.split(".")[-1]
    return re.search(r"(?<!def )\b%s\(" % re.escape(name), src) is not None


def main():
    results = json.load(open(os.path.join(HERE, "run_results.json")))
    refs = {ps: probes.namespace(ps, STYLES["A"]) for ps in PSS}
    rows = []
    bugged = {(b["student"], PS_OF(b["cell"])) for b in BUGS}
    for s in STUDENTS:
        for ps in PSS:
            if (s, ps) not in bugged:
                rows.append({"student": s, "ps": ps, "cell": None, "mistake": None})
    for b in BUGS:
        s, ps, fn = b["student"], PS_OF(b["cell"]), b["function"]
        final = cell_sources(s)
        # single-bug namespace for the propagation probe
        src = dict(STYLES[STUDENTS[s]])
        src[b["cell"]] = b["full"] if b["full"] is not None else src[b["cell"]].replace(b["old"], b["new"])
        ns_bug = probes.namespace(ps, src)
        affected = []
        frontier = {fn}
        for caller in CALLERS.get(ps, {}).get(fn, []):
            csrc = final[FUNC_CELL[caller]]
            if caller == fn or not any(calls(csrc, f) for f in frontier):
                continue
            n, d = probes.probe(ps, caller, refs[ps], ns_bug)
            if d:
                affected.append(caller)
                frontier.add(caller)
        test_fn = HELPER_TEST.get(fn, fn)
        tcell = TEST_CELL.get((ps, test_fn))
        err = results[s][ps].get(tcell) if tcell else None
        rows.append({"student": s, "ps": ps, "cell": b["cell"], "function": fn, "mistake": b["mistake"],
                     "passes_visible_tests": err is None, "also_affects": affected,
                     "visible_test_cell": tcell, "visible_test_error": err})
    json.dump(rows, open("/work/blind5/class5/labels.json", "w"), indent=1)
    nb = [r for r in rows if r["mistake"]]
    print(len(rows), "rows;", len(rows) - len(nb), "correct rows;", len(nb), "bugs")
    from collections import Counter
    print(Counter(r["ps"] for r in nb))
    print(Counter(r["student"] for r in nb))
    print("pass visible:", sum(r["passes_visible_tests"] for r in nb))
    # sanity: correct students have no error anywhere
    for s in STUDENTS:
        for ps in PSS:
            errs = {k: v for k, v in results[s][ps].items() if v}
            if (s, ps) not in bugged and errs:
                print("ERROR in correct notebook", s, ps, errs)


if __name__ == "__main__":
    main()

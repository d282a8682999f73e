"""Write the 50 notebooks and probe every bug (buggy vs correct, side by side)."""
import copy
import json
import os

import harness as H
import probes as PR
import students as S
from bugs import BUGS

OUT = "/work/blind7/class7"
STUDENTS = [f"blind7_s{i}" for i in range(1, 11)]


def apply(code, bug):
    n = code.count(bug["old"])
    assert n == 1, (bug["student"], bug["function"], n, bug["old"])
    return code.replace(bug["old"], bug["new"])


def codes_for(student, ps, only=None):
    codes = dict(S.BASE[S.STYLE_OF[student]][ps])
    bugs = [b for b in BUGS if b["student"] == student and b["ps"] == ps]
    if only is not None:
        bugs = [only]
    for b in bugs:
        codes[b["cell"]] = apply(codes[b["cell"]], b)
    return codes


def write_notebooks():
    for si, st in enumerate(STUDENTS):
        for ps in S.PS:
            nb = H.load(ps)
            codes = codes_for(st, ps)
            for c in nb["cells"]:
                m = c["metadata"].get("nbgrader", {})
                if not m.get("solution"):
                    continue
                gid = m["grade_id"]
                if c["cell_type"] == "code":
                    src = codes[gid]
                else:
                    src = S.MD[gid][si % 3] + "\n"
                c["source"] = src.splitlines(keepends=True)
                if c["cell_type"] == "code":
                    c["outputs"] = []
                    c["execution_count"] = None
            d = os.path.join(OUT, st, ps)
            os.makedirs(d, exist_ok=True)
            json.dump(nb, open(os.path.join(d, ps + ".ipynb"), "w"), indent=1, ensure_ascii=False)
            open(os.path.join(d, ps + ".ipynb"), "a").write("\n")


def short(v):
    s = repr(v)
    return s if len(s) < 400 else s[:400] + "..."


def probe():
    results = []
    cache = {}
    for b in BUGS:
        key = (b["student"], b["ps"])
        if key not in cache:
            ns_ok, res_ok = H.run(b["ps"], dict(S.BASE[S.STYLE_OF[b["student"]]][b["ps"]]))
            cache[key] = (PR.evaluate(b["ps"], ns_ok), res_ok)
        ok, res_ok = cache[key]
        ns_bug, res_bug = H.run(b["ps"], codes_for(b["student"], b["ps"], only=b))
        bug_out = PR.evaluate(b["ps"], ns_bug)
        differs = sorted(k for k in ok if k in bug_out and not PR.same(ok[k], bug_out[k]))
        results.append(dict(
            student=b["student"], ps=b["ps"], cell=b["cell"], function=b["function"],
            changes_own_result=b["function"] in differs,
            functions_changed=differs,
            also_affects=[f for f in differs if f != b["function"]],
            visible_test_cell=b["test"],
            visible_test_alone=res_bug.get(b["test"], "not run"),
            failing_tests_alone={k: v for k, v in res_bug.items() if v},
            example_correct=short(ok.get(b["function"])),
            example_buggy=short(bug_out.get(b["function"])),
        ))
    return results


if __name__ == "__main__":
    import sys
    if "--probe-only" not in sys.argv:
        write_notebooks()
    res = probe()
    json.dump(res, open(os.path.join(OUT, "..", "class7_build", "probe_results.json"), "w"), indent=1)
    bad = [r for r in res if not r["changes_own_result"]]
    print("bugs:", len(res), "not changing own result:", [(r["student"], r["function"]) for r in bad])
    for r in res:
        print(r["student"], r["ps"][:3], r["function"], "| alone:", r["visible_test_alone"], "| also:", r["also_affects"])

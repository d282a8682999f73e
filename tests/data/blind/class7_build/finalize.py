"""labels.json and REPORT.md from bugs.py, probe_results.json and run_results.json."""
import collections
import json
import shutil

import students as S
from bugs import BUGS

B = "/work/blind7/class7_build"
OUT = "/work/blind7/class7"
probe = json.load(open(f"{B}/probe_results.json"))
run = json.load(open(f"{B}/run_results.json"))
shutil.copy(f"{B}/probe_results.json", f"{OUT}/probe_results.json")
assert len(probe) == len(BUGS)

labels = []
for i in range(1, 5):
    for ps in S.PS:
        labels.append({"student": f"blind7_s{i}", "ps": ps, "cell": None, "mistake": None})
for b, p in zip(BUGS, probe):
    assert (b["student"], b["function"], b["ps"]) == (p["student"], p["function"], p["ps"])
    assert p["changes_own_result"]
    nb_res = run[f"{b['student']}/{b['ps']}"]["failed_tests"].get(b["test"])
    labels.append({
        "student": b["student"], "ps": b["ps"], "cell": b["cell"], "function": b["function"],
        "mistake": b["mistake"],
        "passes_visible_tests": p["visible_test_alone"] is None,
        "also_affects": p["also_affects"],
        "visible_test_cell": b["test"],
        "visible_test_error": p["visible_test_alone"],
        "visible_test_error_in_submission": nb_res,
    })
json.dump(labels, open(f"{OUT}/labels.json", "w"), indent=1)

# sanity: every bugged student has a bug in every ps; correct students pass everything
for i in range(5, 11):
    for ps in S.PS:
        assert any(b["student"] == f"blind7_s{i}" and b["ps"] == ps for b in BUGS), (i, ps)
for i in range(1, 5):
    for ps in S.PS:
        r = run[f"blind7_s{i}/{ps}"]
        assert not r["failed_tests"] and not r["other_errors"], (i, ps, r)

bl = labels[20:]
per_ps = collections.Counter(l["ps"] for l in bl)
per_ps_pass = collections.Counter(l["ps"] for l in bl if l["passes_visible_tests"])
per_st = collections.Counter(l["student"] for l in bl)
helpers = [l for l in bl if l["function"].split(".")[-1].startswith("_") and l["function"] != "SelfAttention.__init__"]
twos = collections.defaultdict(list)
for l in bl:
    twos[(l["student"], l["ps"], l["function"])].append(l)
twos = {k: v for k, v in twos.items() if len(v) > 1}

styles = {"s1": "explicit Python loops, verbose comments", "s2": "np.einsum / matmul-heavy, vectorised",
          "s3": "terse one-liners, comprehensions, np.split/np.stack tricks, walrus",
          "s4": "private helpers (_proj, _scores, _softmax_1d, _attend, _combine, SelfAttention._draw ...), asserts, a debug print, apply_along_axis, in-place ops"}
L = ["# Class 7 (blind): 10 fake students x 5 problem sets", "",
     "Notebooks: `/work/blind7/class7/blind7_sN/<ps>/<ps>.ipynb`; labels: `labels.json`; probes: `probe_results.json` "
     "(also in `/work/blind7/class7_build/`, with `students.py`, `bugs.py`, `build.py`, `probes.py`, `harness.py`, `run_all.py`, `finalize.py`).", "",
     "## Students", "", "| student | code style | status | bugs |", "|---|---|---|---|"]
for i in range(1, 11):
    st = f"blind7_s{i}"
    sty = S.STYLE_OF[st]
    status = "correct" if i <= 4 else "bugged"
    L.append(f"| {st} | {sty}: {styles[sty]} | {status} | {per_st.get(st, 0)} |")
L += ["", "s5 and s10 are built on the s1 (loops) code, s6 on s2 (einsum), s7 on s3 (terse), s8 and s9 on s4 (helpers); "
      "the bugs are text replacements listed in `bugs.py`.", "",
      "## Bugs per problem set", "", "| problem set | bugs | pass their visible test | fail it |", "|---|---|---|---|"]
for ps in S.PS:
    L.append(f"| {ps} | {per_ps[ps]} | {per_ps_pass[ps]} | {per_ps[ps] - per_ps_pass[ps]} |")
L.append(f"| **total** | {len(bl)} | {sum(per_ps_pass.values())} | {len(bl) - sum(per_ps_pass.values())} |")
L += ["", "`passes_visible_tests` is measured with only that bug applied (the visible test cell of the function, or for a helper "
      "the test cell of the graded function in the same cell). `visible_test_error_in_submission` is what the executed "
      "submission (all of the student's bugs together) printed in that cell.", "",
      "## Helper bugs and their callers", "", "| student | ps | helper | passes visible | results also change in |", "|---|---|---|---|---|"]
for l in helpers:
    L.append(f"| {l['student']} | {l['ps']} | `{l['function']}` | {l['passes_visible_tests']} | {', '.join(l['also_affects']) or '-'} |")
L += ["", "Helpers that crash or return the wrong shape/type for some inputs: `_combine` (s8, AssertionError on every call), "
      "`_as_1d` (s8, AssertionError for length-1 vectors: T = 1 tokens or states of size 1), `_masked_col` (s8, ValueError "
      "on a fully masked column); also s10's `SelfAttention.__init__` (ValueError unless dims = 4).", "",
      "## Functions with two independent bugs", ""]
for (st, ps, fn), ls in twos.items():
    L.append(f"- {st} {ps} `{fn}`:")
    for l in ls:
        L.append(f"  - {l['mistake']} (passes visible alone: {l['passes_visible_tests']})")
L += ["", "## Visible test failures in the executed submissions", "",
      "| student | ps | failing visible test cells |", "|---|---|---|"]
for k, r in run.items():
    st, ps = k.split("/")
    f = "; ".join(f"{g}: {e[:90]}" for g, e in r["failed_tests"].items()) or "none"
    L.append(f"| {st} | {ps} | {f} |")
open(f"{OUT}/REPORT.md", "w").write("\n".join(L) + "\n")
print(len(labels), dict(per_ps), dict(per_ps_pass), len(helpers), len(twos))

FINDINGS = """
## Notes and findings

- Environment: `/work/main/.venv/bin/python` and `/work/main/.venv/bin/jupyter` do not exist on this machine (the brief
  says to use them). I made a private venv in `/work/blind7/class7_build/.venv` (numpy 2.4.6, matplotlib, scipy,
  nbconvert) and executed every notebook with its `jupyter nbconvert --execute --allow-errors
  --ExecutePreprocessor.timeout=120`, one at a time; executed copies are in `/work/blind7/class7_build/executed/`.
- The key bias has no effect at all (ps1, ps2, ps5): adding beta_k adds beta_k^T q_n to every entry of column n of K^T Q,
  and the column softmax cancels it. A bug that uses the wrong key bias (or omits it) cannot be caught by any test; my
  first s10 bug (keys with beta_q) did not change any output, so I replaced it. s9's `_head_args` swap of beta_q/beta_k
  is only visible because beta_k ends up in the queries.
- ps1 `check_equivariance`: building P transposed (P[i, perm[i]] = 1, i.e. the inverse permutation) passes the visible
  test, because self-attention is equivariant to every permutation and reversal to none; only a map that is equivariant
  for one permutation but not its inverse on the given X tells them apart.
- ps1 softmax visible test uses only positive scores: a running max initialised at 0 passes it.
- ps3 `__init__`: the visible test checks that seeds 7 and 8 give different layers, but not that the same seed gives the
  same layer, so an unseeded `np.random.default_rng()` (s9) passes the visible test although section 2 asks for numpy's
  global generator "so that np.random.seed makes a layer repeatable".
- ps3 forward test builds `SelfAttention(4)`; an `__init__` that only works for dims = 4 (s10) passes the forward test.
- ps4 section 5: every visible test has d_v = d_k (the notebook says so), so scaling by W_V.shape[1] passes.
- ps4 section 6: the visible test checks only the format of the three shapes; W_O_shape is (4, 4) under either convention.
- ps5: a `masked_self_attention` that uses the global N passes its own test; the failure shows up only in the
  `ps5_equivariance` test (its 4 x 3 input), so a test cell can fail for a bug in another graded function.
- ps2: `H_D` as D_q (s10) passes `ps2_single_head` and fails only the 4-head example in `ps2_multihead_general`.
- The ps4 notebook uses n for the hidden size while the other problem sets use n/N for tokens; the notebook flags this
  itself, but it is easy to confuse with `len(scores)` (s9's first scale_scores bug, later left out, did exactly that).
"""
open(f"{OUT}/REPORT.md", "a").write(FINDINGS)

import json, os, sys, nbformat
from lib import *
from ref import REF
from students_ok import S
from bugs import BUGS, BASE, P1, P2, P3, P4, P5

OUT = "/work/blind12/class12"
WRITTEN = {
"blind12_s5": {p: {} for p in PS},
"blind12_s8": {p: {} for p in PS},
"blind12_s10": {p: {} for p in PS},
}
WRITTEN["blind12_s5"]["ps1_self_attention"]["ps1_positional_answer"] = "No. Pi stays in place while the tokens move, so each token gets a different position vector after the permutation and the attention scores change; Sa[XP + Pi] is then not Sa[X + Pi]P."
WRITTEN["blind12_s5"]["ps4_encoder_decoder_attention"]["ps4_heads_answer"] = "Multiple heads can attend to different positions at the same time, because each has its own projections. In the plots head 1 and head 2 focus on different words. A single head averages all of this in one distribution. The cost is about the same since each head is smaller."
WRITTEN["blind12_s5"]["ps5_masked_attention"]["ps5_decoder_answer"] = "(a) It would just copy the next token, which it can see, so it learns nothing useful; when generating, the next token does not exist yet.\n(b) It does not depend on their order, only on which tokens there are, since the weighted sum over tokens 0..n does not change when they are reordered."
WRITTEN["blind12_s8"]["ps1_self_attention"]["ps1_positional_answer"] = "No. The positional encoding is tied to the positions, not to the tokens, so when the tokens are permuted they are combined with different columns of Pi. The queries and keys change and the result is not the permuted output. check_equivariance gives False with the suggested Pi."
WRITTEN["blind12_s8"]["ps4_encoder_decoder_attention"]["ps4_heads_answer"] = "Each head can learn a different kind of relationship between tokens because it has its own W^Q_i, W^K_i and W^V_i. The heat maps show different attention patterns for the two heads. This makes the model more expressive than one head, and since the heads are d_model/h wide the total cost stays about the same."
WRITTEN["blind12_s8"]["ps5_masked_attention"]["ps5_decoder_answer"] = "(a) Output n would learn to look at token n+1 and copy it, which is cheating; at generation time token n+1 is unknown so the model is useless.\n(b) No, permuting the earlier tokens only changes the order of the terms in the weighted sum, so output n stays the same."
WRITTEN["blind12_s10"]["ps1_self_attention"]["ps1_positional_answer"] = "No. After adding Pi, permuting the tokens changes which positional vector each token receives, so the outputs change and are not just permuted."
WRITTEN["blind12_s10"]["ps4_encoder_decoder_attention"]["ps4_heads_answer"] = "Several heads give several attention patterns instead of one, so the model can focus on different tokens for different reasons. Each head works in a smaller space, so the cost is similar. W^O combines them."
WRITTEN["blind12_s10"]["ps5_masked_attention"]["ps5_decoder_answer"] = "(a) It would learn to copy the next token from the input, which is not available when generating.\n(b) No, the order of the earlier tokens does not matter, the sum is the same."

def base_sources(name, ps):
    src = dict(REF[ps])
    if name in S:
        src.update(S[name][ps])
    return src

def student_sources(s, ps, only_bug=None):
    b = BASE.get(s, s)
    src = base_sources(b, ps)
    src.update(WRITTEN.get(s, {}).get(ps, {}))
    for i, bug in enumerate(BUGS.get(s, [])):
        if bug[0] != ps:
            continue
        if only_bug is None or only_bug == i:
            src[bug[1]] = bug[3]
    return src

def main(students):
    results = json.load(open("results.json")) if os.path.exists("results.json") else {}
    for s in students:
        for ps in PS:
            nb = build(ps, student_sources(s, ps))
            d = f"{OUT}/{s}/{ps}"
            os.makedirs(d, exist_ok=True)
            nbformat.write(nb, f"{d}/{ps}.ipynb")
            key = f"{s}|{ps}|submission"
            results[key] = run(nb, d)
            print(key, results[key], flush=True)
        for i, bug in enumerate(BUGS.get(s, [])):
            ps = bug[0]
            nb = build(ps, student_sources(s, ps, only_bug=i))
            key = f"{s}|{ps}|bug{i}"
            results[key] = run(nb, "/tmp")
            print(key, results[key], flush=True)
        json.dump(results, open("results.json", "w"), indent=1)

if __name__ == "__main__":
    main(sys.argv[1:])

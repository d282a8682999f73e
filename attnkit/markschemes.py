"""Mark schemes for the written answers, shown to TAs under each answer in formgrader.

Keys are the nbgrader grade ids of the manually graded answer cells.
"""

MARK_SCHEMES: dict[str, str] = {
    "ps1_positional_answer": """\
**Mark scheme (TAs only, 2 points)**: *would self-attention stay permutation equivariant
with positional encodings?*

- **1 point**: says **no** (not equivariant once positional encodings are added).
- **1 point**: the reason: the encoding is tied to the *position*, not to the token. Adding
  a matrix **P** gives Sa[X + P]; permuting the columns of X moves the tokens but not the
  columns of P, so Sa[XΠ + P] ≠ Sa[X + P]Π in general. Each token now carries where it sits,
  which is the point of positional encodings (word order matters).
- Accept: "equivariant only if P is permuted too" or "only if all columns of P are equal"
  (then P carries no position). Do not award the reason for "attention itself changes" or
  for answers that only restate the definition.
""",
    "ps4_heads_answer": """\
**Mark scheme (TAs only, 2 points)**: *benefits of several heads over one.*

- **1 point**: each head has its own W_Q, W_K, W_V, so it computes its **own attention
  pattern**: different heads can attend to different relations (syntax, coreference,
  nearby vs distant tokens) in different learned subspaces; one head averages them into a
  single softmax.
- **1 point**: at about the **same cost** as one full-size head: each head works in
  d_model / h dimensions, and W^O mixes the concatenated heads back to d_model (so the
  layer stays dimension preserving).
- Do not award: "multiple heads make training parallel / cheaper" alone (a single head is
  just as parallel over tokens; the worksheet's sample answer is wrong here), or "smaller
  chunks of the sequence" (heads split the *features*, not the tokens).
""",
    "ps5_decoder_answer": """\
**Mark scheme (TAs only, 2 points)**: *(a) why a decoder needs the causal mask; (b) does a
causal layer know the order of the earlier tokens?*

- **1 point (a)**: without the mask output n sees token n + 1, the token it is trained to
  predict, so it learns to **copy the next token** (the training loss drops to almost zero);
  when generating, that token does not exist yet, so the model is useless there. Accept
  "it cheats / looks at the answer" if the reason (the target is visible) is given.
- **1 point (b)**: **no**: output n = sum over m <= n of a_mn v_m is a weighted sum over the
  *set* of earlier tokens, so permuting tokens 0, ..., n - 1 among themselves leaves output n
  unchanged; the mask only tells which tokens came before, not their order, which must come
  from the positional encoding. Also accept that stacked layers can infer positions only
  indirectly (e.g. by counting how many tokens are visible). Do not award "yes, because the
  mask is not equivariant" (the gap comes from the mask's shape, not from order information).
""",
}

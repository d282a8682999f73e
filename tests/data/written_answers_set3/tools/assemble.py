#!/usr/bin/python3
"""Rebuild the set3 .jsonl files and meta/ from the hand-typed sources in src/.

Source format (see README.md):
  # comment lines (question, model answer, mark scheme)
  @seed N            @grade_id ps1_positional_answer
  @kind CODE POINTS kind text            (ps1, ps4)
  @kind CODE a=A,b=B kind text           (ps5: points = A + B)
  === BASE CODE STYLE                    a base answer
  --- [T=tag|C=tag]                      one student version; text follows until next --- / ===
A version whose text is exactly @empty becomes the empty string.
No text is generated here: this only parses, shuffles, numbers, checks and counts.
"""
import json, os, random, re, sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = {"ps1": "ps1.txt", "ps5": "ps5.txt", "ps4": "ps4.txt"}


def parse(path):
    seed = gid = None
    kinds = {}
    answers = []  # dicts: base, code, style, text, tag
    base = None
    cur = None
    started = False

    def flush():
        if cur is not None:
            t = "\n".join(cur["lines"]).strip("\n")
            t = "\n".join(l.rstrip() for l in t.split("\n")).strip()
            if t == "@empty":
                t = ""
            cur["text"] = t
            del cur["lines"]
            answers.append(cur)

    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not started and line.startswith("#"):
            continue
        if line.startswith("@seed"):
            seed = int(line.split()[1]); continue
        if line.startswith("@grade_id"):
            gid = line.split()[1]; continue
        if line.startswith("@kind"):
            _, code, pts, text = line.split(None, 3)
            if "=" in pts:
                d = dict(x.split("=") for x in pts.split(","))
                kinds[code] = (int(d["a"]) + int(d["b"]), {"a": int(d["a"]), "b": int(d["b"])}, text)
            else:
                kinds[code] = (int(pts), None, text)
            continue
        if line.startswith("==="):
            flush(); cur = None
            started = True
            _, b, code, style = line.split(None, 3)
            assert code in kinds, (path, b, code)
            base = (b, code, style)
            continue
        if line.startswith("---") and started:
            flush()
            m = re.search(r"([TC])=(\w+)", line)
            cur = {"base": base[0], "code": base[1], "style": base[2], "lines": [],
                   "tag": (m.group(1), m.group(2)) if m else None}
            continue
        if cur is not None:
            cur["lines"].append(line)
        elif started and line.strip():
            raise SystemExit(f"{path}: text outside a version: {line!r}")
    flush()
    return seed, gid, kinds, answers


def build(ps):
    seed, gid, kinds, answers = parse(os.path.join(HERE, "src", SRC[ps]))
    order = list(range(len(answers)))
    random.Random(seed).shuffle(order)
    ids = {}
    for num, i in enumerate(order, 1):
        ids[i] = f"{gid}-{num:03d}"
    origs = {}
    for i, a in enumerate(answers):
        if a["tag"] and a["tag"][0] == "T":
            assert a["tag"][1] not in origs, a["tag"]
            origs[a["tag"][1]] = i
    rows, meta = [], []
    for i in order:
        a = answers[i]
        pts, parts, ktext = kinds[a["code"]]
        copy_of = None
        if a["tag"] and a["tag"][0] == "C":
            j = origs[a["tag"][1]]
            assert answers[j]["code"] == a["code"], ("copy pair kinds differ", a["tag"])
            copy_of = ids[j]
        rows.append({"id": ids[i], "answer": a["text"], "points": pts, "parts": parts,
                     "kind": ktext, "copy_of": copy_of, "half": "set3"})
        meta.append({"id": ids[i], "base": a["base"], "kind_code": a["code"], "style": a["style"]})
    # checks
    assert len({r["id"] for r in rows}) == len(rows)
    texts = Counter(r["answer"] for r in rows if r["answer"] and r["answer"] != "YOUR ANSWER HERE")
    dup = [t for t, c in texts.items() if c > 1]
    assert not dup, ("exact duplicate answers", dup[:3])
    for r in rows:
        if ps == "ps5":
            assert r["parts"] is not None and r["points"] == r["parts"]["a"] + r["parts"]["b"]
        else:
            assert r["parts"] is None
    with open(os.path.join(HERE, f"{gid}.jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "meta", f"{gid}.bases.jsonl"), "w", encoding="utf-8") as f:
        for m in meta:
            f.write(json.dumps(m, ensure_ascii=False) + "\n")
    # counts
    n = len(rows)
    bases = {a["base"] for a in answers}
    print(f"### {gid}: {n} answers, {len(bases)} bases, {len(origs)} copy pairs")
    pc = Counter(r["points"] for r in rows)
    for p in (0, 1, 2):
        print(f"  points {p}: {pc[p]} ({100*pc[p]/n:.0f}%)")
    if ps == "ps5":
        print("  parts:", dict(sorted(Counter((r['parts']['a'], r['parts']['b']) for r in rows).items())))
    kb = defaultdict(set); kn = Counter()
    for a in answers:
        kb[a["code"]].add(a["base"]); kn[a["code"]] += 1
    for code, c in sorted(kn.items(), key=lambda x: (-x[1], x[0])):
        print(f"  {c:3d} answers {len(kb[code]):2d} bases  {kinds[code][0]} pt  [{code}] {kinds[code][2]}")
    unused = set(kinds) - set(kn)
    if unused:
        print("  unused kind codes:", sorted(unused))
    sb = defaultdict(set); sn = Counter()
    for a in answers:
        s = a["style"].split("-with-")[0] if a["style"].startswith("shared-words") else a["style"]
        sb[s].add(a["base"]); sn[s] += 1
    print("  styles (bases/answers):", ", ".join(f"{s} {len(sb[s])}/{sn[s]}" for s in sorted(sn, key=lambda s: -sn[s])))
    wc = sorted(len(r["answer"].split()) for r in rows)
    print(f"  words: min {wc[0]}, median {wc[len(wc)//2]}, max {wc[-1]}; 150+: {sum(w>=150 for w in wc)}; "
          f"<=8 words (non-empty): {sum(0<w<=8 for w in wc)}; blank/untouched: "
          f"{sum(r['answer'] in ('', 'YOUR ANSWER HERE') for r in rows)}")
    vb = Counter(a["base"] for a in answers)
    bad = [b for b, c in vb.items() if not 1 <= c <= 6]
    if bad:
        print("  WARNING versions per base outside 1..6:", bad)


if __name__ == "__main__":
    which = sys.argv[1:] or [p for p in SRC if os.path.exists(os.path.join(HERE, "src", SRC[p]))]
    for ps in which:
        build(ps)

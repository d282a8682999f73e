#!/usr/bin/python3
"""Parse src/<q>.txt, shuffle with a fixed seed, number, write <grade_id>.jsonl and meta/.

Only parses, shuffles, numbers and counts: every answer text comes verbatim from src/.

Source format (see README.md):
  @grade_id <id>                         the question
  @seed <int>                            shuffle seed
  @kind <code> <points|a,b> <kind text>  one line per kind
  === <base> <kind code> <style>         starts a base answer
  ---  [T=<tag>|C=<tag>]                 starts a student version (text until next marker)
Lines starting with '#' before the first '===' are comments (the mark scheme).
"""
import json, os, random, sys, collections

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse(path):
    meta = {"kinds": {}}
    answers, base = [], None
    cur = None
    for raw in open(path, encoding="utf-8").read().split("\n"):
        if raw.startswith("@"):
            key, _, rest = raw[1:].partition(" ")
            if key == "kind":
                code, pts, text = rest.split(" ", 2)
                meta["kinds"][code] = (pts, text)
            else:
                meta[key] = rest.strip()
            continue
        if raw.startswith("=== "):
            _, b, k, style = raw.split(None, 3)
            assert k in meta["kinds"], (b, k)
            base = (b, k, style.strip())
            cur = None
            continue
        if raw.startswith("---") and base is not None:
            tag = raw[3:].strip()
            cur = {"base": base, "tag": tag, "lines": []}
            answers.append(cur)
            continue
        if cur is not None:
            cur["lines"].append(raw)
        elif base is None and (raw.startswith("#") or not raw.strip()):
            continue
        elif raw.strip():
            sys.exit(f"text outside a version: {raw!r}")
    return meta, answers


def build(name):
    meta, answers = parse(os.path.join(HERE, "src", name + ".txt"))
    gid = meta["grade_id"]
    order = list(range(len(answers)))
    random.Random(int(meta["seed"])).shuffle(order)
    ids = {}
    for n, i in enumerate(order, 1):
        ids[i] = f"{gid}-{n:03d}"
    tags = {}
    for i, a in enumerate(answers):
        if a["tag"].startswith("T="):
            tags[a["tag"][2:]] = ids[i]
    rows, mrows = [], []
    for i in order:
        a = answers[i]
        b, k, style = a["base"]
        pts, ktext = meta["kinds"][k]
        text = "\n".join(a["lines"]).strip("\n")
        if "," in pts:
            pa, pb = (int(x) for x in pts.split(","))
            parts, points = {"a": pa, "b": pb}, pa + pb
        else:
            parts, points = None, int(pts)
        copy_of = tags[a["tag"][2:]] if a["tag"].startswith("C=") else None
        rows.append({"id": ids[i], "answer": text, "points": points, "parts": parts,
                     "kind": ktext, "copy_of": copy_of, "half": "fresh"})
        mrows.append({"id": ids[i], "base": b, "kind_code": k, "style": style})
    with open(os.path.join(HERE, gid + ".jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "meta", gid + ".bases.jsonl"), "w", encoding="utf-8") as f:
        for r in mrows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    # counts
    print(f"### {gid}: {len(rows)} answers, {len({a['base'][0] for a in answers})} bases, "
          f"{sum(r['copy_of'] is not None for r in rows)} copy pairs\n")
    pc = collections.Counter(r["points"] for r in rows)
    print("| points | n |\n|---|---|")
    for p in sorted(pc):
        print(f"| {p} | {pc[p]} ({100*pc[p]/len(rows):.0f}%) |")
    if any(r["parts"] for r in rows):
        pp = collections.Counter((r["parts"]["a"], r["parts"]["b"]) for r in rows)
        print("\nparts: " + ", ".join(f"a={a} b={b}: {n}" for (a, b), n in sorted(pp.items())))
    kc = collections.Counter((r["kind"], r["points"]) for r in rows)
    kb = collections.defaultdict(set)
    for a in answers:
        kb[meta["kinds"][a["base"][1]][1]].add(a["base"][0])
    print("\n| n | bases | points | kind |\n|---|---|---|---|")
    for (k, p), n in sorted(kc.items(), key=lambda x: (-x[1], x[0])):
        print(f"| {n} | {len(kb[k])} | {p} | {k} |")
    words = sorted(len(r["answer"].split()) for r in rows)
    print(f"\nwords: min {words[0]}, median {words[len(words)//2]}, max {words[-1]}; "
          f"150+ words: {sum(w >= 150 for w in words)}; blank/untouched: "
          f"{sum(r['answer'] in ('', 'YOUR ANSWER HERE') for r in rows)}\n")


if __name__ == "__main__":
    for name in sys.argv[1:] or ["ps4", "ps1", "ps5"]:
        if os.path.exists(os.path.join(HERE, "src", name + ".txt")):
            build(name)

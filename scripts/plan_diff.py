#!/usr/bin/env python3
"""Compare the plans of two versions of a package, call by call.

Usage: scripts/plan_diff.py BEFORE_DIR AFTER_DIR [--show=N]

Each DIR is what `wgk validate PACKAGE --plans DIR [--device PRESET]` wrote: plans.jsonl (one line per call
signature and capability set: the variant, and per pass the shader, dispatch, bindings with their packed
uniform bytes, and the sha256 of the WGSL) and wgsl/<sha256>.wgsl. For every signature planned on both
sides it prints which variant ids map to which, and whether the shader, dispatch, bindings, uniform bytes
and WGSL are the same; each distinct WGSL change is shown once as a unified diff (at most N, default 5).
Exit status 0 when every call gets the same kernel (same WGSL, dispatch, bindings and uniform bytes), else 1.
"""
import collections
import difflib
import json
import pathlib
import sys


def load(folder):
    plans = {}
    with open(pathlib.Path(folder) / "plans.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            plans[(r["caps"], r["signature"])] = r
    return plans


def wgsl(folder, digest):
    return (pathlib.Path(folder) / "wgsl" / (digest + ".wgsl")).read_text(encoding="utf-8").splitlines()


def main(argv):
    args = [a for a in argv if not a.startswith("--show")]
    show = 5
    for a in argv:
        if a.startswith("--show="):
            show = int(a.split("=", 1)[1])
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    before_dir, after_dir = args
    before, after = load(before_dir), load(after_dir)
    common = sorted(set(before) & set(after))
    mapping = collections.Counter()
    differences = collections.Counter()
    wgsl_pairs = collections.Counter()
    for key in common:
        b, a = before[key], after[key]
        mapping[(b["variant"], a["variant"])] += 1
        if len(b["passes"]) != len(a["passes"]):
            differences["pass count"] += 1
            continue
        for pb, pa in zip(b["passes"], a["passes"]):
            for field in ("shader", "dispatch"):
                if pb[field] != pa[field]:
                    differences[field] += 1
            strip = lambda bindings: [(x["slot"], x["name"], x["type"]) for x in bindings]
            if strip(pb["bindings"]) != strip(pa["bindings"]):
                differences["bindings (slot, name, type)"] += 1
            if [x["uniform"] for x in pb["bindings"]] != [x["uniform"] for x in pa["bindings"]]:
                differences["uniform bytes"] += 1
            if pb["wgsl"] != pa["wgsl"]:
                differences["wgsl"] += 1
                wgsl_pairs[(pb["wgsl"], pa["wgsl"])] += 1
    print(f"signatures: {len(before)} before, {len(after)} after, {len(common)} in both")
    for side, only in (("before", set(before) - set(after)), ("after", set(after) - set(before))):
        if only:
            print(f"only {side}: {len(only)}, e.g. {sorted(only)[0]}")
    print("variant before -> after (calls):")
    for (vb, va), n in sorted(mapping.items()):
        print(f"  {vb} -> {va}: {n}")
    news = collections.defaultdict(set)
    for vb, va in mapping:
        news[vb].add(va)
    split = [vb for vb, vas in news.items() if len(vas) > 1]
    if split:
        print("variants whose calls went to more than one variant:", ", ".join(sorted(split)))
    if not differences:
        print("every call: same shader, dispatch, bindings, uniform bytes and WGSL")
    else:
        print("differences (passes):")
        for what, n in sorted(differences.items()):
            print(f"  {what}: {n}")
    for i, ((hb, ha), n) in enumerate(sorted(wgsl_pairs.items(), key=lambda kv: -kv[1])):
        if i >= show:
            print(f"... {len(wgsl_pairs) - show} more distinct WGSL changes")
            break
        print(f"--- WGSL change {i + 1} of {len(wgsl_pairs)} ({n} passes)")
        for line in difflib.unified_diff(wgsl(before_dir, hb), wgsl(after_dir, ha), "before", "after", n=1, lineterm=""):
            print(line)
    return 0 if not differences and not split and len(common) == len(before) == len(after) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

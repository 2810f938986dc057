#!/usr/bin/env python3
"""Compare the plans of two versions of a package, call by call.

Usage: scripts/plan_diff.py BEFORE_DIR AFTER_DIR [--show N]

Each DIR is what `wgk validate PACKAGE --plans DIR [--device PRESET]` wrote: plans.jsonl (one line per call
signature and capability set: the variant, and per pass the shader, dispatch, bindings with their packed
uniform bytes, and the sha256 of the WGSL) and wgsl/<sha256>.wgsl. For every signature planned on both
sides it prints which variant ids map to which, and whether the shader, dispatch, bindings, uniform bytes
and WGSL are the same. WGSL changes are grouped by their changed lines: one template edit seen in many
shaders is one distinct change, shown once as a unified diff with the number of shader pairs and passes it
covers (at most N distinct changes are shown, default 5).
Exit status 0 when every call gets the same kernel (same WGSL, dispatch, bindings and uniform bytes), 1 when
they differ, 2 with a one-line error for bad arguments, an unreadable, empty or malformed DIR (a plan line
missing a key: the line number and the key), or no signature in both runs (nothing compared).
"""
import argparse
import collections
import difflib
import json
import pathlib
import sys


class Fault(Exception):
    """A bad argument or input folder: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Fault(message)


# The keys compare() reads, as `wgk validate --plans` writes them (tools/wgk/validate.cpp).
PLAN_KEYS = ("caps", "signature", "variant", "passes")
PASS_KEYS = ("shader", "dispatch", "bindings", "wgsl")
BINDING_KEYS = ("slot", "name", "type", "uniform")


def missing_key(plan):
    """The first key compare() reads that `plan` lacks, as a path ("passes[0].wgsl"), or None.
    Raises Fault for a part that is not an object or a list."""
    def check(obj, keys, where):
        if not isinstance(obj, dict):
            raise Fault(f"{where or 'the line'} is not an object")
        return next((where + k for k in keys if k not in obj), None)

    def items(obj, key, where):
        if not isinstance(obj[key], list):
            raise Fault(f"{where}{key} is not a list")
        return [(x, f"{where}{key}[{i}].") for i, x in enumerate(obj[key])]

    missing = check(plan, PLAN_KEYS, "")
    for p, at in items(plan, "passes", "") if not missing else []:
        missing = missing or check(p, PASS_KEYS, at)
        for b, b_at in items(p, "bindings", at) if not missing else []:
            missing = missing or check(b, BINDING_KEYS, b_at)
    return missing


def load(folder):
    path = pathlib.Path(folder) / "plans.jsonl"
    plans = {}
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                where = f"{path}:{number}: not a plan line of `wgk validate --plans`"
                try:
                    r = json.loads(line)
                    key = missing_key(r)
                except ValueError as e:
                    raise Fault(f"{where} ({e})")
                except Fault as e:
                    raise Fault(f"{where} ({e})")
                if key:
                    raise Fault(f"{where} (no key {key})")
                plans[(r["caps"], r["signature"])] = r
    except OSError as e:
        raise Fault(f"cannot read {path}: {e.strerror} (write it with `wgk validate PACKAGE --plans {folder}`)")
    if not plans:
        raise Fault(f"{path} holds no plan line (write it with `wgk validate PACKAGE --plans {folder}`)")
    return plans


def wgsl(folder, digest):
    path = pathlib.Path(folder) / "wgsl" / (digest + ".wgsl")
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise Fault(f"cannot read {path}: {e.strerror} (plans.jsonl names it)")


def changed_lines(diff):
    """The lines a unified diff removes and adds, without its headers, hunk positions and context."""
    return tuple(l for l in diff if l[:1] in "+-" and not l.startswith(("+++", "---")))


def main(argv):
    parser = Parser(prog="plan_diff.py", description="Compare the plans of two versions of a package, call by call.")
    parser.add_argument("before", metavar="BEFORE_DIR")
    parser.add_argument("after", metavar="AFTER_DIR")
    parser.add_argument("--show", type=int, default=5, metavar="N", help="distinct WGSL changes to show (default 5)")
    try:
        args = parser.parse_args(argv)
        if args.show < 0:
            raise Fault(f"argument --show: must be >= 0, got {args.show}")
        return compare(args.before, args.after, args.show)
    except Fault as e:
        print(f"plan_diff.py: error: {e}", file=sys.stderr)
        return 2


def compare(before_dir, after_dir, show):
    before, after = load(before_dir), load(after_dir)
    common = sorted(set(before) & set(after))
    if not common:
        raise Fault(f"no call signature is in both runs ({len(before)} before, {len(after)} after): nothing compared "
                    "(plans of different devices or packages?)")
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
    # One template edit changes many shaders alike: group the (before, after) shader pairs by the lines
    # their diff removes and adds, and show each distinct change once.
    changes = {}  # changed lines -> [a diff showing them, shader pairs, passes]
    for (hb, ha), n in sorted(wgsl_pairs.items(), key=lambda kv: -kv[1]):
        diff = list(difflib.unified_diff(wgsl(before_dir, hb), wgsl(after_dir, ha), "before", "after", n=1, lineterm=""))
        change = changes.setdefault(changed_lines(diff), [diff, 0, 0])
        change[1] += 1
        change[2] += n
    if changes:
        print(f"distinct WGSL changes: {len(changes)} ({len(wgsl_pairs)} shader pairs)")
    for i, (diff, pairs, n) in enumerate(sorted(changes.values(), key=lambda c: -c[2])):
        if i >= show:
            print(f"... {len(changes) - show} more distinct WGSL changes")
            break
        print(f"--- WGSL change {i + 1} of {len(changes)} ({pairs} shader pairs, {n} passes)")
        for line in diff:
            print(line)
    return 0 if not differences and not split and len(common) == len(before) == len(after) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Scores `dcukit port audit --json` against a hand-made truth list, line by line.

usage: port_score.py TRUTH.tsv AUDIT.json [--verbose]

A truth row is (project, path, line, category, design_dependent). A finding covers the lines
`line` and `also_lines` of its file. Recall: the share of hazard lines (design_dependent = no)
that some finding covers. Precision: the share of finding lines that are hazard lines; lines
that are hazards only under one port design count neither way. Per project and overall.
"""
import csv
import json
import sys
from collections import defaultdict


def main():
    truth_path, audit_path = sys.argv[1], sys.argv[2]
    verbose = "--verbose" in sys.argv
    hazard, design = set(), set()
    category = {}
    with open(truth_path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            key = (row["project"], f'{row["project"]}/{row["path"]}', int(row["line"]))
            (design if row["design_dependent"] == "yes" else hazard).add(key)
            category.setdefault(key, set()).add(row["category"])
    design -= hazard
    found = {}
    for fnd in json.load(open(audit_path))["findings"]:
        path = fnd["file"]
        project = path.split("/", 1)[0]
        for line in [fnd["line"], *fnd.get("also_lines", [])]:
            found.setdefault((project, path, int(line)), set()).add(fnd["rule"])
    projects = sorted({k[0] for k in hazard | design | set(found)})
    print(f"{'project':<14} {'hazards':>7} {'found':>6} {'recall':>7} {'lines':>6} {'true':>5} {'precision':>9}")
    totals = defaultdict(int)
    for p in projects + ["all"]:
        h = {k for k in hazard if p in ("all", k[0])}
        f = {k for k in found if p in ("all", k[0]) and k not in design}
        tp_r = len(h & set(found))
        tp_p = len(f & hazard)
        rec = tp_r / len(h) if h else float("nan")
        prec = tp_p / len(f) if f else float("nan")
        print(f"{p:<14} {len(h):>7} {tp_r:>6} {rec:>7.2f} {len(f):>6} {tp_p:>5} {prec:>9.2f}")
    if verbose:
        for k in sorted(hazard - set(found)):
            print("missed", k[1], k[2], ",".join(sorted(category[k])))
        for k in sorted(set(found) - hazard - design):
            print("extra ", k[1], k[2], ",".join(sorted(found[k])))


if __name__ == "__main__":
    main()

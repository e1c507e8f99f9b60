#!/usr/bin/env python3
"""Scores `dcukit port audit --json` against a hand-made truth list, line by line.

usage: port_score.py TRUTH.tsv AUDIT.json [--verbose]

A truth row is (project, path, line, category, design_dependent). A finding covers the lines
`line` and `also_lines` of its file. Recall: the share of hazard lines (design_dependent = no)
that some finding covers. Two precisions, lines that are hazards only under one port design
counting neither way in both:
- by line: the share of the lines findings cover that are hazard lines (every also_line counts,
  so a finding that lists its uses weighs as many times as it has uses);
- by finding: the share of findings that cover a hazard line. A finding is one claim (a
  constant fixed at 32, a library to port), whatever the lines it lists as where it applies;
  one whose lines are all design-dependent counts neither way.
Per project and overall.
"""
import csv
import json
import sys


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
    claims = []  # (project, covered lines) a finding
    for fnd in json.load(open(audit_path))["findings"]:
        path = fnd["file"]
        project = path.split("/", 1)[0]
        lines = {(project, path, int(line)) for line in [fnd["line"], *fnd.get("also_lines", [])]}
        claims.append((project, lines, fnd))
        for key in lines:
            found.setdefault(key, set()).add(fnd["rule"])
    projects = sorted({k[0] for k in hazard | design | set(found)})
    print(f"{'project':<18} {'hazards':>7} {'found':>6} {'recall':>7} {'lines':>6} {'true':>5} {'by line':>8}"
          f" {'findings':>8} {'true':>5} {'by finding':>10}")
    for p in projects + ["all"]:
        h = {k for k in hazard if p in ("all", k[0])}
        f = {k for k in found if p in ("all", k[0]) and k not in design}
        tp_r = len(h & set(found))
        tp_p = len(f & hazard)
        rec = tp_r / len(h) if h else float("nan")
        prec = tp_p / len(f) if f else float("nan")
        judged = [c for c in claims if p in ("all", c[0]) and (c[1] & hazard or not c[1] <= design)]
        true_claims = sum(1 for c in judged if c[1] & hazard)
        fprec = true_claims / len(judged) if judged else float("nan")
        print(f"{p:<18} {len(h):>7} {tp_r:>6} {rec:>7.2f} {len(f):>6} {tp_p:>5} {prec:>8.2f}"
              f" {len(judged):>8} {true_claims:>5} {fprec:>10.2f}")
    if verbose:
        for k in sorted(hazard - set(found)):
            print("missed", k[1], k[2], ",".join(sorted(category[k])))
        for k in sorted(set(found) - hazard - design):
            print("extra ", k[1], k[2], ",".join(sorted(found[k])))
        for project, lines, fnd in claims:
            if not lines & hazard and not lines <= design:
                print("false finding", fnd["file"], fnd["line"], fnd["rule"])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""tests/claims.md, the audit of the course's claims, stays a checked list:

    test_claims_list.py <repository root>

Fails when
- a row of a claims table (| claim | where | evidence | status |) has another number of
  cells, an empty claim or evidence, or a status other than verified, measured, derived,
  fitted, fixed or "to measure Mn";
- a `where` names a path that is not in the repository;
- a "to measure Mn" row names a measurement that the "To measure" section lacks, or a
  measurement there has no fenced command, or is named by no row;
- the list has fewer than 60 claims (it covers every step and the top README).
Before it reads the list, the checker must reject each of a few broken samples.
"""
import os
import re
import sys

STATUS = re.compile(r"^(verified|measured|derived|fitted|fixed|to measure (M\d+))$")
PATH = re.compile(r"[\w./-]+\.(?:md|cu|cuh|h|py|txt|sh)\b|CMakeLists\.txt")


def problems(text, root):
    out, rows, wanted = [], 0, set()
    head, _, tail = text.partition("\n## To measure")
    for number, line in enumerate(head.splitlines(), 1):
        if not line.startswith("|") or line.startswith("|---") or line.startswith("| claim |"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4:
            out.append(f"{number}: {len(cells)} cells, not 4 (claim, where, evidence, status)")
            continue
        claim, where, evidence, status = cells
        rows += 1
        if not claim or not evidence:
            out.append(f"{number}: an empty claim or evidence")
        m = STATUS.match(status)
        if not m:
            out.append(f"{number}: status '{status}'")
        elif m.group(2):
            wanted.add(m.group(2))
        for path in PATH.findall(where):
            if not os.path.exists(os.path.join(root, path)):
                out.append(f"{number}: '{path}' is not in the repository")
    sections = dict(re.findall(r"^### (M\d+)\n(.*?)(?=^### |\Z)", tail, re.S | re.M))
    for name in sorted(wanted - set(sections)):
        out.append(f"{name} is named by a row but has no section under 'To measure'")
    for name, body in sorted(sections.items()):
        if "```bash\n" not in body:
            out.append(f"{name} has no command")
        if name not in wanted:
            out.append(f"{name} is named by no row")
    return out, rows


root = os.path.abspath(sys.argv[1])
GOOD = ("| claim | where | evidence | status |\n|---|---|---|---|\n"
        "| a | README.md | b | to measure M1 |\n\n## To measure\n\n### M1\n\n```bash\nx\n```\n")
for bad in (GOOD.replace("to measure M1", "probably"), GOOD.replace("README.md", "NOPE.md"),
            GOOD.replace("```bash\nx\n```", "no command"), GOOD.replace("to measure M1", "to measure M2"),
            GOOD.replace("| a | README.md | b |", "| a | README.md |")):
    if not problems(bad, root)[0]:
        sys.exit(f"FAIL: the checker accepts a broken list:\n{bad}")
if problems(GOOD, root)[0]:
    sys.exit(f"FAIL: the checker rejects a good list: {problems(GOOD, root)[0]}")

found, rows = problems(open(os.path.join(root, "tests", "claims.md"), encoding="utf-8").read(), root)
if rows < 60:
    found.append(f"only {rows} claims")
if found:
    sys.exit("FAIL: tests/claims.md:\n" + "\n".join(found))
print(f"PASS: tests/claims.md lists {rows} claims, each with its evidence and status")

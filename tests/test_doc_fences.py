#!/usr/bin/env python3
"""The code fences of every README.md, NOTES.md and EXERCISES.md are balanced:

    test_doc_fences.py <repository root>

A fence opens with ``` (or ~~~) and an optional one-word info string (```bash), and closes
with the same characters and nothing after them. Fails on
- a block still open at the end of the file (everything after its opening renders as code);
- a fence line with text after it inside a block (``` H200: ...): Markdown reads it as a
  line of code, not as the end of the block, which is how prose ends up rendered as code;
- an opening fence whose info string is more than one word (prose glued to a fence).
Before it reads the docs, the checker must reject each of a few broken samples, so that a
change to it cannot make it pass everything.
"""
import os
import re
import sys

FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")


def problems(text):
    """(line number, what is wrong) for every unbalanced or malformed fence of `text`."""
    found, open_at, open_mark = [], None, None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if not m:
            continue
        mark, rest = m.group(2), m.group(3).strip()
        if open_at is None:
            if mark[0] == "`" and "`" in rest:
                continue  # inline code that starts a line, not a fence
            if len(rest.split()) > 1:
                found.append((number, f"an opening fence with more than one word after it: {line.strip()!r}"))
            open_at, open_mark = number, mark
        elif mark[0] == open_mark[0] and len(mark) >= len(open_mark):
            if rest:
                found.append((number, f"a fence with text after it inside the block opened at line "
                                      f"{open_at}: {line.strip()!r} does not close it"))
            else:
                open_at, open_mark = None, None
    if open_at is not None:
        found.append((open_at, "a code block opened here is never closed"))
    return found


BROKEN = {
    "a block never closed": "text\n```bash\nmake\n",
    "a closing fence with text after it": "```bash\nmake\n``` H200: measured 462 us\n\nmore text\n```\nx\n",
    "prose glued to an opening fence": "```bash make everything\nmake\n```\n",
}
for what, sample in BROKEN.items():
    if not problems(sample):
        sys.exit(f"FAIL: the fence checker accepts {what}: {sample!r}")
if problems("```bash\nmake\n```\n\n~~~\n```not a fence here\n~~~\n````\n```\n````\n"):
    sys.exit("FAIL: the fence checker rejects balanced fences")

root = os.path.abspath(sys.argv[1])
checked, failures = 0, []
for folder, dirs, files in os.walk(root):
    dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build", "__pycache__")))
    for f in sorted(files):
        if f not in ("README.md", "NOTES.md", "EXERCISES.md"):
            continue
        path = os.path.join(folder, f)
        checked += 1
        for number, what in problems(open(path, encoding="utf-8").read()):
            failures.append(f"{os.path.relpath(path, root)}:{number}: {what}")
if failures:
    sys.exit("FAIL: code fences that do not render as written:\n" + "\n".join(failures))
if checked < 10:
    sys.exit(f"FAIL: only {checked} docs found under {root}")
print(f"PASS: the code fences of {checked} docs are balanced")

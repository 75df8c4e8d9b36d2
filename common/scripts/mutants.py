#!/usr/bin/env python3
"""mutants.py: plausible wrong solutions of the exercises, kept as patches.

tests/fixtures/exercises/mutants/<folder>/<name>.patch is a unified diff against the
reference solution tests/fixtures/exercises/solutions/<folder>.cu: one mistake a student
could make (a missing wait, a wrong parity, a wrong arrival or byte count, an early
refill, an edge left out, a wrong layout). Its first lines say what it is and what the
exercise check must answer:

    # mistake: <one line: what a student got wrong>
    # expect: <extended regular expression the check's output must match>

    python3 common/scripts/mutants.py check [--root DIR]
        Every patch applies exactly (no fuzz) to its solution, has both header lines,
        changes the solution, and only inside the EXERCISE regions (so that the exercise
        check's frame test lets it through to the GPU). Exit 1 with messages otherwise.
    python3 common/scripts/mutants.py apply PATCH --out FILE [--root DIR]
        Writes the solution with the patch applied.
    python3 common/scripts/mutants.py list [--root DIR] [--step N]
        One line per patch: <step> <folder> <name> <patch path>.

The GPU ctest label exercise-mutants (configure with -DLADDER_EXERCISES=ON
-DLADDER_EXERCISE_MUTANTS=ON, build the target exercise-checks) builds each mutant as its
own step executable, from that one file (nothing of another step), and expects the exercise
check to reject it with output matching its `expect` line (tests/run_mutant.sh).
"""
import argparse
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import exercises  # noqa: E402

MUTANTS = "tests/fixtures/exercises/mutants"
SOLUTIONS = "tests/fixtures/exercises/solutions"
CLASS = "tests/fixtures/exercises/class"
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(Exception):
    pass


def header(patch_text):
    """(mistake, expect) from the patch's header lines; None where missing."""
    mistake = expect = None
    for line in patch_text.splitlines():
        if line.startswith("# mistake:"):
            mistake = line.split(":", 1)[1].strip() or None
        elif line.startswith("# expect:"):
            expect = line.split(":", 1)[1].strip() or None
        elif line.startswith("--- "):
            break
    return mistake, expect


def apply_patch(original_lines, patch_text):
    """original_lines with the unified diff applied; every context and removed line must
    match exactly at the stated position (a patch that rotted fails, never fuzzes)."""
    lines = patch_text.splitlines(keepends=True)
    i = 0
    while i < len(lines) and not lines[i].startswith("--- "):
        i += 1
    if i + 1 >= len(lines) or not lines[i + 1].startswith("+++ "):
        raise PatchError("no '--- ' / '+++ ' header")
    i += 2
    out, pos, hunks = [], 0, 0
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            if lines[i].strip():
                raise PatchError(f"line {i + 1}: expected a hunk header, got {lines[i]!r}")
            i += 1
            continue
        hunks += 1
        start = int(m.group(1)) - (1 if (m.group(2) != "0") else 0)
        if start < pos:
            raise PatchError(f"hunk {hunks}: overlaps the previous one")
        out.extend(original_lines[pos:start])
        pos = start
        i += 1
        while i < len(lines) and not HUNK.match(lines[i]):
            line = lines[i]
            tag, text = line[:1], line[1:]
            if tag == "\\":  # "\ No newline at end of file"
                i += 1
                continue
            if tag in (" ", "-"):
                if pos >= len(original_lines) or original_lines[pos].rstrip("\n") != text.rstrip("\n"):
                    got = original_lines[pos] if pos < len(original_lines) else "(end of file)"
                    raise PatchError(f"hunk {hunks}: line {pos + 1} of the solution is {got!r}, "
                                     f"the patch expects {text!r}")
                if tag == " ":
                    out.append(original_lines[pos])
                pos += 1
            elif tag == "+":
                out.append(text if text.endswith("\n") else text + "\n")
            elif line.strip() == "":
                raise PatchError(f"line {i + 1}: an empty line inside a hunk (context lines "
                                 f"start with a space)")
            else:
                raise PatchError(f"line {i + 1}: unexpected {line!r}")
            i += 1
    if hunks == 0:
        raise PatchError("no hunk")
    out.extend(original_lines[pos:])
    return out


def patches(root, step=None):
    """[(step number, folder, name, path)] of every mutant patch, sorted."""
    root = pathlib.Path(root)
    found = []
    for folder_dir in sorted((root / MUTANTS).glob("[0-9][0-9]_*")):
        number = int(folder_dir.name[:2])
        if step is not None and number != step:
            continue
        for p in sorted(folder_dir.glob("*.patch")):
            found.append((number, folder_dir.name, p.stem, p))
    return found


def check(root):
    errors = []
    root = pathlib.Path(root)
    found = patches(root)
    if not found:
        errors.append(f"{root / MUTANTS}: no patches")
    import tempfile
    for number, folder, name, path in found:
        solution = root / SOLUTIONS / f"{folder}.cu"
        text = path.read_text(encoding="utf-8")
        mistake, expect = header(text)
        if not mistake or not expect:
            errors.append(f"{path}: needs '# mistake: ...' and '# expect: ...' lines before the diff")
        else:
            try:
                re.compile(expect)
            except re.error as e:
                errors.append(f"{path}: its expect line is not a regular expression: {e}")
        if not solution.exists():
            errors.append(f"{path}: no reference solution {solution}")
            continue
        original = exercises.read_lines(solution)
        try:
            result = apply_patch(original, text)
        except PatchError as e:
            errors.append(f"{path}: does not apply to {solution}: {e}")
            continue
        if result == original:
            errors.append(f"{path}: changes nothing")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / f"{folder}.{name}.cu"
            out.write_text("".join(result), encoding="utf-8")
            for e in exercises.frame_errors(out, solution):
                errors.append(f"{path}: {e}")
    # The grader's demonstration class (tests/fixtures/exercises/class/<folder>/*.patch):
    # submissions that do not compile, loop or edit outside the regions. They must apply too.
    for path in sorted((root / CLASS).glob("[0-9][0-9]_*/*.patch")):
        solution = root / SOLUTIONS / f"{path.parent.name}.cu"
        try:
            apply_patch(exercises.read_lines(solution), path.read_text(encoding="utf-8"))
        except (PatchError, OSError) as e:
            errors.append(f"{path}: does not apply to {solution}: {e}")
    return errors, len(found)


def main(argv=None):
    default_root = pathlib.Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check")
    p.add_argument("--root", default=default_root)
    p = sub.add_parser("apply")
    p.add_argument("patch")
    p.add_argument("--out", required=True)
    p.add_argument("--root", default=default_root)
    p = sub.add_parser("list")
    p.add_argument("--root", default=default_root)
    p.add_argument("--step", type=int)
    args = parser.parse_args(argv)
    root = pathlib.Path(args.root)

    if args.command == "check":
        errors, count = check(root)
        for e in errors:
            print(e, file=sys.stderr)
        if errors:
            print("mutants.py check: FAILED", file=sys.stderr)
            return 1
        print(f"mutants.py check: {count} patches apply to their solutions, inside the regions")
        return 0
    if args.command == "list":
        for number, folder, name, path in patches(root, args.step):
            print(number, folder, name, path)
        return 0
    patch = pathlib.Path(args.patch)
    folder = patch.parent.name
    solution = root / SOLUTIONS / f"{folder}.cu"
    try:
        result = apply_patch(exercises.read_lines(solution), patch.read_text(encoding="utf-8"))
    except (PatchError, OSError) as e:
        print(f"{patch}: cannot apply to {solution}: {e}", file=sys.stderr)
        return 1
    out = pathlib.Path(args.out)
    text = "".join(result)
    if not out.exists() or out.read_text(encoding="utf-8") != text:  # keep the build's timestamps
        out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

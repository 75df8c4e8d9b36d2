#!/usr/bin/env python3
"""exercises.py: keep every step's exercise.cu in step with its gemm.cu.

An exercise file is a copy of the step's gemm.cu in which a few regions are cut out and
replaced by a stub. A region is everything from a line containing
    // EXERCISE BEGIN: <short title>
to the next line containing
    // EXERCISE END
(both marker lines included). Outside the regions the two files must be identical.

    python3 common/scripts/exercises.py check [--root DIR] [FILE.cu ...]
        For every NN_*/exercise.cu (or the files named): markers balanced, not nested,
        titled; and every line outside the regions equal to gemm.cu in the same folder
        (difflib, line by line: every difference must lie inside a region). Exit 1 with
        file:line messages otherwise.

    python3 common/scripts/exercises.py frame STUDENT.cu --against EXERCISE.cu
        A student's file against the one handed out: the same regions (titles, in order)
        and every line outside them the same, the fixed lines included (below). Exit 1
        with file:line messages otherwise. The exercise check and the grader run it.

    python3 common/scripts/exercises.py sync [--root DIR] [--base REV] [--dry-run] [FILE.cu ...]
        Rewrite each exercise.cu from the CURRENT gemm.cu, keeping every region's text,
        each placed where the lines it replaced now are. The exercise was made from some
        earlier gemm.cu (the base: gemm.cu at git revision REV, default HEAD); difflib
        between base and current says where each replaced span moved. Refuses (exit 1,
        nothing written for that file) when it cannot tell: lines were inserted exactly
        at the edge of a replaced span (inside or outside the region?), a changed hunk
        crosses that edge, or the span is gone. Without a clean base it aligns the
        exercise with the current gemm.cu directly (two-way, flagged in its report:
        review those regions). Run `check` after.

Files derived the same way from a step's gemm.cu, checked and synced with the exercises:
    tests/fixtures/exercises/solutions/<folder>.cu   the reference solution of an exercise
        that asks for something gemm.cu does not contain (a transfer exercise): the same
        regions as <folder>/exercise.cu, solved. The exercise build uses it in place of
        gemm.cu with -DLADDER_EXERCISE_SOLUTIONS=ON (the instructor's "solutions pass").
    tests/fixtures/exercises/rejected/<folder>.<what>.cu   a wrong solution that the
        exercise check must reject (run it on a GPU with -DLADDER_STEP<N>_SOURCE=...).
A file outside a step folder names its step folder by the part of its name before the
first dot.

A student may run `check` on their own exercise.cu: it passes as long as they only edited
inside the regions.

Fixed lines: a line of an exercise (or its solution) outside every region that calls
LADDER_EXERCISE_DELAY(...) (tests/exercise_delay.cuh: the exercise build's delay at
a named point) is not in gemm.cu. `check` and `sync` treat it as a one-line region of its
own (kept where it is, never the student's); `frame` requires it word for word.

Variants are kept the same way. A variant file NN_*/gemm_<name>.cu is the step's gemm.cu
with regions from
    // VARIANT BEGIN: <what changed>
to the next
    // VARIANT END
replaced by another spelling of the same kernel (e.g. libcu++ instead of inline PTX), so
that `diff gemm.cu gemm_<name>.cu` is exactly the spelling that changed. `check` and
`sync` treat every gemm_*.cu like an exercise.cu, with VARIANT markers instead of EXERCISE
markers. A region may also be a pure insertion (it replaces no line of gemm.cu). A module in
a folder below the step's (07_clusters_multicast/every_shape/) is a kernel of its own, not a
copy of gemm.cu: neither command reads it.
"""
import argparse
import difflib
import pathlib
import re
import sys

class Markers:
    """The marker pair of one kind of derived file: EXERCISE (exercise.cu) or VARIANT
    (gemm_<name>.cu)."""

    def __init__(self, word):
        self.word = word
        self.begin = re.compile(r"//\s*" + word + r" BEGIN:\s*(\S.*?)\s*$")
        self.end = re.compile(r"//\s*" + word + r" END\b")
        self.any = re.compile(word + r" (BEGIN|END)")


EXERCISE = Markers("EXERCISE")
VARIANT = Markers("VARIANT")


def markers_for(path):
    """VARIANT for a variant file (gemm_<name>.cu), EXERCISE for anything else."""
    return VARIANT if pathlib.Path(path).name.startswith("gemm_") else EXERCISE


class ExerciseError(Exception):
    pass


class Region:
    def __init__(self, title, begin, end, fixed=False):
        self.title = title
        self.begin = begin  # index of the BEGIN marker line (0-based)
        self.end = end      # index of the END marker line (0-based)
        self.fixed = fixed  # a fixed line (FIXED_LINE): begin == end, not for the student

    def describe(self, path):
        return f"{path}:{self.begin + 1}-{self.end + 1} region '{self.title}'"


def read_lines(path):
    return pathlib.Path(path).read_text(encoding="utf-8").splitlines(keepends=True)


# A fixed line of an exercise file: a call of the exercise build's delay at a named point
# (tests/exercise_delay.cuh), outside every region. gemm.cu does not have it, so
# `check` and `sync` treat it as a one-line region of its own (a pure insertion, kept where
# it is); `frame` requires a student's file to keep it word for word.
FIXED_LINE = re.compile(r"^\s*LADDER_EXERCISE_DELAY\(.*\);")


def parse_regions(lines, path, markers=None, with_fixed=True):
    """The marked regions of an exercise (or variant) file, and for an exercise file its
    fixed lines as one-line regions (with_fixed); raises ExerciseError on bad markers."""
    m = markers or markers_for(path)
    w = m.word
    regions = []
    open_region = None
    for i, line in enumerate(lines):
        begin = m.begin.search(line)
        end = m.end.search(line)
        if (open_region is None and with_fixed and w == "EXERCISE" and FIXED_LINE.search(line)):
            regions.append(Region("fixed: " + line.strip(), i, i, fixed=True))
            continue
        if begin:
            if open_region is not None:
                raise ExerciseError(f"{path}:{i + 1}: {w} BEGIN inside the region opened at "
                                    f"line {open_region[1] + 1} (regions do not nest)")
            open_region = (begin.group(1), i)
        elif end:
            if open_region is None:
                raise ExerciseError(f"{path}:{i + 1}: {w} END without an {w} BEGIN")
            regions.append(Region(open_region[0], open_region[1], i))
            open_region = None
        elif m.any.search(line):
            raise ExerciseError(f"{path}:{i + 1}: malformed marker (write "
                                f"'// {w} BEGIN: <title>' or '// {w} END')")
    if open_region is not None:
        raise ExerciseError(f"{path}:{open_region[1] + 1}: {w} BEGIN '{open_region[0]}' "
                            f"is never closed by an {w} END")
    return regions


def collapse(lines, regions):
    """The exercise with each region replaced by one placeholder line that matches nothing.
    Returns (collapsed lines, for each collapsed line the exercise line index it stands for
    or the region it stands for)."""
    out, origin = [], []
    i = 0
    for r in regions:
        while i < r.begin:
            out.append(lines[i])
            origin.append(i)
            i += 1
        out.append(f"\0region {r.begin}\n")
        origin.append(r)
        i = r.end + 1
    while i < len(lines):
        out.append(lines[i])
        origin.append(i)
        i += 1
    return out, origin


BRACELESS_HEADER = re.compile(r"^\s*(\}\s*)?(else|(if|for|while)\s*\(.*\)|else\s+if\s*\(.*\))\s*$")
STRING_OR_COMMENT = re.compile(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'|//.*$')


def code_of(line):
    return STRING_OR_COMMENT.sub("", line).strip()


def structure_errors(lines, regions, path, what="region"):
    """A region must hold whole statements: its braces and parentheses balance (a region
    that cuts through a `for (...) {` header leaves the rest of the loop outside it), and it
    must not sit right under a brace-less if/else/for/while (the first statement of the
    region would be the branch, and a second one would silently run unconditionally)."""
    errors = []
    for r in regions:
        body = [code_of(l) for l in lines[r.begin + 1:r.end]]
        text = "".join(body)
        for open_, close in ("{}", "()"):
            if text.count(open_) != text.count(close):
                errors.append(f"{r.describe(path)}: its {open_}{close} do not balance: a {what} "
                              f"must hold whole statements and blocks (move its edges out of "
                              f"the block or header it cuts)")
        before = next((code_of(l) for l in reversed(lines[:r.begin]) if code_of(l)), "")
        if BRACELESS_HEADER.match(before):
            errors.append(f"{r.describe(path)}: it opens right under the brace-less '{before}': "
                          f"a second statement would escape that branch; give the branch braces")
    return errors


def opcodes(a, b):
    return difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


DERIVED_DIRS = ("tests/fixtures/exercises/solutions", "tests/fixtures/exercises/rejected")


def solution_for(exercise_path):
    """The gemm.cu a marked file is derived from: the one next to it, else (a file outside
    a step folder) <folder>/gemm.cu in the nearest parent folder that has it, where
    <folder> is the file name up to its first dot."""
    path = pathlib.Path(exercise_path)
    here = path.with_name("gemm.cu")
    if here.exists():
        return here
    folder = path.name.split(".")[0]
    for parent in path.resolve().parents:
        candidate = parent / folder / "gemm.cu"
        if candidate.exists():
            return candidate
    return here


def reference_solution(exercise_path):
    """tests/fixtures/exercises/solutions/<folder>.cu for NN_<folder>/exercise.cu, or None
    (then gemm.cu itself is the solution)."""
    path = pathlib.Path(exercise_path).resolve()
    candidate = path.parent.parent / DERIVED_DIRS[0] / f"{path.parent.name}.cu"
    return candidate if candidate.exists() else None


def check_pair(exercise_path, solution_path):
    """An exercise and its reference solution must hold the same regions (titles, in
    order) over the same lines of gemm.cu, so that the solution solves this exercise."""
    gemm = read_lines(solution_for(exercise_path))
    files = []
    for path in (exercise_path, solution_path):
        lines = read_lines(path)
        regions = parse_regions(lines, path)
        files.append(([r.title for r in regions], solution_spans(lines, regions, gemm)))
    (ex_titles, ex_spans), (sol_titles, sol_spans) = files
    if ex_titles != sol_titles:
        return [f"{solution_path}: its regions {sol_titles} are not those of {exercise_path} "
                f"{ex_titles}"]
    if ex_spans != sol_spans:
        return [f"{solution_path}: its regions replace other lines of gemm.cu than those of "
                f"{exercise_path}"]
    return []


def check_file(exercise_path):
    """A list of error messages (empty: the file is fine)."""
    exercise_path = pathlib.Path(exercise_path)
    solution_path = solution_for(exercise_path)
    if not solution_path.exists():
        return [f"{exercise_path}: no gemm.cu next to it (nor a step folder named like it)"]
    ex = read_lines(exercise_path)
    sol = read_lines(solution_path)
    for i, line in enumerate(sol):
        if EXERCISE.any.search(line) or VARIANT.any.search(line):
            return [f"{solution_path}:{i + 1}: a solution file must not contain exercise or "
                    f"variant markers"]
    word = markers_for(exercise_path).word
    try:
        regions = parse_regions(ex, exercise_path)
    except ExerciseError as e:
        return [str(e)]
    if not regions:
        return [f"{exercise_path}: no '// {word} BEGIN: <title>' region"]
    # Exercise regions must hold whole statements (a variant's may open a namespace).
    errors = structure_errors(ex, regions, exercise_path) if word == "EXERCISE" else []
    spans = solution_spans(ex, regions, sol) if word == "EXERCISE" else None
    if spans is not None:
        # The lines of gemm.cu each region replaces must be whole statements too.
        for r, (j1, j2) in zip(regions, spans):
            errors += structure_errors(sol[:j1] + ["// EXERCISE BEGIN: x\n"] + sol[j1:j2] +
                                       ["// EXERCISE END\n"], [Region(r.title, j1, j2 + 1)],
                                       solution_path, what="replaced span of gemm.cu")
    collapsed, origin = collapse(ex, regions)
    for tag, i1, i2, j1, j2 in opcodes(collapsed, sol):
        if tag == "equal":
            continue
        outside = [origin[k] for k in range(i1, i2) if not isinstance(origin[k], Region)]
        if not outside and i1 < i2:
            continue  # only region placeholders on the exercise side: a stub replacing lines
        sol_range = f"{solution_path}:{j1 + 1}-{j2}" if j2 > j1 else f"{solution_path} (no line)"
        if outside:
            where = f"{exercise_path}:{outside[0] + 1}"
            if len(outside) > 1:
                where += f"-{outside[-1] + 1}"
            errors.append(f"{where}: differs from {sol_range} outside any {word} region")
        else:
            # lines of gemm.cu with no counterpart in the exercise, between two outside lines
            at = origin[i1 - 1] + 2 if i1 > 0 else 1
            errors.append(f"{exercise_path}:{at}: {solution_path}:{j1 + 1}-{j2} is missing here, "
                          f"outside any {word} region")
    return errors


def solution_spans(exercise_lines, regions, solution_lines):
    """For an exercise that checks clean against solution_lines: the [start, end) span of
    solution lines each region stands for, or None when it does not check clean."""
    collapsed, origin = collapse(exercise_lines, regions)
    spans = {}
    for tag, i1, i2, j1, j2 in opcodes(collapsed, solution_lines):
        if tag == "equal":
            continue
        on_exercise_side = [origin[k] for k in range(i1, i2)]
        if len(on_exercise_side) != 1 or not isinstance(on_exercise_side[0], Region):
            return None
        spans[on_exercise_side[0].begin] = (j1, j2)
    if len(spans) != len(regions):
        return None
    return [spans[r.begin] for r in regions]


def two_way_spans(exercise_lines, regions, solution_lines):
    """Like solution_spans, but lines outside the regions may differ (they are taken from
    solution_lines): only a hunk that holds a region must hold nothing else."""
    collapsed, origin = collapse(exercise_lines, regions)
    spans = {}
    for tag, i1, i2, j1, j2 in opcodes(collapsed, solution_lines):
        held = [origin[k] for k in range(i1, i2) if isinstance(origin[k], Region)]
        if not held:
            continue
        if i2 - i1 != 1:
            return None
        spans[held[0].begin] = (j1, j2)
    if len(spans) != len(regions):
        return None
    return [spans[r.begin] for r in regions]


def git_show(root, rev, path):
    import subprocess
    rel = pathlib.Path(path).resolve().relative_to(pathlib.Path(root).resolve())
    try:
        out = subprocess.run(["git", "-C", str(root), "show", f"{rev}:{rel.as_posix()}"],
                             capture_output=True, check=True)
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    return out.stdout.decode("utf-8").splitlines(keepends=True)


def git_revisions(root, rev, path, limit=30):
    """rev, then the earlier revisions that changed `path` (newest first, at most limit)."""
    import subprocess
    rel = pathlib.Path(path).resolve().relative_to(pathlib.Path(root).resolve())
    try:
        out = subprocess.run(["git", "-C", str(root), "log", f"-n{limit}", "--format=%H", rev,
                              "--", rel.as_posix()], capture_output=True, check=True)
    except (subprocess.CalledProcessError, FileNotFoundError):
        return [rev]
    return [rev] + out.stdout.decode().split()


def map_boundary(codes, p):
    """Where the boundary before base line p lies in the new file, or None when lines were
    inserted exactly there or a changed hunk straddles it (ambiguous)."""
    for tag, i1, i2, j1, j2 in codes:
        if tag == "insert" and i1 == p:
            return None
        if tag != "equal" and i1 < p < i2:
            return None
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i1 <= p <= i2:
            return j1 + (p - i1)
        if i1 == p:
            return j1
        if i2 == p:
            return j2
    return None


def sync_file(exercise_path, root, base_rev="HEAD", dry_run=False, base_lines=None):
    """Rewrites exercise_path from the current gemm.cu; returns a report line per region.

    Three-way: `base` is the gemm.cu the exercise was made from (gemm.cu at git revision
    base_rev when the exercise checks clean against it, else the current one). Each
    region stands for a span of base lines; base -> current gemm.cu (difflib) says where
    that span is now. Changes inside a span are the solution's (the stub stays); changes
    elsewhere are taken. Raises ExerciseError when a span's edge is ambiguous: lines were
    inserted exactly at it, or a changed hunk crosses it. base_lines (tests) replaces git."""
    exercise_path = pathlib.Path(exercise_path)
    solution_path = solution_for(exercise_path)
    ex = read_lines(exercise_path)
    new = read_lines(solution_path)
    regions = parse_regions(ex, exercise_path)
    if not regions:
        raise ExerciseError(f"{exercise_path}: no {markers_for(exercise_path).word} region to keep")

    # The base: gemm.cu at base_rev when the exercise checks clean against it (then lines
    # added next to a region since are caught), else the current gemm.cu (nothing to do).
    # The base: gemm.cu at base_rev, or at the newest earlier revision that changed it,
    # whichever the exercise checks clean against first (after a merge brought in a new
    # gemm.cu, the exercise was made from one of those).
    spans = None
    if base_lines is not None:
        base = base_lines
        spans = solution_spans(ex, regions, base) if base else None
    else:
        for rev in git_revisions(root, base_rev, solution_path):
            base = git_show(root, rev, solution_path)
            spans = solution_spans(ex, regions, base) if base else None
            if spans is not None:
                break
    two_way = False
    if spans is None:
        base, spans = new, solution_spans(ex, regions, new)
    if spans is None:
        # No clean base: align the exercise with the current gemm.cu directly. Works when
        # every change is away from the regions; a line added right next to a region
        # cannot be told apart from the region's solution, hence the warning.
        base, spans, two_way = new, two_way_spans(ex, regions, new), True
        if spans is None:
            raise ExerciseError(f"{exercise_path}: outside its regions it matches neither the "
                                f"current {solution_path.name} nor {solution_path.name} at git "
                                f"revision {base_rev}, and {solution_path.name} changed right "
                                f"next to a region; pass --base REV with the revision it was "
                                f"made from, or fix it by hand (check shows where)")
    codes = opcodes(base, new)
    out, report, position = [], [], 0
    for r, (b1, b2) in zip(regions, spans):
        n1, n2 = map_boundary(codes, b1), map_boundary(codes, b2)
        if n1 is None or n2 is None:
            edge = "start" if n1 is None else "end"
            raise ExerciseError(f"{r.describe(exercise_path)}: {solution_path.name} changed right at "
                                f"the {edge} of the lines it replaces (base lines {b1 + 1}-{b2}), so "
                                f"it is not clear whether the new lines belong inside the region. "
                                f"Place it by hand, then run check")
        if n2 < n1 or (n2 == n1 and b2 > b1):  # a pure insertion (b1 == b2) stays one
            raise ExerciseError(f"{r.describe(exercise_path)}: the lines of {solution_path.name} it "
                                f"replaced (base lines {b1 + 1}-{b2}) are gone; place it by hand")
        if n1 < position:
            raise ExerciseError(f"{r.describe(exercise_path)}: now overlaps the previous region")
        out.extend(new[position:n1])
        out.extend(ex[r.begin:r.end + 1])
        position = n2
        changed = base[b1:b2] != new[n1:n2]
        report.append(f"{exercise_path}: region '{r.title}' replaces {solution_path.name} lines "
                      f"{n1 + 1}-{n2}" + (" (the solution there changed: review the stub)"
                                          if changed else "")
                      + (" (two-way: no clean base, so lines added right next to the region "
                         "were taken into it; review)" if two_way else ""))
    out.extend(new[position:])
    if not dry_run:
        text = "".join(out)
        if text != "".join(ex):
            exercise_path.write_text(text, encoding="utf-8")
    return report


def frame_errors(submission_path, pristine_path):
    """A student's file against the exercise it was handed out as: the same regions (titles,
    in order), the same fixed lines, and every line outside the regions the same. Only the
    text inside the regions may differ. A list of messages (empty: only regions edited)."""
    sub, pri = read_lines(submission_path), read_lines(pristine_path)
    try:
        sub_regions = parse_regions(sub, submission_path, EXERCISE)
    except ExerciseError as e:
        return [str(e)]
    pri_regions = parse_regions(pri, pristine_path, EXERCISE)
    want = [r.title for r in pri_regions if not r.fixed]
    got = [r.title for r in sub_regions if not r.fixed]
    if got != want:
        return [f"{submission_path}: its regions {got} are not the exercise's {want} (a region "
                f"marker was removed, added or retitled)"]
    # Fixed lines stay in the text that is compared: one missing or changed is an edit
    # outside the regions.
    student = [r for r in sub_regions if not r.fixed]
    handed = [r for r in pri_regions if not r.fixed]
    collapsed_sub, origin = collapse(sub, student)
    collapsed_pri, _ = collapse(pri, handed)
    # Placeholders name the region by its order, so that they match each other.
    def by_order(lines, regions):
        out, k = [], 0
        for line in lines:
            if line.startswith("\0region "):
                out.append(f"\0region #{k}\n")
                k += 1
            else:
                out.append(line)
        return out
    a, b = by_order(collapsed_sub, student), by_order(collapsed_pri, handed)
    errors = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            continue
        lines = [origin[k] for k in range(i1, i2) if not isinstance(origin[k], Region)]
        if lines:
            where = f"{submission_path}:{lines[0] + 1}" + (f"-{lines[-1] + 1}" if len(lines) > 1 else "")
            errors.append(f"{where}: edited outside the exercise regions (differs from "
                          f"{pristine_path}:{j1 + 1}-{j2})")
        else:
            before = origin[i1 - 1] if i1 > 0 else None
            at = (before.end if isinstance(before, Region) else before) + 2 if before is not None else 1
            errors.append(f"{submission_path}:{at}: lines {j1 + 1}-{j2} of {pristine_path} were "
                          f"removed outside the exercise regions")
    return errors


def exercise_files(root, names):
    if names:
        return [pathlib.Path(n) for n in names]
    root = pathlib.Path(root)
    files = []
    for step in sorted(root.glob("[0-9][0-9]_*")):
        if (step / "gemm.cu").exists():
            files.append(step / "exercise.cu")
            files.extend(sorted(step.glob("gemm_*.cu")))
    for folder in DERIVED_DIRS:
        files.extend(sorted((root / folder).glob("*.cu")))
    return files


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("frame", help="a student's exercise.cu edits only inside its regions")
    p.add_argument("submission")
    p.add_argument("--against", required=True,
                   help="the exercise.cu as handed out (or its reference solution)")
    for name in ("check", "sync"):
        p = sub.add_parser(name)
        p.add_argument("--root", default=pathlib.Path(__file__).resolve().parents[2],
                       help="repository root (default: this script's ../..)")
        p.add_argument("files", nargs="*", help="exercise files (default: every NN_*/exercise.cu)")
        if name == "sync":
            p.add_argument("--dry-run", action="store_true", help="report, write nothing")
            p.add_argument("--base", default="HEAD",
                           help="git revision whose gemm.cu the exercises were made from, used "
                                "when they no longer check clean against the current one "
                                "(default HEAD)")
    args = parser.parse_args(argv)
    if args.command == "frame":
        errors = frame_errors(args.submission, args.against)
        for e in errors:
            print(e, file=sys.stderr)
        if errors:
            print("exercises.py frame: FAILED: edit only between the EXERCISE BEGIN and END "
                  "lines (git checkout -- <file> puts the handed-out file back)", file=sys.stderr)
            return 1
        print(f"{args.submission}: only the exercise regions differ from {args.against}")
        return 0

    files = exercise_files(args.root, args.files)
    if not files:
        print(f"exercises.py: no step folders under {args.root}", file=sys.stderr)
        return 1
    failed = False
    for path in files:
        if not path.exists():
            print(f"{path}: missing (every step folder needs an exercise.cu)", file=sys.stderr)
            failed = True
            continue
        if args.command == "check":
            errors = check_file(path)
            solution = reference_solution(path) if path.name == "exercise.cu" else None
            if not errors and solution is not None:
                errors = check_pair(path, solution)
            for e in errors:
                print(e, file=sys.stderr)
            if errors:
                failed = True
            else:
                regions = parse_regions(read_lines(path), path)
                fixed = sum(r.fixed for r in regions)
                print(f"{path}: ok ({len(regions) - fixed} region(s)"
                      + (f", {fixed} fixed line(s))" if fixed else ")"))
        else:
            try:
                for line in sync_file(path, args.root, args.base, args.dry_run):
                    print(line)
            except ExerciseError as e:
                print(f"sync refused: {e}", file=sys.stderr)
                failed = True
    if failed:
        print(f"exercises.py {args.command}: FAILED", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

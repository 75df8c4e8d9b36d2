#!/usr/bin/env python3
"""The counts the docs state are the code's:

    test_doc_counts.py <repository root>

From the code: the steps (the ladder_add_step lines of CMakeLists.txt), each step's variants
(the names its .cu files, in its folder and below it, register with LADDER_REGISTER_DEFAULT_VARIANT, LADDER_REGISTER_STEP
and LADDER_REGISTER_VARIANT, in that order, exercise.cu aside; the first is the default) and its ring's stages (`constexpr int STAGES`,
a number or an expression with its value in the comment after it). Fails when
- the ladder table of README.md has not one row per step, in order, each linking its folder;
- README.md or the READMEs of common/*/, results/ and tests/ say "<n> steps" or
  "<n> numbered ... steps|kernels" (up to three words between) with n not the number of
  steps;
- a step's README.md or NOTES.md says "<n> variant(s)" with n not the number of variants
  besides the default, or names a stage count (`STAGES = n`) that none of its files has;
- a row of the ladder table states a stage count ("3-stage", "4 TMA stages") that is not
  that step's;
- a step's README.md or EXERCISES.md names a least stage count (`STAGES >= n`) other than
  its gemm.cu's static_assert;
- step 07's README says "<n> tiles" with n not the number of tiles its every-shape kernel
  registers (LADDER_REGISTER_TILES: "tile<R>x<C>" entries, or one per row of the table
  macro it expands, LADDER_EVERY_SHAPE_TILES in every_shape/tile_family.h);
- a list of the tiles between <!-- tile-family --> markers in the step's README or NOTES
  is not that table's rows, in its order.
Before it reads the docs, each check must reject a doc that states a wrong count.
"""
import glob
import os
import re
import sys

WORDS = {w: i for i, w in enumerate(
    "no one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
NUMBER = r"(\d+|" + "|".join(WORDS) + r")"
STEPS_PHRASE = re.compile(r"\b" + NUMBER + r"\s+(?:steps\b|numbered\s+(?:[\w+`-]+\s+){0,3}?(?:steps|kernels)\b)", re.I)
VARIANTS_PHRASE = re.compile(r"\b" + NUMBER + r"\s+variants?\b", re.I)
STAGES_LITERAL = re.compile(r"\bSTAGES\s*=\s*(\d+)\b(?!\.\.)")  # not a range (2..4)
ROW_STAGES = re.compile(r"\b(\d+)(?:-stage\b|\s+(?:TMA\s+)?stages\b)")
LEAST_STAGES = re.compile(r"STAGES\s*>=\s*(\d+)")


def value(word):
    return int(word) if word.isdigit() else WORDS[word.lower()]


def step_sources(root, folder, pattern="*.cu"):
    """The step's files matching pattern, in its folder and any folder below it."""
    return sorted(glob.glob(os.path.join(root, folder, "**", pattern), recursive=True))


def code_facts(root):
    cmake = open(os.path.join(root, "CMakeLists.txt")).read()
    steps = [(int(n), folder) for n, folder in
             re.findall(r"^\s*ladder_add_step\((\d+)\s+(\S+)\s+\w+\)", cmake, re.M)]
    variants, stages = {}, {}
    for n, folder in steps:
        defaults, names, stage_values = [], [], set()
        for path in step_sources(root, folder):
            if os.path.basename(path) == "exercise.cu":
                continue
            text = open(path).read()
            # A variant file's LADDER_REGISTER_DEFAULT_VARIANT entries come before gemm.cu's
            # (registry.h), whose entries come before the other variant files'.
            for macro in ("LADDER_REGISTER_DEFAULT_VARIANT", "LADDER_REGISTER_STEP",
                          "LADDER_REGISTER_VARIANT"):
                for call in re.finditer(macro + r"\((.*?)\);", text, re.S):
                    found = re.findall(r'\{\s*"([^"]*)"\s*,', call.group(1))
                    if macro == "LADDER_REGISTER_DEFAULT_VARIANT":
                        defaults += found
                    else:
                        names = found + names if macro == "LADDER_REGISTER_STEP" else names + found
            for m in re.finditer(r"constexpr int STAGES = ([^;]*);(.*)", text):
                literal = re.fullmatch(r"\s*(\d+)\s*", m.group(1))
                comment = re.search(r"//\s*(\d+)\s*$", m.group(2))
                if literal or comment:
                    stage_values.add(int((literal or comment).group(1)))
        variants[n], stages[n] = defaults + names, stage_values
    return steps, variants, stages


def check_ladder_table(text, steps, stages):
    """Problems of the ladder table (README.md, between <!-- ladder-table --> markers)."""
    block = re.search(r"<!-- ladder-table -->(.*?)<!-- /ladder-table -->", text, re.S)
    if not block:
        return ["README.md has no <!-- ladder-table --> block"]
    rows = [line for line in block.group(1).splitlines()
            if line.startswith("|") and re.match(r"\|\s*\[", line)]
    out = []
    linked = [re.search(r"\]\(([^)]+)\)", row).group(1).strip("/") for row in rows]
    if linked != [folder for _, folder in steps]:
        out.append(f"the ladder table's rows link {linked}, the code has the steps "
                   f"{[folder for _, folder in steps]} (CMakeLists.txt, ladder_add_step)")
    for row, (n, folder) in zip(rows, steps):
        for m in ROW_STAGES.finditer(row):
            if int(m.group(1)) not in stages.get(n, set()):
                out.append(f"the ladder table's row of step {n} says '{m.group(0)}'; {folder} has "
                           f"STAGES = {sorted(stages.get(n, set())) or 'none'}")
    return out


def least_stages(root, folder):
    """The n of gemm.cu's static_assert(STAGES >= n, ...), or None."""
    path = os.path.join(root, folder, "gemm.cu")
    m = re.search(r"static_assert\(STAGES\s*>=\s*(\d+)", open(path).read()) if os.path.isfile(path) else None
    return int(m.group(1)) if m else None


def check_least_stages(where, text, least):
    return [f"{where}: '{m.group(0)}' but gemm.cu asserts STAGES >= {least}"
            for m in LEAST_STAGES.finditer(text) if least is not None and int(m.group(1)) != least]


def table_rows(root, folder, macro):
    """The (rows, columns) of X-macro `macro` (#define macro(X) X(r, c) X(r, c) ...) in the
    step's headers, in order; None where no header defines it."""
    for path in step_sources(root, folder, "*.h") + step_sources(root, folder, "*.cuh"):
        m = re.search(r"^#define\s+" + macro + r"\(X\)((?:.*\\\n)*.*)$", open(path).read(), re.M)
        if m:
            return [(int(r), int(c)) for r, c in re.findall(r"\bX\((\d+),\s*(\d+)\)", m.group(1))]
    return None


def registered_tiles(root, folder):
    """The tiles the step's files register with LADDER_REGISTER_TILES, as (rows, columns): each
    "tile<R>x<C>" entry, and the rows of a table macro the call expands."""
    tiles = []
    for path in step_sources(root, folder):
        for call in re.finditer(r"LADDER_REGISTER_TILES\((.*?)\);", open(path).read(), re.S):
            tiles += [(int(r), int(c)) for r, c in re.findall(r'\{\s*"tile(\d+)x(\d+)"', call.group(1))]
            for macro in re.findall(r"\b(LADDER_\w+_TILES)\(\w+\)", call.group(1)):
                rows = table_rows(root, folder, macro)
                if rows is None:
                    sys.exit(f"FAIL: {path} registers the tiles of {macro}, which no header of {folder} defines")
                tiles += rows
    return tiles


TILE = re.compile(r"(\d+)\s*(?:×|x)\s*(\d+)")


def check_tile_list(where, text, tiles):
    """Each <!-- tile-family --> ... <!-- /tile-family --> list must be the registered tiles, in order."""
    out = []
    for block in re.findall(r"<!-- tile-family -->(.*?)<!-- /tile-family -->", text, re.S):
        listed = [(int(r), int(c)) for r, c in TILE.findall(block)]
        if listed != tiles:
            out.append(f"{where}: the tile list says {', '.join(f'{r}x{c}' for r, c in listed)}; the step "
                       f"registers {', '.join(f'{r}x{c}' for r, c in tiles)} (its table of tiles)")
    return out


def check_tile_count(where, text, count):
    return [f"{where}: '{m.group(0)}' but the step registers {count} tiles (LADDER_REGISTER_TILES)"
            for m in re.finditer(r"\b" + NUMBER + r" tiles, each with", text, re.I) if value(m.group(1)) != count]


def check_step_count(where, text, count):
    return [f"{where}: '{m.group(0)}' but the ladder has {count} steps"
            for m in STEPS_PHRASE.finditer(text) if value(m.group(1)) != count]


def check_step_doc(where, text, n, names, stage_values):
    out = []
    others = len(names) - 1
    for m in VARIANTS_PHRASE.finditer(text):
        if value(m.group(1)) != others:
            out.append(f"{where}: '{m.group(0)}' but step {n} registers {others} besides the "
                       f"default ({', '.join(names[1:]) or 'none'})")
    for m in STAGES_LITERAL.finditer(text):
        if int(m.group(1)) not in stage_values:
            out.append(f"{where}: '{m.group(0)}' but step {n}'s files have STAGES = "
                       f"{sorted(stage_values) or 'none'}")
    return out


# Each check must reject a wrong count before it is trusted with the docs.
SAMPLE_STEPS = [(1, "01_a"), (2, "02_b")]
assert check_ladder_table("<!-- ladder-table -->\n| [01](01_a) | x |\n<!-- /ladder-table -->",
                          SAMPLE_STEPS, {}), "a table missing a step passed"
assert check_ladder_table("<!-- ladder-table -->\n| [01](01_a) | x |\n| [02](02_b) | a 3-stage ring |\n"
                          "<!-- /ladder-table -->", SAMPLE_STEPS, {2: {4}}), "a wrong stage count passed"
assert not check_ladder_table("<!-- ladder-table -->\n| [01](01_a) | x |\n| [02](02_b) | 4 TMA stages |\n"
                              "<!-- /ladder-table -->", SAMPLE_STEPS, {2: {4}}), "a right table failed"
assert check_step_count("x", "Eight numbered CUDA C++ kernels", 7), "a wrong step count passed"
assert not check_step_count("x", "Seven numbered CUDA C++ kernels", 7), "a right step count failed"
assert check_step_doc("x", "And two variants: `a`", 3, ["", "a"], set()), "a wrong variant count passed"
assert check_step_doc("x", "`STAGES = 3`", 4, [""], {4}), "a wrong STAGES passed"
assert not check_step_doc("x", "one variant, `a`; `STAGES = 4`", 4, ["", "a"], {4}), "a right doc failed"
assert check_least_stages("x", "(`STAGES >= 3` is asserted", 2), "a wrong least stage count passed"
assert not check_least_stages("x", "`static_assert(STAGES >= 2)`", 2), "a right least stage count failed"
assert check_tile_count("x", "64 to 256 columns, 12 tiles, each with as many", 13), "a wrong tile count passed"
assert not check_tile_count("x", "64 to 256 columns, 13 tiles, each with as many", 13), "a right tile count failed"
assert check_tile_list("x", "<!-- tile-family -->64×64, 128×256<!-- /tile-family -->", [(64, 64), (128, 128)]), \
    "a wrong tile list passed"
assert check_tile_list("x", "<!-- tile-family -->128×256, 64×64<!-- /tile-family -->", [(64, 64), (128, 256)]), \
    "a tile list out of order passed"
assert not check_tile_list("x", "<!-- tile-family -->64×64 and 128x256<!-- /tile-family -->",
                           [(64, 64), (128, 256)]), "a right tile list failed"

root = os.path.abspath(sys.argv[1])
steps, variants, stages = code_facts(root)
if len(steps) < 2 or not all(variants[n] for n, _ in steps):
    sys.exit(f"FAIL: could not read the steps and their variants from the code: {steps} {variants}")
print(f"the code: {len(steps)} steps; variants besides the default " +
      ", ".join(f"{n}: {len(variants[n]) - 1}" for n, _ in steps) +
      "; stages " + ", ".join(f"{n}: {sorted(stages[n])}" for n, _ in steps if stages[n]))

problems = []
top = open(os.path.join(root, "README.md"), encoding="utf-8").read()
problems += check_ladder_table(top, steps, stages)
for where in ["README.md"] + sorted(os.path.relpath(p, root) for p in
                                    glob.glob(os.path.join(root, "common", "*", "README.md")) +
                                    glob.glob(os.path.join(root, "results", "README.md")) +
                                    glob.glob(os.path.join(root, "tests", "README.md"))):
    problems += check_step_count(where, open(os.path.join(root, where), encoding="utf-8").read(), len(steps))
for n, folder in steps:
    for name in ("README.md", "NOTES.md"):
        path = os.path.join(root, folder, name)
        if os.path.isfile(path):
            problems += check_step_doc(f"{folder}/{name}", open(path, encoding="utf-8").read(),
                                       n, variants[n], stages[n])
for n, folder in steps:
    least = least_stages(root, folder)
    for name in ("README.md", "EXERCISES.md"):
        path = os.path.join(root, folder, name)
        if os.path.isfile(path):
            problems += check_least_stages(f"{folder}/{name}", open(path, encoding="utf-8").read(), least)
    tiles = registered_tiles(root, folder)
    if tiles:
        problems += check_tile_count(f"{folder}/README.md",
                                     open(os.path.join(root, folder, "README.md"), encoding="utf-8").read(),
                                     len(tiles))
    for name in ("README.md", "NOTES.md"):
        path = os.path.join(root, folder, name)
        if os.path.isfile(path):
            problems += check_tile_list(f"{folder}/{name}", open(path, encoding="utf-8").read(), tiles)
if problems:
    sys.exit("FAIL: counts the docs state that the code does not have:\n" + "\n".join(problems))
print("PASS: the docs' counts of steps, variants and stages are the code's")

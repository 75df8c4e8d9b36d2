#!/usr/bin/env python3
"""An exercise's build compiles that step and nothing else of the ladder:

    test_exercise_build.py <repository root> <cmake> <CUDA compiler>

Each step's EXERCISES.md gives the check as three commands (configure, build, ctest). For
every step the test configures a scratch build with exactly the documented options and asks
Ninja what the documented build line compiles (`ninja -t commands <targets>`, nothing is
compiled): the step's exercise.cu, the sources under common/ and the GPU tests' own sources,
and no file of another step's folder, no variant of the step, no libladder. The ctest line's
test must run what that line builds. The grader's build (grade.py's configure_command) of
steps 1 and 7 likewise: its step-N compiles the reference solution and common/ alone, and
the build holds no object of another step.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

root, cmake, nvcc = sys.argv[1:4]
root = os.path.abspath(root)
sys.path.insert(0, os.path.join(root, "common", "scripts"))
import grade  # noqa: E402

cmake_text = open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read()
folders = {int(n): f for n, f in re.findall(r"^\s*ladder_add_step\((\d+)\s+(\S+)\s+\w+\)", cmake_text, re.M)}
# The GPU tests' sources, which ladder_gpu_tests_step<N> compiles beside the step.
GPU_TEST_SOURCES = {"tests/test_gpu.cpp", "tests/test_gpu_contract.cpp", "tests/gpu_test_main.cpp"}
ctest = os.path.join(os.path.dirname(cmake), "ctest")
if not os.path.exists(ctest):
    ctest = "ctest"
failures = []


def fail(where, what):
    failures.append(f"{where}: {what}")


def check_block(path, n):
    """(configure options, build targets) of the fenced block that holds the check of step n."""
    text = open(path, encoding="utf-8").read()
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.M | re.S):
        if "--test-dir build-ex" not in block:
            continue
        lines = [shlex.split(line) for line in block.splitlines() if line.strip()]
        configure = next((w for w in lines if w[:1] == ["cmake"] and "-S" in w), None)
        build = next((w for w in lines if w[:2] == ["cmake", "--build"]), None)
        test = next(w for w in lines if w[:1] == ["ctest"])
        if configure is None or build is None or "--target" not in build:
            fail(path, "the check block lacks its configure or build line (`--target ...`)")
            return None
        options = [w for w in configure if w.startswith("-D")]
        if f"-DLADDER_EXERCISE_STEPS={n}" not in options or "-L" not in test or \
                test[test.index("-L") + 1] != f"exercise-{n}":
            fail(path, f"the check block is not step {n}'s: {block}")
            return None
        return configure[configure.index("-G") + 1] if "-G" in configure else None, options, \
            build[build.index("--target") + 1:]
    fail(path, "no check block (```bash with `ctest --test-dir build-ex`)")
    return None


def configure(where, build, command):
    """Runs the configure command (with this build's cmake and CUDA compiler); Ninja's path."""
    r = subprocess.run([cmake] + command[1:] + [f"-DCMAKE_CUDA_COMPILER={nvcc}"], capture_output=True, text=True)
    if r.returncode != 0:
        fail(where, f"configure failed:\n{r.stdout[-1500:]}{r.stderr[-1500:]}")
        return None
    cache = open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8").read()
    return re.search(r"^CMAKE_MAKE_PROGRAM:\w+=(.*)$", cache, re.M).group(1)


def compiled(where, ninja, build, targets):
    """The sources (relative to the root) that building `targets` compiles; None on an error."""
    r = subprocess.run([ninja, "-C", build, "-t", "commands"] + targets, capture_output=True, text=True)
    if r.returncode != 0:
        fail(where, f"ninja -t commands {' '.join(targets)}: {r.stderr.strip()}")
        return None
    if "libladder.so" in r.stdout:
        fail(where, f"{' '.join(targets)} link libladder, which holds every step")
    sources = set()
    for line in r.stdout.splitlines():
        words = line.split()
        sources.update(os.path.relpath(words[i + 1], root) for i, w in enumerate(words[:-1]) if w == "-c")
    return sources


def check_sources(where, sources, under_test, gpu_tests):
    """Only the file under test of the step, common/, and (gpu_tests) the GPU tests' sources."""
    if under_test not in sources:
        fail(where, f"does not compile {under_test}")
    allowed = {under_test} | (GPU_TEST_SOURCES if gpu_tests else set())
    extra = [s for s in sorted(sources - allowed) if not s.startswith("common" + os.sep)]
    if extra:
        fail(where, f"compiles {', '.join(extra)}, which the check of this step does not need")
    if gpu_tests and not GPU_TEST_SOURCES <= sources:
        fail(where, f"does not compile the GPU tests ({', '.join(sorted(GPU_TEST_SOURCES - sources))})")


for n, folder in sorted(folders.items()):
    doc = os.path.join(root, folder, "EXERCISES.md")
    if not os.path.exists(os.path.join(root, folder, "exercise.cu")):
        continue
    where = os.path.relpath(doc, root)
    if not os.path.exists(doc):
        fail(where, "missing: the step has an exercise.cu, and its check is documented there")
        continue
    found = check_block(doc, n)
    if found is None:
        continue
    generator, options, targets = found
    with tempfile.TemporaryDirectory() as build:
        ninja = configure(where, build, ["cmake", "-S", root, "-B", build] +
                          (["-G", generator] if generator else []) + options)
        if ninja is None:
            continue
        sources = compiled(where, ninja, build, targets)
        if sources is None:
            continue
        check_sources(f"{where}: `--target {' '.join(targets)}`", sources, f"{folder}/exercise.cu", True)
        # The documented ctest line runs exercise<N>, whose programs are the targets built.
        r = subprocess.run([ctest, "--test-dir", build, "-N", "-L", f"exercise-{n}", "--show-only=json-v1"],
                           capture_output=True, text=True)
        tests = json.loads(r.stdout).get("tests", []) if r.returncode == 0 else []
        if [t["name"] for t in tests] != [f"exercise{n}"]:
            fail(where, f"ctest -L exercise-{n} selects {[t['name'] for t in tests]}, not exercise{n}")
        else:
            programs = {os.path.basename(a) for a in tests[0]["command"]
                        if os.path.realpath(a).startswith(os.path.realpath(build) + os.sep)}
            if programs != set(targets):
                fail(where, f"exercise{n} runs {sorted(programs)}, but the build line makes {sorted(targets)}")
        if not any(f.startswith(where + ":") for f in failures):
            print(f"ok: {where}: `--target {' '.join(targets)}` compiles {len(sources)} files, "
                  f"{folder}/exercise.cu the only step file")

for n in (1, 7):
    where = f"grade.py --step {n}"
    with tempfile.TemporaryDirectory() as build:
        ninja = configure(where, build, grade.configure_command(root, build, n))
        if ninja is None:
            continue
        sources = compiled(where, ninja, build, [f"step-{n}"])
        if sources is None:
            continue
        solution = f"tests/fixtures/exercises/solutions/{folders[n]}.cu"
        check_sources(f"{where}: step-{n}", sources, solution, False)
        listed = subprocess.run([ninja, "-C", build, "-t", "targets", "all"], capture_output=True, text=True).stdout
        others = sorted({f for m, f in folders.items() if m != n and re.search(rf"/{f}/\S+\.o\b", listed)})
        if others:
            fail(where, f"the build has objects of the steps in {', '.join(others)}")
        if not any(f.startswith(where + ":") for f in failures):
            print(f"ok: {where}: step-{n} compiles {len(sources)} files, the reference solution the only step file")

if failures:
    sys.exit("FAIL:\n" + "\n".join(failures))
print("PASS")

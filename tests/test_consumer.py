#!/usr/bin/env python3
"""Another CMake project uses the ladder, and the ladder's CMake package is what it says:

    test_consumer.py <repository root> <ladder build folder> <CUDA compiler> <CMake generator>

1. add_subdirectory: tests/consumer builds against the source tree and runs (it calls the C
   API). The ladder then builds its library alone, with no target of a generic name; to stay
   within a minute on 2 cores the library holds step 01 alone (LADDER_ONLY_STEPS=1).
2. add_subdirectory asking for the executables and tools (configure only: building would
   compile every kernel a second time): they come under the ladder_ prefix, and the layouts
   target runs plot_layouts.py with a Python.
3. find_package: `cmake --install` of the ladder build into a scratch prefix holds the
   versioned library, the tools, ladder.py and the LICENSE, each of which runs from there;
   tests/consumer finds ladder 1.0 there, builds and runs, and a request for 2.0 is refused.
   The build folder is a package too: tests/consumer builds and runs against it
   (-DCMAKE_PREFIX_PATH=<build>, and -Dladder_DIR=<build>), without an install.
4. CMAKE_CUDA_ARCHITECTURES: a request the ladder cannot honour (100a) is warned about, given
   on the first configure or a later one; CMake's own default is no request.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root, build, nvcc, generator = sys.argv[1:5]
consumer = os.path.join(root, "tests", "consumer")


def run(argv, ok=True, **kw):
    print("+", " ".join(argv), flush=True)
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    print(r.stdout[-3000:], r.stderr[-3000:])
    if ok and r.returncode != 0:
        sys.exit(f"FAIL: exit {r.returncode}: {' '.join(argv)}")
    return r


def check(condition, what):
    if not condition:
        sys.exit(f"FAIL: {what}")
    print(f"ok: {what}")


with tempfile.TemporaryDirectory() as tmp:
    # 1. add_subdirectory: the library alone, built and called.
    sub = os.path.join(tmp, "sub")
    run(["cmake", "-S", consumer, "-B", sub, "-G", generator, f"-DLADDER_SOURCE_DIR={root}",
         f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DCMAKE_BUILD_TYPE=Release", "-DLADDER_ONLY_STEPS=1"])
    run(["cmake", "--build", sub])
    out = run([os.path.join(sub, "consumer")]).stdout
    check("ok: 01_naive refused" in out, "add_subdirectory builds libladder alone (no step-N, tools, tests, "
                                         "no generic target name), which links and runs")

    # 2. add_subdirectory asking for the executables and tools: prefixed names, a layouts
    #    target whose command starts with a Python.
    asked = os.path.join(tmp, "asked")
    run(["cmake", "-S", consumer, "-B", asked, "-G", generator, f"-DLADDER_SOURCE_DIR={root}",
         f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DCMAKE_BUILD_TYPE=Release", "-DLADDER_BUILD_STEPS=ON",
         "-DLADDER_BUILD_TOOLS=ON"])
    print("ok: asked for, the executables and tools come as ladder_step-N and ladder-plan etc.")
    if generator == "Ninja":
        commands = run(["ninja", "-C", asked, "-t", "commands", "ladder_layouts"]).stdout.splitlines()
        layouts = [c for c in commands if "plot_layouts.py" in c]
        check(len(layouts) == 1 and re.match(r"^(cd \S+ && )?\S*python[0-9.]*(\.exe)? \S+plot_layouts\.py",
                                             layouts[0]) is not None,
              f"the layouts target runs plot_layouts.py with a Python: {layouts}")

    # 3. find_package after cmake --install.
    prefix = os.path.join(tmp, "prefix")
    run(["cmake", "--install", build, "--prefix", prefix])
    libdir = next(os.path.join(prefix, d) for d in ("lib", "lib64") if os.path.isdir(os.path.join(prefix, d)))
    for name in ("libladder.so", "libladder.so.1", "libladder.so.1.0.0", "ladder.py",
                 "cmake/ladder/ladderConfig.cmake", "cmake/ladder/ladderConfigVersion.cmake"):
        check(os.path.exists(os.path.join(libdir, name)), f"the install holds {os.path.basename(libdir)}/{name}")
    check(os.path.isfile(os.path.join(prefix, "share", "doc", "ladder", "LICENSE")),
          "the install holds share/doc/ladder/LICENSE")
    for tool in ("ladder-plan", "ladder-probe", "ladder-ring", "ladder-layout"):
        check(os.access(os.path.join(prefix, "bin", tool), os.X_OK), f"the install holds bin/{tool}")
    # The installed tools find the installed libladder (ladder-plan lists the steps' variants from it).
    out = run([os.path.join(prefix, "bin", "ladder-plan"), "--step", "6:pingpong"]).stdout
    check("prediction" in out, "the installed ladder-plan runs")
    run([os.path.join(prefix, "bin", "ladder-ring"), "--step", "4"])
    # The installed ladder.py loads the library beside it.
    probe = "import ladder; print(ladder.library_path()); print(sorted(ladder.steps()))"
    env = dict(os.environ, PYTHONPATH=libdir)
    env.pop("LADDER_LIBRARY", None)
    out = run([sys.executable, "-c", probe], env=env, cwd=tmp).stdout.splitlines()
    check(out[0] == os.path.join(libdir, "libladder.so") and out[1] == str(list(range(1, 8))),
          f"PYTHONPATH={libdir}: import ladder loads the library beside it ({out})")

    found = os.path.join(tmp, "found")
    run(["cmake", "-S", consumer, "-B", found, "-G", generator, f"-DCMAKE_PREFIX_PATH={prefix}",
         "-DLADDER_WANT_VERSION=1.0"])
    run(["cmake", "--build", found])
    out = run([os.path.join(found, "consumer")]).stdout
    check("ok:" in out, "find_package(ladder 1.0) gives ladder::ladder, which links and runs")
    r = run(["cmake", "-S", consumer, "-B", os.path.join(tmp, "found2"), "-G", generator,
             f"-DCMAKE_PREFIX_PATH={prefix}", "-DLADDER_WANT_VERSION=2.0"], ok=False)
    said = " ".join(r.stderr.split())  # CMake wraps its messages
    check(r.returncode != 0 and 'compatible with requested version "2.0"' in said and "version: 1.0.0" in said,
          "find_package(ladder 2.0) is refused: 1.0.0 is another major version")

    # The build folder as the package: ladderTargets.cmake there names the library there.
    check(os.path.isfile(os.path.join(build, "ladderTargets.cmake")), "the build folder holds ladderTargets.cmake")
    tree = os.path.join(tmp, "tree")
    run(["cmake", "-S", consumer, "-B", tree, "-G", generator, f"-DCMAKE_PREFIX_PATH={build}"])
    run(["cmake", "--build", tree])
    out = run([os.path.join(tree, "consumer")]).stdout
    check("ok:" in out, "-DCMAKE_PREFIX_PATH=<build folder>: find_package(ladder 1.0) gives the build's ladder::ladder, "
                        "which links and runs")
    r = run(["cmake", "-S", consumer, "-B", os.path.join(tmp, "tree2"), "-G", generator, f"-Dladder_DIR={build}"])
    check("found ladder 1.0.0" in r.stdout, "-Dladder_DIR=<build folder> finds it too")

    # 4. An architecture the ladder cannot build for is said, not dropped; CMake's own default
    #    (the first configure without a request) is none.
    library_only = [f"-DCMAKE_CUDA_COMPILER={nvcc}", "-DLADDER_BUILD_STEPS=OFF", "-DLADDER_BUILD_TOOLS=OFF",
                    "-DLADDER_BUILD_TESTS=OFF"]
    warning = "CMAKE_CUDA_ARCHITECTURES=100a is not used"
    plain = os.path.join(tmp, "plain")
    r = run(["cmake", "-S", root, "-B", plain, "-G", generator] + library_only)
    check("CMAKE_CUDA_ARCHITECTURES" not in r.stderr, "no warning without a request")
    r = run(["cmake", "-S", root, "-B", plain, "-DCMAKE_CUDA_ARCHITECTURES=100a"])
    check(warning in r.stderr, "a request on a later configure is warned about")
    r = run(["cmake", "-S", root, "-B", os.path.join(tmp, "asked100a"), "-G", generator,
             "-DCMAKE_CUDA_ARCHITECTURES=100a"] + library_only)
    check(warning in r.stderr, "a request on the first configure is warned about")
    shutil.rmtree(plain)
print("PASS: the ladder as a library, by add_subdirectory and by find_package(ladder 1.0)")

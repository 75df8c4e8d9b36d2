#!/usr/bin/env python3
"""`pip install .` (pyproject.toml, scikit-build-core) into a fresh virtual environment: the
module `ladder` imports from site-packages with libladder beside it, the library holds the
steps asked for, and its errors are Python exceptions there too (no GPU needed).

    test_pip_install.py <repository root> <CUDA compiler>

To stay within a minute or two on 2 cores it builds step 01 alone (LADDER_ONLY_STEPS=1: the
packaging, not the kernels, is under test) with --no-build-isolation, so that the one thing
fetched is scikit-build-core, into the new environment (or taken from this Python's, when it
has it). Exits 77 (skipped) with the reason where that cannot be had: no venv module, no
scikit-build-core offline, CMake older than 3.24.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root, nvcc = sys.argv[1:3]


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def run(argv, **kw):
    print("+", " ".join(a if "\n" not in a else a.strip().splitlines()[0] + " ..." for a in argv), flush=True)
    return subprocess.run(argv, capture_output=True, text=True, **kw)


cmake = shutil.which("cmake")
version = re.search(r"version (\d+)\.(\d+)", run([cmake, "--version"]).stdout) if cmake else None
if not version or (int(version.group(1)), int(version.group(2))) < (3, 24):
    skip("pip install --no-build-isolation needs CMake >= 3.24 on PATH")

with tempfile.TemporaryDirectory() as tmp:
    venv = os.path.join(tmp, "venv")
    python = os.path.join(venv, "bin", "python")
    # scikit-build-core from PyPI into the new environment; offline, this Python's own copy.
    r = run([sys.executable, "-m", "venv", venv])
    if r.returncode != 0:
        skip(f"cannot create a virtual environment (python3-venv?): {r.stderr.strip()[-300:]}")
    r = run([python, "-m", "pip", "install", "-q", "scikit-build-core>=0.10"])
    if r.returncode != 0:
        try:
            import scikit_build_core  # noqa: F401
        except ImportError:
            skip(f"scikit-build-core cannot be installed (offline?) and {sys.executable} lacks it: "
                 f"{r.stderr.strip()[-300:]}")
        shutil.rmtree(venv)
        if run([sys.executable, "-m", "venv", "--system-site-packages", venv]).returncode != 0:
            skip("cannot create a virtual environment with this Python's packages")
        # A Python that is itself a virtual environment hands its base's packages on, not its own.
        if run([python, "-c", "import scikit_build_core"]).returncode != 0:
            skip(f"scikit-build-core cannot be installed (offline?), and a virtual environment made "
                 f"from {sys.executable} does not see its copy")

    r = run([python, "-m", "pip", "install", "--no-cache-dir", "--no-build-isolation", "-C", "cmake.define.LADDER_ONLY_STEPS=1",
             "-C", f"cmake.define.CMAKE_CUDA_COMPILER={nvcc}", "-C", f"build-dir={os.path.join(tmp, 'build')}",
             root])
    print(r.stdout[-3000:], r.stderr[-3000:])
    if r.returncode != 0:
        sys.exit(f"FAIL: pip install . exited {r.returncode}")

    # The installed files: the module and the library, nothing of the CMake package.
    r = run([python, "-m", "pip", "show", "-f", "hopper-gemm-ladder"])
    files = sorted(line.strip() for line in r.stdout.split("Files:", 1)[-1].splitlines()
                   if line.strip().startswith("ladder/") and "__pycache__" not in line)
    if files != ["ladder/__init__.py", "ladder/libladder.so"]:
        sys.exit(f"FAIL: the wheel installs {files}, not ladder/__init__.py and ladder/libladder.so:\n{r.stdout}")
    cmake_version = re.search(r"VERSION (\d+\.\d+\.\d+)", open(os.path.join(root, "CMakeLists.txt")).read()).group(1)
    if f"Version: {cmake_version}" not in r.stdout:
        sys.exit(f"FAIL: the package's version is not CMakeLists.txt's {cmake_version}:\n{r.stdout}")
    print(f"ok: the wheel holds ladder/__init__.py and ladder/libladder.so, version {cmake_version}")
    # The wheel's library carries the CUDA runtime (static): no toolkit on the library path needed.
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"]).stdout.strip()
    if shutil.which("readelf"):
        needed = run(["readelf", "-d", os.path.join(site, "ladder", "libladder.so")]).stdout
        if "libcudart" in needed:
            sys.exit(f"FAIL: the wheel's libladder.so needs a shared CUDA runtime:\n{needed}")
        print("ok: libladder.so needs no libcudart.so")

    # In the new environment, from a folder outside the repository (no import from the source):
    # a wrong LADDER_LIBRARY does not matter, the library beside the module comes first.
    check = r'''
import os, sys
import ladder
here = os.path.dirname(ladder.__file__)
assert "site-packages" in here, here
assert ladder.library_path() == os.path.join(here, "libladder.so"), ladder.library_path()
assert ladder.steps() == {1: "01_naive"}, ladder.steps()
print("ok: ladder from", here, "with steps", ladder.steps())
for args, kind, words in [
        ((1, 0x10008, 0x20000, 0x30000, 64, 64, 64), ValueError, "a must be 16-byte aligned"),
        ((1, 0x10000, 0x20000, 0x30000, 64, 64, 12), ValueError, "multiple of 8"),
        ((7, 0x10000, 0x20000, 0x30000, 64, 64, 64), RuntimeError, "step 7 is not available"),
        ((1, 0x10000, 0x20000, 0x30000, 64, 64, 64), (RuntimeError, ValueError), "")]:
    try:
        ladder.gemm_pointers(*args)
        sys.exit(f"FAIL: gemm_pointers{args} returned")
    except kind as e:
        assert words in str(e), (args, e)
        print(f"ok: gemm_pointers{args}: {type(e).__name__}: {e}")
try:
    import torch  # noqa: F401
except ImportError:
    try:
        ladder.gemm(None, None)
        sys.exit("FAIL: gemm without PyTorch returned")
    except ImportError as e:
        assert "needs PyTorch" in str(e), e
        print("ok: without PyTorch, gemm():", e)
'''
    env = dict(os.environ, LADDER_LIBRARY="/nonexistent/libladder.so")
    env.pop("PYTHONPATH", None)
    r = run([python, "-c", check], cwd=tmp, env=env)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        sys.exit("FAIL: the installed module")
print("PASS: pip install . gives the ladder module with its library")

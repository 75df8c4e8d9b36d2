#!/usr/bin/env python3
"""`pip install .` (pyproject.toml, scikit-build-core) into a fresh virtual environment, with
build isolation as a user runs it and with nvcc not on PATH (CUDA_HOME names the toolkit, as
after a default toolkit install): the module `ladder` imports from site-packages with
libladder and py.typed beside it, the wheel's metadata has the version and the MIT license,
the library holds the steps asked for, its errors are Python exceptions there too, and
LADDER_LIBRARY is honoured (or refused when it names no file). Without a GPU.

    test_pip_install.py <repository root> <CUDA compiler>

To stay within a minute or two on 2 cores it builds step 01 alone (LADDER_ONLY_STEPS=1: the
packaging, not the kernels, is under test). Exits 77 (skipped) with the reason where that
cannot be had: no venv module, PyPI unreachable for the build requirements and no
scikit-build-core in this Python, CMake older than 3.24. It also configures the repository
with nvcc off PATH and a CUDA_HOME that holds no toolkit: one line says so.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

root, nvcc = sys.argv[1:3]
toolkit = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def run(argv, **kw):
    print("+", " ".join(a if "\n" not in a else a.strip().splitlines()[0] + " ..." for a in argv), flush=True)
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def without_nvcc(env):
    """env with every PATH folder that holds an nvcc removed, and no CUDA variables."""
    env = {k: v for k, v in env.items() if k not in ("CUDA_HOME", "CUDAToolkit_ROOT", "CUDACXX", "CUDA_PATH")}
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and not os.access(os.path.join(d, "nvcc"), os.X_OK))
    return env


cmake = shutil.which("cmake")
version = re.search(r"version (\d+)\.(\d+)", run([cmake, "--version"]).stdout) if cmake else None
if not version or (int(version.group(1)), int(version.group(2))) < (3, 24):
    skip("pip install needs CMake >= 3.24 on PATH")

with tempfile.TemporaryDirectory() as tmp:
    # A CUDA_HOME without a toolkit, nvcc not on PATH: one line that says to set it right.
    env = dict(without_nvcc(os.environ), CUDA_HOME=os.path.join(tmp, "no-toolkit"))
    r = run([cmake, "-S", root, "-B", os.path.join(tmp, "no-nvcc"), "-DLADDER_BUILD_STEPS=OFF",
             "-DLADDER_BUILD_TOOLS=OFF", "-DLADDER_BUILD_TESTS=OFF"], env=env)
    said = " ".join(r.stderr.split())
    if r.returncode == 0 or f"CUDA_HOME={tmp}/no-toolkit holds no bin/nvcc" not in said:
        sys.exit(f"FAIL: nvcc off PATH and CUDA_HOME without a toolkit: exit {r.returncode}, {r.stderr[-2000:]}")
    print(f"ok: nvcc off PATH, CUDA_HOME without a toolkit: {said[:200]}")

    venv = os.path.join(tmp, "venv")
    python = os.path.join(venv, "bin", "python")
    r = run([sys.executable, "-m", "venv", venv])
    if r.returncode != 0:
        skip(f"cannot create a virtual environment (python3-venv?): {r.stderr.strip()[-300:]}")
    # As a user installs it: build isolation, nvcc not on PATH, the toolkit named by CUDA_HOME.
    env = dict(without_nvcc(os.environ), CUDA_HOME=toolkit)
    started = time.monotonic()
    r = run([python, "-m", "pip", "install", "--no-cache-dir", "-C", "cmake.define.LADDER_ONLY_STEPS=1",
             "-C", f"build-dir={os.path.join(tmp, 'build')}", root], env=env)
    print(r.stdout[-3000:], r.stderr[-3000:])
    if r.returncode != 0 and re.search(r"No matching distribution found for scikit-build-core|"
                                       r"NewConnectionError|Network is unreachable", r.stderr):
        # Offline: the build requirements cannot be fetched; this Python's own copy, if any.
        try:
            import scikit_build_core  # noqa: F401
        except ImportError:
            skip(f"PyPI is out of reach for the build requirements and {sys.executable} lacks scikit-build-core")
        shutil.rmtree(venv)
        run([sys.executable, "-m", "venv", "--system-site-packages", venv])
        r = run([python, "-m", "pip", "install", "--no-cache-dir", "--no-build-isolation", "-C",
                 "cmake.define.LADDER_ONLY_STEPS=1", "-C", f"build-dir={os.path.join(tmp, 'build')}", root], env=env)
        print(r.stdout[-3000:], r.stderr[-3000:])
    if r.returncode != 0:
        sys.exit(f"FAIL: pip install . exited {r.returncode}")
    print(f"ok: pip install . with nvcc off PATH and CUDA_HOME={toolkit}: {time.monotonic() - started:.0f} s")

    # The installed files: the module, the library and py.typed, nothing of the CMake package;
    # the version is CMakeLists.txt's and the license MIT, its text in the metadata.
    r = run([python, "-m", "pip", "show", "-f", "hopper-gemm-ladder"])
    listed = [line.strip() for line in r.stdout.split("Files:", 1)[-1].splitlines()]
    files = sorted(f for f in listed if f.startswith("ladder/") and "__pycache__" not in f)
    if files != ["ladder/__init__.py", "ladder/libladder.so", "ladder/py.typed"]:
        sys.exit(f"FAIL: the wheel installs {files}, not ladder/__init__.py, ladder/libladder.so and "
                 f"ladder/py.typed:\n{r.stdout}")
    cmake_version = re.search(r"VERSION (\d+\.\d+\.\d+)", open(os.path.join(root, "CMakeLists.txt")).read()).group(1)
    if f"Version: {cmake_version}" not in r.stdout:
        sys.exit(f"FAIL: the package's version is not CMakeLists.txt's {cmake_version}:\n{r.stdout}")
    licenses = [f for f in listed if f.endswith(".dist-info/licenses/LICENSE")]
    metadata = run([python, "-c", "import importlib.metadata as m; d = m.metadata('hopper-gemm-ladder'); "
                                  "print(d.get('License-Expression')); print(d.get_all('License-File'))"]).stdout
    if not licenses or metadata.split("\n")[:2] != ["MIT", "['LICENSE']"]:
        sys.exit(f"FAIL: the wheel's license: files {licenses}, metadata {metadata!r}")
    print(f"ok: the wheel holds {files}, version {cmake_version}, License-Expression MIT with {licenses[0]}")
    # The wheel's library carries the CUDA runtime (static): no toolkit on the library path needed.
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"]).stdout.strip()
    if shutil.which("readelf"):
        needed = run(["readelf", "-d", os.path.join(site, "ladder", "libladder.so")]).stdout
        if "libcudart" in needed:
            sys.exit(f"FAIL: the wheel's libladder.so needs a shared CUDA runtime:\n{needed}")
        print("ok: libladder.so needs no libcudart.so")

    # In the new environment, from a folder outside the repository (no import from the source).
    check = r'''
import os, sys
import ladder
here = os.path.dirname(ladder.__file__)
assert "site-packages" in here, here
assert ladder.library_path() == os.path.join(here, "libladder.so"), ladder.library_path()
assert ladder.steps() == {1: "01_naive"}, ladder.steps()
assert ladder.variants(1) == [""], ladder.variants(1)
assert ladder.__version__ == sys.argv[1], (ladder.__version__, sys.argv[1])
print("ok: ladder", ladder.__version__, "from", here, "with steps", ladder.steps())
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
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("LADDER_LIBRARY", None)
    r = run([python, "-c", check, cmake_version], cwd=tmp, env=env)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        sys.exit("FAIL: the installed module")

    # LADDER_LIBRARY is honoured by the installed module too: a library elsewhere is loaded
    # (a copy of the installed one), a path that is no file refused with one error naming it.
    elsewhere = os.path.join(tmp, "elsewhere", "libladder.so")
    os.makedirs(os.path.dirname(elsewhere))
    shutil.copy(os.path.join(site, "ladder", "libladder.so"), elsewhere)
    probe = "import ladder; print(ladder.library_path()); print(ladder.steps())"
    r = run([python, "-c", probe], cwd=tmp, env=dict(env, LADDER_LIBRARY=elsewhere))
    if r.returncode != 0 or r.stdout.split("\n")[:2] != [elsewhere, "{1: '01_naive'}"]:
        sys.exit(f"FAIL: LADDER_LIBRARY={elsewhere} with the installed module: {r.stdout} {r.stderr}")
    print(f"ok: the installed module loads LADDER_LIBRARY={elsewhere}")
    r = run([python, "-c", probe], cwd=tmp, env=dict(env, LADDER_LIBRARY="/nonexistent/libladder.so"))
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    if r.returncode == 0 or not last.startswith("RuntimeError: LADDER_LIBRARY=/nonexistent/libladder.so: no such file"):
        sys.exit(f"FAIL: a missing LADDER_LIBRARY with the installed module: {r.stdout} {r.stderr}")
    print(f"ok: the installed module refuses a missing LADDER_LIBRARY: {last}")
print("PASS: pip install . gives the ladder module with its library")

#!/usr/bin/env python3
"""common/library/ladder.py without a GPU: every argument check raises the exception it documents,
and the library's own refusals come back as Python exceptions with its message. PyTorch is
not needed (tensor-like stand-ins); where it is installed, real CPU tensors are tried too.
A library that is not there, or not a library, and a missing PyTorch each raise one
exception that says so (no ctypes traceback).

    LADDER_LIBRARY=/path/to/libladder.so test_python_module.py
"""
import os
import subprocess
import sys

module_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common", "library")
sys.path.insert(0, module_dir)
import ladder  # noqa: E402

failures = []


class Device:
    def __init__(self, kind="cuda", index=0):
        self.type, self.index = kind, index

    def __eq__(self, other):
        return (self.type, self.index) == (other.type, other.index)

    def __str__(self):
        return f"{self.type}:{self.index}"


class FakeTensor:
    """What check_arguments reads of a torch.Tensor."""

    def __init__(self, *shape, dtype="torch.bfloat16", device=None, contiguous=True, ptr=0x7f0000000000):
        self.shape, self.dtype, self.device = shape, dtype, device or Device()
        self._contiguous, self._ptr = contiguous, ptr

    def dim(self):
        return len(self.shape)

    def is_contiguous(self):
        return self._contiguous

    def data_ptr(self):
        return self._ptr


def raises(kind, words, fn, *args, **kw):
    what = f"{fn.__name__} raises {kind.__name__} ({words})"
    try:
        fn(*args, **kw)
    except kind as e:
        ok = words in str(e)
        print(("ok   " if ok else "FAIL ") + what + f": {e}")
        if not ok:
            failures.append(what)
        return
    except Exception as e:  # noqa: BLE001 - any other exception is the failure being tested for
        print(f"FAIL {what}: got {type(e).__name__}: {e}")
        failures.append(what)
        return
    print(f"FAIL {what}: nothing raised")
    failures.append(what)


A, B = FakeTensor(64, 128), FakeTensor(32, 128)
check = ladder.check_arguments
if check(A, B) != (64, 32, 128) or check(A, B, FakeTensor(64, 32), step=1) != (64, 32, 128):
    failures.append("valid arguments give (M, N, K)")
raises(TypeError, "must be a torch.Tensor", check, [[1.0]], B)
raises(TypeError, "torch.bfloat16", check, FakeTensor(64, 128, dtype="torch.float32"), B)
raises(ValueError, "2-D", check, FakeTensor(2, 64, 128), B)
raises(ValueError, "CUDA device", check, FakeTensor(64, 128, device=Device("cpu")), B)
raises(ValueError, "contiguous", check, A, FakeTensor(32, 128, contiguous=False))
raises(ValueError, "16-byte aligned", check, FakeTensor(64, 128, ptr=0x7f0000000002), B)
raises(ValueError, "same device", check, A, FakeTensor(32, 128, device=Device("cuda", 1)))
raises(ValueError, "same K", check, A, FakeTensor(32, 136))
raises(ValueError, "multiple of 8", check, FakeTensor(64, 12), FakeTensor(32, 12))
raises(ValueError, "at least 1", check, FakeTensor(0, 128), B)
raises(ValueError, "out must be 64x32", check, A, B, FakeTensor(32, 64))
raises(TypeError, "torch.bfloat16", check, A, B, FakeTensor(64, 32, dtype="torch.float16"))
raises(ValueError, "step must be", check, A, B, None, 8)
raises(ValueError, "step must be", check, A, B, None, "7")

# gemm_pointers' own checks: what ctypes would otherwise pass on cut to 32 bits, and alignment
# (whose refusal the library reports with the code of a sticky fault, cudaErrorMisalignedAddress).
raises(ValueError, "a must be 16-byte aligned (0x10008 is not)", ladder.gemm_pointers, 5, 0x10008, 0x20000,
       0x30000, 64, 64, 64)
raises(ValueError, "c must be 16-byte aligned", ladder.gemm_pointers, 5, 0x10000, 0x20000, 0x30004, 64, 64, 64)
raises(ValueError, "m must be an integer from 1 to 2147418112", ladder.gemm_pointers, 5, 0x10000, 0x20000,
       0x30000, 2**32 + 64, 64, 64)
raises(ValueError, "k must be an integer", ladder.gemm_pointers, 5, 0x10000, 0x20000, 0x30000, 64, 64, 64.0)
raises(ValueError, "b must be an address", ladder.gemm_pointers, 5, 0x10000, -16, 0x30000, 64, 64, 64)

# The library's refusals, through ctypes (no GPU needed: it checks before touching one).
raises(ValueError, "multiple of 8", ladder.gemm_pointers, 5, 0x10000, 0x20000, 0x30000, 64, 64, 12)
raises(ValueError, "no step 9", ladder.gemm_pointers, 9, 0x10000, 0x20000, 0x30000, 64, 64, 64)
raises(ValueError, "foo", ladder.gemm_pointers, 6, 0x10000, 0x20000, 0x30000, 64, 64, 64,
       variant="foo")
if sorted(ladder.steps()) != list(range(1, 8)):
    failures.append(f"steps() lists every step: {ladder.steps()}")

# __version__ is the project's (CMakeLists.txt); variants() lists what the library registered,
# each name one that the library takes (without a GPU it gets past the variant lookup).
import re  # noqa: E402
cmake_lists = os.path.join(module_dir, "..", "..", "CMakeLists.txt")
version = re.search(r"project\(hopper_gemm_ladder VERSION ([0-9.]+)", open(cmake_lists).read()).group(1)
if ladder.__version__ != version:
    failures.append(f"ladder.__version__ is {ladder.__version__!r}, CMakeLists.txt says {version}")
for step, want in [(1, [""]), (2, ["", "pipeline"]), (3, ["", "barrier", "bulk1d"]), (6, ["cooperative", "pingpong"])]:
    if ladder.variants(step) != want:
        failures.append(f"variants({step}) = {ladder.variants(step)}, not {want}")
seven = ladder.variants(7)
if not seven[0] or not {"lesson", "cg"} <= set(seven) or len(set(seven)) != len(seven):
    failures.append(f"variants(7) = {seven}: a named default first, 'lesson' and 'cg' among them, no name twice")
print(f"ok   ladder {ladder.__version__}; variants: {[ladder.variants(s) for s in sorted(ladder.steps())]}")
for step in sorted(ladder.steps()):
    for name in ladder.variants(step):
        try:
            ladder.gemm_pointers(step, 0x10000, 0x20000, 0x30000, 64, 64, 64, variant=name)
        except (RuntimeError, ValueError) as e:
            if "has no variant" in str(e):
                failures.append(f"variants({step}) lists {name!r}, which the library does not take: {e}")
raises(ValueError, "step must be an integer 1..7, not 0", ladder.variants, 0)
raises(ValueError, "step must be an integer 1..7, not '7'", ladder.variants, "7")
# Valid arguments at addresses that are not device memory: without a GPU the library says so
# (RuntimeError, nothing wrong with the arguments); with one, the addresses are refused.
try:
    ladder.gemm_pointers(5, 0x10000, 0x20000, 0x30000, 64, 64, 64)
    failures.append("gemm_pointers on addresses that are not device memory returned")
except RuntimeError as e:
    print(f"ok   without a GPU: RuntimeError: {e}")
    if "no usable CUDA GPU: " not in str(e):
        failures.append(f"no GPU: {e}")
except ValueError as e:
    print(f"ok   with a GPU: ValueError: {e}")
    if "device memory" not in str(e):
        failures.append(f"host addresses: {e}")


def fresh_python(code, library):
    """Runs `code` in a new Python with ladder importable and LADDER_LIBRARY=library."""
    env = dict(os.environ, LADDER_LIBRARY=library, PYTHONPATH=module_dir)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def one_exception(run, kind, words):
    """The run ended in exactly one exception of `kind` with `words`, no ctypes error chained."""
    last = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ""
    ok = run.returncode != 0 and last.startswith(kind + ": ") and words in last and "OSError" not in run.stderr
    print(("ok   " if ok else "FAIL ") + f"{kind} ({words}): {last}")
    if not ok:
        failures.append(f"want {kind} with {words!r}, got: {run.stderr}")


# A wrong LADDER_LIBRARY: one error naming the variable and the path.
one_exception(fresh_python("import ladder; ladder.steps()", "/nonexistent/libladder.so"), "RuntimeError",
              "LADDER_LIBRARY=/nonexistent/libladder.so: no such file")
one_exception(fresh_python("import ladder; ladder.steps()", os.path.abspath(__file__)), "RuntimeError",
              f"LADDER_LIBRARY={os.path.abspath(__file__)}: cannot be loaded")
# Without PyTorch: importing works (with its version, and no operator), gemm() says what it needs.
one_exception(fresh_python("import sys; sys.modules['torch'] = None; import ladder; "
                           "assert ladder.__version__ and ladder._ops is None; ladder.gemm(None, None)",
                           os.environ.get("LADDER_LIBRARY", "")), "ImportError", "ladder.gemm needs PyTorch")

try:
    import torch
except ImportError:
    print("skip: the checks on real tensors (PyTorch is not installed)")
else:
    a = torch.zeros(64, 128, dtype=torch.bfloat16)
    raises(ValueError, "CUDA device", ladder.gemm, a, a)
    raises(TypeError, "torch.bfloat16", ladder.gemm, a.float(), a)
    # The device is checked before the layout, so a transposed view needs a GPU to reach
    # the contiguity check.
    if torch.cuda.is_available():
        g = a.cuda()
        raises(ValueError, "contiguous", ladder.gemm, g.t(), g)
    else:
        print("skip: the contiguity check on a real tensor (no CUDA device)")

if failures:
    sys.exit(f"FAIL: {len(failures)} check(s):\n  " + "\n  ".join(failures))
print("PASS: ladder.py checks its arguments and passes the library's errors on")

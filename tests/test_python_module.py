#!/usr/bin/env python3
"""common/library/ladder.py without a GPU: every argument check raises the exception it documents,
and the library's own refusals come back as Python exceptions with its message. PyTorch is
not needed (tensor-like stand-ins); where it is installed, real CPU tensors are tried too.

    LADDER_LIBRARY=/path/to/libladder.so test_python_module.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common", "library"))
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

# The library's refusals, through ctypes (no GPU needed: it checks before touching one).
raises(ValueError, "multiple of 8", ladder.gemm_pointers, 5, 0x10000, 0x20000, 0x30000, 64, 64, 12)
raises(ValueError, "no step 9", ladder.gemm_pointers, 9, 0x10000, 0x20000, 0x30000, 64, 64, 64)
raises(ValueError, "foo", ladder.gemm_pointers, 6, 0x10000, 0x20000, 0x30000, 64, 64, 64,
       variant="foo")
if sorted(ladder.steps()) != list(range(1, 8)):
    failures.append(f"steps() lists every step: {ladder.steps()}")

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

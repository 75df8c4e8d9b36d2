"""The GEMM ladder from Python: C = A @ B.T (torch.nn.functional.linear(A, B)) with any step.

    import torch, ladder                      # pip install . (or common/library/ on sys.path)
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    c = ladder.gemm(a, b, step=7)             # a new (4096, 4096) bf16 tensor
    ladder.gemm(a, b, step=5, out=c)          # or into an existing one

The kernels run through libladder.so's C API (common/library/ladder.h) on PyTorch's current stream
of the tensors' device. Arguments are checked here first, so that a mistake raises a Python
exception naming the argument: TypeError (not a tensor, not bf16), ValueError (shape,
device, layout, alignment, a size out of range, a step or variant that does not exist);
errors the library reports raise ValueError (invalid arguments) or RuntimeError (everything
else, e.g. no GPU that can run the step), with the library's message. gemm() needs PyTorch
(ImportError when it is not installed); the rest of the module does not.

The library: libladder.so next to this file (where `pip install .` and `cmake --install` put
it), else $LADDER_LIBRARY, else build/libladder.so of this repository; a library that cannot
be found or loaded raises RuntimeError naming the path and where it came from.
"""
import ctypes
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_LIBRARY = "libladder.so"
# cudaError_t values the library returns for arguments it refuses (step_api.cpp): invalid
# value (sizes, null pointers, host memory, C overlapping A or B, an unknown step or
# variant) and invalid device (memory of another GPU). Alignment, whose refusal comes back as
# cudaErrorMisalignedAddress, the code of a sticky fault too, is checked here instead.
_ARGUMENT_ERRORS = {1: "cudaErrorInvalidValue", 101: "cudaErrorInvalidDevice"}
MAX_DIMENSION = 2**31 - 2**16  # the largest M, N or K of the contract (ladder::kMaxDimension)
_BF16 = "torch.bfloat16"
_lib = None


def library_path():
    """Where libladder.so is loaded from: next to this file, else $LADDER_LIBRARY, else build/ of
    the repository this file is in. Raises RuntimeError naming what was tried."""
    beside = os.path.join(_HERE, _LIBRARY)
    if os.path.exists(beside):
        return beside
    variable = os.environ.get("LADDER_LIBRARY")
    if variable:
        if not os.path.isfile(variable):
            raise RuntimeError(f"LADDER_LIBRARY={variable}: no such file (point it at the built libladder.so, "
                               "e.g. build/libladder.so)")
        return variable
    built = os.path.normpath(os.path.join(_HERE, "..", "..", "build", _LIBRARY))
    if os.path.exists(built):
        return built
    raise RuntimeError(f"{_LIBRARY} not found (looked in {_HERE} and {built}; LADDER_LIBRARY is not set): "
                       "pip install the repository, build it (cmake --build build), or set LADDER_LIBRARY "
                       "to the library's path")


def library():
    """libladder.so, loaded once, with the C API's signatures declared."""
    global _lib
    if _lib is None:
        path = library_path()
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            named = f"LADDER_LIBRARY={path}" if path == os.environ.get("LADDER_LIBRARY") else path
            raise RuntimeError(f"{named}: cannot be loaded: {e}") from None
        lib.ladder_gemm.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
        lib.ladder_gemm.restype = ctypes.c_int
        lib.ladder_gemm_variant.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                                            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                            ctypes.c_void_p]
        lib.ladder_gemm_variant.restype = ctypes.c_int
        lib.ladder_last_error.restype = ctypes.c_char_p
        lib.ladder_step_name.restype = ctypes.c_char_p
        lib.ladder_step_name.argtypes = [ctypes.c_int]
        lib.ladder_step_available.argtypes = [ctypes.c_int]
        _lib = lib
    return _lib


def steps():
    """{step number: folder name} of the steps built into the library."""
    lib = library()
    return {s: lib.ladder_step_name(s).decode() for s in range(1, lib.ladder_step_count() + 1)
            if lib.ladder_step_available(s)}


def gemm_pointers(step, a, b, c, m, n, k, stream=0, variant=None):
    """The C API on raw device pointers (integers): C[m,n] = A[m,k] @ B[n,k].T. Raises
    ValueError for arguments the contract refuses (checked here, or by the library, with its
    message) and RuntimeError for the library's other refusals (no GPU, a fault)."""
    for name, value, low, high in (("step", step, -2**31, 2**31 - 1), ("m", m, 1, MAX_DIMENSION),
                                   ("n", n, 1, MAX_DIMENSION), ("k", k, 1, MAX_DIMENSION)):
        # ctypes would pass a larger int on cut to 32 bits: 2**32 + 64 as 64.
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"{name} must be an integer from {low} to {high}, not {value!r}")
    for name, value in (("a", a), ("b", b), ("c", c), ("stream", stream)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**64:
            raise ValueError(f"{name} must be an address (an integer from 0 to 2**64 - 1), not {value!r}")
        if name != "stream" and value % 16:
            raise ValueError(f"{name} must be 16-byte aligned (0x{value:x} is not)")
    if variant is not None and not isinstance(variant, str):
        raise ValueError(f"variant must be a str or None, not {variant!r}")
    lib = library()
    rc = lib.ladder_gemm_variant(step, variant.encode() if variant else None, a, b, c, m, n, k, stream or None)
    if rc != 0:
        message = lib.ladder_last_error().decode(errors="replace")
        raise (ValueError if rc in _ARGUMENT_ERRORS else RuntimeError)(message)


def check_arguments(a, b, out=None, step=7):
    """The checks gemm() makes before calling the library; returns (M, N, K). Works on any
    object with a tensor's attributes (dtype, dim(), shape, device, is_contiguous(),
    data_ptr()), so it is testable without PyTorch."""
    if not isinstance(step, int) or isinstance(step, bool) or not 1 <= step <= 7:
        raise ValueError(f"step must be an integer 1..7, not {step!r}")
    named = [("a", a), ("b", b)] + ([("out", out)] if out is not None else [])
    for name, t in named:
        if not all(hasattr(t, attr) for attr in ("dtype", "dim", "shape", "device", "is_contiguous", "data_ptr")):
            raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
        if str(t.dtype) != _BF16:
            raise TypeError(f"{name} must be torch.bfloat16, not {t.dtype} (convert with .bfloat16())")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, not {t.dim()}-D with shape {tuple(t.shape)}")
        if t.device.type != "cuda":
            raise ValueError(f"{name} must be on a CUDA device, not {t.device} (move it with .cuda())")
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous (row-major, packed): call .contiguous()")
        if t.data_ptr() % 16:
            raise ValueError(f"{name} must start 16-byte aligned (its data pointer is 0x{t.data_ptr():x}); "
                             "a slice that starts mid-row is not: .clone() it")
    for name, t in named[1:]:
        if t.device != a.device:
            raise ValueError(f"a and {name} must be on the same device ({a.device} vs {t.device})")
    m, k = a.shape
    n, kb = b.shape
    if kb != k:
        raise ValueError(f"a is {m}x{k} and b is {n}x{kb}: C = a @ b.T needs the same K (columns) in both")
    if k < 8 or k % 8:
        raise ValueError(f"K = {k} must be a multiple of 8, at least 8 (rows of whole 16-byte chunks)")
    if m < 1 or n < 1:
        raise ValueError(f"M = {m} and N = {n} must be at least 1")
    if out is not None and tuple(out.shape) != (m, n):
        raise ValueError(f"out must be {m}x{n} (a is {m}x{k}, b is {n}x{k}), not {tuple(out.shape)}")
    return m, n, k


def gemm(a, b, step=7, variant=None, out=None):
    """C = a @ b.T for bf16 CUDA tensors a (M x K) and b (N x K), computed by `step` (1..7)
    and its `variant` (e.g. "pingpong" of step 6; None: the step's default). Returns `out`,
    filled, or a new M x N bf16 tensor. Runs on torch.cuda.current_stream() of a's device."""
    try:
        import torch
    except ImportError as e:
        raise ImportError(f"ladder.gemm needs PyTorch, which this Python cannot import ({e}): pip install "
                          "torch; ladder.gemm_pointers takes raw device pointers without it") from None

    m, n, k = check_arguments(a, b, out, step)
    if out is None:
        out = torch.empty((m, n), dtype=torch.bfloat16, device=a.device)
    with torch.cuda.device(a.device):
        stream = torch.cuda.current_stream(a.device).cuda_stream
        gemm_pointers(step, a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k, stream, variant)
    return out

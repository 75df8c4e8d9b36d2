"""The GEMM ladder from Python: C = A @ B.T (torch.nn.functional.linear(A, B)) with any step.

    import torch, ladder                      # pip install . (or common/library/ on sys.path)
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    c = ladder.gemm(a, b, step=7)             # a new (4096, 4096) bf16 tensor
    ladder.gemm(a, b, step=5, out=c)          # or into an existing one

With PyTorch installed, importing this module registers the PyTorch operators ladder::gemm
and ladder::gemm_out (torch.ops.ladder.*), which ladder.gemm calls: they have a fake
implementation (shapes and dtypes, so FakeTensor, torch.compile and torch.export trace them
without running a kernel) and ladder::gemm has a backward made of two more GEMMs of the same
step, so gradients flow. The kernels run through libladder.so's C API
(common/library/ladder.h) on PyTorch's current stream of the tensors' device, which is what
CUDA-graph capture records.

Arguments are checked before any kernel runs, so that a mistake raises a Python exception
naming the argument and what it must be: TypeError (not a tensor, not bf16), ValueError
(shape, device, layout, alignment, a size out of range, a step or variant that does not
exist); errors the library reports raise ValueError (invalid arguments) or RuntimeError
(everything else, e.g. no GPU that can run the step), with the library's message. gemm()
needs PyTorch (ImportError when it is not installed); the rest of the module does not.

The library: $LADDER_LIBRARY when it is set (a path that is not a file is refused), else
libladder.so next to this file (where `pip install .` and `cmake --install` put it), else
build/libladder.so of this repository; a library that cannot be found or loaded raises
RuntimeError naming the path and where it came from.
"""
import ctypes
import os
import re
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

if TYPE_CHECKING:
    import torch as _torch_types

_HERE = os.path.dirname(os.path.abspath(__file__))
_LIBRARY = "libladder.so"
# cudaError_t values the library returns for arguments it refuses (step_api.cpp): invalid
# value (sizes, null pointers, host memory, C overlapping A or B, an unknown step or
# variant) and invalid device (memory of another GPU). Alignment, whose refusal comes back as
# cudaErrorMisalignedAddress, the code of a sticky fault too, is checked here instead.
_ARGUMENT_ERRORS = {1: "cudaErrorInvalidValue", 101: "cudaErrorInvalidDevice"}
MAX_DIMENSION = 2**31 - 2**16  # the largest M, N or K of the contract (ladder::kMaxDimension)
_BF16 = "torch.bfloat16"
_lib: Optional[ctypes.CDLL] = None

# The installed copies (pip install ., cmake --install) get the project's version written
# here by CMake (ladder_install_package); in the source tree it is read from CMakeLists.txt.
_BUILT_VERSION = None


def _version() -> str:
    if _BUILT_VERSION:
        return _BUILT_VERSION
    try:
        with open(os.path.join(_HERE, "..", "..", "CMakeLists.txt")) as f:
            found = re.search(r"project\(hopper_gemm_ladder VERSION ([0-9.]+)", f.read())
        if found:
            return found.group(1)
    except OSError:
        pass
    try:
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("hopper-gemm-ladder")
        except PackageNotFoundError:
            pass
    except ImportError:
        pass
    return "unknown"


__version__ = _version()


def library_path() -> str:
    """Where libladder.so is loaded from: $LADDER_LIBRARY when set, else next to this file, else
    build/ of the repository this file is in. Raises RuntimeError naming what was tried."""
    variable = os.environ.get("LADDER_LIBRARY")
    if variable:
        if not os.path.isfile(variable):
            raise RuntimeError(f"LADDER_LIBRARY={variable}: no such file (point it at the built libladder.so, "
                               "e.g. build/libladder.so, or unset it to use the library installed with "
                               "this module)")
        return variable
    beside = os.path.join(_HERE, _LIBRARY)
    if os.path.exists(beside):
        return beside
    built = os.path.normpath(os.path.join(_HERE, "..", "..", "build", _LIBRARY))
    if os.path.exists(built):
        return built
    raise RuntimeError(f"{_LIBRARY} not found (looked in {_HERE} and {built}; LADDER_LIBRARY is not set): "
                       "pip install the repository, build it (cmake --build build), or set LADDER_LIBRARY "
                       "to the library's path")


def library() -> ctypes.CDLL:
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
        if hasattr(lib, "ladder_variant_name"):  # a library older than this module lacks it
            lib.ladder_variant_name.restype = ctypes.c_char_p
            lib.ladder_variant_name.argtypes = [ctypes.c_int, ctypes.c_int]
        _lib = lib
    return _lib


def steps() -> Dict[int, str]:
    """{step number: folder name} of the steps built into the library."""
    lib = library()
    return {s: lib.ladder_step_name(s).decode() for s in range(1, lib.ladder_step_count() + 1)
            if lib.ladder_step_available(s)}


def variants(step: int) -> List[str]:
    """The variant names of a built step, the default first ("" where the default schedule has
    no name), as gemm(variant=...) takes them. Step 07's "tile<R>x<C>" names (its default on one
    tile) are not listed. Raises ValueError for a step that does not exist or is not built."""
    lib = library()
    if not isinstance(step, int) or isinstance(step, bool) or not 1 <= step <= lib.ladder_step_count():
        raise ValueError(f"step must be an integer 1..{lib.ladder_step_count()}, not {step!r}")
    if not lib.ladder_step_available(step):
        raise ValueError(f"step {step} is not built into {library_path()} (built: {sorted(steps())})")
    if not hasattr(lib, "ladder_variant_name"):
        raise RuntimeError(f"{library_path()} is older than this module: it cannot list variants "
                           "(rebuild it or reinstall the package)")
    names: List[str] = []
    while True:
        name = lib.ladder_variant_name(step, len(names))
        if name is None:
            return names
        names.append(name.decode())


def gemm_pointers(step: int, a: int, b: int, c: int, m: int, n: int, k: int, stream: int = 0,
                  variant: Optional[str] = None) -> None:
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


def _check_step(step: Any, variant: Any = None) -> None:
    if not isinstance(step, int) or isinstance(step, bool) or not 1 <= step <= 7:
        raise ValueError(f"step must be an integer 1..7, not {step!r}")
    if variant is not None and not isinstance(variant, str):
        raise ValueError(f"variant must be a str or None, not {variant!r}")


def _check_tensors(a: Any, b: Any, out: Any, devices: Tuple[str, ...]) -> Tuple[int, int, int]:
    """Shapes, dtypes, devices and layout; `devices` the device types accepted."""
    named = [("a", a), ("b", b)] + ([("out", out)] if out is not None else [])
    for name, t in named:
        if not all(hasattr(t, attr) for attr in ("dtype", "dim", "shape", "device", "is_contiguous")):
            raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
        if str(t.dtype) != _BF16:
            raise TypeError(f"{name} must be torch.bfloat16, not {t.dtype} (convert with .bfloat16())")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, not {t.dim()}-D with shape {tuple(t.shape)}")
        if t.device.type not in devices:
            raise ValueError(f"{name} must be on a CUDA device, not {t.device} (move it with .cuda())")
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous (row-major, packed), not a view with strides "
                             f"{tuple(t.stride()) if hasattr(t, 'stride') else '?'}: call .contiguous()")
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


def check_arguments(a: Any, b: Any, out: Any = None, step: int = 7) -> Tuple[int, int, int]:
    """The checks made before calling the library; returns (M, N, K). Works on any object with
    a tensor's attributes (dtype, dim(), shape, device, is_contiguous(), data_ptr()), so it is
    testable without PyTorch."""
    _check_step(step)
    for name, t in [("a", a), ("b", b)] + ([("out", out)] if out is not None else []):
        if not hasattr(t, "data_ptr"):
            raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
    m, n, k = _check_tensors(a, b, out, ("cuda",))
    for name, t in [("a", a), ("b", b)] + ([("out", out)] if out is not None else []):
        if t.data_ptr() % 16:
            raise ValueError(f"{name} must start 16-byte aligned (its data pointer is 0x{t.data_ptr():x}); "
                             "a slice that starts mid-row is not: .clone() it")
    return m, n, k


def _launch(torch: Any, a: Any, b: Any, out: Any, step: int, variant: Optional[str]) -> None:
    m, n, k = check_arguments(a, b, out, step)
    with torch.cuda.device(a.device):
        stream = torch.cuda.current_stream(a.device).cuda_stream
        gemm_pointers(step, a.data_ptr(), b.data_ptr(), out.data_ptr(), m, n, k, stream, variant)


def _register_operators(torch: Any) -> Tuple[Any, Any, Any]:
    """ladder::gemm (functional, with autograd) and ladder::gemm_out (writes out) as PyTorch
    operators. Registered for every device type, so that a CPU tensor reaches the checks above
    and gets their message, not the dispatcher's "could not run ... with the CPU backend"."""
    from torch import Tensor

    # Registered already, by another copy of this module in the process (importlib.reload, or
    # the source tree's beside the installed one): an operator name is defined once; use it.
    try:
        return torch.ops.ladder.gemm.default, torch.ops.ladder.gemm_out.default, torch
    except (AttributeError, RuntimeError):
        pass

    @torch.library.custom_op("ladder::gemm", mutates_args=())
    def gemm_op(a: Tensor, b: Tensor, step: int, variant: Optional[str]) -> Tensor:
        m, n, _ = check_arguments(a, b, None, step)
        out = torch.empty((m, n), dtype=torch.bfloat16, device=a.device)
        _launch(torch, a, b, out, step, variant)
        return out

    @torch.library.custom_op("ladder::gemm_out", mutates_args=("out",))
    def gemm_out_op(a: Tensor, b: Tensor, step: int, variant: Optional[str], out: Tensor) -> None:
        _launch(torch, a, b, out, step, variant)

    # The fake implementations: the same checks but for the data pointer (a fake tensor has
    # none), on CUDA tensors or meta ones (shapes only, any machine).
    @gemm_op.register_fake
    def _(a, b, step, variant):
        _check_step(step, variant)
        m, n, _ = _check_tensors(a, b, None, ("cuda", "meta"))
        return a.new_empty((m, n))

    @gemm_out_op.register_fake
    def _(a, b, step, variant, out):
        _check_step(step, variant)
        _check_tensors(a, b, out, ("cuda", "meta"))

    def tn(x, y, step, variant):
        """x @ y.T through the op, for x [P, R] and y [Q, R] in any layout: both made packed
        and 16-byte aligned, R padded with zero columns to a multiple of 8 (zeros add nothing
        to the dot products), as the contract wants."""
        r = x.shape[1]
        pad = max(8, -(-r // 8) * 8) - r
        if pad:
            x = torch.nn.functional.pad(x, (0, pad))
            y = torch.nn.functional.pad(y, (0, pad))
        x = x.contiguous()
        y = y.contiguous()
        # A packed view can still start mid-row of its storage (16 bytes = 8 bf16 elements).
        if x.storage_offset() % 8:
            x = x.clone()
        if y.storage_offset() % 8:
            y = y.clone()
        return torch.ops.ladder.gemm.default(x, y, step, variant)

    def setup_context(ctx, inputs, output):
        a, b, step, variant = inputs
        ctx.step, ctx.variant = step, variant
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[0] else None)

    def backward(ctx, grad):
        # C = A·Bᵀ, so dA = dC·B and dB = dCᵀ·A, each a TN problem of this same op:
        # dA[M,K] = dC[M,N] · (Bᵀ[K,N])ᵀ and dB[N,K] = dCᵀ[N,M] · (Aᵀ[K,M])ᵀ.
        a, b = ctx.saved_tensors
        grad_a = tn(grad, b.t(), ctx.step, ctx.variant) if ctx.needs_input_grad[0] else None
        grad_b = tn(grad.t(), a.t(), ctx.step, ctx.variant) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None, None

    gemm_op.register_autograd(backward, setup_context=setup_context)
    return torch.ops.ladder.gemm.default, torch.ops.ladder.gemm_out.default, torch


def _torch() -> Any:
    """PyTorch, or None where it cannot be imported; the operators are registered on the first
    import that succeeds."""
    global _ops
    try:
        import torch
    except ImportError:
        return None
    if _ops is None and hasattr(torch, "library") and hasattr(torch.library, "custom_op"):
        _ops = _register_operators(torch)
    return torch


_ops: Optional[Tuple[Any, Any, Any]] = None
_torch()  # registers torch.ops.ladder.* at import, where PyTorch is installed


def gemm(a: "_torch_types.Tensor", b: "_torch_types.Tensor", step: int = 7, variant: Optional[str] = None,
         out: Optional["_torch_types.Tensor"] = None) -> "_torch_types.Tensor":
    """C = a @ b.T for bf16 CUDA tensors a (M x K) and b (N x K), computed by `step` (1..7)
    and its `variant` (e.g. "pingpong" of step 6; None: the step's default). Returns `out`,
    filled, or a new M x N bf16 tensor. Runs on torch.cuda.current_stream() of a's device.
    Differentiable (without out=) and traceable: it calls the operator torch.ops.ladder.gemm
    (torch.ops.ladder.gemm_out with out=)."""
    if _ops is None:  # (only reads the global when registered, which torch.compile traces)
        torch = _torch()
        if torch is None:
            raise ImportError("ladder.gemm needs PyTorch, which this Python cannot import: pip install torch; "
                              "ladder.gemm_pointers takes raw device pointers without it")
        if _ops is None:
            raise ImportError(f"ladder.gemm needs PyTorch 2.4 or newer (torch.library.custom_op); this is "
                              f"{torch.__version__}")
    _check_step(step, variant)
    if out is None:
        return _ops[0](a, b, step, variant)
    if _ops[2].is_grad_enabled() and any(getattr(t, "requires_grad", False) for t in (a, b)):
        raise RuntimeError("ladder.gemm with out= does not record gradients, and a or b requires grad: "
                           "drop out= (or run under torch.no_grad())")
    _ops[1](a, b, step, variant, out)
    return out

#!/usr/bin/env python3
"""The PyTorch operators ladder::gemm and ladder::gemm_out without a GPU: they are registered,
their fake implementations give the right shapes and dtypes and refuse what the kernels cannot
take with a message naming the argument, the backward is two more ladder::gemm calls (TN
problems, K padded to a multiple of 8), and torch.compile traces a module that calls the op,
forward and backward, into one graph (fullgraph=True: a graph break would raise). All of it on
fake and meta tensors, so no kernel runs. Exit 77 (skipped) when PyTorch is not installed.

    LADDER_LIBRARY=/path/to/libladder.so test_torch_op.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common", "library"))
import ladder  # noqa: E402
import logging  # noqa: E402

try:
    import torch
except ImportError as e:
    print(f"SKIP: PyTorch is not installed ({e}): pip install torch")
    sys.exit(77)
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

# FakeTensorMode logs every TypeError it passes on (the dtype refusals below) with a traceback.
logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def raises(kind, words, fn, *args):
    what = f"raises {kind.__name__} ({words})"
    try:
        fn(*args)
    except kind as e:
        check(words in str(e), f"{what}: {e}")
        return
    except Exception as e:  # noqa: BLE001 - any other exception is the failure being tested for
        check(False, f"{what}: got {type(e).__name__}: {e}")
        return
    check(False, f"{what}: nothing raised")


# ---- registration --------------------------------------------------------------------------
check(hasattr(torch.ops.ladder, "gemm") and hasattr(torch.ops.ladder, "gemm_out"),
      "importing ladder registers torch.ops.ladder.gemm and torch.ops.ladder.gemm_out")
schema = str(torch.ops.ladder.gemm.default._schema)
check(schema == "ladder::gemm(Tensor a, Tensor b, SymInt step, str? variant) -> Tensor"
      or schema == "ladder::gemm(Tensor a, Tensor b, int step, str? variant) -> Tensor",
      f"ladder::gemm's schema: {schema}")
schema_out = str(torch.ops.ladder.gemm_out.default._schema)
check("!) out" in schema_out and schema_out.endswith("-> ()"),
      f"ladder::gemm_out writes out and returns nothing: {schema_out}")
check(not torch.ops.ladder.gemm.default._schema.is_mutable, "ladder::gemm mutates nothing")

bf16 = torch.bfloat16

# ---- fake tensors: shapes, dtypes, devices --------------------------------------------------
with FakeTensorMode():
    for m, n, k in [(64, 32, 128), (1, 1, 8), (129, 77, 72), (1000, 1992, 2056)]:
        a = torch.empty(m, k, device="cuda", dtype=bf16)
        b = torch.empty(n, k, device="cuda", dtype=bf16)
        for step in (1, 5, 7):
            c = ladder.gemm(a, b, step=step)
            check(tuple(c.shape) == (m, n) and c.dtype == bf16 and c.device.type == "cuda" and c.is_contiguous(),
                  f"fake {m}x{n}x{k} step {step}: {tuple(c.shape)} {c.dtype} {c.device}")
        out = torch.empty(m, n, device="cuda", dtype=bf16)
        check(ladder.gemm(a, b, step=6, variant="pingpong", out=out) is out, f"fake {m}x{n}x{k} out= returns out")

    # What the kernels cannot take, refused by the fake implementation with the argument named.
    A = torch.empty(64, 128, device="cuda", dtype=bf16)
    B = torch.empty(32, 128, device="cuda", dtype=bf16)
    raises(TypeError, "a must be torch.bfloat16, not torch.float16", ladder.gemm, A.half(), B)
    raises(TypeError, "b must be torch.bfloat16, not torch.float32", ladder.gemm, A, B.float())
    raises(ValueError, "a must be 2-D, not 3-D", ladder.gemm, A.view(2, 32, 128), B)
    raises(ValueError, "b must be 2-D, not 1-D", ladder.gemm, A, B.view(-1))
    raises(ValueError, "b must be contiguous (row-major, packed), not a view with strides (1, 32)",
           ladder.gemm, A, torch.empty(128, 32, device="cuda", dtype=bf16).t())
    raises(ValueError, "a must be contiguous", ladder.gemm, A[:, :64], B[:, :64])
    raises(ValueError, "a is 64x128 and b is 32x136: C = a @ b.T needs the same K", ladder.gemm, A,
           torch.empty(32, 136, device="cuda", dtype=bf16))
    raises(ValueError, "K = 12 must be a multiple of 8", ladder.gemm, torch.empty(64, 12, device="cuda", dtype=bf16),
           torch.empty(32, 12, device="cuda", dtype=bf16))
    raises(ValueError, "out must be 64x32", ladder.gemm, A, B, 7, None, torch.empty(32, 64, device="cuda", dtype=bf16))
    raises(TypeError, "out must be torch.bfloat16", ladder.gemm, A, B, 7, None,
           torch.empty(64, 32, device="cuda", dtype=torch.float32))
    raises(ValueError, "a must be on a CUDA device, not cpu", ladder.gemm, torch.empty(64, 128, dtype=bf16), B)
    raises(ValueError, "step must be an integer 1..7, not 8", ladder.gemm, A, B, 8)
    raises(ValueError, "variant must be a str or None, not 3", ladder.gemm, A, B, 7, 3)
    raises(ValueError, "a must be on a CUDA device", torch.ops.ladder.gemm, torch.empty(64, 128, dtype=bf16), B, 7,
           None)

# Real CPU tensors reach the operator's implementation, which names the argument too (not the
# dispatcher's "could not run 'ladder::gemm' with arguments from the 'CPU' backend").
cpu_a = torch.zeros(64, 128, dtype=bf16)
cpu_b = torch.zeros(32, 128, dtype=bf16)
raises(ValueError, "a must be on a CUDA device, not cpu (move it with .cuda())", ladder.gemm, cpu_a, cpu_b)
raises(ValueError, "b must be on a CUDA device, not cpu", torch.ops.ladder.gemm, cpu_a.to("meta"), cpu_b, 7, None)
raises(TypeError, "a must be torch.bfloat16, not torch.float32", ladder.gemm, cpu_a.float(), cpu_b)
raises(RuntimeError, "does not record gradients", ladder.gemm, cpu_a.requires_grad_(), cpu_b, 7, None,
       torch.zeros(64, 32, dtype=bf16))
cpu_a.requires_grad_(False)
with torch.no_grad():
    raises(ValueError, "a must be on a CUDA device", ladder.gemm, cpu_a, cpu_b, 7, None, torch.zeros(64, 32, dtype=bf16))


# ---- autograd: the backward is two GEMMs of the same step and variant -----------------------
class Calls(TorchDispatchMode):
    """The operators a region dispatches, with their arguments."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append((func, args))
        return func(*args, **(kwargs or {}))


for m, n, k in [(64, 32, 128), (100, 36, 72), (3, 5, 8)]:
    a = torch.empty(m, k, device="meta", dtype=bf16, requires_grad=True)
    b = torch.empty(n, k, device="meta", dtype=bf16, requires_grad=True)
    c = ladder.gemm(a, b, step=6, variant="pingpong")
    check(c.requires_grad and c.grad_fn is not None, f"meta {m}x{n}x{k}: the result has a grad_fn")
    with Calls() as mode:
        c.sum().backward()
    gemms = [args for func, args in mode.calls if func is torch.ops.ladder.gemm.default]
    others = [str(func) for func, _ in mode.calls
              if str(func).startswith("aten.") and ("mm" in str(func) or "matmul" in str(func))]
    inner = [(tuple(x.shape), tuple(y.shape), step, variant) for x, y, step, variant in gemms]
    n8, m8 = max(8, -(-n // 8) * 8), max(8, -(-m // 8) * 8)
    check(inner == [((m, n8), (k, n8), 6, "pingpong"), ((n, m8), (k, m8), 6, "pingpong")] and not others,
          f"meta {m}x{n}x{k}: backward = ladder::gemm for dA (inner N padded to {n8}) and for dB "
          f"(inner M padded to {m8}), same step and variant, no other matmul: {inner} {others}")
    check(a.grad is not None and tuple(a.grad.shape) == (m, k) and a.grad.dtype == bf16
          and tuple(b.grad.shape) == (n, k) and b.grad.dtype == bf16,
          f"meta {m}x{n}x{k}: gradients of a {m}x{k} and b {n}x{k}, bf16")

a = torch.empty(64, 128, device="meta", dtype=bf16, requires_grad=True)
b = torch.empty(32, 128, device="meta", dtype=bf16)
loss = ladder.gemm(a, b).sum()
with Calls() as mode:
    loss.backward()
check(sum(func is torch.ops.ladder.gemm.default for func, _ in mode.calls) == 1 and b.grad is None,
      "only the gradient asked for is computed (a requires grad, b does not: one GEMM)")


# ---- torch.compile: one graph, forward and backward -----------------------------------------
class Linear(torch.nn.Module):
    """A linear layer without bias whose matrix product runs on a ladder step."""

    def __init__(self, n, k, device, step=7):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(n, k, device=device, dtype=bf16))
        self.step = step

    def forward(self, x):
        return ladder.gemm(x, self.weight, step=self.step)


class Model(torch.nn.Module):
    def __init__(self, device):
        super().__init__()
        self.up = Linear(256, 128, device)
        self.down = Linear(64, 256, device, step=6)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


def count_gemms(gm, op="gemm"):
    return sum(node.op == "call_function" and f"ladder.{op}" in str(node.target) for node in gm.graph.nodes)


graphs = []


def recording(gm, example_inputs):
    graphs.append(gm)
    return gm.forward


torch._dynamo.reset()
model = Model("meta")
x = torch.empty(32, 128, device="meta", dtype=bf16)
y = torch.compile(model, backend=recording, fullgraph=True)(x)
check(len(graphs) == 1 and count_gemms(graphs[0]) == 2 and tuple(y.shape) == (32, 64),
      f"torch.compile(fullgraph=True) of a two-layer module: {len(graphs)} graph(s), "
      f"{count_gemms(graphs[0]) if graphs else 0} ladder::gemm node(s), output {tuple(y.shape)}")

# The check above can fail: the same compile of a function with a graph break raises.
torch._dynamo.reset()


def breaks(x):
    y = ladder.gemm(x, model.up.weight)
    torch._dynamo.graph_break()
    return y


try:
    torch.compile(breaks, backend=recording, fullgraph=True)(x)
    check(False, "fullgraph=True raises on a graph break (the control): it did not")
except Exception as e:  # noqa: BLE001 - dynamo's exception type changes across versions
    check("graph break" in str(e).lower() or "graph_break" in str(e), f"fullgraph=True raises on a graph break "
          f"(the control): {type(e).__name__}")

# Forward and backward through AOTAutograd: the backward graph holds the two GEMMs per layer.
from functorch.compile import make_boxed_func  # noqa: E402
from torch._dynamo.backends.common import aot_autograd  # noqa: E402

forward_graphs, backward_graphs = [], []


def keep(store):
    def compiler(gm, example_inputs):
        store.append(gm)
        return make_boxed_func(gm.forward)
    return compiler


torch._dynamo.reset()
model = Model("meta")
x = torch.empty(32, 128, device="meta", dtype=bf16, requires_grad=True)
compiled = torch.compile(model, backend=aot_autograd(fw_compiler=keep(forward_graphs), bw_compiler=keep(backward_graphs)),
                         fullgraph=True)
compiled(x).sum().backward()
check(len(forward_graphs) == 1 and count_gemms(forward_graphs[0]) == 2,
      f"AOTAutograd: one forward graph with 2 ladder::gemm ({[count_gemms(g) for g in forward_graphs]})")
check(len(backward_graphs) == 1 and count_gemms(backward_graphs[0]) == 4,
      f"AOTAutograd: one backward graph with 4 ladder::gemm, two per layer "
      f"({[count_gemms(g) for g in backward_graphs]})")
check(tuple(model.up.weight.grad.shape) == (256, 128) and tuple(x.grad.shape) == (32, 128),
      "AOTAutograd: gradients of the weights and the input have their shapes")

# out= under torch.compile: ladder::gemm_out, functionalized, in one graph.
graphs.clear()
torch._dynamo.reset()
w = torch.empty(64, 128, device="meta", dtype=bf16)


def into(x, out):
    ladder.gemm(x, w, step=5, out=out)
    return out * 2


with torch.no_grad():
    torch.compile(into, backend=recording, fullgraph=True)(torch.empty(32, 128, device="meta", dtype=bf16),
                                                           torch.empty(32, 64, device="meta", dtype=bf16))
check(len(graphs) == 1 and count_gemms(graphs[0], "gemm_out") == 1,
      f"torch.compile(fullgraph=True) of out=: one graph calling ladder::gemm_out ({len(graphs)} graph(s))")

# torch.export: the op in an exported program, traced on fake CUDA tensors.
with FakeTensorMode(allow_non_fake_inputs=True) as mode:
    exported = torch.export.export(Model("cuda"), (torch.empty(32, 128, device="cuda", dtype=bf16),))
check(count_gemms(exported.graph_module) == 2, "torch.export of the module holds the 2 ladder::gemm calls")

# A second copy of the module in the process (a reload) finds the operators defined and uses them.
import importlib  # noqa: E402
again = importlib.reload(ladder)
check(again._ops is not None and again._ops[0] is torch.ops.ladder.gemm.default,
      "importlib.reload(ladder) keeps the registered operators")

if failures:
    sys.exit(f"FAIL: {len(failures)} check(s):\n  " + "\n  ".join(failures))
print("PASS: ladder::gemm is a PyTorch operator with fake tensors, autograd and torch.compile")

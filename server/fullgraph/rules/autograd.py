"""FG5xx: training-loop calls that do not belong inside a compiled forward."""
from __future__ import annotations

from ..engine import values as V
from .base import Example, Rule


class BackwardInRegion(Rule):
    code = "FG501"
    name = "backward-in-region"
    summary = ".backward()/torch.autograd.grad() inside a compiled region"
    gb_codes = ("GB0123", "GB9186")
    methods = ("backward",)
    calls = ("torch.autograd.grad", "torch.autograd.backward")
    fixes = ("suppress",)
    what = "Finds backward passes started inside compiled code."
    why = """Dynamo does not trace `Tensor.backward()` or `torch.autograd.grad` unless the experimental
`torch._dynamo.config.trace_autograd_ops` is on (GB0123, GB9186)."""
    instead = """Compile the forward (model and loss) and call `loss.backward()` outside: AOTAutograd compiles the
backward for you.  For gradients as values, `torch.func.grad` traces."""
    examples = (
        Example("""import torch

w = torch.randn(4, requires_grad=True)


@torch.compile(fullgraph=True)
def train_step(x):
    loss = (w * x).sum()
    loss.backward()  # expect: FG501
    return loss.detach()
""", call="train_step(torch.randn(4))"),
        Example("""import torch

w = torch.randn(4, requires_grad=True)


@torch.compile(fullgraph=True)
def loss_fn(x):
    return (w * x).sum()


def train_step(x):
    loss = loss_fn(x)
    loss.backward()
    return loss.detach()
""", call="train_step(torch.randn(4))", breaks=False),
    )

    def check(self, ev):
        if ev.kind == "call":
            return f"`{ev.q}()` inside a compiled region breaks the graph"
        r = ev.recv
        if r is not None and r.kind in (V.TENSOR, V.UNKNOWN):
            return "`.backward()` inside a compiled region breaks the graph; call it on the compiled output"
        return None


class OptimizerStep(Rule):
    code = "FG502"
    name = "optimizer-step-in-region"
    summary = "optimizer.step() inside a compiled region"
    gb_codes = ("GB0025",)
    methods = ("step",)
    fixes = ("split", "suppress")
    what = "Finds `step()` on a `torch.optim` optimizer in compiled code."
    why = """`Optimizer.step` calls `torch._dynamo.graph_break()` on purpose (GB0025), even with
`trace_autograd_ops`."""
    instead = "Compile forward+loss and run `backward()`/`step()` outside, or compile the step separately " \
              "without `fullgraph=True`."
    examples = (
        Example("""import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(fullgraph=True)
def step(x):
    opt.step()  # expect: FG502
    return x + 1
""", call="step(torch.randn(2, 4))"),
        Example("""import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(fullgraph=True)
def loss_fn(x):
    return model(x).sum()


def step(x):
    loss = loss_fn(x)
    loss.backward()
    opt.step()
    return loss.detach()
""", call="step(torch.randn(2, 4))", breaks=False),
    )

    def check(self, ev):
        r = ev.recv
        if r is not None and r.kind == V.INSTANCE and r.q and r.q.startswith("torch.optim.") \
                and ".lr_scheduler." not in r.q:
            return "`optimizer.step()` calls graph_break() by design; run it outside the compiled region"
        return None

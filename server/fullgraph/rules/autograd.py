"""FG5xx: training-loop and module set-up calls that do not belong inside a compiled forward."""
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


MODULE_HOOK_METHODS = ("register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                       "register_full_backward_pre_hook", "register_backward_hook")


class HookRegistrationInRegion(Rule):
    code = "FG503"
    name = "hook-registration-in-region"
    summary = "nn.Module hook registered inside a compiled region"
    gb_codes = ("GB0467",)
    methods = MODULE_HOOK_METHODS
    fixes = ("suppress",)
    what = "Finds `register_forward_hook(...)` and the other `nn.Module` hook registrations in compiled code."
    why = """Registering a module hook creates a `RemovableHandle`, which sets attributes on an object Dynamo cannot
trace ("setattr() on unsupported type", GB0467 on torch 2.13) -- for forward, pre-forward and backward hooks
alike.  Hooks registered *before* compiling are fine: Dynamo traces them as part of the module's call.
(`Tensor.register_hook` inside the region does not break.)"""
    instead = """Register the hook once, outside the compiled function (after building the model), and keep it
for the whole run; if it is only needed sometimes, let the hook check a flag instead of adding and removing it
on every call."""
    examples = (
        Example("""import torch
import torch.nn as nn


def double(module, args, output):
    return output * 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        handle = self.lin.register_forward_hook(double)  # expect: FG503
        y = self.lin(x)
        handle.remove()
        return y


net = torch.compile(Net(), fullgraph=True)
""", call="net(torch.randn(2, 4))"),
        Example("""import torch
import torch.nn as nn


def check(module, args):
    return None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        for m in self.modules():
            m.register_forward_pre_hook(check)  # expect: FG503
        return self.lin(x)


net = torch.compile(Net(), fullgraph=True)
""", call="net(torch.randn(2, 4))"),
        Example("""import torch
import torch.nn as nn


def double(module, args, output):
    return output * 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.lin.register_forward_hook(double)

    def forward(self, x):
        return self.lin(x)


net = torch.compile(Net(), fullgraph=True)
""", call="net(torch.randn(2, 4))", breaks=False, note="registered before compiling: traced with the module"),
    )

    def check(self, ev):
        r = ev.recv
        if r is None:
            return None
        if r.kind == V.SELF:
            cls = ev.fn.mod.summary.classes.get(r.q or "")
            if cls is not None and ev.method in cls.methods:
                return None  # the class defines its own method of that name
        elif r.kind == V.INSTANCE:
            if not (r.q or "").startswith("torch.nn."):
                return None  # an object of a project class: not known to be a module here
        elif r.kind not in (V.UNKNOWN, V.SELFATTR, V.ITEMOF):
            return None
        return f"`.{ev.method}()` inside a compiled region breaks the graph (the hook handle sets attributes " \
               "Dynamo cannot trace); register hooks before compiling"

"""FG5xx: training-loop and module set-up calls that do not belong inside a compiled forward."""
from __future__ import annotations

import ast

from ..engine import values as V
from ..model import Location, Step
from .base import Example, Placed, Report, Rule


class BackwardInRegion(Rule):
    code = "FG501"
    name = "backward-in-region"
    summary = ".backward()/torch.autograd.grad() inside a compiled region"
    gb_codes = ("GB0123", "GB9186")
    methods = ("backward",)
    calls = ("torch.autograd.grad", "torch.autograd.backward")
    fixes = ("split", "split-module", "suppress")
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


STEP_MESSAGE = "`optimizer.step()` calls graph_break() by design; run it outside the compiled region"


class OptimizerStep(Rule):
    code = "FG502"
    breaks_in_callee = True
    name = "optimizer-step-in-region"
    summary = "optimizer.step() inside a compiled region"
    gb_codes = ("GB0025",)
    methods = ("step",)
    fixes = ("split", "split-module", "suppress")
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

    project_hooks = ("edge",)

    def check(self, ev):
        r = ev.recv
        if r is not None and r.kind == V.INSTANCE and r.q and V.is_optimizer_class(r.q):
            return STEP_MESSAGE
        return None

    def at_edge(self, ev):
        """`self.opt.step()`, a parameter's `opt.step()`: the receiver's class only the project can tell."""
        types, meth, method_call = ev.torch_receivers()
        for t in types if method_call and meth == "step" else ():
            if V.is_optimizer_class(t):
                yield Placed(STEP_MESSAGE)


MODULE_HOOK_METHODS = ("register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                       "register_full_backward_pre_hook", "register_backward_hook")


class HookRegistrationInRegion(Rule):
    code = "FG503"
    name = "hook-registration-in-region"
    summary = "nn.Module hook registered inside a compiled region"
    gb_codes = ("GB0467",)
    methods = MODULE_HOOK_METHODS
    fixes = ("hoist-init", "split", "split-module", "suppress")
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


# torch.nn layers that create parameters with their default arguments (verified on 2.13: constructing any
# of these inside a compiled region breaks), and the keyword that turns their parameters off.
PARAMETER_LAYERS = {
    **{f"torch.nn.{name}": None for name in (
        "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
        "Embedding", "EmbeddingBag", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "MultiheadAttention",
        "PReLU", "Transformer", "TransformerEncoderLayer", "TransformerDecoderLayer")},
    "torch.nn.LayerNorm": "elementwise_affine", "torch.nn.GroupNorm": "affine", "torch.nn.BatchNorm1d": "affine",
    "torch.nn.BatchNorm2d": "affine", "torch.nn.BatchNorm3d": "affine", "torch.nn.RMSNorm": "elementwise_affine",
}


class ParameterCreationInRegion(Rule):
    code = "FG504"
    name = "parameter-creation-in-region"
    summary = "nn.Parameter or a layer with parameters created inside a compiled region"
    gb_codes = ("GB0264",)
    calls = ("torch.nn.Parameter", "torch.nn.parameter.Parameter", *PARAMETER_LAYERS)
    fixes = ("hoist-init", "split", "split-module", "suppress")
    what = "Finds `nn.Parameter(...)` and layers that create parameters (`nn.Linear`, convolutions, embeddings, " \
           "RNNs, attention, affine norms) constructed in compiled code."
    why = """Dynamo cannot create a parameter while tracing ("Attempted to use `torch.nn.Parameter()` constructor
with Dynamo", GB0264), so building `nn.Parameter` -- or a layer whose `__init__` makes one -- inside the compiled
region breaks the graph.  With `torch._dynamo.config.graph_break_on_nn_param_ctor = False` (default `True`)
`nn.Parameter(...)` itself is traced -- fullgraph then stops reporting it -- but layers still break ("cannot
convert to traceable", verified on 2.13).  Layers without parameters (`nn.ReLU`, `nn.Dropout`, `nn.LayerNorm(...,
elementwise_affine=False)`, an empty `nn.Sequential`) and `nn.Buffer` are fine."""
    instead = """Create layers and parameters in `__init__` (or once, before compiling) and only use them in
`forward`; for a fresh tensor each call, use a plain tensor (`torch.zeros(...)`), not a parameter."""
    examples = (
        Example("""import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        proj = nn.Linear(x.shape[-1], 4)  # expect: FG504
        return proj(x)


net = torch.compile(Net(), fullgraph=True)
""", call="net(torch.randn(2, 3))"),
        Example("""import torch
from torch import nn


@torch.compile(fullgraph=True)
def f(x):
    scale = nn.Parameter(torch.ones(x.shape[-1]))  # expect: FG504
    return x * scale
"""),
        Example("""import torch
import torch.nn as nn


@torch.compile(fullgraph=True)
def f(x):
    norm = nn.LayerNorm(x.shape[-1], elementwise_affine=False)
    act = nn.ReLU()
    return act(norm(x))
""", breaks=False, note="layers without parameters"),
        Example("""import torch
import torch._dynamo
from torch import nn

torch._dynamo.config.graph_break_on_nn_param_ctor = False


@torch.compile(fullgraph=True)
def f(x):
    scale = nn.Parameter(torch.ones(x.shape[-1]))
    return x * scale
""", breaks=False, note="the project lets Dynamo trace the Parameter constructor: fullgraph honours it"),
    )

    def silenced_by(self, dynamo_config, data):
        return bool(data.get("parameter")) and ("graph_break_on_nn_param_ctor", False) in dynamo_config

    def check(self, ev):
        if ev.q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return Report("`nn.Parameter()` cannot be created while Dynamo traces; create it in `__init__`",
                          data={"parameter": True})
        off = PARAMETER_LAYERS.get(ev.q)
        if off is not None:
            kw = ev.node.keywords if isinstance(ev.node, ast.Call) else []
            if any(k.arg == off for k in kw) or any(k.arg is None for k in kw):
                return None  # e.g. elementwise_affine=...: maybe no parameters
        name = ev.q.rsplit(".", 1)[-1]
        return f"`nn.{name}(...)` creates parameters, which cannot be created while Dynamo traces; build it in `__init__`"


class RequiresGradSet(Rule):
    code = "FG505"
    name = "requires-grad-set-in-region"
    summary = "`tensor.requires_grad = ...` / `tensor.requires_grad_()` inside a compiled region"
    gb_codes = ("GB0206", "GB0125", "GB8985")
    hooks = ("requires_grad_set",)
    methods = ("requires_grad_",)
    fixes = ("hoist-init", "split", "split-module", "suppress")
    what = "Finds assignments to a tensor's `requires_grad` attribute, and `requires_grad_()` calls, in compiled code."
    why = """Dynamo does not support `setattr()` on `Tensor.requires_grad` (GB0206): turning a non-leaf into a
leaf (or back) in the middle of the graph is something AOTAutograd cannot represent, so Dynamo breaks
the graph there."""
    instead = """Set `requires_grad` before calling the compiled function (on the inputs or parameters), or
create the tensor with `requires_grad=True` outside the compiled region; to stop gradients inside it,
use `.detach()`."""
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    w = x.detach()
    w.requires_grad = True  # expect: FG505
    return w * 2
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    w = x.detach()
    return w * 2
""", call="f(torch.randn(4, requires_grad=True))", breaks=False),
        Example("""import torch


class Frozen(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        for p in self.lin.parameters():
            p.requires_grad_(False)  # expect: FG505
        return self.lin(x)


m = torch.compile(Frozen(), fullgraph=True)
""", call="m(torch.randn(2, 4))"),
    )

    def check(self, ev):
        if ev.kind == "method":
            # on a module's parameter it breaks at the call (GB0125); on an intermediate only where
            # the tensor leaves the region (GB8985), which is not this line
            if ev.recv is None or ev.recv.kind != V.TENSOR or ev.recv.attr != "param":
                return None
            return "`.requires_grad_()` on a module's parameter inside a compiled region breaks the graph"
        return "setting `.requires_grad` on a tensor inside a compiled region breaks the graph"


class TensorHookSideEffect(Rule):
    code = "FG506"
    name = "tensor-hook-side-effect"
    summary = "a tensor hook registered in a compiled region changes outside state"
    gb_codes = ("GB0067",)
    fixes = ("split", "split-module", "suppress")
    what = """Finds the first statement of a hook registered with `t.register_hook(fn)` in compiled code that
changes what the hook did not make: an attribute of `self` (`self.gradients = grad`), an item or a
method call that mutates a global or an attribute (`self.grads.append(grad)`, `STORE["g"] = grad`)."""
    why = """Dynamo traces a tensor hook when it is registered, as a higher-order op that will run in the
backward, and a higher-order op may not mutate anything from outside it ("HOP: Unsafe side effect",
GB0067).  A hook that only computes a new gradient (`lambda g: g * 2`) is fine."""
    instead = """Register the hook outside the compiled function (on the compiled output, or in `__init__`
on a parameter), or keep the value another way: return it from `forward`, or capture activations
with a forward hook installed before compiling."""
    examples = (
        Example("""import torch


class CAM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.gradients = None

    def save_grad(self, grad):
        self.gradients = grad  # expect: FG506

    def forward(self, x):
        a = self.lin(x)
        a.register_hook(self.save_grad)
        return a.sum()


f = torch.compile(CAM(), fullgraph=True)
""", call="f(torch.randn(2, 4, requires_grad=True)).backward()"),
        Example("""import torch


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def double(self, grad):
        return grad * 2

    def forward(self, x):
        a = self.lin(x)
        a.register_hook(self.double)
        return a.sum()


f = torch.compile(Scaled(), fullgraph=True)
""", call="f(torch.randn(2, 4, requires_grad=True)).backward()", breaks=False),
    )

    project_hooks = ("edge",)

    def at_edge(self, ev):
        """`t.register_hook(fn)`: the hook function, wherever it is defined, changing outside state."""
        hook = ev.hook_function() if ev.edge.kind == "tensor_hook" else None
        if hook is None or not hook[0].effects:
            return
        hfs, hmod = hook
        span, text = hfs.effects[0]  # the first one is where Dynamo stops
        r = ev.reached
        yield Placed(f"`{text}` in the tensor hook `{hfs.name}` changes state outside the hook; Dynamo traces the "
                     f"hook when `{ev.edge.text}(...)` registers it and cannot keep that side effect (\"HOP: Unsafe "
                     "side effect\")", data={"hook": hfs.qualname}, span=span, path=hmod.path,
                     steps=r.path + [Step(hfs.qualname, Location(r.mod.path, ev.edge.span))], apart=True)

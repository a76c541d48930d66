"""FG2xx: explicit breaks, disabled callees, and calls Dynamo cannot see into."""
from __future__ import annotations

import ast

from ..engine import values as V
from .. import tracetable
from ..torchinfo import TorchVersion
from .base import Example, Placed, Report, Rule

# Up to 2.14 Dynamo meets a recurrent module when it loads it (`self.gru`), where it cannot resume, and
# skips the whole function; 2.15 resumes after the call (tests/test_realcode.py, run in both venvs)
RNN_RESUMES_SINCE = TorchVersion(2, 15, 0)


class ExplicitGraphBreak(Rule):
    code = "FG201"
    name = "explicit-graph-break"
    summary = "torch._dynamo.graph_break() inside a compiled region"
    gb_codes = ("GB0025",)
    calls = ("torch._dynamo.graph_break",)
    fixes = ("remove-graph-break", "nonstrict-trace", "split", "split-module", "suppress")
    what = "Finds explicit `torch._dynamo.graph_break()` calls reachable from a compiled root."
    why = "The call exists to split the graph (\"Call to `torch._dynamo.graph_break()`\", GB0025)."
    instead = """Remove it if it was left from debugging.  If it is in a pure tensor function you call, wrap that
call with `torch._dynamo.nonstrict_trace(g)(x)` (the guide's Strategy 2), or split the compiled
function around it."""
    examples = (
        Example("""import torch


def g(x):
    y = x.sin()
    torch._dynamo.graph_break()  # expect: FG201
    return y.sin()


@torch.compile(fullgraph=True)
def f(x):
    w = x.sin()
    return g(w)
"""),
        Example("""import torch
from torch._dynamo import graph_break


@torch.compile(fullgraph=True)
def f(x):
    y = x + 1
    graph_break()  # expect: FG201
    return y * 2
"""),
        Example("""import torch


def g(x):
    y = x.sin()
    torch._dynamo.graph_break()
    return y.sin()


@torch.compile(fullgraph=True)
def f(x):
    w = x.sin()
    return torch._dynamo.nonstrict_trace(g)(w)
""", breaks=False),
    )

    def check(self, ev):
        return "explicit `graph_break()` call"


class DisabledCallee(Rule):
    code = "FG202"
    name = "disabled-callee"
    summary = "call to a torch.compiler.disable'd function from a compiled region"
    gb_codes = ("GB0098", "GB0099")
    fixes = ("nonstrict-trace", "reorderable-disabled", "suppress")
    what = "Finds calls from compiled code to functions decorated with `@torch.compiler.disable` or " \
           "`@torch._dynamo.disable` (the analyzer finds the callee through the project), and to what " \
           "`torch.compiler.disable(fn)` returns, in the same module."
    why = """A disabled function runs in eager mode, so calling it from compiled code splits the graph
("Skip calling `torch.compiler.disable()`d function", GB0098; GB0099 for `recursive=False`).
`disable` is not a fix for graph breaks: it creates them."""
    instead = """If the function is pure tensor code, drop `disable` or use `@torch._dynamo.nonstrict_trace`; if it
must stay out of the graph, call it from outside the compiled region."""
    examples = (
        Example("""import torch


@torch.compiler.disable
def helper(x):
    return x * 2


@torch.compile(fullgraph=True)
def f(x):
    return helper(x) + 1  # expect: FG202
"""),
        Example("""import torch


@torch._dynamo.disable(recursive=False)
def helper(x):
    return x * 2


@torch.compile(fullgraph=True)
def f(x):
    return helper(x) + 1  # expect: FG202
"""),
        Example("""import torch


def _body(x):
    return x * 2


fast = torch._dynamo.disable(_body, recursive=False)
eager_only = torch.compiler.disable(_body)


@torch.compile(fullgraph=True)
def f(x):
    y = fast(x)  # expect: FG202
    return eager_only(y) + 1  # expect: FG202
"""),
        Example("""import torch


@torch._dynamo.nonstrict_trace
def helper(x):
    return x * 2


@torch.compile(fullgraph=True)
def f(x):
    return helper(x) + 1
""", breaks=False),
    )

    project_hooks = ("edge",)

    def at_edge(self, ev):
        """A call reaching a function decorated with torch.compiler.disable (in any module)."""
        for tfs, _ in ev.targets:
            if tfs.disabled and tfs.compiled is None and tfs.qualname not in ev.ctx.reorderable:
                yield Placed(f"`{tfs.name}` is decorated with torch.compiler.disable; calling it from compiled "
                             f"code breaks the graph ({V.DISABLE_GB[tfs.disabled]})", data={"callee": tfs.qualname})


class JitInRegion(Rule):
    code = "FG203"
    name = "jit-in-region"
    summary = "torch.jit.script()/torch.jit.trace() inside a compiled region"
    gb_codes = ("GB0007", "GB0098")
    calls = ("torch.jit.script", "torch.jit.trace", "torch.jit.trace_module")
    fixes = ("split", "split-module", "suppress")
    what = "Finds TorchScript compilation inside compiled code."
    why = "TorchScript entry points are skipped or disabled by Dynamo (GB0007 / GB0098)."
    instead = "Script or trace once, outside the compiled function; better, drop TorchScript for torch.compile."
    examples = (
        Example("""import torch


def double(t):
    return t * 2


@torch.compile(fullgraph=True)
def f(x):
    g = torch.jit.trace(double, (x,))  # expect: FG203
    return g(x)
"""),
    )

    def check(self, ev):
        return f"`{ev.q}()` breaks the graph"


class TorchRuntimeCall(Rule):
    code = "FG204"
    name = "torch-runtime-call"
    summary = "torch runtime/config calls (manual_seed, set_num_threads, mark_dynamic, ...) in a compiled region"
    gb_codes = ("GB0007", "GB0208")
    calls = ("torch.manual_seed", "torch.set_num_threads", "torch.get_num_threads", "torch.set_num_interop_threads",
             "torch._dynamo.mark_dynamic", "torch._dynamo.mark_static", "torch.random.manual_seed")
    fixes = ("split", "split-module", "seed-guard", "suppress")
    what = "Finds calls that change or read torch's process-wide runtime state inside compiled code."
    why = """`torch.manual_seed` and `torch.set_num_threads` are skipped (GB0007); `torch.get_num_threads`
returns a non-tensor from a torch op (GB0208); `torch._dynamo.mark_dynamic` is a forbidden callable
inside the region."""
    instead = "Call these once, before the compiled function (seed and threads at start-up; `mark_dynamic` on the input before the call)."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    torch.manual_seed(0)  # expect: FG204
    return x + torch.rand(4)
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return x * torch.get_num_threads()  # expect: FG204
"""),
        Example("""import torch

torch.manual_seed(0)


@torch.compile(fullgraph=True)
def f(x):
    return x + torch.rand(4)
""", breaks=False),
    )

    def check(self, ev):
        return f"`{ev.q}()` breaks the graph; call it outside the compiled region"


class TorchGenerator(Rule):
    code = "FG205"
    name = "torch-generator"
    summary = "torch.Generator objects used inside a compiled region"
    gb_codes = ("GB0055", "GB7650")
    methods = ("manual_seed", "seed", "get_state", "set_state", "initial_seed")
    hooks = ("generator_kwarg",)
    calls = ("torch.Generator",)
    fixes = ("hoist-init", "split", "split-module", "suppress")
    what = "Finds `torch.Generator` construction, method calls and `generator=` arguments in compiled code."
    why = """A Generator is stateful RNG state that cannot be put in an FX graph: passing it to a factory fails
to convert it to a proxy (GB0055) and its methods are unsupported (GB7650)."""
    instead = "Draw the random tensors with the generator outside the compiled function and pass them in, " \
              "or use the global RNG (`torch.manual_seed` once, outside) inside."
    examples = (
        Example("""import torch

GEN = torch.Generator().manual_seed(0)


@torch.compile(fullgraph=True)
def f(x):
    return x + torch.randn(4, generator=GEN)  # expect: FG205
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x, noise):
    return x + noise


GEN = torch.Generator().manual_seed(0)
""", call="f(torch.randn(4), torch.randn(4, generator=GEN))", breaks=False),
    )

    def check(self, ev):
        if ev.kind == "call":
            return "creating a `torch.Generator` inside a compiled region breaks the graph"
        if ev.kind == "method":
            if ev.recv is not None and ev.recv.kind == V.INSTANCE and ev.recv.q == "torch.Generator":
                return f"`Generator.{ev.method}()` breaks the graph"
            return None
        if ev.kind == "generator_kwarg":
            return "a `torch.Generator` passed as `generator=` breaks the graph"
        return None


class OpaqueExtension(Rule):
    code = "FG206"
    name = "opaque-extension-call"
    summary = "call into a C++ extension or SciPy kernel inside a compiled region"
    gb_codes = ("GB0007", "GB0156")
    calls = ("scipy.*",)
    hooks = ("extension_call",)
    fixes = ("custom-op", "split", "split-module", "suppress")
    what = "Finds calls to functions of C++ extensions built with `torch.utils.cpp_extension.load_inline/load` " \
           "and to SciPy functions in compiled code."
    why = """Dynamo cannot trace compiled code it has no Python source for: pybind functions are skipped
(GB0007) and SciPy ufuncs are objects it does not model (GB0156)."""
    instead = """Wrap the kernel in a custom operator: `@torch.library.custom_op("mylib::name", mutates_args=())`
with type annotations, plus a `register_fake` implementation that returns an empty tensor of the
output's shape (the guide's Strategy 2; fix `custom-op` writes it).  `nonstrict_trace` does not work
for kernels that read raw data (they cannot run on fake tensors: GB0251)."""
    examples = (
        Example("""import numpy as np
import scipy.special
import torch


@torch.compile(fullgraph=True)
def f(x):
    return torch.from_numpy(scipy.special.erf(x.numpy()))  # expect: FG206
""", needs=("scipy",)),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return torch.special.erf(x)
""", breaks=False),
    )

    def check(self, ev):
        if ev.kind == "extension_call":
            return f"`{ev.text(ev.node.func)}()` calls a compiled C++ extension; Dynamo cannot trace it"
        return f"`{ev.q}()` is a compiled SciPy kernel; Dynamo cannot trace it"


class DynamoSkippedCall(Rule):
    code = "FG207"
    name = "dynamo-skipped-call"
    summary = "call of a function Dynamo skips (its own trace rules), or a NumPy function torch._numpy lacks"
    gb_codes = ("GB0007", "GB0008", "GB0208", "GB0294")
    hooks = ("skipped_call",)
    fixes = ("split", "split-module", "suppress")  # a guard would skip calls that mutate their arguments (heappush)
    verified = ("each row of the table generated from torch 2.13's trace rules is confirmed by a Dynamo run "
                "(fullgraph.tracetable; tests/test_tracetable.py)")
    what = """Finds calls, in compiled code, of standard-library functions Dynamo will not trace
(`heapq.heappush`, `bisect.bisect_left`, `os.getpid`, `datetime.datetime.now`, `threading.Lock()`,
`sys.getsizeof`, `torch.get_rng_state`, `torch.backends.cudnn.flags(...)`, ...) and of NumPy
functions that have no `torch._numpy` counterpart (`np.save`, `np.random.permutation`, `np.nanmean`,
...), when no more specific rule covers them.  The list is
not ours: it is read from the installed torch's trace rules and each entry is confirmed by compiling
a call under Dynamo (`python -m fullgraph.tracetable` regenerates it)."""
    why = """Dynamo has no Python source to trace for C functions it has no handler for: it marks them as
skipped and breaks the graph at the call (GB0007, "Attempted to call function marked as skipped");
torch functions that return Python objects cannot go in the graph (GB0208).  NumPy calls are traced by translating them to `torch._numpy`; a function without a counterpart breaks
the graph (GB0294)."""
    instead = """Do the work with torch operations (`torch.topk` instead of a heap, `torch.searchsorted`
instead of `bisect`, `torch.nanmean` instead of `np.nanmean`), move it out of the compiled function
(compute it once in `__init__` or in the caller), or keep it out of the graph with
`if not torch.compiler.is_compiling():` when it only logs or records."""
    examples = (
        Example("""import heapq

import torch


@torch.compile(fullgraph=True)
def f(x):
    best = []
    heapq.heappush(best, 3)  # expect: FG207
    return x * len(best)
"""),
        Example("""import bisect

import torch

EDGES = [0.1, 0.5, 0.9]


@torch.compile(fullgraph=True)
def f(x):
    return x * bisect.bisect_left(EDGES, 0.3)  # expect: FG207
"""),
        Example("""import numpy as np
import torch


@torch.compile(fullgraph=True)
def f(x):
    return x + float(np.nanmean(np.array([1.0, np.nan, 3.0])))  # expect: FG207
""", needs=("numpy",)),
        Example("""import operator
import random

import torch


@torch.compile(fullgraph=True)
def f(x):
    return x * operator.add(1, 2) + random.randint(1, 3)
""", breaks=False),
    )

    project_hooks = ("edge",)

    def holds(self, data: dict, version) -> bool:
        return data.get("callee", "") in tracetable.breaks(version)

    def check(self, ev):
        return Report(self.describe(ev.text(ev.node.func), tracetable.all_names().get(ev.q, "")),
                      data={"callee": ev.q})

    @staticmethod
    def describe(callee_text: str, gb: str) -> str:
        why = {
            "attempted to trace numpy function unsupported by PyTorch": "has no torch._numpy counterpart; Dynamo "
                                                                        "cannot trace this NumPy function",
            "torch.* op returned non-Tensor": "returns a Python object, not a tensor; Dynamo cannot put it in the "
                                              "graph",
        }.get(gb, "is a function Dynamo marks as skipped; calling it breaks the graph")
        return f"`{callee_text}()` {why} (Dynamo: \"{gb}\")"

    def at_edge(self, ev):
        """A method of a torch object whose class only the project can tell (`self.opt.zero_grad()`, a
        parameter's `opt.zero_grad()`): this rule's own check saw an unknown receiver."""
        types, meth, method_call = ev.torch_receivers()
        if not method_call:
            return
        for t in types:
            gb = tracetable.breaks(ev.ctx.version).get(f"{t}.{meth}")
            if gb and not (meth == "step" and V.is_optimizer_class(t)):  # that one is FG502's
                yield Placed(self.describe(f"{ev.edge.text}", gb), data={"callee": f"{t}.{meth}"})


class RecurrentModule(Rule):
    code = "FG208"
    name = "rnn-module-call"
    summary = "nn.RNN / nn.LSTM / nn.GRU called inside a compiled region"
    gb_codes = ("GB0014",)
    fixes = ("split", "split-module", "suppress")
    what = "Finds calls of `torch.nn.RNN`, `LSTM` and `GRU` modules from compiled code."
    why = """Dynamo does not trace the recurrent modules by default ("Attempted to wrap RNN, GRU, or LSTM",
GB0014): their cuDNN-backed kernels and flattened weights are outside what it models, so the call
breaks the graph."""
    instead = """Compile the parts around the recurrent layer (e.g. the embedding and the head) and call the
RNN eagerly between them, or write the recurrence with `nn.LSTMCell`/`nn.GRUCell` in a loop. Setting
`torch._dynamo.config.allow_rnn = True` enables Dynamo's experimental support (fullgraph honours it)."""
    examples = (
        Example("""import torch

LSTM = torch.nn.LSTM(4, 4, batch_first=True)


@torch.compile(fullgraph=True)
def f(x):
    y, _ = LSTM(x)  # expect: FG208
    return y
""", call="f(torch.randn(2, 3, 4))"),
        Example("""import torch

CELL = torch.nn.LSTMCell(4, 4)


@torch.compile(fullgraph=True)
def f(x):
    h, c = CELL(x)
    return h
""", call="f(torch.randn(2, 4))", breaks=False),
    )

    def silenced_by(self, dynamo_config, data):
        return ("allow_rnn", True) in dynamo_config

    project_hooks = ("edge",)

    def at_edge(self, ev):
        """Calling a recurrent module held where only the project can tell its class (`self.lstm(x)`)."""
        for t in ev.called_torch_modules():
            if t in V.RNN_MODULES:
                # before 2.15 Dynamo meets the module when it loads it (`self.gru`), not at a call it could
                # resume after: it gives up on the whole function ("Failed to handle graph break gracefully")
                yield Placed(f"`{ev.edge.text}(...)` calls a `{t.rsplit('.', 1)[1]}` module, which Dynamo does not "
                             "trace (unless torch._dynamo.config.allow_rnn = True)", data={"module": t},
                             resumable=not ev.ctx.version < RNN_RESUMES_SINCE)


# torch operators without a fake (meta) implementation on torch 2.13: Dynamo cannot compute their
# output while tracing ("Dynamic shape operator (no meta kernel)"), under any capture setting
NO_FAKE_KERNEL = ("torch.nn.functional.ctc_loss", "torch.ctc_loss")  # and values.NO_FAKE_KERNEL_MODULES


class NoFakeKernel(Rule):
    code = "FG209"
    name = "no-fake-kernel"
    summary = "an operator Dynamo cannot run on fake tensors (CTC loss) inside a compiled region"
    gb_codes = ("GB0036",)
    calls = NO_FAKE_KERNEL
    fixes = ("split", "split-module", "suppress")
    what = "Finds `F.ctc_loss` / `torch.ctc_loss` calls and `nn.CTCLoss` modules called from compiled code."
    why = """While tracing, Dynamo runs every operator on fake tensors to learn its output's shape.  The CTC
loss has no fake (meta) implementation: Dynamo stops there ("Dynamic shape operator (no meta kernel)",
GB0036) with or without `fullgraph=True`, and `capture_dynamic_output_shape_ops` does not help."""
    instead = """Compute the logits in the compiled function and the CTC loss outside it (return the
log-probabilities and call `F.ctc_loss` on them), or wrap the loss in a `torch.compiler.disable`d
helper."""
    examples = (
        Example("""import torch
import torch.nn.functional as F


@torch.compile
def f(log_probs, targets, in_lens, tgt_lens):
    return F.ctc_loss(log_probs, targets, in_lens, tgt_lens)  # expect: FG209
""", call="f(torch.randn(10, 2, 5).log_softmax(-1), torch.randint(1, 5, (2, 4)), torch.tensor([10, 9]), "
           "torch.tensor([4, 3]))"),
        Example("""import torch

CTC = torch.nn.CTCLoss(zero_infinity=True)


@torch.compile(fullgraph=True)
def f(log_probs, targets, in_lens, tgt_lens):
    return CTC(log_probs, targets, in_lens, tgt_lens)  # expect: FG209
""", call="f(torch.randn(10, 2, 5).log_softmax(-1), torch.randint(1, 5, (2, 4)), torch.tensor([10, 9]), "
           "torch.tensor([4, 3]))"),
        Example("""import torch
import torch.nn.functional as F


@torch.compile(fullgraph=True)
def f(log_probs, targets):
    return F.nll_loss(log_probs, targets)
""", call="f(torch.randn(4, 5).log_softmax(-1), torch.randint(0, 5, (4,)))", breaks=False),
    )

    project_hooks = ("edge",)

    def check(self, ev):
        return f"`{ev.text(ev.node.func)}()` has no fake-tensor kernel: Dynamo cannot trace it and breaks the graph"

    def at_edge(self, ev):
        """Calling a `CTCLoss` module held where only the project can tell its class (`self.ctc(...)`)."""
        for t in ev.called_torch_modules():
            if t in V.NO_FAKE_KERNEL_MODULES:
                yield Placed(f"`{ev.edge.text}(...)` calls a `CTCLoss` module, which has no fake-tensor kernel: "
                             "Dynamo cannot trace it and breaks the graph", data={"module": t})


DATALOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")


class DataLoaderIteration(Rule):
    code = "FG210"
    name = "dataloader-iteration"
    summary = "a `for` over a DataLoader inside a compiled function"
    gb_codes = ("GB0008",)
    fixes = ("suppress",)
    what = """Finds `for batch in loader`, `enumerate(loader)` and `zip(loader, ...)` in a compiled function when
the call that runs it passes a `torch.utils.data.DataLoader` (a training or evaluation loop compiled whole:
`train = torch.compile(train); train(model, loader, optimizer)`)."""
    why = """Dynamo does not trace `DataLoader.__iter__` ("Attempted to inline function marked as skipped",
GB0008).  The break is at the loop's head, which Dynamo cannot resume from: it runs the rest of the
function uncompiled, so nothing of the loop body is compiled (the modules it calls are, each on its own)."""
    instead = """Iterate the loader outside and compile the step: `step = torch.compile(train_step)`, then
`for x, y in loader: step(model, x, y)` (or compile the model itself)."""
    project_hooks = ("reached",)
    breaks_in_callee = False
    examples = (
        Example("""import torch
from torch.utils.data import DataLoader, TensorDataset


def train(loader):
    total = torch.zeros(())
    for batch in loader:  # expect: FG210
        total = total + batch[0].sum()
    return total


loader = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4)
step = torch.compile(train, fullgraph=True)
out = step(loader)
""", call="out"),
        Example("""import torch


def train(batches):
    total = torch.zeros(())
    for batch in batches:
        total = total + batch.sum()
    return total


batches = [torch.randn(4, 2), torch.randn(4, 2)]
step = torch.compile(train, fullgraph=True)
out = step(batches)
""", call="out", breaks=False),
    )

    def at_reached(self, ev):
        for use in ev.reached.fs.iter_uses:
            if use.how != "next" and ev.passed_class(use.param) in DATALOADERS and ev.live(use.dead_if):
                yield Placed(f"`for` over the DataLoader `{use.param}`: Dynamo does not trace `DataLoader.__iter__` "
                             "(\"Attempted to inline function marked as skipped\"); the rest of the function runs "
                             "uncompiled", data={"param": use.param}, span=use.span, resumable=False)


class SparseTensor(Rule):
    code = "FG211"
    name = "sparse-tensor"
    summary = "a sparse tensor used inside a compiled region"
    gb_codes = ("GB0015", "GB0277")
    hooks = ("sparse_use",)
    fixes = ("split", "split-module", "suppress")
    what = """Finds where a sparse tensor is used in compiled code: passed to a torch operator (`torch.spmm(adj, x)`,
`torch.sparse.mm`, `torch.matmul`), a method or an attribute of it read (`adj.t()`, `adj.shape`), or one made
with `.to_sparse()`.  Sparse-ness travels from where the tensor is made (`torch.sparse_coo_tensor(...)`,
`torch.sparse.FloatTensor(...)`, `.to_sparse()`, a function of the project that returns one) through
assignments, the values functions return and the arguments of the calls the analysis sees, down to the
function that uses it (a sparse adjacency matrix built by a data loader and passed to a compiled GCN)."""
    why = """Dynamo does not support sparse tensors: wrapping one as a graph input or as the result of an operator
breaks the graph ("Attempted to wrap sparse Tensor", GB0015; "Attempted to wrap sparse Tensor with
VariableTracker", GB0277), with or without `fullgraph=True`.  A sparse tensor that is only passed along (to
a function that does not read it) does not break.  Making one with `torch.sparse_coo_tensor(...)` in
compiled code is a call Dynamo skips (FG207)."""
    instead = """Keep the sparse product out of the compiled region (compile the dense parts, or wrap the sparse
operation in a `torch.compiler.disable`d helper), or use a dense adjacency (`adj.to_dense()`) when the graph
is small; for message passing, `index_add_`/`scatter_add_` over an edge list compiles."""
    examples = (
        Example("""import torch


class Propagate(torch.nn.Module):
    def forward(self, x, adj):
        return torch.spmm(adj, x)  # expect: FG211


adj = torch.eye(3).to_sparse()
m = torch.compile(Propagate(), fullgraph=True)
out = m(torch.randn(3, 2), adj)
""", call="out", note="the sparse tensor is made outside and passed in"),
        Example("""import torch

ADJ = torch.eye(4).to_sparse()


def propagate(adj, x):
    return torch.sparse.mm(adj, x)  # expect: FG211


@torch.compile(fullgraph=True)
def f(x):
    return propagate(ADJ, x.reshape(4, 1))
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    m = x.reshape(2, 2)
    return torch.sparse.mm(m.to_sparse(), m) + 1  # expect: FG211
""", note="made in the compiled code"),
        Example("""import torch


class Propagate(torch.nn.Module):
    def forward(self, x, adj):
        return adj @ x


adj = torch.eye(3).to_sparse()
m = torch.compile(Propagate(), fullgraph=True)
out = m(torch.randn(3, 2), adj.to_dense())
""", call="out", breaks=False, note="a dense adjacency compiles"),
    )

    def check(self, ev):
        if isinstance(ev.node, ast.Call) and isinstance(ev.node.func, ast.Attribute) and \
                ev.node.func.attr in V.SPARSE_METHODS:
            return f"`.{ev.node.func.attr}()` makes a sparse tensor, which torch.compile does not support; it breaks the graph"
        return "a sparse tensor is used here; torch.compile does not support sparse tensors, this breaks the graph"


class LegacyVariable(Rule):
    code = "FG212"
    name = "legacy-variable-call"
    summary = "the legacy torch.autograd.Variable(...) constructor called inside a compiled region"
    gb_codes = ("GB0007",)
    calls = ("torch.autograd.Variable", "torch.autograd.variable.Variable")
    fixes = ("split", "split-module", "suppress")
    what = """Finds calls of `torch.autograd.Variable(...)` (also imported as `from torch.autograd import Variable`)
in compiled code, a wrapper left from PyTorch before 0.4 that old model code still calls on its tensors
(`iden = Variable(torch.from_numpy(...))` in PointNet's spatial transformer)."""
    why = """Since PyTorch 0.4 `Variable(t)` returns a tensor, but it does so in `_LegacyVariableBase.__new__`, a C
function Dynamo marks as skipped: calling it breaks the graph ("Attempted to call function marked as skipped",
GB0007), checked on torch 2.13, 2.14.1 and 2.15.0, with or without `requires_grad=`."""
    instead = """Drop the wrapper: `Variable(t)` is `t` (`Variable(t, requires_grad=True)` is
`t.requires_grad_()`, done before compiling)."""
    examples = (
        Example("""import numpy as np
import torch
from torch.autograd import Variable


@torch.compile(fullgraph=True)
def f(x):
    iden = Variable(torch.from_numpy(np.eye(3).flatten().astype(np.float32))).view(1, 9)  # expect: FG212
    return x + iden
""", call="f(torch.randn(2, 9))", needs=("numpy",)),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return torch.autograd.Variable(x, requires_grad=False) * 2  # expect: FG212
"""),
        Example("""import numpy as np
import torch


@torch.compile(fullgraph=True)
def f(x):
    iden = torch.from_numpy(np.eye(3).flatten().astype(np.float32)).view(1, 9)
    return x + iden
""", call="f(torch.randn(2, 9))", breaks=False, needs=("numpy",), note="the tensor itself"),
    )

    def check(self, ev):
        return "`Variable(...)` is the legacy autograd wrapper; Dynamo skips its constructor, this breaks the graph " \
               "(pass the tensor itself)"

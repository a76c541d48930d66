"""FG3xx: Python control flow and Python values that depend on tensor data."""
from __future__ import annotations

import ast

from ..engine import values as V
from ..torchinfo import TorchVersion, VersionRange
from .base import BOTH, FULLGRAPH, PARTIAL, Example, Placed, Report, Rule

# fullgraph=True turns on capture_scalar_outputs / capture_dynamic_output_shape_ops itself since
# PRs #163121/#163123 (Sep 2025): first released in 2.10 (inferred), verified on 2.13.
CAPTURE_SINCE = TorchVersion(2, 10, 0)
CAPTURE_NOTE = """On torch >= 2.10 (verified on 2.13; the boundary is inferred from PRs #163121/#163123),
`fullgraph=True` captures scalar outputs and dynamic-shape ops, so this compiles there and the rule only
reports it under `torch.compile` without `fullgraph=True`, where it is a graph break."""


class DataDependentBranch(Rule):
    code = "FG301"
    name = "data-dependent-branch"
    summary = "if/while/and/or/not on a tensor's value inside a compiled region"
    gb_codes = ("GB0170", "GB0033")
    hooks = ("condition",)
    calls = V.DD_BOOL_CALLS
    methods = ("equal", "allclose", "is_nonzero")
    fixes = ("torch-where", "torch-cond", "tensor-assert", "assert-async", "split", "split-module", "suppress")
    what = """Finds Python control flow whose condition is a tensor (`if x.sum() > 0:`, `while t.max() < 10:`,
`if torch.isnan(x).any():`, `if flag:` with a tensor `flag`, `a or b` on tensors) and conditions built
from `torch.equal`/`torch.allclose`."""
    why = """Python needs a concrete bool, but while tracing the tensor has no value: Dynamo cannot trace
the branch ("Data-dependent branching", GB0170; "Data dependent operator", GB0033)."""
    instead = """Compute both sides and select with `torch.where(cond, a, b)` (fix `torch-where`, when both
branches assign tensors to the same names), or use `torch.cond(pred, true_fn, false_fn, operands)` —
branches must return tensors of the same shape and dtype, must not mutate or return their inputs
unchanged, and must not print or call `.item()`.  For validation (`if torch.isnan(x).any(): raise`),
use `torch._assert_async(~torch.isnan(x).any(), "...")`."""
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    if x.sum() > 0:  # expect: FG301
        return x + 1
    return x - 1
"""),
        Example("""import torch


class Clean(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        if torch.isnan(x).any():  # expect: FG301
            x = torch.nan_to_num(x)
        return x * 2


m = torch.compile(Clean(), fullgraph=True)
""", call="m(torch.tensor([1.0, float('nan'), 3.0]))"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    if torch.isnan(x).any():  # expect: FG301
        raise ValueError("NaN in the input")
    return x * 2
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    while x.sum() < 10:  # expect: FG301
        x = x * 2
    return x
""", call="f(torch.tensor([0.5, 0.25]))"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    if torch.equal(x, x.clone()):  # expect: FG301
        return x + 1
    return x
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(probs):
    torch._assert(torch.allclose(probs.sum(-1), torch.ones(probs.shape[0])), "rows must sum to 1")  # expect: FG301
    return probs.log()
""", call="f(torch.softmax(torch.randn(3, 4), -1))"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return torch.where(x.sum() > 0, x + 1, x - 1)
""", breaks=False),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x, training: bool = True):
    if x.shape[0] > 2 and x.dim() == 1 and training:
        return x + 1
    return x - 1
""", breaks=False, note="shapes and Python flags are static"),
    )

    def _condition(self, ev):
        v = ev.value
        if v is None or v.kind == V.DDSCALAR:
            return None
        if v.kind == V.TENSOR:
            return Report("Python control flow on a tensor value (`bool(tensor)`) breaks the graph",
                          data={"tensor": True})
        return None

    def check(self, ev):
        if ev.kind == "call" or ev.kind == "method":
            # `torch.allclose(a, b)` reads tensor data into a Python bool: the call itself breaks
            # ("Data dependent operator"), wherever its result goes (an `if`, `assert`, `torch._assert`)
            if ev.kind == "method" and (ev.recv is None or ev.recv.kind != V.TENSOR):
                return None
            name = ev.q if ev.kind == "call" else f"Tensor.{ev.method}"
            return Report(f"`{name}()` returns a Python bool computed from tensor data, which breaks the graph")
        return self._condition(ev)


class DataDependentPythonValue(Rule):
    code = "FG302"
    name = "data-dependent-python-value"
    summary = "control flow or range() on .item()/int(t)/float(t)/bool(t) values (fullgraph=True)"
    gb_codes = ()
    hooks = ("condition",)
    calls = ("builtins.range",)
    fixes = ("torch-where", "suppress")
    doc_url = "https://docs.pytorch.org/docs/stable/compile/programming_model.dynamo_core_concepts.html"
    what = """Finds Python values computed from tensor data (`loss.item()`, `int(n)`, `float(t)`, `bool(t)`, `t.tolist()`)
used where Python needs a concrete value: an `if`/`while` condition or `range()`."""
    why = """Under `fullgraph=True` the scalar becomes an unbacked symbol; branching on it or looping over
`range()` of it needs its value, which does not exist while tracing: `UserError: Could not guard on
data-dependent expression` ("Consider annotating your code using torch._check*()").  The error names
the line that uses the value, not the `.item()` call.  It has no GB code."""
    instead = """Keep the value a tensor and select with `torch.where`, or use `torch.cond`.  For a size, use
the tensor in a torch op that accepts it, or add `torch._check(n >= 0)` hints when it is a size."""
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    if x.sum().item() > 0:  # expect: FG302
        return x + 1
    return x - 1
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(n: torch.Tensor):
    acc = torch.zeros(2)
    for _ in range(int(n)):  # expect: FG302
        acc = acc + 1
    return acc
""", call="f(torch.tensor([3]))"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    b = bool(x.sum() > 0)
    return x + 1 if b else x - 1  # expect: FG302
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    s = x.sum().item()
    return x * (s * 2 + 1)
""", breaks=False, note="a captured scalar used in arithmetic is fine under fullgraph=True"),
    )

    def modes(self, torch):
        return frozenset({FULLGRAPH}) if not torch < CAPTURE_SINCE else frozenset()

    def check(self, ev):
        if ev.kind == "condition":
            v = ev.value
            if v is not None and v.kind == V.DDSCALAR and v.q is None:
                return "Python control flow on a value computed from tensor data (e.g. `.item()`) cannot be traced"
            return None
        if ev.kind == "call" and ev.q == "builtins.range":  # (of a tensor itself: FG313, in both modes)
            if any(a.kind == V.DDSCALAR and a.q is None for a in ev.args):
                return "`range()` of a value computed from tensor data cannot be traced"
        return None


class ScalarConversion(Rule):
    code = "FG303"
    name = "tensor-to-python-scalar"
    summary = ".item()/int(t)/float(t)/bool(t)/.tolist() inside a plain (non-fullgraph) compiled region"
    gb_codes = ("GB0124", "GB0033")
    methods = ("item", "tolist")
    calls = ("builtins.int", "builtins.float", "builtins.bool")
    hooks = ("size",)
    fixes = ("capture-config", "suppress")
    what = """Finds conversions of tensor values to Python numbers in compiled code, and tensors given as sizes
(`torch.zeros(n, x.sum())`, `x.new_zeros(idx.max() + 1)`, `np.zeros((k, np.sum(plan)))`: what a NumPy call
returns is a tensor to Dynamo), whose value the size needs."""
    why = """Without `capture_scalar_outputs`, Dynamo cannot put `.item()` in the graph ("Unsupported
Tensor.item() call with capture_scalar_outputs=False", GB0124); the graph is split there.  A tensor given as a
size is read the same way ("Data dependent operator", GB0033).  """ + CAPTURE_NOTE
    instead = """Keep values as tensors (`x * x.sum()` instead of `x * x.sum().item()`), compile with
`fullgraph=True`, or set `torch._dynamo.config.capture_scalar_outputs = True` (anywhere in the project:
fullgraph then stops reporting this)."""
    examples = (
        Example("""import torch


@torch.compile
def f(x):
    return x + x.sum().item()  # expect: FG303
"""),
        Example("""import torch


@torch.compile
def f(x):
    return x * float(x.sum())  # expect: FG303
"""),
        Example("""import torch


def heuristic(n):
    x = torch.tensor([n, 3.0])
    return bool(x @ torch.tensor([2.4, 1.6]) >= 1.2)  # expect: FG303


@torch.compile
def f(x):
    return x + 1, heuristic(x.shape[0])
""", note="`bool()` of a tensor a helper computes (PyG's backend heuristic)"),
        Example("""import torch


def flipped(edge_index):
    return edge_index.flip(0), edge_index.numel()


def num_nodes(edge_index):
    return int(edge_index.max()) + 1  # expect: FG303


@torch.compile
def f(edge_index):
    edge_index, _ = flipped(edge_index)
    return num_nodes(edge_index)
""", call="f(torch.tensor([[0, 1], [1, 2]]))", note="a tensor a helper returns, in a tuple, passed to another"),
        Example("""import torch


@torch.compile
def f(x):
    return torch.zeros(2, x.sum()) + x.new_ones(x.max() + 1).sum()  # expect: FG303
""", call="f(torch.tensor([1, 2]))", note="tensors as sizes"),
        Example("""import numpy as np
import torch


def plan(n):
    return [2, n]


@torch.compile
def f(x):
    blocks = plan(x.shape[0])
    mask = np.zeros((x.shape[0], np.sum(blocks)), dtype=np.int32)  # expect: FG303
    return x + torch.from_numpy(mask).sum()
""", call="f(torch.ones(3))", needs=("numpy",), note="a NumPy sum is a tensor to Dynamo (BigBird's attention plan)"),
        Example("""import numpy as np
import torch


@torch.compile
def f(x):
    flat = torch.zeros(np.prod(x.shape[1:]))
    return x.reshape(x.shape[0], -1) + flat
""", call="f(torch.ones(3, 4))", breaks=False, needs=("numpy",),
            note="a NumPy product of shapes is not reported (folded to a number when it has one item)"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return x + x.sum().item()
""", breaks=False, note="fullgraph=True captures the scalar on torch >= 2.10"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return torch.zeros(2, x.sum()).sum() + x
""", call="f(torch.tensor([1, 2]))", breaks=False, note="and a size from tensor data"),
        Example("""import torch
import torch._dynamo

torch._dynamo.config.capture_scalar_outputs = True


@torch.compile
def f(x):
    n = x.sum().item() + float(x.max()) + int(x.argmax())
    return x * n, (x > 0).int().tolist()
""", breaks=False, note="the project turns scalar capture on: fullgraph honours it"),
    )

    def modes(self, torch):
        return frozenset({PARTIAL}) if not torch < CAPTURE_SINCE else BOTH

    def silenced_by(self, dynamo_config, data):
        return ("capture_scalar_outputs", True) in dynamo_config

    def check(self, ev):
        if ev.kind == "size":
            what = "a NumPy result" if ev.value.attr == "numpy" else "a tensor"
            return (f"`{ev.text()}` is {what} to Dynamo: as a size it needs its value, which splits the graph "
                    "unless scalar outputs are captured")
        if ev.kind == "method":
            r = ev.recv
            if r is None:
                return None
            if ev.method == "item" and r.kind in (V.TENSOR, V.UNKNOWN) and not _numpy_int_item(ev):
                return "`.item()` splits the graph unless scalar outputs are captured"
            if ev.method == "tolist" and r.kind == V.TENSOR and not r.float_dtype:
                return "`.tolist()` splits the graph unless scalar outputs are captured"
            return None
        if ev.args and ev.args[0].kind == V.TENSOR:
            return f"`{ev.q.replace('builtins.', '')}(tensor)` splits the graph unless scalar outputs are captured"
        return None


class RangeOfTensor(Rule):
    code = "FG313"
    name = "range-of-tensor"
    summary = "range() of a tensor (or of what a NumPy call returns) inside a compiled region"
    gb_codes = ("GB0059",)
    calls = ("builtins.range",)
    fixes = ("suppress",)
    what = """Finds `range()` given a tensor: `range(x.sum())`, `range(n)` where `n` is a tensor a caller passes, and
`range(b - a)` of NumPy values, which are tensors to Dynamo (`plan = np.array(...)`, `range(plan[1] - plan[0])`)."""
    why = """`range` is a Python builtin: Dynamo does not trace it with a tensor argument ("Failed to trace builtin
operator", GB0059 on 2.13; on 2.14.1 the tensor's `.item()` is reported instead), with or without `fullgraph=True`.
With `capture_scalar_outputs = True` in the project, torch 2.14.1 compiles `range(x.sum())` (2.13 still breaks):
the rule is then silent, for the newer releases users run."""
    instead = """Loop over a Python int the program knows (a shape: `range(x.shape[0])`, a constant), or vectorize the
loop with tensor operations (`torch.arange(n, device=x.device)` keeps the count a tensor)."""
    examples = (
        Example("""import torch


@torch.compile
def f(x):
    total = 0
    for i in range(x.sum()):  # expect: FG313
        total += i
    return x + total
""", call="f(torch.tensor([1, 2]))"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return x + len(list(range(x.max())))  # expect: FG313
""", call="f(torch.tensor([1, 2]))", note="under fullgraph=True too"),
        Example("""import numpy as np
import torch


def pick(start, end):
    return [i for i in range(end - start)]  # expect: FG313


@torch.compile
def f(x):
    bounds = np.array([3, 5])
    return x + len(pick(bounds[0], bounds[1]))
""", call="f(torch.ones(2))", needs=("numpy",), note="NumPy values a caller passes"),
        Example("""import numpy as np
import torch


@torch.compile(fullgraph=True)
def f(x):
    total = 0
    for i in range(x.shape[0] + int(np.sqrt(4))):
        total += i
    return x + total
""", call="f(torch.ones(2))", breaks=False, needs=("numpy",), note="sizes and folded NumPy numbers are Python ints"),
    )

    def silenced_by(self, dynamo_config, data):
        return ("capture_scalar_outputs", True) in dynamo_config

    def check(self, ev):
        if any(V.size_needs_value(a) and a.q is None for a in ev.args):
            return "`range()` of a tensor is not traced by Dynamo: it splits the graph"
        return None


# torchvision's box operators whose output size depends on the data ("Operator `torchvision.nms.default`'s output
# shape depends on input Tensor data", `aten.nonzero` for remove_small_boxes), as torch 2.14.1 + torchvision 0.29.1
# and torch 2.15.0 + torchvision 0.29.1 trace them: a break under a plain torch.compile, captured with
# fullgraph=True (which turns dynamic-output capture on), except batched_nms past 1,000 boxes on the CPU, whose
# per-class loop over torch.unique raises then.  (torchvision does not import beside the 2.13 CPU build CI runs:
# the examples below are checked there by the analyzer only.)
TORCHVISION_NMS = tuple(f"torchvision.ops.{where}{name}" for where in ("", "boxes.")
                        for name in ("nms", "batched_nms", "remove_small_boxes"))


class DynamicShapeOp(Rule):
    code = "FG304"
    name = "dynamic-shape-op"
    summary = "nonzero/unique/masked_select/x[mask]/bincount inside a plain (non-fullgraph) compiled region"
    gb_codes = ("GB0036",)
    calls = ("torch.nonzero", "torch.unique", "torch.masked_select", "torch.bincount", "torch.argwhere",
             "torch.where", "torch.repeat_interleave", "torch.unique_consecutive", *TORCHVISION_NMS)
    methods = ("nonzero", "unique", "masked_select", "bincount", "argwhere")
    hooks = ("subscript",)
    fixes = ("capture-config", "suppress")
    what = """Finds operators whose output shape depends on tensor data (torchvision's `nms`, `batched_nms` and
`remove_small_boxes` among them), and indexing with a boolean mask (`x[mask]`, `x[:, mask]`, `x[mask] += v`; a mask is
a comparison of tensors, `~m`, `m1 & m2`, `torch.isnan(x)`, `t.bool()`, reshaped or not, or what a helper returns).
Storing through a mask (`x[mask] = v`) keeps the shape and compiles."""
    why = """Without `capture_dynamic_output_shape_ops` the output size is unknown while tracing ("Dynamic
shape operator", GB0036) and the graph is split.  """ + CAPTURE_NOTE
    instead = """Prefer shape-preserving forms: `torch.where(mask, x, 0)` instead of `x[mask]` (when the consumer
allows it), `repeat_interleave(..., output_size=n)`, `bincount(..., minlength=n)` via `scatter_add_`;
or compile with `fullgraph=True`."""
    examples = (
        Example("""import torch


@torch.compile
def f(x):
    keep = (x > 0) & (x < 2)
    return x[keep].sum()  # expect: FG304
""", note="a mask kept in a variable"),
        Example("""import torch


@torch.compile
def f(x):
    return torch.nonzero(x > 0)  # expect: FG304
"""),
        Example("""import torch


@torch.compile
def f(x: torch.Tensor):
    return x[x > 0].sum()  # expect: FG304
"""),
        Example("""import torch


def self_loops_removed(edge_index):
    keep = edge_index[0] != edge_index[1]
    return edge_index[:, keep]  # expect: FG304


def valid(x):
    return ~torch.isnan(x)


@torch.compile
def f(x, edge_index):
    edge_index = self_loops_removed(edge_index)
    return x[valid(x)].sum() + edge_index.sum()  # expect: FG304
""", call="f(torch.randn(4), torch.tensor([[0, 1, 2], [1, 1, 0]]))",
            note="masks among the indices, made by `!=`/`~`/`isnan`, returned by a helper"),
        Example("""import torch


@torch.compile
def f(boxes, conf):
    keep = (boxes[:, 4] * conf.squeeze() >= 0.5).squeeze()
    return boxes[keep].sum()  # expect: FG304
""", call="f(torch.rand(6, 5), torch.rand(6, 1))",
            note="a mask reshaped (`.squeeze()`, `.view()`...) is still a mask: YOLOX's confidence filter"),
        Example("""import torch


@torch.compile
def f(boxes, conf):
    keep = (boxes[:, 4] * conf.squeeze() >= 0.5).squeeze().long()
    return boxes[keep].sum()
""", call="f(torch.rand(6, 5), torch.rand(6, 1))", breaks=False,
            note="made integers, the same values index rows: no mask"),
        Example("""import torch


@torch.compile
def f(x):
    y = x.clone()
    y[y > 0] += 1  # expect: FG304
    return y
""", note="`+=` reads `y[mask]` first"),
        Example("""import torch
import torchvision


@torch.compile
def f(boxes, scores):
    keep = torchvision.ops.nms(boxes, scores, 0.5)  # expect: FG304
    return boxes[keep]
""", call="f(torch.tensor([[0., 0., 2., 2.], [1., 1., 3., 3.], [5., 5., 6., 6.]]), torch.tensor([0.9, 0.8, 0.7]))",
            needs=("torchvision",), note="torchvision's NMS: verified on torch 2.14.1 + torchvision 0.29.1"),
        Example("""import torch
import torchvision


@torch.compile
def postprocess(preds, thre):
    out = []
    for pred in preds:
        pred = pred[(pred[:, 4] >= thre).squeeze()]  # expect: FG304
        keep = torchvision.ops.nms(pred[:, :4], pred[:, 4], 0.5)  # expect: FG304
        out.append(pred[keep])
    return out
""", call="postprocess(torch.tensor([[[0., 0., 2., 2., .9], [1., 1., 3., 3., .8], [5., 5., 6., 6., .1]]]), 0.5)",
            needs=("torchvision",), note="YOLOX's postprocess: the mask's break in the loop makes Dynamo run the rest "
            "of the function uncompiled, but it compiles torchvision's nms, a function of its own, and breaks there"),
        Example("""import torch
from torchvision.ops import batched_nms, box_iou


@torch.compile(fullgraph=True)
def f(boxes, scores, classes):
    return batched_nms(boxes, scores, classes, 0.5), box_iou(boxes, boxes)
""", call="f(torch.tensor([[0., 0., 2., 2.], [1., 1., 3., 3.], [5., 5., 6., 6.]]), torch.tensor([0.9, 0.8, 0.7]), "
          "torch.tensor([0, 0, 1]))", needs=("torchvision",), breaks=False,
            note="fullgraph=True captures the output size (and box_iou's shape never depends on the data)"),
        Example("""import torch


@torch.compile
def f(x):
    return torch.where(x > 0, x, torch.zeros_like(x)).sum()
""", breaks=False),
        Example("""import torch


@torch.compile
def f(x):
    y = x.clone()
    y[torch.isnan(y)] = 0.0
    return y
""", breaks=False, note="storing through a mask (index_put_) keeps the shape"),
        Example("""import torch
from torch._dynamo import config

config.capture_dynamic_output_shape_ops = True


@torch.compile
def f(x):
    return torch.nonzero(x > 0), x[x > 0].sum(), torch.unique(x)
""", breaks=False, note="the project turns dynamic-shape capture on: fullgraph honours it"),
    )

    def modes(self, torch):
        return frozenset({PARTIAL}) if not torch < CAPTURE_SINCE else BOTH

    def silenced_by(self, dynamo_config, data):
        return ("capture_dynamic_output_shape_ops", True) in dynamo_config

    def check(self, ev):
        if ev.kind == "subscript":
            node = ev.node.slice if isinstance(ev.node, ast.Subscript) else None
            if ev.value is not None and ev.value.kind == V.TENSOR and \
                    (isinstance(node, ast.Compare) or ev.value.attr == "bool"):
                return "boolean-mask indexing has a data-dependent output shape"
            return None
        if ev.kind == "method":
            if ev.recv is not None and ev.recv.kind == V.TENSOR:
                return f"`.{ev.method}()` has a data-dependent output shape"
            return None
        if ev.q == "torch.where":
            return "`torch.where(cond)` with one argument has a data-dependent output shape" \
                if len(ev.args) == 1 and not ev.kwargs else None
        if ev.q == "torch.repeat_interleave":
            if "output_size" in ev.kwargs or len(ev.args) < 2 or ev.args[1].kind != V.TENSOR:
                return None
        if ev.q in TORCHVISION_NMS:
            # a Python function around the operator: Dynamo compiles its frame on its own, so the break happens
            # even where the caller runs uncompiled after an unresumable break (YOLOX's postprocess)
            return Report(f"`{ev.q}()` has a data-dependent output shape", data={"breaks_in_callee": True})
        return f"`{ev.q}()` has a data-dependent output shape"


class FloatToList(Rule):
    code = "FG305"
    name = "float-tolist"
    summary = ".tolist() on a floating-point tensor inside a compiled region"
    gb_codes = ("GB0109",)
    methods = ("tolist",)
    fixes = ("suppress",)
    what = "Finds `.tolist()` on tensors the analyzer knows are floating point."
    why = "Dynamo does not trace `tolist()` on non-integer tensors (\"Tensor.tolist() with non-integer tensor\", GB0109), with or without capture_scalar_outputs."
    instead = "Keep the values as a tensor; convert to a list outside the compiled function."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    vals = x.float().tolist()  # expect: FG305
    return torch.tensor(vals) * 2
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return x.float().clone() * 2
""", breaks=False),
    )

    def check(self, ev):
        if ev.recv is not None and ev.recv.kind == V.TENSOR and ev.recv.float_dtype:
            return "`.tolist()` on a floating-point tensor breaks the graph"
        return None


class TensorToString(Rule):
    code = "FG306"
    name = "tensor-to-string"
    summary = "str()/repr()/'%s' % of a tensor inside a compiled region"
    gb_codes = ("GB0059", "GB0569", "GB0208")
    calls = ("builtins.str", "builtins.repr")
    hooks = ("percent_format",)
    fixes = ("fstring", "suppress")
    what = "Finds `str(t)`, `repr(t)` and `\"...\" % t` where `t` is a tensor."
    why = """Formatting a tensor needs its values (GB0569 for repr; GB0059 for str; GB0208 for % formatting).
f-strings of tensors are supported (`f"{t}"`)."""
    instead = "Use an f-string: `f\"{t}\"` (fix `fstring`), or format outside the compiled region."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x: torch.Tensor):
    msg = "value: " + str(x)  # expect: FG306
    return x + len(msg)
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x: torch.Tensor):
    msg = "value: %s" % x  # expect: FG306
    return x + len(msg)
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    msg = f"value: {x}"
    return x + 1, msg
""", breaks=False),
    )

    def check(self, ev):
        if ev.kind == "percent_format":
            if ev.value is not None and ev.value.kind == V.TENSOR:
                return "`%` formatting of a tensor breaks the graph; use an f-string"
            return None
        if ev.args and ev.args[0].kind == V.TENSOR:
            return f"`{ev.q.replace('builtins.', '')}(tensor)` breaks the graph; use an f-string"
        return None


class OneHotNoNumClasses(Rule):
    code = "FG307"
    name = "one-hot-without-num-classes"
    summary = "F.one_hot() without num_classes inside a compiled region"
    gb_codes = ("GB0246",)
    calls = ("torch.nn.functional.one_hot",)
    fixes = ("num-classes", "suppress")
    what = "Finds `torch.nn.functional.one_hot(x)` without `num_classes`."
    why = "Without `num_classes` the output width is `x.max() + 1`, a data-dependent shape (GB0246)."
    instead = "Pass the number of classes: `F.one_hot(x, num_classes=n)`."
    examples = (
        Example("""import torch
import torch.nn.functional as F


@torch.compile(fullgraph=True)
def f(x):
    return F.one_hot(x) * 2  # expect: FG307
""", call="f(torch.tensor([0, 2, 1]))"),
        Example("""import torch
import torch.nn.functional as F


@torch.compile(fullgraph=True)
def f(x):
    return F.one_hot(x, num_classes=3) * 2
""", call="f(torch.tensor([0, 2, 1]))", breaks=False),
    )

    def check(self, ev):
        if len(ev.args) >= 2 or "num_classes" in ev.kwargs:
            return None
        return "`one_hot()` without `num_classes` has a data-dependent output shape"


class DataPointer(Rule):
    code = "FG308"
    name = "data-pointer"
    summary = ".data_ptr()/.storage()/.untyped_storage() inside a compiled region"
    gb_codes = ("GB0088", "GB0208", "GB0156")
    methods = ("storage", "untyped_storage")
    hooks = ("pointer_use",)
    fixes = ("suppress",)
    what = """Finds access to a tensor's memory in compiled code: `storage()`, `untyped_storage()`, and
arithmetic or comparisons on `data_ptr()` (a pointer only stored or used as a dict key compiles)."""
    why = "Fake tensors used for tracing have no memory: these calls raise or return non-tensors (GB0088, GB0208, GB0156)."
    instead = "Use metadata instead (`x.numel() * x.element_size()` for the byte size), or do it outside the region."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return x + (x.data_ptr() % 2)  # expect: FG308
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return x + x.numel() * x.element_size()
""", breaks=False),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    p = x.data_ptr()
    if p == 0:  # expect: FG308
        return x
    return x + 1
"""),
        Example("""import torch

SEEN = {}


@torch.compile(fullgraph=True)
def f(x):
    SEEN[x.data_ptr()] = True
    key = (x.data_ptr(), tuple(x.shape))
    SEEN[key] = True
    return x + 1
""", breaks=False, note="the pointer is only a dict key"),
    )

    def check(self, ev):
        if ev.kind == "pointer_use":
            return "computing with `.data_ptr()` needs real tensor memory, which does not exist while tracing"
        r = ev.recv
        if r is None:
            return None
        if r.kind == V.TENSOR or (r.kind == V.UNKNOWN and ev.method == "untyped_storage"):
            return f"`.{ev.method}()` needs real tensor memory, which does not exist while tracing"
        return None


class MathOnTensor(Rule):
    code = "FG309"
    name = "math-on-tensor"
    summary = "math.* function applied to a tensor inside a compiled region"
    gb_codes = ("GB0033",)
    calls = ("math.*",)
    fixes = ("torch-math", "suppress")
    what = "Finds `math.exp(t)`, `math.sqrt(t)`, ... where `t` is a tensor."
    why = "`math` functions convert their argument to a Python float, which depends on tensor data (GB0033, or a data-dependent guard error under fullgraph=True)."
    instead = "Use the torch equivalent: `torch.exp(t)`, `torch.sqrt(t)` (fix `torch-math`)."
    examples = (
        Example("""import math

import torch


@torch.compile(fullgraph=True)
def f(x):
    return x * math.exp(x.sum())  # expect: FG309
"""),
        Example("""import math

import torch


@torch.compile(fullgraph=True)
def f(x):
    return x * math.sqrt(x.shape[0])
""", breaks=False, note="math on Python numbers (shapes) is fine"),
    )

    def check(self, ev):
        if any(a.kind == V.TENSOR for a in ev.args):
            return Report(f"`{ev.q}()` on a tensor needs its value; use the torch function",
                          data={"torch_equivalent": f"torch.{ev.q.split('.', 1)[1]}"})
        return None


class TorchAssert(Rule):
    code = "FG310"
    name = "torch-assert-on-tensor"
    summary = "torch._assert(tensor_condition, ...) inside a compiled region"
    gb_codes = ("GB0033",)
    calls = ("torch._assert",)
    fixes = ("tensor-assert", "suppress")
    what = "Finds `torch._assert` with a tensor condition."
    why = "`torch._assert` needs the condition as a Python bool: a data-dependent guard (fullgraph=True) or a graph break (GB0033). A plain `assert` on a tensor compiles on 2.13. From torch 2.15 Dynamo compiles `torch._assert` on a tensor too."
    # catalog case torch_assert_tensor breaks up to 2.14.1 and compiles on 2.15.0 (data/knowledge-*.json)
    versions = VersionRange(until="2.15")
    instead = "Use `torch._assert_async(cond, msg)`, which checks on the device without a graph break."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    torch._assert((x > -100).all(), "values out of range")  # expect: FG310
    return x + 1
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    torch._assert_async((x > -100).all(), "values out of range")
    return x + 1
""", breaks=False),
    )

    def check(self, ev):
        if ev.args and ev.args[0].kind == V.TENSOR:
            return "`torch._assert()` on a tensor condition breaks the graph; use `torch._assert_async()`"
        return None


# nn.Transformer* modules whose forward, given a mask and not told whether it is causal, compares the mask
# with a causal one to find out (`torch.nn.modules.transformer._detect_is_causal_mask`: a Python bool of
# `(mask == causal).all()`): module -> ((mask parameter, its position, is_causal parameter, its position), ...)
# in the forward's signature (after the module)
CAUSAL_CHECK = {
    "TransformerEncoder": (("mask", 1, "is_causal", 3),),
    "TransformerDecoder": (("tgt_mask", 2, "tgt_is_causal", 6),),
    "Transformer": (("src_mask", 2, "src_is_causal", 8), ("tgt_mask", 3, "tgt_is_causal", 9)),
}
CAUSAL_CHECK = {f"{p}.{k}": v for k, v in CAUSAL_CHECK.items() for p in ("torch.nn", "torch.nn.modules.transformer")}


class TransformerCausalCheck(Rule):
    code = "FG312"
    name = "transformer-mask-causal-check"
    summary = "nn.TransformerEncoder / Decoder / Transformer given a mask without is_causal inside a compiled region"
    gb_codes = ("GB0124",)
    project_hooks = ("edge",)
    fixes = ("suppress",)
    what = """Finds calls of `nn.TransformerEncoder`, `nn.TransformerDecoder` and `nn.Transformer` modules that pass
an attention mask (`mask=`, `tgt_mask=`, `src_mask=`) without saying whether it is causal (`is_causal=`,
`tgt_is_causal=`, `src_is_causal=`), also through a subclass of `nn.Transformer` (`self.encoder(src,
mask=self.src_mask)`, pytorch/examples' word language model)."""
    why = """Not told, the module finds out itself: `_detect_is_causal_mask` compares the mask with a causal one and
reads the answer as a Python bool -- a `.item()` on tensor data ("Unsupported Tensor.item() call with
capture_scalar_outputs=False", GB0124; under `fullgraph=True` a data-dependent guard error).  Verified on torch
2.11 to 2.15."""
    instead = """Say it: `is_causal=True` when the mask is the causal (square subsequent) mask -- the module then skips
the check and may use a faster kernel -- or `is_causal=False` for any other mask."""
    examples = (
        Example("""import torch
import torch.nn as nn

ENC = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0), 2, enable_nested_tensor=False)
MASK = nn.Transformer.generate_square_subsequent_mask(5)


@torch.compile(fullgraph=True)
def f(x):
    return ENC(x, mask=MASK)  # expect: FG312
""", call="f(torch.randn(5, 2, 16))"),
        Example("""import torch
import torch.nn as nn

ENC = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0), 2, enable_nested_tensor=False)
MASK = nn.Transformer.generate_square_subsequent_mask(5)


@torch.compile(fullgraph=True)
def f(x):
    return ENC(x, mask=MASK, is_causal=True)
""", call="f(torch.randn(5, 2, 16))", breaks=False, note="told: no check"),
        Example("""import math

import torch
import torch.nn as nn


class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp):
        super().__init__(d_model=ninp, nhead=2, dim_feedforward=32, num_encoder_layers=1, dropout=0.0)
        self.src_mask = None
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.decoder = nn.Linear(ninp, ntoken)

    def forward(self, src):
        if self.src_mask is None or self.src_mask.size(0) != len(src):
            self.src_mask = torch.log(torch.tril(torch.ones(len(src), len(src))))
        src = self.input_emb(src) * math.sqrt(16)
        output = self.encoder(src, mask=self.src_mask)  # expect: FG312
        return self.decoder(output)


model = TransformerModel(50, 16)
f = torch.compile(model, fullgraph=True)
""", call="f(torch.randint(0, 50, (5, 2)))", note="the encoder nn.Transformer.__init__ made"),
        Example("""import torch
import torch.nn as nn

ENC = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0), 2, enable_nested_tensor=False)


@torch.compile(fullgraph=True)
def f(x):
    return ENC(x, mask=None)
""", call="f(torch.randn(5, 2, 16))", breaks=False, note="no mask"),
    )

    def at_edge(self, ev):
        for t in ev.called_torch_modules():
            for mask, at, causal, causal_at in CAUSAL_CHECK.get(t, ()):
                vals = dict(ev.edge.vals)
                if "**" in vals:
                    continue  # (*args / **kwargs may say is_causal)
                passed = vals.get(mask, vals.get(at))
                told = vals.get(causal, vals.get(causal_at))
                if passed is None or passed == ("const", None) or passed[0] == "param" or \
                        (told is not None and told != ("const", None)):
                    continue  # no mask, or one a caller may leave None, or told whether it is causal
                yield Placed(f"`{ev.edge.text}(...)` passes `{mask}` without `{causal}`: the "
                             f"`{t.rsplit('.', 1)[1]}` compares the mask with a causal one to find out, a Python "
                             f"bool of tensor data; pass `{causal}=True` (a causal mask) or `{causal}=False`",
                             data={"module": t, "mask": mask, "is_causal": causal})


# what `.astype(...)` makes an integer array of: a dtype's name, `int`, or a NumPy integer type
_INT_DTYPE_NAMES = frozenset({"int", "long", "intp", "uint", "uintp", "byte", "ubyte", "short", "ushort", "intc",
                              "uintc", "longlong", "ulonglong", "int8", "int16", "int32", "int64", "uint8", "uint16",
                              "uint32", "uint64", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"})


class NumpyIntItem(Rule):
    code = "FG311"
    name = "numpy-int-item"
    summary = ".item() on an integer NumPy array made by NumPy calls inside a compiled region"
    gb_codes = ("GB0208",)
    methods = ("item",)
    fixes = ("suppress",)
    what = """Finds `.item()` on the result of NumPy calls cast to an integer type, as Informer's ProbSparse attention
computes its sample size: `np.ceil(np.log(L_K)).astype('int').item()`."""
    why = """Dynamo traces NumPy calls as tensor code (`torch._numpy`), even on Python numbers such as a size: the
array is a tensor to it, and `.item()` of an integer one is a torch op returning a Python int, which it cannot
put in the graph ("torch.* op returned non-Tensor", GB0208) -- with `fullgraph=True` and
`capture_scalar_outputs` too.  `.item()` of a floating-point array, and `int(...)` of the array, compile."""
    instead = """Convert with `int(...)`: `int(np.ceil(np.log(L_K)))`, or compute it with Python's `math` on the
size (`math.ceil(math.log(L_K))`)."""
    examples = (
        Example("""import numpy as np
import torch


@torch.compile(fullgraph=True)
def f(x):
    n = 5 * np.ceil(np.log(x.shape[0])).astype('int').item()  # expect: FG311
    return x[:n]
""", call="f(torch.randn(30))", needs=("numpy",)),
        Example("""import numpy as np
import torch


@torch.compile
def f(x):
    k = np.floor(np.sqrt(x.shape[0])).astype(np.int64).item()  # expect: FG311
    return x[:k] * 2
""", call="f(torch.randn(30))", needs=("numpy",), note="a plain compile breaks there too"),
        Example("""import numpy as np
import torch


@torch.compile(fullgraph=True)
def f(x):
    n = 5 * int(np.ceil(np.log(x.shape[0])))
    return x[:n] * np.ceil(np.log(x.shape[0])).astype('float32').item()
""", call="f(torch.randn(30))", needs=("numpy",), breaks=False,
                note="`int()` of the array, and `.item()` of a floating-point one, compile"),
    )

    def check(self, ev):
        if ev.method == "item" and _numpy_int_item(ev):
            return ("`.item()` of an integer NumPy array: Dynamo traces NumPy as tensors, and this `.item()` returns "
                    "a Python int it cannot put in the graph; use `int(...)`")
        return None


def _numpy_int_item(ev) -> bool:
    """`<NumPy call>.astype(<integer dtype>).item()` (FG311's, not FG303's: capturing scalars does not help)."""
    node = ev.node
    if not isinstance(node, ast.Call) or node.args or node.keywords or not isinstance(node.func, ast.Attribute):
        return False
    cast = node.func.value
    if not (isinstance(cast, ast.Call) and isinstance(cast.func, ast.Attribute) and cast.func.attr == "astype"
            and len(cast.args) == 1 and _int_dtype(ev, cast.args[0])):
        return False
    made = cast.func.value
    return isinstance(made, ast.Call) and (ev.fn.resolve_dotted_node(made.func) or "").startswith("numpy.")


def _int_dtype(ev, node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.lower() in _INT_DTYPE_NAMES
    q = ev.fn.resolve_dotted_node(node) or ""
    return q == "builtins.int" or (q.startswith("numpy.") and q[6:] in _INT_DTYPE_NAMES)

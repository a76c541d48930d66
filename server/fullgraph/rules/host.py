"""FG107-FG114: calls to the host Dynamo cannot put in a graph: clocks, Python's random numbers,
debuggers, OS and process calls, progress bars, `eval`/`exec`, `copy.deepcopy`, context variables."""
from __future__ import annotations

import ast

from .. import tracetable
from ..engine import values as V
from .base import Example, Report, Rule


class ClockCall(Rule):
    code = "FG107"
    name = "clock-call"
    summary = "time.time()/perf_counter()/sleep()/datetime.now() inside a compiled region"
    gb_codes = ("GB0007", "GB0156")
    calls = ("time.time", "time.perf_counter", "time.sleep", "time.monotonic", "time.process_time",
             "time.time_ns", "time.perf_counter_ns", "time.monotonic_ns", "datetime.datetime.now",
             "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today")
    fixes = ("guard", "split", "split-module", "suppress")
    what = "Finds wall-clock reads and sleeps in compiled code."
    why = """Clock functions are C builtins Dynamo skips (GB0007; `datetime.now` is GB0156).  A time read inside a
graph would also be meaningless: the graph runs asynchronously from Python."""
    instead = """Time the compiled call from the outside (`t0 = time.perf_counter(); out = f(x); ...`), or
split the function around the timing code.  A guard is offered only when nothing after it uses the
value read."""
    examples = (
        Example("""import time

import torch


@torch.compile(fullgraph=True)
def f(x):
    t0 = time.perf_counter()  # expect: FG107
    y = x.sin()
    return y, t0
"""),
        Example("""from time import perf_counter as clock

import torch


@torch.compile(fullgraph=True)
def f(x):
    start = clock()  # expect: FG107
    return x + start
"""),
        Example("""import time
import types

import torch


@torch.compile(fullgraph=True)
def f(x, time):  # the parameter shadows the module
    return x + time.monotonic()
""", call="f(torch.randn(4), types.SimpleNamespace(monotonic=lambda: 1.0))", breaks=False),
    )

    def check(self, ev):
        return f"`{ev.q}()` breaks the graph"


class PythonRandom(Rule):
    code = "FG108"
    name = "python-random"
    summary = "random.random()/numpy.random inside a compiled region"
    gb_codes = ("GB0007",)
    # Not all of numpy.random: np.random.seed/shuffle and draws of an array (`rand(3)`, `uniform(0, 1, size=3)`)
    # are traced through torch._numpy on 2.13; a draw of one scalar reads it back from a tensor ("Data
    # dependent operator"), and these break whatever they draw.
    calls = ("random.random", "numpy.random.permutation", "numpy.random.get_state", "numpy.random.default_rng",
             "numpy.random.choice", *V.NUMPY_SCALAR_DRAWS)
    fixes = ("random-where", "numpy-random", "torch-rand", "split", "split-module", "suppress")
    what = "Finds Python's and NumPy's random number generators in compiled code."
    why = """`random.random()` is skipped by Dynamo up to torch 2.13 (GB0007) and traced from 2.14.1.  NumPy's generators produce a data-dependent value
("Could not guard on data-dependent expression").  (`random.randint` is supported.)"""
    instead = "Use torch's RNG (`torch.rand(())`, `torch.randint`), which is traced into the graph."
    examples = (
        Example("""import random

import torch


@torch.compile(fullgraph=True)
def f(x):
    return x * random.random()  # expect: FG108
"""),
        Example("""import numpy as np
import torch


@torch.compile(fullgraph=True)
def f(x):
    return x * np.random.uniform()  # expect: FG108
""", needs=("numpy",)),
        Example("""import numpy as np
import torch


@torch.compile
def erase(img):
    h = img.shape[-1]
    top = np.random.randint(0, h - 2)  # expect: FG108
    return img[..., top:top + 2] * 0
""", call="erase(torch.ones(3, 8, 8))", needs=("numpy",)),
        Example("""import numpy as np
import torch


@torch.compile(fullgraph=True)
def f(x):
    noise = np.random.uniform(0, 1, size=3)
    return x * torch.from_numpy(noise) + np.random.rand(3).sum()
""", call="f(torch.ones(3, dtype=torch.float64))", needs=("numpy",), breaks=False,
                note="draws of an array are traced through torch._numpy"),
        Example("""import random

import torch


@torch.compile(fullgraph=True)
def f(x):
    return x * random.randint(1, 3) + torch.rand(())
""", breaks=False),
    )

    def check(self, ev):
        if ev.q in V.NUMPY_SCALAR_DRAWS:
            if not V.numpy_scalar_draw(ev.q, len(ev.args), ev.kwargs):
                return None  # an array: a tensor in the graph
            return (f"`{ev.q}()` draws one Python number, which Dynamo reads back from a tensor: the graph breaks; "
                    "use torch's random functions")
        return Report(f"`{ev.q}()` breaks the graph; use torch's random functions", data={"callee": ev.q})

    def holds(self, data, version):
        """A callee of Dynamo's trace table (random.random) breaks on the versions whose table lists it:
        random.random left the table on 2.14.1, where it is traced (knowledge `calls`; catalog case
        random_random).  The NumPy draws are not in the table: they break on every collected release."""
        return not tracetable.left_table(data.get("callee", ""), version)


class Debugger(Rule):
    code = "FG109"
    name = "debugger"
    summary = "breakpoint()/pdb.set_trace() inside a compiled region"
    gb_codes = ("GB0007", "GB0059")
    calls = ("builtins.breakpoint", "pdb.set_trace", "pdb.post_mortem", "ipdb.set_trace")
    fixes = ("guard", "split", "split-module", "suppress")
    what = "Finds debugger entry points in compiled code."
    why = "Dynamo cannot trace into the debugger (`pdb.set_trace` GB0007, `breakpoint()` GB0059)."
    instead = "Remove it, or guard it so it only stops in eager runs: `if not torch.compiler.is_compiling(): breakpoint()`."
    examples = (
        Example("""import pdb

import torch


@torch.compile(fullgraph=True)
def f(x, debug=False):
    if debug:
        pdb.set_trace()  # expect: FG109
    return x + 1
""", call="f(torch.randn(4), debug=True)", eager_ok=False, note="in eager the call would stop in pdb"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x, debug=False):
    if debug and not torch.compiler.is_compiling():
        breakpoint()
    return x + 1
""", breaks=False),
    )

    def check(self, ev):
        return f"`{ev.q.replace('builtins.', '')}()` breaks the graph"


class HostCall(Rule):
    code = "FG110"
    name = "host-call"
    summary = "OS/process/interpreter calls (subprocess, os.getpid, hashlib, uuid, threading, ...) in a compiled region"
    gb_codes = ("GB0007", "GB0142")
    calls = ("subprocess.*", "os.getpid", "os.path.exists", "os.path.isfile", "os.path.isdir", "os.listdir",
             "os.system", "sys.getrefcount", "uuid.uuid1", "uuid.uuid4", "hashlib.*", "zlib.*",
             "inspect.currentframe", "inspect.stack", "importlib.import_module", "threading.current_thread",
             "threading.get_ident")
    hooks = ("with",)
    fixes = ("guard", "split", "split-module", "suppress")
    what = "Finds calls into the operating system and the interpreter in compiled code, and `with lock:` blocks."
    why = """These are C functions Dynamo marks as skipped (GB0007); a `threading.Lock` is a context manager it
does not know how to enter (GB0142)."""
    instead = "Compute such values outside the compiled function and pass them in, or guard the code with " \
              "`if not torch.compiler.is_compiling():`."
    examples = (
        Example("""import os

import torch


@torch.compile(fullgraph=True)
def f(x):
    return x + os.getpid()  # expect: FG110
"""),
        Example("""import threading

import torch

LOCK = threading.Lock()


@torch.compile(fullgraph=True)
def f(x):
    with LOCK:  # expect: FG110
        y = x + 1
    return y
"""),
        Example("""import os

import torch


@torch.compile(fullgraph=True)
def f(x):
    scale = float(os.environ.get("SCALE", "2"))
    return x * scale
""", breaks=False, note="os.environ reads are supported (guarded)"),
    )

    def check(self, ev):
        if ev.kind == "with":
            v = ev.value
            if v is not None and v.kind == V.INSTANCE and v.q in ("threading.Lock", "threading.RLock"):
                return Report("entering a `threading.Lock` breaks the graph")
            return None
        return f"`{ev.q}()` breaks the graph"


class ProgressBar(Rule):
    code = "FG111"
    name = "progress-bar"
    summary = "tqdm(...) inside a compiled region"
    gb_codes = ("GB0007",)
    calls = ("tqdm.tqdm", "tqdm.trange", "tqdm.auto.trange")
    fixes = ("split", "split-module", "suppress")
    what = "Finds tqdm progress bars in compiled code."
    why = "tqdm's constructor touches the terminal and locks; Dynamo skips it (GB0007)."
    instead = """Keep progress bars in the (uncompiled) training loop.  Inside compiled code, iterate plainly while
compiling: `it = range(n) if torch.compiler.is_compiling() else tqdm(range(n))`."""
    examples = (
        Example("""import torch
from tqdm import tqdm


@torch.compile(fullgraph=True)
def f(x):
    for _ in tqdm(range(3), disable=True):  # expect: FG111
        x = x + 1
    return x
""", needs=("tqdm",)),
        Example("""import torch
from tqdm import tqdm


@torch.compile(fullgraph=True)
def f(x):
    it = range(3) if torch.compiler.is_compiling() else tqdm(range(3), disable=True)
    for _ in it:
        x = x + 1
    return x
""", breaks=False, needs=("tqdm",)),
    )

    def check(self, ev):
        return "`tqdm(...)` breaks the graph"


class DynamicCode(Rule):
    code = "FG112"
    name = "dynamic-code"
    summary = "eval()/exec()/globals() inside a compiled region"
    gb_codes = ("GB0059",)
    calls = ("builtins.eval", "builtins.exec", "builtins.globals")
    fixes = ("split", "split-module", "suppress")
    what = "Finds `eval`, `exec` and `globals()` in compiled code."
    why = "Dynamo cannot trace code that is built at run time, nor expose the frame's globals (GB0059)."
    instead = "Replace dynamic code with ordinary Python (a dict of functions instead of `eval`)."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    return eval("x + 1")  # expect: FG112
"""),
        Example("""import torch

OPS = {"add": lambda a, b: a + b}


@torch.compile(fullgraph=True)
def f(x):
    return OPS["add"](x, 2)
""", breaks=False),
    )

    def check(self, ev):
        return f"`{ev.q.replace('builtins.', '')}()` breaks the graph"


class CopyCall(Rule):
    code = "FG113"
    name = "copy-call"
    summary = "copy.copy()/copy.deepcopy() inside a compiled region"
    gb_codes = ("GB4198", "GB0179", "GB0007")
    calls = ("copy.copy", "copy.deepcopy", "dataclasses.asdict", "dataclasses.astuple")
    fixes = ("clone", "hoist-init", "split", "split-module", "suppress")
    what = "Finds `copy.copy` and `copy.deepcopy` in compiled code."
    why = """Dynamo does not support `copy.deepcopy` of tensors and modules (GB4198, GB0179) and skips
`copy.copy` (GB0007).  A deep copy of a container of constants (a config dict) is traced, and an
argument whose kind the analysis does not know is not assumed to be a tensor."""
    instead = "Use `t.clone()` for tensors and build new containers explicitly (`list(xs)`, `dict(d)`)."
    examples = (
        Example("""import copy

import torch


@torch.compile(fullgraph=True)
def f(x: torch.Tensor):
    y = copy.deepcopy(x)  # expect: FG113
    return y + 1
"""),
        Example("""import copy

import torch

DEFAULTS = {"scale": 2, "names": ["a", "b"]}


@torch.compile(fullgraph=True)
def f(x):
    cfg = copy.copy(DEFAULTS)  # expect: FG113
    return x * cfg["scale"]
"""),
        Example("""import copy

import torch

DEFAULTS = {"scale": 2, "names": ["a", "b"]}


@torch.compile(fullgraph=True)
def f(x, overrides=None):
    cfg = copy.deepcopy(DEFAULTS)
    return x * cfg["scale"]
""", breaks=False, note="a deep copy of a container of constants is traced (torch 2.13)"),
        Example("""import dataclasses

import torch


@dataclasses.dataclass
class Output:
    loss: torch.Tensor
    logits: torch.Tensor


@torch.compile(fullgraph=True)
def f(x):
    logits = x * 2
    loss = logits.sum()
    return dataclasses.asdict(Output(loss=loss, logits=logits))  # expect: FG113
"""),
        Example("""import dataclasses

import torch


@dataclasses.dataclass
class Stats:
    n: int
    name: str


@torch.compile(fullgraph=True)
def f(x):
    d = dataclasses.asdict(Stats(n=3, name="a"))
    return x * d["n"]
""", breaks=False, note="asdict of constant fields is traced"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    y = x.clone()
    return y + 1
""", breaks=False),
    )

    def check(self, ev):
        if ev.q in ("dataclasses.asdict", "dataclasses.astuple"):
            return self._asdict(ev)
        tensor = bool(ev.args) and ev.args[0].kind == V.TENSOR
        if ev.q == "copy.deepcopy" and tensor:
            return Report("`copy.deepcopy()` of a tensor breaks the graph; use `.clone()`",
                          data={"tensor_arg": True, "arg_kind": V.TENSOR})
        if ev.q == "copy.deepcopy" and ev.args and ev.args[0].kind == V.SELFATTR and ev.args[0].attr:
            # `copy.deepcopy(self.model)` breaks, `copy.deepcopy(self.config)` does not (whisper, torch
            # 2.13): the project keeps it only when the attribute holds a module
            return Report("`copy.deepcopy()` of a module breaks the graph",
                          data={"tensor_arg": False, "arg_kind": V.SELFATTR, "module_attr": ev.args[0].attr})
        if ev.q == "copy.deepcopy" and (not ev.args or ev.args[0].kind in (V.UNKNOWN, V.CONST, V.STATIC)):
            # Dynamo deep-copies containers of constants (torch 2.13); what the analysis cannot tell is
            # not assumed the worst
            return None
        return Report(f"`{ev.q}()` breaks the graph",
                      data={"tensor_arg": tensor, "arg_kind": ev.args[0].kind if ev.args else None})

    @staticmethod
    def _asdict(ev):
        """`dataclasses.asdict(Out(loss=loss, ...))` deep-copies each field that is not a dataclass,
        list, tuple or dict: a tensor field is a `copy.deepcopy` of a tensor.  Reported when the
        dataclass is built in the call from a tensor the analysis knows."""
        arg = ev.node.args[0] if isinstance(ev.node, ast.Call) and ev.node.args else None
        if not isinstance(arg, ast.Call):
            return None
        values = [*arg.args, *(k.value for k in arg.keywords)]
        if not any(isinstance(a, ast.Name) and ev.fn.lookup(a.id).kind == V.TENSOR for a in values):
            return None
        return Report(f"`{ev.q.rpartition('.')[2]}()` deep-copies the dataclass's tensor fields "
                      "(`copy.deepcopy` of a tensor) and breaks the graph; build the dict directly",
                      data={"tensor_arg": False, "arg_kind": V.INSTANCE})


CONTEXT_VAR = "contextvars.ContextVar"


class ContextVarAccess(Rule):
    code = "FG114"
    name = "context-var"
    summary = "contextvars.ContextVar get()/set()/reset() inside a compiled region"
    gb_codes = ("GB0156",)
    methods = ("get", "set", "reset")
    fixes = ("split", "split-module", "suppress")
    what = "Finds `get()`, `set()` and `reset()` on a module-level `contextvars.ContextVar` in compiled code.  One " \
           "kept in an attribute is not reported: wrappers like transformers' `CompileableContextVar` switch to a " \
           "plain attribute once they see they are compiled, which a static reader cannot follow."
    why = """Dynamo cannot trace the methods of `ContextVar` ("Unsupported method call", GB0156 on torch 2.13):
reading, setting and resetting all break the graph."""
    instead = """Read the context variable outside the compiled function and pass the value in; or keep a plain
global next to it for compiled code (transformers' `CompileableContextVar` does this, switching on
`torch.compiler.is_compiling()`)."""
    examples = (
        Example("""import contextvars

import torch

SCALE = contextvars.ContextVar("scale", default=2.0)


@torch.compile(fullgraph=True)
def f(x):
    return x * SCALE.get()  # expect: FG114
"""),
        Example("""from contextvars import ContextVar

import torch

CURRENT = ContextVar("current", default=None)


def active():
    return CURRENT.get()  # expect: FG114


@torch.compile(fullgraph=True)
def f(x):
    if active() is None:
        return x + 1
    return x
"""),
        Example("""import contextvars

import torch

SCALE = contextvars.ContextVar("scale", default=2.0)


@torch.compile(fullgraph=True)
def f(x, scale):
    return x * scale


y = f(torch.randn(3), SCALE.get())
""", call="y", breaks=False, note="read outside, passed in"),
    )

    def check(self, ev):
        r = ev.recv
        if r is None:
            return None
        if r.kind == V.INSTANCE and r.q == CONTEXT_VAR and r.attr is None:
            return f"`ContextVar.{ev.method}()` breaks the graph"
        return None

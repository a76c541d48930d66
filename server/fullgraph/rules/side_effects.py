"""FG101-FG106: side effects Dynamo cannot put in a graph: printing, logging, warnings, files and
serialisation (the host calls are in rules/host.py)."""
from __future__ import annotations

import ast

from ..engine import values as V
from .base import Example, Report, Rule

GUARD_INSTEAD = """Keep the side effect out of the compiled region: guard it with
`if not torch.compiler.is_compiling():` (it then runs only in eager mode), move it to the caller
(outside the compiled function), or — for logging-style calls that return None — register the
function in `torch._dynamo.config.ignore_logging_functions` (torch >= 2.11) so compiled code skips it."""


def _all_reorderable(ev) -> bool:
    """Arguments reorderable_logging_functions accepts: tensors and constants.  An unknown value (an
    unannotated parameter) is what callers pass, tensors most often: not assumed the worst."""
    return all(v.kind in (V.TENSOR, V.CONST, V.FSTRING, V.UNKNOWN) for v in [*ev.args, *ev.kwargs.values()])


class PrintCall(Rule):
    code = "FG101"
    name = "print-call"
    summary = "print() inside a compiled region"
    gb_codes = ("GB0059",)
    calls = ("builtins.print",)
    fixes = ("hop-print", "guard", "reorderable-logging", "ignore-logging-function", "split", "split-module", "suppress")
    what = "Finds `print(...)` calls in code that runs under `torch.compile`."
    why = """Dynamo cannot trace `print`: it is a builtin with an effect outside the tensor program
("Failed to trace builtin operator", GB0059).  Under `fullgraph=True` compilation fails; otherwise the
graph is split at the print and the rest runs in a new graph."""
    instead = GUARD_INSTEAD + """  When every argument is a tensor, a constant or an f-string,
`torch._dynamo.config.reorderable_logging_functions.add(print)` keeps the print and runs it after the
graph (it then shows values after any later in-place update)."""
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    y = x * 2
    print("y =", y)  # expect: FG101
    return y + 1
"""),
        Example("""import torch


def log_stats(t):
    print("mean", t.mean())  # expect: FG101


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        log_stats(y)
        return y.relu()


m = torch.compile(Net(), fullgraph=True)
""", call="m(torch.randn(2, 4))"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    y = x * 2
    if not torch.compiler.is_compiling():
        print("y =", y)
    return y + 1
""", breaks=False),
        Example("""import torch


def print(*args):  # a local print shadows the builtin
    return None


@torch.compile(fullgraph=True)
def f(x):
    print("not the builtin")
    return x + 1
""", breaks=False),
        Example("""import torch


def report(x):
    print("eager only", x)


@torch.compile(fullgraph=True)
def f(x):
    return x + 1


report(f(torch.randn(4)))
""", breaks=False, note="print outside the compiled region"),
        Example("""import torch

torch._dynamo.config.reorderable_logging_functions.add(print)


@torch.compile(fullgraph=True)
def f(x):
    print("input", x)
    return x + 1
""", breaks=False, note="registered as reorderable; the unannotated argument is what the caller passes"),
    )

    def check(self, ev):
        return Report("`print()` cannot be traced by Dynamo; it breaks the graph",
                      data={"reorderable": _all_reorderable(ev)})


LOGGER_METHODS = ("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
                  "isEnabledFor",
                  "warning_once", "info_once")  # transformers adds these to logging.Logger


class LoggerCall(Rule):
    code = "FG102"
    name = "logger-call"
    summary = "logging.Logger method called inside a compiled region"
    gb_codes = ("GB0291",)
    methods = LOGGER_METHODS
    fixes = ("guard", "ignore-logging-function", "split", "split-module", "suppress")
    what = "Finds calls of `logging.Logger` methods (`logger.info(...)`, `logger.debug(...)`, ...) on a logger " \
           "obtained from `logging.getLogger` -- directly, through a function that returns its result " \
           "(`logger = get_logger(__name__)`), or imported from another module of the project (`from .utils " \
           "import logger`, re-exports included)."
    why = """"logging.Logger method not supported for non-export cases" (GB0291): Dynamo does not trace
logger methods, so the call breaks the graph.  Guarding with `logger.isEnabledFor(...)` does not help:
that is a logger method too."""
    instead = GUARD_INSTEAD + """  `reorderable_logging_functions` does **not** work for logger methods
(verified on 2.13: still GB0291); `ignore_logging_functions.add(logging.Logger.info)` (all loggers) or
`.add(logger.info)` (this logger) does."""
    examples = (
        Example("""import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile(fullgraph=True)
def f(x):
    y = x.sin()
    logger.info("computed sin")  # expect: FG102
    return y
"""),
        Example("""import logging

import torch

log = logging.getLogger("train")


class Block(torch.nn.Module):
    def forward(self, x):
        log.debug("block input %s", x.shape)  # expect: FG102
        return x * 2


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x) + 1


m = torch.compile(Net(), fullgraph=True)
""", call="m(torch.randn(3))"),
        Example("""import logging

import torch

logger = logging.getLogger(__name__)
torch._dynamo.config.ignore_logging_functions.add(logger.info)


@torch.compile(fullgraph=True)
def f(x):
    logger.info("skipped while compiled")
    return x + 1
""", breaks=False),
    )

    def check(self, ev):
        if isinstance(ev.node.func.value, ast.Call):
            return None  # logging.getLogger(...).info(...): FG103 reports the getLogger call
        if ev.recv is not None and ev.recv.kind == V.INSTANCE and ev.recv.q == "logging.Logger":
            return f"`logger.{ev.method}()` (a logging.Logger method) breaks the graph"
        return None


class LoggingModuleCall(Rule):
    code = "FG103"
    name = "logging-module-call"
    summary = "logging.info()/logging.getLogger() called inside a compiled region"
    gb_codes = ("GB4841", "GB6215")
    calls = ("logging.debug", "logging.info", "logging.warning", "logging.warn", "logging.error",
             "logging.exception", "logging.critical", "logging.log", "logging.getLogger")
    fixes = ("guard", "ignore-logging-function", "split", "split-module", "suppress")
    what = "Finds module-level logging functions (`logging.info(...)`) and `logging.getLogger(...)` in compiled code."
    why = """`logging.info()` goes through the root logger, which Dynamo cannot model ("Unsupported
python_type() call", GB4841); `logging.getLogger()` inside the region fails on the logger registry
("Unresolved GetAttrVariable comparison", GB6215)."""
    instead = GUARD_INSTEAD + "  Create loggers once at module level."
    examples = (
        Example("""import logging

import torch


@torch.compile(fullgraph=True)
def f(x):
    logging.info("step")  # expect: FG103
    return x + 1
"""),
        Example("""import logging

import torch


@torch.compile(fullgraph=True)
def f(x):
    logging.getLogger("train").info("step")  # expect: FG103
    return x + 1
"""),
        Example("""import logging

import torch


@torch.compile(fullgraph=True)
def f(x):
    if not torch.compiler.is_compiling():
        logging.info("step")
    return x + 1
""", breaks=False),
    )

    def check(self, ev):
        if ev.q == "logging.getLogger":
            return "`logging.getLogger()` inside a compiled region breaks the graph; create the logger at module level"
        return f"`{ev.q}()` (root-logger function) breaks the graph"


class WarningsWarn(Rule):
    code = "FG104"
    name = "warnings-warn"
    summary = "warnings.warn() inside a compiled region"
    gb_codes = ("GB0007",)
    calls = ("warnings.warn", "warnings.warn_explicit")
    fixes = ("guard", "reorderable-logging", "ignore-logging-function", "split", "split-module", "suppress")
    what = "Finds `warnings.warn(...)` in compiled code."
    why = """`warnings.warn` is a C function Dynamo marks as skipped ("Attempted to call function marked as
skipped", GB0007)."""
    instead = GUARD_INSTEAD
    examples = (
        Example("""import warnings

import torch


@torch.compile(fullgraph=True)
def f(x):
    warnings.warn("deprecated path")  # expect: FG104
    return x + 1
"""),
        Example("""import warnings

import torch


@torch.compile(fullgraph=True)
def f(x):
    if not torch.compiler.is_compiling():
        warnings.warn("deprecated path")
    return x + 1
""", breaks=False),
    )

    def check(self, ev):
        return Report("`warnings.warn()` breaks the graph", data={"reorderable": _all_reorderable(ev)})


class FileIO(Rule):
    code = "FG105"
    name = "file-io"
    summary = "open()/input()/sys.stdout.write()/io.BytesIO() inside a compiled region"
    gb_codes = ("GB0059", "GB0156")
    calls = ("builtins.open", "builtins.input", "io.BytesIO", "sys.stdout.write", "sys.stderr.write", "io.open")
    fixes = ("guard", "split", "split-module", "suppress")
    what = "Finds file and console I/O in compiled code."
    why = """Dynamo traces tensor programs; `open` and `input` are builtins it cannot trace (GB0059) and
`sys.stdout.write` / `io.BytesIO` are methods of objects it does not model (GB0156)."""
    instead = "Do I/O outside the compiled function (read before, write after), or guard it with " \
              "`if not torch.compiler.is_compiling():`."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x, path="/dev/null"):
    with open(path, "w") as fh:  # expect: FG105
        fh.write("step\\n")
    return x + 1
"""),
        Example("""import sys

import torch


@torch.compile(fullgraph=True)
def f(x):
    sys.stdout.write("step\\n")  # expect: FG105
    return x + 1
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x, path="/dev/null"):
    y = x + 1
    if not torch.compiler.is_compiling():
        with open(path, "w") as fh:
            fh.write("step\\n")
    return y
""", breaks=False),
    )

    def check(self, ev):
        name = ev.q.replace("builtins.", "")
        return f"`{name}()` (I/O) breaks the graph"


class Serialization(Rule):
    code = "FG106"
    name = "serialization"
    summary = "torch.save/torch.load/pickle/json inside a compiled region"
    gb_codes = ("GB0007", "GB0156")
    calls = ("torch.save", "torch.load", "pickle.*", "json.dump", "json.dumps")
    fixes = ("guard", "split", "split-module", "ignore-logging-function", "suppress")
    what = "Finds serialisation calls (`torch.save`, `torch.load`, `pickle.*`, `json.dump(s)`) in compiled code."
    why = """These functions are skipped by Dynamo (GB0007) or are methods of objects it does not model
(GB0156), so the graph breaks at the call.  The PyTorch guide's Strategy 3 example is exactly this
(`torch.save` inside a compiled function)."""
    instead = """Save and load outside the compiled region: split the function into compiled pieces before and
after the call (fix `split`), or skip it while compiling with `if not torch.compiler.is_compiling():`."""
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    y = x ** 2 / 2
    torch.save(y, "/dev/null")  # expect: FG106
    z = y ** 3 / 6
    return z
"""),
        Example("""import json

import torch


@torch.compile(fullgraph=True)
def f(x):
    meta = json.dumps({"step": 1})  # expect: FG106
    return x + len(meta)
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    y = x ** 2 / 2
    if not torch.compiler.is_compiling():
        torch.save(y, "/dev/null")
    z = y ** 3 / 6
    return z
""", breaks=False),
    )

    def check(self, ev):
        return f"`{ev.q}()` breaks the graph; serialise outside the compiled region"

"""FG4xx: Python language features Dynamo does not compile."""
from __future__ import annotations

import ast

from ..engine import values as V
from ..torchinfo import VersionRange
from .base import FULLGRAPH, Example, Placed, Report, Rule


class CompiledGenerator(Rule):
    code = "FG401"
    name = "compiled-generator"
    summary = "torch.compile applied to a generator function"
    gb_codes = ("GB0003",)
    fixes = ()
    what = "Finds `torch.compile` on a function that contains `yield`."
    why = """Generators cannot be compiled directly ("Attempt to trace generator", GB0003): under
`fullgraph=True` the call raises.  Without it Dynamo runs the generator uncompiled and logs no graph
break, so it is reported for fullgraph roots only.  Generators *called* inside compiled code are fine."""
    instead = "Compile the per-item computation and keep the generator in Python, or return a list."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)  # expect: FG401
def f(x):
    yield x + 1
""", call="list(f(torch.randn(4)))"),
        Example("""import torch


def gen(x):
    yield x + 1
    yield x + 2


@torch.compile(fullgraph=True)
def f(x):
    return sum(gen(x))
""", breaks=False),
    )

    project_hooks = ("root",)

    def modes(self, torch):
        return frozenset({FULLGRAPH})

    def at_root(self, ev):
        if ev.fs.is_generator:
            yield Placed(f"`{ev.fs.name}` is a generator; torch.compile cannot compile generators")


class CompiledAsync(Rule):
    code = "FG402"
    name = "compiled-async"
    summary = "torch.compile applied to an async function, or await inside a compiled region"
    gb_codes = ("GB0082",)
    hooks = ("await",)
    fixes = ()
    what = "Finds `torch.compile` on `async def` functions and `await` in compiled code."
    why = """Dynamo has no handler for the await bytecode ("Missing bytecode handler", GB0082).  On torch 2.13
calling a compiled `async def` a second time crashed the interpreter (SIGSEGV) in our catalog runs; from
2.14.1 an `async def` without `await` compiles (catalog case async_def_compiled)."""
    # the `async def` itself (no `await`): catalog case async_def_compiled crashed up to 2.13 and compiles
    # from 2.14.1 (data/knowledge-*.json); `await` breaks on every collected release
    async_def_breaks = VersionRange(until="2.14")
    instead = "Compile the synchronous tensor code and await around it."
    examples = (
        Example("""import asyncio

import torch


async def fetch(x):
    await asyncio.sleep(0)  # expect: FG402
    return x


@torch.compile(fullgraph=True)  # expect: FG402
async def f(x):
    y = await fetch(x)  # expect: FG402
    return y + 1
""", call="asyncio.run(f(torch.randn(4)))"),
    )

    project_hooks = ("root",)

    def check(self, ev):
        return "`await` inside a compiled region cannot be traced"

    def at_root(self, ev):
        if ev.fs.is_async and self.async_def_breaks.contains(ev.ctx.version):
            yield Placed(f"`{ev.fs.name}` is `async def`; torch.compile cannot compile coroutines")


class IteratorArgument(Rule):
    code = "FG403"
    name = "iterator-argument"
    summary = "next()/for over an iterator passed into a compiled function"
    gb_codes = ("GB4347", "GB0811")
    fixes = ("list-argument", "suppress")
    what = """Finds `next(xs)` and `for _ in xs` on a parameter of a compiled function when a call site passes an
iterator (`f(iter(xs))`, `f(zip(a, b))`, a generator)."""
    why = """Dynamo cannot consume an iterator object that comes from outside the region ("Missing tp_iternext",
GB4347; "missing tp_iter", GB0811).  Iterators created *inside* are fine."""
    instead = """Pass a list and create the iterator inside (`it = iter(xs)`) — the guide's Strategy 1 example;
fix `list-argument` rewrites the function and its call sites (`f(iter(xs))` -> `f(xs)`)."""
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(xs):
    a = next(xs)  # expect: FG403
    b = next(xs)  # expect: FG403
    return a + b


xs = [torch.tensor(1.0), torch.tensor(2.0)]
out = f(iter(xs))
""", call="out"),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(xs):
    it = iter(xs)
    a = next(it)
    b = next(it)
    return a + b


xs = [torch.tensor(1.0), torch.tensor(2.0)]
out = f(xs)
""", call="out", breaks=False),
    )

    project_hooks = ("reached",)

    def at_reached(self, ev):
        for use in ev.reached.fs.iter_uses:
            src = ev.iterator_passed(use) if use.how in ("for", "next") and ev.live(use.dead_if) else None
            if src is not None:
                yield Placed(f"`{use.param}` is an iterator passed in from outside (at {src}); `{use.how}` on it "
                             "cannot be traced", data={"param": use.param, "how": use.how}, span=use.span, apart=True)


class ClassInRegion(Rule):
    code = "FG404"
    name = "class-definition-in-region"
    summary = "a `class` statement inside a compiled region"
    gb_codes = ("GB8977",)
    hooks = ("class_def",)
    fixes = ("split", "split-module")
    what = "Finds class definitions executed inside compiled code (a `class` statement in a compiled function)."
    why = """Defining a class calls `__build_class__`, which Dynamo does not trace ("Invalid call to
__build_class__", GB8977)."""
    instead = "Define the class at module level (or in `__init__`) and only use it inside the compiled function."
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    class Section:  # expect: FG404
        name = "embed"
    return x + len(Section.name)
"""),
        Example("""import torch


class Section:
    name = "embed"


@torch.compile(fullgraph=True)
def f(x):
    return x + len(Section.name)
""", breaks=False),
    )

    def check(self, ev):
        return "a `class` statement inside a compiled region breaks the graph (Dynamo does not trace `__build_class__`)"


class ComprehensionFrame(Rule):
    code = "FG405"
    name = "comprehension-frame"
    summary = "a comprehension in a function Dynamo runs uncompiled after an unresumable break (Python < 3.12)"
    gb_codes = ("GB4347",)
    fixes = ("suppress",)
    what = """Finds list/set/dict comprehensions over a list or mapping, reading what the function was given,
in a function whose first graph break sits inside a `for` loop or a `try` block (directly or in what
the statement there calls)."""
    why = """Dynamo cannot resume after a break inside a `for` loop or a `try` block: it runs the rest of
the function (or all of it) uncompiled.  Before Python 3.12 each comprehension is a function of its
own; called from the uncompiled code it is compiled as a new frame, whose argument is the list or
dict iterator, and Dynamo cannot step an iterator it is given ("Missing tp_iternext", GB4347): one more
graph break, every call.  Calls made from the uncompiled part are compiled on their own, as usual."""
    instead = """Fix the first break (its finding says where), or move the call that breaks out of the
`try`/`for` (e.g. a `try/finally` that only resets state can call `reset` after the call)."""
    examples = (
        Example("""import torch


def run(x):
    torch._dynamo.graph_break()  # expect: FG201
    return x + 1


def wrapper(x, flags, **kwargs):
    keys = {f"output_{k}": kwargs.get(k, x) for k in flags}  # expect: FG405
    try:
        out = run(x)
    finally:
        pass
    return out, len(keys)


@torch.compile
def f(x):
    return wrapper(x, {"attentions": 1})
""", call="f(torch.randn(4))", note="Python < 3.12"),
    )

    project_hooks = ("frame",)

    # both modes, but under fullgraph=True the first break raises: reported only for roots compiled without it
    def at_frame(self, ev):
        if ev.gathering or ev.ctx.fullgraph:
            return
        for span, when, line in ev.frames.comprehension_frames(ev.qualname):
            yield Placed(f"after the graph break at line {line + 1} Dynamo runs `{ev.facts.name}` uncompiled; "
                         "this comprehension is then compiled as a frame of its own, and Dynamo cannot step the "
                         "iterator it is given (\"Missing tp_iternext\")", span=span, when=when)


class MinMaxKeyword(Rule):
    code = "FG406"
    name = "min-max-keyword"
    summary = "`max(...)`/`min(...)` with `default=` or `key=` over a generator or tensors"
    gb_codes = ("GB0193",)
    # its breaking example compiles under fullgraph=True on 2.14.1 and 2.15.0 (Dynamo of those releases)
    versions = VersionRange(until="2.14")
    calls = ("builtins.max", "builtins.min")
    fixes = ("min-max-list", "split", "split-module", "suppress")
    what = """Finds `max`/`min` called with `default=` or `key=` on a generator expression, a `map`/`filter`
call, or a list or tuple holding tensors."""
    why = """Dynamo folds `max(..., default=...)` only when every argument is a Python constant; otherwise its
`max`/`min` handler takes no keyword arguments and the call breaks the graph ("invalid call to builtin
op handler", GB0193).  A generator is never a constant to it, even over constants: a recursive
`max((depth(v) for v in d.values()), default=1)` breaks every time."""
    instead = """Build a list and give `max` the default as the list's fallback: `max([depth(v) for v in
d.values()] or [1])` computes the same value (fix `min-max-list`)."""
    examples = (
        Example("""import torch


def depth(data, d=0):
    if isinstance(data, dict):
        return max((depth(v, d + 1) for v in data.values()), default=d + 1)  # expect: FG406
    return d


@torch.compile(fullgraph=True)
def f(batch):
    return batch["x"] * depth(batch)
""", call='f({"x": torch.randn(4), "meta": {"s": torch.randn(2)}})'),
        Example("""import torch


def depth(data, d=0):
    if isinstance(data, dict):
        return max([depth(v, d + 1) for v in data.values()] or [d + 1])
    return d


@torch.compile(fullgraph=True)
def f(batch):
    return batch["x"] * depth(batch)
""", call='f({"x": torch.randn(4), "meta": {"s": torch.randn(2)}})', breaks=False),
    )

    def check(self, ev):
        call = ev.node
        if not isinstance(call, ast.Call) or len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
            return None
        kws = {k.arg for k in call.keywords}
        if not kws or None in kws or not kws <= {"default", "key"}:
            return None
        arg = call.args[0]
        if isinstance(arg, ast.GeneratorExp):
            what = "a generator"
        elif isinstance(arg, ast.Call) and ev.fn.resolve_dotted_node(arg.func) in ("builtins.map", "builtins.filter"):
            what = f"`{arg.func.id}(...)`"
        elif isinstance(arg, (ast.List, ast.Tuple)) and any(
                isinstance(e, ast.Name) and ev.fn.lookup(e.id).kind == V.TENSOR for e in arg.elts):
            what = "tensors"
        else:
            return None
        name = ev.q.rsplit(".", 1)[-1]
        kw = " and ".join(f"`{k}=`" for k in sorted(kws))
        return Report(f"`{name}()` with {kw} over {what} breaks the graph (Dynamo's `{name}` takes keyword "
                      "arguments only when every argument is a constant)", data={"keywords": sorted(kws)})


def _holder(fn, node: ast.AST) -> str | None:
    """`xs`, `d.items()` or `d.values()` where the local list `xs` or dict `d` was given a tensor in this
    function (a dict's keys alone sort fine)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "values") \
            and not node.args and not node.keywords:
        node = node.func.value
        if isinstance(node, ast.Name) and node.id in fn.tensor_holders:
            return node.id
    elif isinstance(node, ast.Name) and fn.tensor_holders.get(node.id) == "list":
        return node.id
    return None


class SortTensors(Rule):
    code = "FG407"
    name = "sort-tensors"
    summary = "`sorted()`/`.sort()` without `key=` over a list or dict items holding tensors"
    gb_codes = ("GB0207",)
    # its breaking example compiles under fullgraph=True on 2.14.1 and 2.15.0 (Dynamo of those releases)
    versions = VersionRange(until="2.14")
    calls = ("builtins.sorted",)
    methods = ("sort",)
    fixes = ("sort-key", "split", "split-module", "suppress")
    what = """Finds `sorted(xs)`, `xs.sort()`, `sorted(d.items())` and `sorted(d.values())` without `key=`, where
the function put tensors in `xs` or `d` (`d[k] = t`, `xs.append(t)`)."""
    why = """Dynamo sorts only what it can compare as constants; the items of a dict with tensor values are
(key, tensor) pairs, so `sorted(d.items())` breaks the graph ("sort with non-constant keys", GB0207)
even when every key is a distinct string."""
    instead = """Sort by the key only: `sorted(d.items(), key=lambda kv: kv[0])` gives the same order when
the keys are distinct (fix `sort-key`), or iterate `sorted(d)` and index the dict."""
    examples = (
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    out = {}
    for name in ("b", "a"):
        out[name] = x * len(name)
    return dict(sorted(out.items()))  # expect: FG407
"""),
        Example("""import torch


@torch.compile(fullgraph=True)
def f(x):
    out = {}
    for name in ("b", "a"):
        out[name] = x * len(name)
    return dict(sorted(out.items(), key=lambda kv: kv[0]))
""", breaks=False),
    )

    def check(self, ev):
        call = ev.node
        if not isinstance(call, ast.Call) or any(k.arg in ("key", None) for k in call.keywords):
            return None
        if ev.kind == "method":
            if call.args or not isinstance(call.func, ast.Attribute) or _holder(ev.fn, call.func.value) is None:
                return None
            name, how = call.func.value.id, f"`{ev.text(call.func.value)}.sort()`"
        else:
            if len(call.args) != 1 or (name := _holder(ev.fn, call.args[0])) is None:
                return None
            how = f"`sorted({ev.text(call.args[0])})`"
        items = bool(call.args) and isinstance(call.args[0], ast.Call) and call.args[0].func.attr == "items"
        return Report(f"{how} compares tensors (`{name}` holds them) and breaks the graph: Dynamo sorts only "
                      "constants", data={"items": items})


class UnenterableContext(Rule):
    code = "FG408"
    name = "context-manager-made-outside"
    summary = "`with` on a context manager object Dynamo did not create while tracing"
    gb_codes = ("GB0142",)
    fixes = ("split", "split-module", "suppress")
    what = """Finds `with obj:` where `obj` is an instance of one of the project's context manager classes
made before the compiled code ran (a module global, `self.<attr>`, a parameter), and `with f(...):` where
the call making the context manager breaks the graph (under `torch.compile` without `fullgraph=True`)."""
    why = """Dynamo enters a user-defined context manager only when it created the object while tracing
(`with Timer():` is fine).  An object it is handed — from a global, an attribute, an argument, or from
the uncompiled code that ran after a graph break in the call making it — cannot be entered
("Unsupported context manager", GB0142), and the break cannot be resumed: the rest of the function
runs uncompiled.  Its `__enter__` is then not traced at all."""
    instead = """Create the context manager inside the compiled code (`with Timer():`), keep it out of the
compiled function (time or lock around the call), or fix the break in the call that makes it."""
    examples = (
        Example("""import torch


class Section:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


SECTION = Section()


@torch.compile(fullgraph=True)
def f(x):
    with SECTION:  # expect: FG408
        y = x + 1
    return y
"""),
        Example("""import torch


class Sections:
    def section(self, name):
        print("enter", name)  # expect: FG101
        return Section()


class Section:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


TIMERS = Sections()


@torch.compile
def f(x):
    with TIMERS.section("embed"):  # expect: FG408
        y = x + 1
    return y
"""),
        Example("""import torch


class Section:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile(fullgraph=True)
def f(x):
    with Section():
        y = x + 1
    return y
""", breaks=False),
    )

    project_hooks = ("edge", "frame")
    # `with <an object made outside>:` compiles under fullgraph=True on 2.14.1 and 2.15.0 (this rule's first
    # example, run by Dynamo of those releases); one made by a call that breaks still breaks there
    outside_object_breaks = VersionRange(until="2.14")

    def at_edge(self, ev):
        """`with <object made before the compiled code ran>:`."""
        made = ev.outside_context() if ev.edge.kind == "outside_ctx" and \
            self.outside_object_breaks.contains(ev.ctx.version) else None
        if made is not None:
            # a break at a `with` is not resumed (engine/frames.py): the rest runs uncompiled
            yield Placed(f"`with {ev.edge.text}:` enters a `{made.rsplit('.', 1)[-1]}` made before the compiled "
                         "code ran; Dynamo enters only the context managers it creates while tracing "
                         "(\"Unsupported context manager\")", data={"class": made}, resumable=False)

    def at_frame(self, ev):
        """`with f(...):` where the call breaks the graph: Dynamo resumes with an object it did not create
        (a plain root: under fullgraph=True the call's own break raises first)."""
        if not ev.gathering or ev.ctx.fullgraph:
            return
        for span, text, when in ev.frames.unenterable(ev.qualname):
            yield Placed(f"`{text}(...)` breaks the graph while making this context manager; Dynamo resumes with "
                         "an object it did not create and cannot enter it (\"Unsupported context manager\")",
                         data={"made_by": text}, span=span, when=when, resumable=False)

"""FG6xx: recompilation hazards.  No graph break, yet Dynamo compiles the function again: a guard on
something that changes between calls fails (a Python number, an int attribute of the module, a global, a
list's length, a tensor's size).  Every call until `torch._dynamo.config.recompile_limit` (8), after which
Dynamo runs the function in eager, silently without fullgraph=True; or once, after which it treats the value
as dynamic (automatic dynamic shapes).  Each finding says which.

What changes between calls comes from the source the analysis reads (engine/recompiles.py): the loops that
call the compiled object and what they pass, `self.<attr> += 1` in a method the root reaches, a module-level
number rebound in a loop or under `global`.  Severity warning whatever the root's mode: a slowdown, never an
error.
"""
from __future__ import annotations

from typing import Iterable

from ..model import WARNING
from .base import Example, Placed, Rule

LIMIT = "config.recompile_limit (8)"
EVERY = f"compiles again on every call until {LIMIT}, then runs it in eager"
ONCE = "compiles again once, then treats it as dynamic (automatic dynamic shapes)"
# a closure variable: dynamic after one recompile when only tensor math reads it, specialised when the code
# needs its exact value (catalog: `x * scale` once, `range(depth)` until the limit)
CLOSURE = (f"compiles again: once if only tensor math reads it (then it is dynamic), for every new value until "
           f"{LIMIT} if the code needs its exact value (`range()`, an `if`)")
DOC_URL = "https://docs.pytorch.org/docs/main/user_guide/torch_compiler/compile/programming_model.recompilation.html"


class RecompileRule(Rule):
    """A recompilation hazard (not a graph break): severity warning, no GB code."""

    severity = WARNING
    recompile = True
    fixes = ("suppress",)
    doc_url = DOC_URL
    verified = "verified on torch 2.13 CPU by counting recompiles (tests/test_rules_recompile.py)"


def _param(ev, info) -> str:
    """The compiled function's parameter an argument binds (its position or keyword), or the argument."""
    key = info.get("key")
    if isinstance(key, str):
        return key
    rec = ev.roots.get(info.get("compile_span"))
    if rec is not None and rec.entries and isinstance(key, int):
        fs = rec.entries[0][0]
        params = fs.params[1:] if fs.is_method else fs.params
        if key < len(params) and key < fs.positional:
            return params[key]
    return info.get("arg", "?")


def _calls(ev, code: str) -> Iterable[tuple[object, dict]]:
    """(span, info) of the module's recorded hazards of this code at calls of compiled objects."""
    for rec in ev.mod.recompiles:
        if rec[0] == "call" and rec[2] == code:
            yield rec[3], {**rec[4], "compile_span": rec[1]}


class ModuleAttrMutated(RecompileRule):
    code = "FG601"
    name = "module-attr-mutated"
    summary = "an int or float attribute of the compiled nn.Module changes between calls (a step counter)"
    fixes = ("counter-buffer", "unspec-int-config", "suppress")
    project_hooks = ("reached", "compile")
    what = """Finds `self.<attr> += ...` (or `self.<attr> = self.<attr> + ...`) in a method reached from a compiled
root, where `__init__` set the attribute to a Python int or float; `model.<attr> = <value that changes>`
in the loop that calls the compiled module, when the module's class (in any file of the project, its bases
included) reads that attribute in a method other than `__init__`; and, on a plain object (not an nn.Module)
that compiles one of its own methods (`self.ema = torch.compile(self.ema_update)`), a number attribute that
method reads set in another method from what changes (`self.momentum = f(step)`, `self.step += 1`): once,
then dynamic, or on every new value when the compiled method needs it exactly (`range(self.n)`)."""
    why = """Dynamo treats integer attributes of an nn.Module as constants and guards on their value
(`self.step == 7`, "torch.compile considers integer attributes of the nn.Module to be static"): the next call
fails the guard, on every call, until the recompile limit, after which forward runs in eager.  A float
attribute recompiles once, then is dynamic."""
    instead = """Keep the counter in a registered buffer (`self.register_buffer("step", torch.zeros((),
dtype=torch.long))`, `self.step += 1` then updates a tensor in place), or set
`torch._dynamo.config.allow_unspec_int_on_nn_module = True` (one more compile, then dynamic)."""
    examples = (
        Example("""import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.step = 0

    def forward(self, x):
        self.step += 1  # expect: FG601
        return self.lin(x)


def main():
    model = torch.compile(Model())
    x = torch.randn(2, 4)
    return [model(x) for _ in range(10)][-1]
""", call="main()"),
        Example("""import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("step", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.step += 1
        return self.lin(x)


def main():
    model = torch.compile(Model())
    x = torch.randn(2, 4)
    return [model(x) for _ in range(10)][-1]
""", call="main()", breaks=False),
    )

    def at_reached(self, ev) -> Iterable[Placed]:
        r = ev.reached
        if getattr(r.mod, "library", False):
            return
        for rec in r.mod.recompiles:
            if rec[0] == "attr" and rec[1] == r.fs.qualname:
                _, _, attr, span, typ = rec
                how = (f"Dynamo guards on its value (`self.{attr} == 7`: it treats int attributes of an nn.Module as "
                       f"static) and {EVERY}" if typ == "int" else f"Dynamo guards on its value and {ONCE}")
                yield Placed(f"`self.{attr}` is a Python {typ} attribute of the module changed on every call: {how}",
                             data={"attr": attr, "type": typ, "every": typ == "int"}, span=span, path=r.mod.path,
                             apart=True)

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            attr, typ = info["attr"], info["type"]
            if info.get("mode"):
                yield Placed(f"`{info['module']}` switches the compiled module between train and eval "
                             f"mode between calls: Dynamo guards on `self.training` and compiles again for each mode",
                             data=info, span=span)
                continue
            if info.get("object"):
                how = (f"Dynamo guards on its value and {EVERY} ({info['specialised']} needs its exact value)"
                       if info["every"] else f"Dynamo guards on its value (`self.{attr} == ...`) and {ONCE}")
                yield Placed(f"`self.{attr}` is set (in `{info['setter']}`) to a Python {typ} that changes between calls "
                             f"of the compiled method `{info['method']}`, which reads it: {how}", data=info, span=span)
                continue
            if info.pop("unseen", False):
                # the module's class is not in the scanned file (or the name was rebound to a wrapper such as
                # DDP): a hazard only if the compiled module's class reads the attribute; silent when the
                # class is not known (Dynamo guards only on what the compiled code reads)
                reads = ev.compiled_reads(info["compile_span"])
                if reads is None or attr not in reads:
                    continue
            how = (f"Dynamo guards on its value (`self.{attr} == 7`: int attributes of an nn.Module are static) "
                   f"and {EVERY}" if typ == "int" else f"Dynamo guards on its value and {ONCE}")
            yield Placed(f"`{info['module']}.{attr}` is set to a Python {typ} that changes between calls of the "
                         f"compiled module: {how}", data=info, span=span)


class ScalarArgVaries(RecompileRule):
    code = "FG602"
    name = "scalar-arg-varies"
    summary = "a Python int or float argument of the compiled function changes between calls"
    fixes = ("tensor-arg", "suppress")
    project_hooks = ("compile",)
    what = """Finds a call of a compiled function or module, inside a loop, passing a Python int, float, bool or str that
changes per iteration: the loop variable, a value computed from it, a number updated in the loop (`lr *= 0.9`),
a scheduler's `get_last_lr()[0]`."""
    why = """Dynamo specialises on a Python number's value and guards on it (`s == 7`).  With the default
`dynamic=None` the second value recompiles once, then the number is dynamic (automatic dynamic shapes); with
`dynamic=False` every new value recompiles, until the recompile limit, after which the function runs in eager."""
    instead = """Pass a tensor (`torch.tensor(lr)`): a tensor's value is not guarded.  Or leave `dynamic` at its
default so Dynamo makes the number dynamic after one recompile."""
    examples = (
        Example("""import torch


def scale(x, factor):
    return x * factor


def main():
    f = torch.compile(scale, dynamic=False)
    x = torch.randn(4)
    out = None
    for step in range(10):
        out = f(x, step)  # expect: FG602
    return out
""", call="main()"),
        Example("""import torch


def scale(x, factor):
    return x * factor


def main():
    f = torch.compile(scale, dynamic=False)
    x = torch.randn(4)
    out = None
    for step in range(10):
        out = f(x, torch.tensor(step))
    return out
""", call="main()", breaks=False),
    )

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            p = _param(ev, info)
            if info["type"] in ("bool", "str"):
                how = "Dynamo compiles again for each new value (a constant to it, never dynamic)"
            elif info.get("specialised") and info.get("dynamic") is not False:
                how = (f"the compiled code needs its exact value ({info['specialised']}), so it never becomes dynamic: "
                       f"Dynamo {EVERY}")
            elif info["every"]:
                how = f"compiled with dynamic=False, Dynamo {EVERY}"
            else:
                how = f"Dynamo {ONCE}"
            yield Placed(f"`{info['arg']}` is a Python {info['type']} that changes between calls ({info['why']}): "
                         f"Dynamo guards on its value (`{p} == ...`); {how}", data=info, span=span)


class GlobalRebound(RecompileRule):
    code = "FG603"
    name = "global-rebound"
    summary = "a global or closure variable the compiled code reads is rebound between calls"
    project_hooks = ("reached", "compile")
    what = """Finds a module-level int or float that compiled code reads and that is rebound at run time (in a
loop, or in a function that declares it `global`), and a variable of the enclosing function that a compiled
nested function reads, rebound in the loop that calls it."""
    why = """Dynamo guards on the values of the globals and closure variables it reads (`G['SCALE'] == 7`).  An
int global recompiles on every new value until the recompile limit, then the function runs in eager; a float
global and a closure variable recompile once, then are dynamic."""
    instead = """Pass the value as an argument (as a tensor: `torch.tensor(scale)`), or keep it in a tensor that is
updated in place (`SCALE.fill_(v)`)."""
    examples = (
        Example("""import torch

SCALE = 1


def scale(x):
    return x * SCALE


def main():
    global SCALE
    f = torch.compile(scale)
    x = torch.randn(4)
    out = None
    for step in range(10):
        SCALE = step + 1  # expect: FG603
        out = f(x)
    return out
""", call="main()"),
        Example("""import torch

SCALE = torch.ones(())


def scale(x):
    return x * SCALE


def main():
    f = torch.compile(scale)
    x = torch.randn(4)
    out = None
    for step in range(10):
        SCALE.fill_(step + 1)
        out = f(x)
    return out
""", call="main()", breaks=False),
    )

    def at_reached(self, ev) -> Iterable[Placed]:
        r = ev.reached
        if getattr(r.mod, "library", False):
            return
        reads, free = set(), set()
        for rec in r.mod.recompiles:
            if rec[0] == "reads" and rec[1] == r.fs.qualname:
                reads |= rec[2]
            elif rec[0] == "free" and rec[1] == r.fs.qualname:
                free |= rec[2]
        outer = r.fs.qualname.rpartition(".<locals>.")[0]
        for rec in r.mod.recompiles:
            if rec[0] == "global" and rec[1] in reads and rec[4] != r.fs.qualname \
                    and not any(e.target == rec[4] for e in r.fs.edges):
                # (not where compiled code itself changes it: a side effect inside the graph, not between calls)
                _, name, span, typ, _ = rec
                how = EVERY if typ == "int" else ONCE if typ == "float" else \
                    f"compiles again for each new value, up to {LIMIT}"
                what = {"dict": "an item of the global dict", "list": "the global list"}.get(typ, "the global")
                yield Placed(f"{what} `{name}` ({'a Python ' + typ if typ not in ('dict', 'list') else typ}) is "
                             f"rebound between calls and `{r.fs.name}` reads it: Dynamo guards on its value "
                             f"(`G['{name}']`) and {how}", data={"name": name, "type": typ, "every": typ == "int"},
                             span=span, path=r.mod.path, apart=True)
            elif rec[0] == "closure" and rec[1] == outer and rec[2] in free:
                _, _, name, span = rec
                yield Placed(f"`{name}` is rebound between calls (`nonlocal`) and `{r.fs.name}` reads it from its "
                             f"closure: Dynamo guards on its value and {CLOSURE}",
                             data={"name": name, "every": False, "closure": True}, span=span, path=r.mod.path,
                             apart=True)

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            how = CLOSURE if info["type"] in ("int", "float", "value") else "compiles again for each new value"
            what = f"a Python {info['type']}" if info["type"] != "value" else "a closure variable"
            yield Placed(f"`{info['name']}` ({what}) is rebound between calls and the compiled function reads it "
                         f"from its closure: Dynamo guards on its value and {how}", data=info, span=span)


class ListLengthVaries(RecompileRule):
    code = "FG604"
    name = "list-length-varies"
    summary = "a list passed to the compiled function changes length between calls"
    project_hooks = ("compile",)
    what = """Finds a call of a compiled function inside a loop passing a list whose length changes per
iteration: grown with `.append` in the loop, built from `range(i)`, sliced with a bound that changes."""
    why = """Dynamo guards on a list's length (`len(xs) == 8`) and unrolls it: each new length recompiles, on every
call until the recompile limit, then the function runs in eager (lists do not become dynamic)."""
    instead = """Pass a tensor (`torch.stack(xs)`), or pad the list to a fixed length."""
    examples = (
        Example("""import torch


def total(xs):
    return sum(xs)


def main():
    f = torch.compile(total)
    xs = []
    out = None
    for step in range(10):
        xs.append(torch.full((4,), float(step)))
        out = f(xs)  # expect: FG604
    return out
""", call="main()"),
        Example("""import torch


def total(xs):
    return sum(xs)


def main():
    f = torch.compile(total)
    x = torch.ones(4)
    out = None
    for step in range(10):
        out = f([x, x * 2, x + 1])
    return out
""", call="main()", breaks=False),
    )

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            p = _param(ev, info)
            yield Placed(f"`{info['arg']}` is a list whose length changes between calls ({info['why']}): Dynamo "
                         f"guards on its length (`len({p}) == ...`) and compiles again for every new length until "
                         f"{LIMIT}, then runs it in eager", data=info, span=span)


class ShapeVariesStatic(RecompileRule):
    code = "FG605"
    name = "shape-varies-static"
    summary = "a tensor's size changes between calls of a function compiled with dynamic=False"
    fixes = ("dynamic-true", "mark-dynamic", "suppress")
    project_hooks = ("compile",)
    what = """Finds a call of a function compiled with `dynamic=False`, inside a loop, passing a tensor whose size
changes per iteration (`torch.randn(n, 8)` with `n` from the loop, `x[:n]`, a tensor returned by a helper of the
module that draws its size on each call: `random.randint` in a transform's `__call__`, `int(torch.randint(...))`)."""
    why = """With `dynamic=False` Dynamo specialises on every size and guards on it ("tensor 'x' size mismatch at
index 0. expected 8, actual 9"): every new size recompiles, until the recompile limit, after which the function
runs in eager."""
    instead = """Leave `dynamic` at its default (None: one recompile, then the size is dynamic), or `dynamic=True`,
or `torch._dynamo.mark_dynamic(x, 0)` before the call, or pad to a few fixed sizes."""
    examples = (
        Example("""import torch


def double(x):
    return x * 2


def main():
    f = torch.compile(double, dynamic=False)
    out = None
    for n in range(2, 10):
        x = torch.ones(n, 3)  # expect: FG605
        out = f(x)
    return out
""", call="main()"),
        Example("""import torch


def double(x):
    return x * 2


def main():
    f = torch.compile(double, dynamic=True)
    out = None
    for n in range(2, 10):
        out = f(torch.ones(n))
    return out
""", call="main()", breaks=False),
    )

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            p = _param(ev, info)
            yield Placed(f"`{info['arg']}` changes size between calls ({info['why']}) and the function is compiled "
                         f"with dynamic=False: Dynamo guards on its sizes (\"tensor '{p}' size mismatch\") and "
                         f"{EVERY}", data=info, span=span)


class DynamicDimUnmarked(RecompileRule):
    code = "FG606"
    name = "dynamic-dim-unmarked"
    summary = "a tensor's size changes between calls and no dimension is marked dynamic: one more compile"
    fixes = ("mark-dynamic", "suppress")
    project_hooks = ("compile",)
    what = """Finds a call of a compiled function (default `dynamic`), inside a loop, passing a tensor whose size
changes per iteration (made in the loop, or returned by a helper of the module that draws its size on each
call: `x, edges = random_batch(g)`), without `torch._dynamo.mark_dynamic` on it."""
    why = """Dynamo compiles the first call for its sizes; the next size fails the guard ("tensor 'x' size
mismatch at index 0") and Dynamo compiles again, once, with that dimension dynamic (automatic dynamic shapes).
A mild hazard: one extra compile (and a recompile reason in the logs)."""
    instead = """`torch._dynamo.mark_dynamic(x, 0)` on the varying dimension before the first call (or
`dynamic=True`) compiles the dynamic graph at once."""
    examples = (
        Example("""import torch


def double(x):
    return x * 2


def main():
    f = torch.compile(double)
    out = None
    for n in range(2, 10):
        x = torch.ones(n, 3)  # expect: FG606
        out = f(x)
    return out
""", call="main()"),
        Example("""import torch


def double(x):
    return x * 2


def main():
    f = torch.compile(double)
    x = torch.ones(8)
    out = None
    for n in range(2, 10):
        out = f(x)
    return out
""", call="main()", breaks=False),
    )

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            p = _param(ev, info)
            yield Placed(f"`{info['arg']}` changes size between calls ({info['why']}) and no dimension is marked "
                         f"dynamic: Dynamo guards on its sizes (\"tensor '{p}' size mismatch\") and {ONCE}",
                         data=info, span=span)



class NewObjectPerCall(RecompileRule):
    code = "FG607"
    name = "new-object-per-call"
    summary = "a new lambda, dict or object whose contents change is passed to the compiled function per call"
    project_hooks = ("compile",)
    what = """Finds a call of a compiled function inside a loop passing an object made anew per iteration from
what changes: a lambda whose defaults or body read the loop's values, a dict literal with such values, a
`functools.partial`, a dataclass or an nn.Module built from them."""
    why = """Dynamo guards on what it reads of the object: a lambda's code and defaults, a dict's values, an
object's attributes.  A new object with the same contents passes the guards (no recompile), one whose contents
change fails them and compiles again (a number once, then dynamic; anything else for each new value)."""
    instead = """Build the object once outside the loop and pass what changes as a tensor (`torch.tensor(step)`),
or make the changing value an argument of its own."""
    examples = (
        Example("""import torch


def apply(x, fn):
    return fn(x)


def main():
    f = torch.compile(apply)
    x = torch.ones(4)
    out = None
    for step in range(10):
        out = f(x, lambda t, s=step: t * s)  # expect: FG607
    return out
""", call="main()"),
        Example("""import torch


def apply(x, fn):
    return fn(x)


def main():
    f = torch.compile(apply)
    x = torch.ones(4)
    out = None
    for step in range(10):
        out = f(x, lambda t: t * 2)
    return out
""", call="main()", breaks=False),
    )

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            if info.get("lambda"):
                yield Placed(f"`{info['arg']}` is a new lambda per call whose defaults change ({info['why']}): "
                             f"Dynamo guards on its defaults as constants and {EVERY}", data=info, span=span)
                continue
            what = "a new dict" if info["type"] == "dict" else "a new object"
            yield Placed(f"`{info['arg']}` is {what} per call whose contents change ({info['why']}): Dynamo guards "
                         f"on what it reads of it and compiles again when they change (a number once, then dynamic; "
                         f"anything else for each new value, up to {LIMIT})", data=info, span=span)


class CompileInLoop(RecompileRule):
    code = "FG608"
    name = "compile-in-loop"
    summary = "torch.compile makes a new compiled object per step over values that change"
    project_hooks = ("compile",)
    what = """Finds a `torch.compile(...)` call inside a loop, or in a function called per step with a value
that changes, whose compiled function captures what changes: a closure made from the loop's values
(`torch.compile(make_update(lr))`), a nested function reading the caller's changing parameter, or a backend
defined anew each iteration."""
    why = """Dynamo caches compiled code on the function's code object, not on the compiled object: compiling the
same function again per step costs nothing, but a new closure over a different value fails the guards on its
captured values (and a new backend does not match the cached entries), so Dynamo compiles again."""
    instead = """Hoist the torch.compile call out of the loop and pass what changes as an argument (a tensor:
`torch.tensor(lr)`), or define the backend once."""
    examples = (
        Example("""import torch


def make_update(lr):
    def update(p, g):
        return p - lr * g

    return update


def main():
    p, g = torch.ones(4), torch.ones(4)
    for step in range(10):
        update = torch.compile(make_update(0.1 / (step + 1)))  # expect: FG608
        p = update(p, g)
    return p
""", call="main()"),
        Example("""import torch


def update(p, g, lr):
    return p - lr * g


def main():
    p, g = torch.ones(4), torch.ones(4)
    fn = torch.compile(update)
    for step in range(10):
        p = fn(p, g, torch.tensor(0.1 / (step + 1)))
    return p
""", call="main()", breaks=False),
    )

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            yield Placed(f"torch.compile makes a new compiled object per step: {info['why']}; Dynamo's cache is on "
                         f"the code object and the captured values fail its guards, so it compiles again",
                         data=info, span=span)


class TensorPropertyVaries(RecompileRule):
    code = "FG609"
    name = "tensor-property-varies"
    summary = "a tensor's dtype or requires_grad, or the grad mode, changes between calls"
    project_hooks = ("compile",)
    what = """Finds, in the loop that calls a compiled function, a tensor argument made with a `dtype=` or
`requires_grad=` that changes per iteration, and calls of the same compiled object both inside
`with torch.no_grad():` (or `inference_mode`) and outside it."""
    why = """Dynamo guards on each tensor argument's dtype and requires_grad and on the global grad mode: a new
value fails the guard and compiles again, once per combination (they never become dynamic)."""
    instead = """Keep the dtype fixed (cast once before the loop), call a separately compiled function for each
mode, or accept one compile per combination."""
    examples = (
        Example("""import torch


def double(x):
    return x * 2


def main():
    f = torch.compile(double)
    out = None
    for step in range(10):
        dtype = torch.float64 if step % 2 else torch.float32
        x = torch.ones(4, dtype=dtype)  # expect: FG609
        out = f(x).float()
    return out
""", call="main()"),
        Example("""import torch


def double(x):
    return x * 2


def main():
    f = torch.compile(double)
    out = None
    for step in range(10):
        x = torch.ones(4, dtype=torch.float64)
        out = f(x).float()
    return out
""", call="main()", breaks=False),
    )

    def at_compile(self, ev) -> Iterable[Placed]:
        for span, info in _calls(ev, self.code):
            if info["prop"] == "grad_mode":
                yield Placed(f"`{info['call']}` is called both inside `{info['arg']}` and outside it: Dynamo guards "
                             f"on the grad mode and compiles again for each mode", data=info, span=span)
                continue
            yield Placed(f"`{info['arg']}` is made with a {info['prop']} that changes between calls "
                         f"({info['why']}): Dynamo guards on each tensor's {info['prop']} and compiles again for each "
                         f"new value", data=info, span=span)

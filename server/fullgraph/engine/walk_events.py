"""What a rule sees of the walk from a compiled root (its project hooks, rules/base.py), and what it
gives back.

The walk (engine/findings.py) raises four kinds of event, each with what only the whole project can
tell, and places what the rule yields:

- ``RootEvent``: the compiled function itself; a finding goes at the torch.compile call;
- ``EdgeEvent``: a call reached from the root (the functions it runs, the classes of the object it
  calls); a finding is one of the calling function's own breaks, unless ``Placed.apart``;
- ``ReachedEvent``: a function reached from the root, with what its callers pass; a finding is one of
  its own breaks, unless ``Placed.apart``;
- ``CompileEvent``: a module's torch.compile calls and what its code does around the calls of what they
  compile (engine/recompiles.py), whether or not the analysis sees what is compiled; a finding goes where
  the rule says, with the compile call as its root;
- ``FrameEvent``: a reached function once the breaks of everything it calls are known
  (engine/frames.py), first while they are gathered (``gathering``: what it yields counts among the
  function's own breaks), then once they are placed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..positions import Span
from ..torchinfo import TorchVersion
from . import conditions_evaluated as C
from . import derived
from .frames import FrameFacts, Frames
from .resolve import Resolver
from .roots import RootRecord
from .ruleset import RuleSet
from .summary import Edge, FunctionSummary, IterUse, ModuleSummary
from .walk import Reached, Walker


@dataclass
class Placed:
    """A finding a rule makes at a project event; what it leaves None is the event's."""

    message: str
    data: dict = field(default_factory=dict)
    span: Span | None = None
    path: str | None = None  # the module's path
    steps: list | None = None  # the call path from the root (model.Step)
    when: tuple[str, ...] | None = None  # the condition it depends on
    apart: bool = False  # an edge's finding reported as it is, not among the calling function's own breaks
    resumable: bool = True  # False: Dynamo runs the rest of the function uncompiled after it (engine/frames.py)


@dataclass
class WalkContext:
    """One root's walk: the project's resolution and the settings of the root's program."""

    resolver: Resolver
    walker: Walker
    rules: RuleSet
    version: TorchVersion
    fullgraph: bool
    reorderable: frozenset
    read_everywhere: Callable[[], None]  # the root's findings now depend on every module, not just those walked


@dataclass
class RootEvent:
    fs: FunctionSummary  # the compiled function
    root: RootRecord
    ctx: WalkContext


@dataclass
class EdgeEvent:
    edge: Edge
    reached: Reached  # the function making the call
    targets: list[tuple[FunctionSummary, ModuleSummary]]  # what it runs (none for a tensor hook or a `with`)
    ctx: WalkContext
    _receivers: tuple | None = None

    def torch_receivers(self) -> tuple[list[str], str, bool]:
        """The torch classes of the object this call calls or calls a method of, as only the project
        can tell (an attribute set in `__init__`, a parameter the caller passes, a module call): (the
        classes, the method's name, whether it is a method call)."""
        if self._receivers is None:
            self._receivers = self._torch_receivers()
        return self._receivers

    def _torch_receivers(self) -> tuple[list[str], str, bool]:
        e, r, ctx = self.edge, self.reached, self.ctx
        if e.kind not in ("module_call", "attr_call", "attr_method", "method", "param_call", "param_method"):
            return [], "", False
        attr, _, meth = (e.attr or "").partition(".")  # "method": `self.lstm(x)` calls attribute `lstm`
        if e.kind in ("param_call", "param_method"):
            q = ctx.walker.arr.param_type(e, r)
            types, meth = ([q] if q else []), (e.attr or "")
        elif e.kind == "module_call":
            types = [e.target]
        else:
            types = ctx.resolver.attr_types(e.target, attr, r.mod.path)
        return [t for t in types if t.startswith("torch.")], meth, e.kind in ("attr_method", "param_method")

    def called_torch_modules(self) -> list[str]:
        """The torch classes of the module this call calls (`self.lstm(x)`), not a method of it."""
        types, _, method_call = self.torch_receivers()
        return [] if method_call else types

    def outside_context(self) -> str | None:
        """For a `with` on an object Dynamo did not create: the project class (with its own `__enter__`)."""
        return self.ctx.walker.outside_context(self.edge, self.reached)

    def hook_function(self) -> tuple[FunctionSummary, ModuleSummary] | None:
        """For a tensor hook's registration: the hook function."""
        e, res = self.edge, self.ctx.resolver
        near = self.reached.mod.path
        return res.find_method(e.target, e.attr, near) if e.attr else res.function(e.target, near)


@dataclass
class ReachedEvent:
    reached: Reached
    ctx: WalkContext

    def passed_class(self, param: str) -> str | None:
        """The class of the instance every visible call passes for the reached function's parameter."""
        got = self.reached.env.get(param)
        return got[0].q if got is not None and isinstance(got[0], C.Instance) and got[1] == C.KNOWN else None

    def live(self, dead_if: tuple) -> bool:
        """Not behind a guard that is false under torch.compile (`if not is_compiling():`)."""
        return not (dead_if and self.ctx.resolver.dead(dead_if))

    def iterator_passed(self, use: IterUse) -> str | None:
        """The call site (file:line) of a call passing an iterator to the parameter `use` steps."""
        arr = self.ctx.walker.arr
        src = arr.iterator_passed(self.reached.fs, use, arr.callers_index())
        if src is not None:
            self.ctx.read_everywhere()  # the message names a call site in whichever module passes it
        return src


@dataclass
class CompileEvent:
    mod: ModuleSummary  # a user module with recompilation facts (ModuleSummary.recompiles)
    roots: dict  # compile call span -> RootRecord, for the module's roots the analysis resolved
    ctx: WalkContext | None = None
    resolver: Resolver | None = None
    walker: Walker | None = None

    def compiled_reads(self, compile_span: Span) -> frozenset[str] | None:
        """The attributes the compiled module's class reads from its instance, in its methods other than
        `__init__` and those of its bases the project defines (derived.self_reads); None when the class is
        not known (the compile call unresolved, a plain function compiled, a method's source not read)."""
        rec = self.roots.get(compile_span)
        if rec is None or not rec.entries or self.resolver is None or self.walker is None:
            return None
        decl, (first, fmod) = rec.decl, rec.entries[0]
        if decl.kind == "module":  # `torch.compile(Model())`: the instance's class (its forward may be inherited)
            q, near = decl.target, rec.mod.path
        elif decl.kind in ("factory", "function", "attr", "method") and first.is_method and first.class_qualname \
                and first.name in ("forward", "__call__") and decl.attr != first.name:
            q, near = first.class_qualname, fmod.path  # a module a factory made, held in an attribute, ...
        else:  # a function or a bound method compiled, a container (nn.Sequential): not the class's instance
            return None
        chain = self.resolver.mro(q, near)
        if not chain:
            return None
        out: set[str] = set()
        for cs, cmod in chain:
            for name, fq in cs.methods.items():
                fs = cmod.functions.get(fq)
                if name == "__init__" or fs is None:
                    continue
                got = derived.self_reads(self.walker.arr, fs, cmod)
                if got is None:
                    return None
                out |= got
        return frozenset(out)


@dataclass
class FrameEvent:
    qualname: str
    facts: FrameFacts
    frames: Frames
    gathering: bool  # True: before the function's findings are placed (what is yielded counts among them)
    ctx: WalkContext

"""The walk from a compiled root: every function its call may run, each with the call path that
reaches it, what its callers pass (engine/arrivals.py) and the condition its path depends on
(engine/conditions_evaluated.py evaluates the flags recorded around each call).
"""
from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass
from typing import Iterable

from ..model import Location, Step
from . import conditions_evaluated as C
from . import values as V
from .arrivals import Arrivals
from .resolve import Resolver
from .roots import RootRecord
from .summary import Edge, FunctionSummary, ModuleSummary

_MAX_DEPTH = 64  # call-path depth limit (recursion, generated code)


@dataclass
class Reached:
    fs: FunctionSummary
    mod: ModuleSummary
    path: list[Step]
    env: dict = dataclasses.field(default_factory=dict)  # conditions.Env: the flags known on this path
    cond: tuple[str, ...] = ()  # conditions the path depends on (conditions_evaluated.describe texts)
    wraps: str | None = None  # a decorator's wrapper reached from the function it wraps (which it calls)


class Walker:
    def __init__(self, resolver: Resolver, arrivals: Arrivals):
        self.res = resolver
        self.arr = arrivals

    def reach(self, root: RootRecord, allowed: set[str], ignored: set[str]) -> Iterable[Reached]:
        """Each function the root may run, breadth-first (shortest call path first), once -- again only
        when a later path reaches it under a weaker condition; `allowed`/`ignored` functions are not
        entered (allow_in_graph, ignore_logging_functions), nor opaque, disabled or separately compiled ones."""
        seen: dict[str, tuple] = {}  # function -> the condition it was reached with
        queue: deque[Reached] = deque()
        for fs, mod in root.entries:
            if fs.qualname not in seen:
                seen[fs.qualname] = ()
                env = C.entry_env(fs.defaults, self.arr.root_calls(root, fs), fs.params, fs.is_method, fs.positional,
                                  fs.annotated)
                mode = root_mode(root.decl)
                if mode is not None:
                    env[C.TRAINING] = mode
                env.update(self.arr.closure_env(fs))
                queue.append(Reached(self.arr.with_tensor_params(fs, mod, env), mod, [Step(fs.qualname, None)], env))
        while queue:
            r = queue.popleft()
            yield r
            if len(r.path) >= _MAX_DEPTH:
                continue
            for w, wmod, span in self.res.wrappers(r.fs, r.mod):
                # calling r.fs runs its decorators' wrappers (which then call it)
                if w.qualname not in seen and not (w.opaque or w.disabled):
                    seen[w.qualname] = r.cond
                    queue.append(Reached(w, wmod, r.path + [Step(w.qualname, Location(r.mod.path, span))],
                                         C.callee_env(None, r.env, [], False, {}), r.cond, wraps=r.fs.qualname))
            attr_of = self.arr.self_attr_reader(r.fs, r.mod)
            lib = getattr(r.mod, "library", False)
            for e in r.fs.edges:
                when = self.traced_when(e, r, attr_of)
                if when is None:
                    continue  # the call sits behind a guard or a flag known false
                picked = {f.qualname for f, _ in self.res.registry_targets(e, r.mod)} \
                    if e.kind in ("factory_call", "registry_call") else \
                    {f.qualname for f, _ in self.res.property_results(e, r.mod)} if e.kind == "method" else ()
                for tfs, tmod in self.edge_targets(e, r):
                    q = tfs.qualname
                    if tfs.opaque or tfs.disabled or q in allowed or q in ignored:
                        continue
                    if tfs.compiled is not None and q != r.fs.qualname:
                        continue  # another compiled region: its own root covers it
                    # one of a registry's functions: inside a library the lookup's key (configuration)
                    # selects which, a condition like any other unknown test there (conditions_evaluated.evaluate)
                    chosen = (f"`{e.text}` is `{tfs.name}`",) if q in picked and lib else ()
                    cond = C.merge(C.merge(r.cond, when), chosen)
                    if q in seen:
                        # reached before: walked again only when this path needs less (the first path
                        # found is the shortest, not always the least conditional)
                        cond = C.weaker(seen[q], cond)
                        if cond is None:
                            continue
                    seen[q] = cond
                    env = C.callee_env(self.arr.resolve_fields(e.vals, r.mod.path), r.env, tfs.params, tfs.is_method,
                                       tfs.defaults)
                    tfs = self.arr.with_tensor_params(tfs, tmod, env)
                    queue.append(Reached(tfs, tmod, r.path + [Step(q, Location(r.mod.path, e.span))], env, cond))

    def traced_when(self, item, r: Reached, attr_of) -> tuple[str, ...] | None:
        """The condition under which a recorded site or call of the reached function is traced: () always,
        None never (behind a guard that is false under torch.compile, or a flag known false on this path)."""
        if item.dead_if and self.res.dead(item.dead_if):
            return None
        return C.check(item.conds, r.env, attr_of, getattr(r.mod, "library", False)) if item.conds else ()

    def edge_targets(self, e: Edge, r: Reached) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """The functions a call edge of a reached function may run (a parameter's by what was passed)."""
        if e.kind == "param_call":
            q = self.arr.param_type(e, r)
            return self.res.module_call(q, r.mod.path) if q else []
        if e.kind == "param_method":
            q = self.arr.param_type(e, r)
            m = self.res.find_method(q, e.attr or "", r.mod.path) if q else None
            return [m] if m is not None else []
        return self.res.resolve_edge(e, r.mod)

    def outside_context(self, e: Edge, r: Reached) -> str | None:
        """The project class with its own `__enter__` of the object an `outside_ctx` edge enters."""
        if e.attr == "@param":
            q = self.arr.param_type(e, r)
            types = [q] if q else []
        elif e.attr is not None:
            types = self.res.attr_types(e.target, e.attr, r.mod.path)
        else:
            types = [e.target]
        for t in types:
            if not t.startswith(("torch.", "builtins.", "contextlib.", "threading.")) and \
                    self.res.find_method(t, "__enter__", r.mod.path) is not None:
                return t
        return None


def root_mode(decl) -> tuple | None:
    """The compiled module's mode (`self.training`) as the walk's env holds it: the mode at each
    visible call of the compiled object (`model.train()` after the compile line counts), else the
    mode at the compile line; both when the calls run in both (a training and an evaluation step).
    None: nothing known (nn.Module's default, training)."""
    modes = []
    for call in decl.calls or ((),):
        got = dict(call).get(V.MODE_KEY)
        modes.append(got[1] if got is not None else decl.training)
    distinct = tuple(dict.fromkeys(modes))
    if distinct == (None,):
        return None
    if len(distinct) == 1:
        return distinct[0], C.KNOWN
    return C.Choices(tuple((True, C.DEFAULT) if m is None else (m, C.KNOWN) for m in distinct)), C.KNOWN


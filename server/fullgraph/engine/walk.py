"""The walk from a compiled root: every function its call may run, each with the call path that
reaches it, what its callers pass (engine/arrivals.py) and the condition its path depends on
(engine/conditions_evaluated.py evaluates the flags recorded around each call).
"""
from __future__ import annotations

import dataclasses
import os
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from ..model import Location, Step
from ..positions import Span
from . import conditions_evaluated as C
from . import garbage
from . import values as V
from .arrivals import Arrivals
from .attr_choices import decide
from .derived import returned_entries
from .not_followed import held_words, made_words
from .resolve import Resolver
from .roots import RootRecord
from .summary import Edge, FunctionSummary, ModuleSummary

_MAX_DEPTH = 64  # call-path depth limit (recursion, generated code)
# how many different sets of values a function is walked with apart (each a call passing other values: their own
# branches); past them, with one set standing for all (conditions_evaluated.joined)
ENVS_WALKED = 4


def _env_key(env: dict) -> tuple:
    """What a reached function's parameters hold (conditions_evaluated's env, made in the order of the function's
    parameters), as a key: values that cannot be hashed by their text."""
    key = tuple(env.items())
    try:
        hash(key)
    except TypeError:
        key = tuple((k, repr(v)) for k, v in key)
    return key


# edges on `self` written in a method (Edge.target: the class it is written in): resolved on the class of
# `self` on the walk's path
_ON_SELF = ("method", "attr_call", "item_call", "attr_method")
# those that call what an attribute of self holds (`self.attention(x)`, `for layer in self.layers: layer(x)`)
_HELD_CALLS = ("method", "attr_call", "item_call")


@dataclass
class Reached:
    fs: FunctionSummary
    mod: ModuleSummary
    path: list[Step]
    env: dict = dataclasses.field(default_factory=dict)  # conditions.Env: the flags known on this path
    cond: tuple[str, ...] = ()  # conditions the path depends on (conditions_evaluated.describe texts)
    wraps: str | None = None  # a decorator's wrapper reached from the function it wraps (which it calls)
    # the class of `self` on this path, when the function is a method of it or of one of its bases (or a
    # function local to one): what `self.<name>(...)` runs, and what a replaced method's wrapper calls
    self_q: str | None = None
    # walked again for other values than an earlier walk of it, on no weaker a path: its findings add to that
    # walk's (engine/findings.py), where a walk on a weaker path replaces them
    more: bool = False


@dataclass
class Unfollowed:
    """A replaced method a walk calls but cannot follow (`self.forward = hook(self.forward)`, `hook`
    not visible): `self.<name>`, the method that assigns it ("" for the class body), and the call."""

    label: str
    where: str
    path: str
    span: Span


class Walker:
    def __init__(self, resolver: Resolver, arrivals: Arrivals):
        self.res = resolver
        self.arr = arrivals
        # function -> the conditions under which the attribute of self the call being followed reads holds its
        # class (attr_choices.decide; set by _dispatch)
        self.chosen: dict[str, tuple] = {}
        # (edge, reached, with a reader) -> what _dispatch gave and chose, for the walk under way: the findings
        # pass asks for each reached function's edge targets before the walk follows them (one computation)
        self._dispatched: dict[tuple, tuple] = {}
        self._readers: dict[tuple, tuple] = {}  # (root, reached) -> attr_reader's, for the walk under way

    def reach(self, root: RootRecord, allowed: set[str], ignored: set[str],
              unfollowed: list[Unfollowed] | None = None) -> Iterable[Reached]:
        """Each function the root may run, breadth-first (shortest call path first), once per class of
        `self` -- again only when a later path reaches it under a weaker condition; `allowed`/`ignored`
        functions are not entered (allow_in_graph, ignore_logging_functions), nor opaque, disabled or
        separately compiled ones.  The replaced methods it calls and cannot follow go to `unfollowed`."""
        seen: dict[tuple, tuple] = {}  # (function, class of self) -> the condition it was reached with
        envs: dict[tuple, dict] = {}  # (function, class of self) -> the values it was walked with, by _env_key
        queue: deque[Reached] = deque()
        garbage.later(self._dispatched, self._readers)  # (the last walk's)
        self._dispatched, self._readers = {}, {}
        classes = self._root_classes(root)
        for fs, mod in root.entries:
            recv = self._receiver(fs, classes, mod.path)
            if (fs.qualname, recv) not in seen:
                seen[(fs.qualname, recv)] = ()
                env = C.entry_env(fs.defaults, self.arr.root_calls(root, fs), fs.params, fs.is_method, fs.positional,
                                  fs.annotated, complete=self.arr.calls_complete(root), stars=(fs.vararg, fs.kwarg),
                                  required=fs.required)
                mode = root_mode(root.decl)
                if mode is not None:
                    env[C.TRAINING] = mode
                env.update(self.arr.closure_env(fs))
                queue.append(Reached(self.arr.with_tensor_params(fs, mod, env), mod, [Step(fs.qualname, None)], env,
                                     self_q=recv))
        if unfollowed is not None:
            name = "forward" if root.decl.kind in ("module", "container", "factory") else None
            for t in classes if name else ():
                self._unfollowed(t, name, root.mod.path, root.mod.path, root.decl.span, unfollowed)
        while queue:
            r = queue.popleft()
            yield r
            if len(r.path) >= _MAX_DEPTH:
                continue
            for w, wmod, span in self.res.wrappers(r.fs, r.mod):
                # calling r.fs runs its decorators' wrappers (which then call it)
                if (w.qualname, None) not in seen and not (w.opaque or w.disabled):
                    seen[(w.qualname, None)] = r.cond
                    queue.append(Reached(w, wmod, r.path + [Step(w.qualname, Location(r.mod.path, span))],
                                         C.callee_env(None, r.env, [], False, {}), r.cond, wraps=r.fs.qualname))
            attr_of = self.attr_reader(root, r)
            lib = getattr(r.mod, "library", False)
            for e in r.fs.edges:
                when = self.traced_when(e, r, attr_of)
                if when is None:
                    continue  # the call sits behind a guard or a flag known false
                picked = {f.qualname for f, _ in self.res.registry_targets(e, r.mod)} \
                    if e.kind in ("factory_call", "registry_call") else \
                    {f.qualname for f, _ in self.res.property_results(e, r.mod)} if e.kind == "method" else ()
                decided = self._property_entries(e, r, attr_of, picked) if picked and e.kind == "method" else None
                if unfollowed is not None and e.kind == "method" and e.attr:
                    self._unfollowed(self._self_class(e, r), e.attr, r.mod.path, r.mod.path, e.span, unfollowed)
                self.chosen = {}
                for tfs, tmod, recv in self._dispatch(e, r, attr_of):
                    q = tfs.qualname
                    if tfs.opaque or tfs.disabled or q in allowed or q in ignored:
                        continue
                    if tfs.compiled is not None and q != r.fs.qualname:
                        continue  # another compiled region: its own root covers it
                    # one of a registry's functions: inside a library the lookup's key (configuration)
                    # selects which, a condition like any other unknown test there (conditions_evaluated.evaluate),
                    # unless the key is known (the loss a transformers model's class name selects)
                    if decided is not None and q in picked and q not in decided:
                        continue
                    chosen = (f"`{e.text}` is `{tfs.name}`",) if q in picked and lib and decided is None else ()
                    cond = C.merge(C.merge(C.merge(r.cond, when), chosen), self.chosen.get(q, ()))
                    env = C.callee_env(self.arr.resolve_fields(e.vals, r.mod.path), r.env, tfs.params, tfs.is_method,
                                       tfs.defaults, attr_of, stars=(tfs.positional, tfs.vararg, tfs.kwarg))
                    sig = _env_key(env)
                    walked = envs.setdefault((q, recv), {})
                    if (q, recv) in seen:
                        # reached before: walked again when this path needs less (the first path found is the
                        # shortest, not always the least conditional), or passes values it was not walked with
                        # (`g(x, True) + g(x, False)`: each takes its own branch); past ENVS_WALKED sets of
                        # values, with one standing for all of them (each value one of them holds)
                        weaker = C.weaker(seen[(q, recv)], cond)
                        if weaker is not None:
                            cond = seen[(q, recv)] = weaker
                        elif sig in walked:
                            continue
                        elif len(walked) >= ENVS_WALKED:
                            env = C.joined([*walked.values(), env])
                            sig = _env_key(env)
                            if sig in walked:
                                continue
                        more = weaker is None
                    else:
                        seen[(q, recv)] = cond
                        more = False
                    walked[sig] = env
                    tfs = self.arr.with_tensor_params(tfs, tmod, env)
                    queue.append(Reached(tfs, tmod, r.path + [Step(q, Location(r.mod.path, e.span))], env, cond,
                                         self_q=recv, more=more))

    def _property_entries(self, e: Edge, r: Reached, attr_of, known: set[str]) -> frozenset | None:
        """The registry functions a property read by a `self.<name>(...)` call returns for this object
        (among `known`, all it may return), when its code and what the object holds tell
        (engine/derived.py); None when not known."""
        cls = self._self_class(e, r) or e.target
        m = self.res.find_method(cls, e.attr or "", r.mod.path)
        if m is None:
            return None
        got = returned_entries(self.arr, m[0], m[1], r.self_q, attr_of)
        return (got & known) or None if got else None

    def attr_reader(self, root: RootRecord, r: Reached):
        """`self.<attr>` as the reached function reads it: for the compiled module itself, what its visible
        construction passes (`Metric(num_classes=3)`: the other `__init__` parameters at their defaults).
        (Once per reached function of the walk under way: the walk and the findings pass both read it.)"""
        got = self._readers.get((id(root), id(r)))
        if got is not None and got[0] is root and got[1] is r:
            return got[2]
        reader = self._attr_reader(root, r)
        self._readers[(id(root), id(r))] = (root, r, reader)
        return reader

    def _attr_reader(self, root: RootRecord, r: Reached):
        d = root.decl
        ctor = (d.target, d.ctor, root.mod.path) if d.kind == "module" and d.ctor is not None and \
            r.self_q is not None and self.res.same_class(r.self_q, d.target, root.mod.path) else None
        return self.arr.self_attr_reader(r.fs, r.mod, r.self_q, ctor)

    def traced_when(self, item, r: Reached, attr_of) -> tuple[str, ...] | None:
        """The condition under which a recorded site or call of the reached function is traced: () always,
        None never (behind a guard that is false under torch.compile, or a flag known false on this path)."""
        if item.dead_if and self.res.dead(item.dead_if):
            return None
        return C.check(item.conds, r.env, attr_of, getattr(r.mod, "library", False)) if item.conds else ()

    def edge_targets(self, e: Edge, r: Reached, attr_of=None) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """The functions a call edge of a reached function may run (a parameter's by what was passed; a
        method of `self` by the class of `self` on the path; with `attr_of`, the reader of the object on the
        path, not those of a class an attribute of self cannot hold for it: engine/attr_choices.py)."""
        return [(f, m) for f, m, _ in self._dispatch(e, r, attr_of)]

    def held_not_followed(self, e: Edge, r: Reached) -> str | None:
        """Why a call of what an attribute of self holds (`self.attention(x)`, `for layer in self.layers:
        layer(x)`) runs nothing the walk follows when the attribute is set in `__init__` from a parameter and a
        construction of the class passes something the analysis cannot type (Arrivals.handed_unknown): the
        reason's words (engine/not_followed.py), else None.  When every construction passes a module (or a list
        of them), _dispatch follows those; when one passes none (a constant, the default), nothing is missed."""
        if e.kind not in _HELD_CALLS or not e.attr:
            return None
        attr = e.attr.partition(".")[0]
        cls = self._self_class(e, r) or e.target
        got = self.arr.handed_unknown(cls, attr, r.mod.path)
        if got is None:
            made = self._made_untyped(cls, attr, r.mod.path)
            return made_words(attr, made) if made is not None and not self._dispatch(e, r) else None
        if self._dispatch(e, r):
            return None
        site, path, param, what = got
        return held_words(attr, site.target.rpartition(".")[2], param,
                          f"{os.path.basename(path)}:{site.span.start.line + 1}", what)

    def _made_untyped(self, cls: str, attr: str, near: str) -> str | None:
        """The name of a function of the project the attribute is set from (`self.layers = clones(Block(), 2)`)
        whose result's class the analysis cannot tell (resolve._factory_made left its name), else None."""
        for t in [*self.res.attr_types(cls, attr, near), *self.res.attr_types(cls, attr, near, containers=True)]:
            if self.res.class_(t, near) is None and self.res.function(t, near) is not None:
                return t.rpartition(".")[2]
        return None

    # ---- the class of `self` ------------------------------------------------------------------------
    def _dispatch(self, e: Edge, r: Reached, attr_of=None) -> list[tuple[FunctionSummary, ModuleSummary, str | None]]:
        """_dispatched, once per edge and reached function of the walk under way (its choices into `self.chosen`).
        The reader `attr_of`, when given, is the walk's own for `r` (attr_reader), whoever asks."""
        key = (id(e), id(r), attr_of is not None)
        got = self._dispatched.get(key)
        if got is None or got[0] is not e or got[1] is not r:
            before, self.chosen = self.chosen, {}
            try:
                targets = self._dispatched_targets(e, r, attr_of)
                got = self._dispatched[key] = (e, r, targets, self.chosen)
            finally:
                self.chosen = before
        self.chosen.update(got[3])
        return list(got[2])

    def _dispatched_targets(self, e: Edge, r: Reached, attr_of=None) -> list[tuple[FunctionSummary, ModuleSummary, str | None]]:
        """edge_targets, each with the class of `self` in it: `self.update(...)` written in a base class
        runs the update of the class of `self` on the path (its replacement, when the instance holds one);
        a replaced method's wrapper calling the parameter it captured the original in runs the original.
        With `attr_of` (the reader of the object on the path), a class an attribute of self cannot hold for that
        object is not entered (engine/attr_choices.py)."""
        if e.kind == "param_call" and ":" in e.target and r.self_q:
            got = self.res.captured(r.self_q, e.target, r.mod.path)
            if got:
                return [(f, m, self._receiver(f, [r.self_q], m.path)) for f, m in got]
        recv = self._self_class(e, r) if e.kind in _ON_SELF else None
        if recv is not None and recv != e.target:
            targets = self.res.resolve_edge(dataclasses.replace(e, target=recv), r.mod)
        else:
            targets = self._plain_targets(e, r)
        if e.kind in _ON_SELF:  # the method's class, or the class of the module an attribute holds
            base = recv or e.target
            attr = (e.attr or "").partition(".")[0]
            held = [*self.res.attr_types(base, attr, r.mod.path),
                    *self.res.attr_types(base, attr, r.mod.path, containers=True)]
            if not targets and e.kind in _HELD_CALLS and \
                    not any(self.res.is_nn_module(t, r.mod.path) for t in held if t != V.NN_MODULE):
                # `self.attention(x)` / `for layer in self.layers: layer(x)`, the attribute set in `__init__`
                # from a parameter (`self.attention = attention`, `nn.ModuleList(layers)`): the modules every
                # construction of the class passes for it
                passed = self.arr.passed_classes(base, attr, r.mod.path)
                held = [*held, *passed]
                for t in passed:
                    targets.extend(x for x in self.res.module_call(t, r.mod.path) if x not in targets)
            cands = [base, *held] if e.kind == "method" else [*held, base]
            decided = decide(self.arr, attr_of, base, attr, r.mod.path) if attr_of is not None and held else None
            if decided:
                return self._chosen_targets(targets, cands, decided, r.mod.path)
        elif e.kind == "module_call":
            cands = [e.target]
        elif e.kind == "call":  # a class made (its __init__), or a function: self goes on to local functions
            cands = [e.target, r.self_q] if r.self_q else [e.target]
        elif e.kind == "param_method":
            q = self.arr.param_type(e, r)
            cands = [q] if q else []
        else:
            cands = [r.self_q] if r.self_q else []
        receiver = self._receivers(cands)
        return [(f, m, receiver(f, m.path)) for f, m in targets]

    def _chosen_targets(self, targets: list, cands: list[str], decided: dict, near: str) -> list:
        """The targets with their class of `self`, less the methods only classes the object cannot hold run
        (attr_choices.decide: `decided`); a method only classes it holds under a condition run gets that condition
        (`self.chosen`, read by reach)."""
        kept = [c for c in cands if c not in decided]
        receiver = self._receivers(kept)
        out = []
        for f, m in targets:
            owner = f.class_qualname
            if owner is not None and not any(self._holds_method(c, owner, near) for c in kept):
                ways = [decided[c] for c in decided if self._holds_method(c, owner, near)]
                if ways and all(w is None for w in ways):
                    continue
                if ways:
                    self.chosen[f.qualname] = next(w for w in ways if w is not None)
                    out.append((f, m, self._receiver(f, [c for c in cands if decided.get(c, ()) is not None],
                                                     m.path)))
                    continue
            out.append((f, m, receiver(f, m.path)))
        return out

    def _holds_method(self, class_q: str, owner: str, near: str) -> bool:
        c = self.res.class_(class_q, near)
        return c is not None and owner in self._mro_names(c[0].qualname, c[1].path)

    def _self_class(self, e: Edge, r: Reached) -> str | None:
        """The class a `self.<...>` edge (written in class e.target) resolves on: the class of `self` on
        the path when it is e.target or a subclass of it, else e.target's own."""
        if r.self_q and r.self_q != e.target and self._is_below(r.self_q, e.target, r.mod.path):
            return r.self_q
        c = self.res.class_(e.target, r.mod.path)
        return c[0].qualname if c is not None else None

    def _is_below(self, sub: str, base: str, near: str) -> bool:
        c = self.res.class_(base, near)
        return c is not None and c[0].qualname in self._mro_names(sub, near)

    def _mro_names(self, class_q: str, near: str) -> frozenset:
        key = ("mro_names", class_q)
        memo = self.res.c.memo
        if key not in memo:
            memo[key] = frozenset(cs.qualname for cs, _ in self.res.mro(class_q, near))
        return memo[key]

    def _receiver(self, fs: FunctionSummary, cands: list[str], near: str) -> str | None:
        """The class of `self` in `fs` when it runs on an instance of one of `cands` (first match): the
        candidate whose MRO holds the class `fs` belongs to; a method reached otherwise runs on its own class."""
        return self._receivers(cands)(fs, near)

    def _receivers(self, cands: list[str]) -> Callable[[FunctionSummary, str], str | None]:
        """_receiver for the targets of one call: `self.blocks(x)` on an `nn.Sequential` of a hundred blocks has as
        many targets and candidates, and looking up each target's owner candidate by candidate was quadratic.  Each
        candidate's MRO is read once, as far down the list as a target's owner needs."""
        found: dict[str, dict[str, str]] = {}  # near -> MRO member -> the first candidate holding it
        rest: dict[str, Iterator[str]] = {}

        def receiver(fs: FunctionSummary, near: str) -> str | None:
            owner = fs.class_qualname
            if owner is None:  # a module function's local function (a wrapper): on the instance it was called on
                return cands[0] if cands and ".<locals>." in fs.qualname else None
            got = found.setdefault(near, {})
            left = rest.setdefault(near, iter(cands))
            while owner not in got:
                t = next(left, None)
                if t is None:
                    return owner
                c = self.res.class_(t, near)
                if c is not None:
                    for name in self._mro_names(c[0].qualname, c[1].path):
                        got.setdefault(name, c[0].qualname)
            return got[owner]

        return receiver

    def _root_classes(self, root: RootRecord) -> list[str]:
        d = root.decl
        if d.kind in ("module", "method", "attr"):
            return [d.target]
        if d.kind == "container":
            return d.target.split("|")
        if d.kind == "factory":
            hit = self.res.function(d.target, root.mod.path)
            made = self.res.returned_classes(hit[0], hit[1], d.attr) if hit is not None else []
            return [q for q, _ in made] if made else [d.target]
        return []

    def _unfollowed(self, class_q: str | None, name: str, near: str, path: str, span, out: list[Unfollowed]) -> None:
        rep = self.res.replacement_targets(class_q, name, near) if class_q else None
        for where in (rep[1] if rep is not None else ()):
            u = Unfollowed(f"self.{name}", where, path, span)
            if u not in out:
                out.append(u)

    def _plain_targets(self, e: Edge, r: Reached) -> list[tuple[FunctionSummary, ModuleSummary]]:
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


"""The project: module summaries tied together by qualified names.

It resolves names across modules (imports, re-exports, star imports, class hierarchies), finds
the compiled roots, walks every call reachable from each root, and turns the sites it reaches into
findings with their root and call path.  Module summaries are cached by content, so re-checking
after an edit re-analyses only the edited file; reachability is recomputed (it is cheap).
"""
from __future__ import annotations

import copy
import dataclasses
import os
from collections import deque
from dataclasses import dataclass
from typing import Iterable

from .. import tracetable
from ..config import Config
from ..model import ERROR, INFO, WARNING, Finding, LibrarySite, Location, RootInfo, Step
from ..positions import Span
from ..rules import registry
from ..rules.autograd import STEP_MESSAGE
from ..rules.base import BOTH, FULLGRAPH, PARTIAL
from . import conditions as C
from . import values as V
from .arguments import ArgumentsMixin
from .frames import FrameFacts, Frames
from .summary import ClassSummary, Edge, FunctionSummary, ModuleSummary, RootDecl, Site

_MAX_DEPTH = 64  # call-path depth limit (recursion, generated code)


@dataclass
class Reached:
    fs: FunctionSummary
    mod: ModuleSummary
    path: list[Step]
    env: dict = dataclasses.field(default_factory=dict)  # conditions.Env: the flags known on this path
    cond: tuple[str, ...] = ()  # conditions the path depends on (conditions.describe texts)
    wraps: str | None = None  # a decorator's wrapper reached from the function it wraps (which it calls)


@dataclass
class RootRecord:
    decl: RootDecl
    mod: ModuleSummary
    entries: list[tuple[FunctionSummary, ModuleSummary]]
    info: RootInfo | None


class Project(ArgumentsMixin):
    def __init__(self, config: Config | None = None):
        self.config = config or Config()
        self.modules: dict[str, ModuleSummary] = {}  # path -> summary
        self._by_name: dict[str, list[ModuleSummary]] = {}
        self._fn_index: dict[str, tuple[FunctionSummary, ModuleSummary]] | None = None
        self._guard_memo: dict[str, bool] = {}
        # Per-generation memos (cleared whenever a module is added, replaced or removed): the
        # language server asks for findings after every keystroke and for every open file, and
        # most of the walk is the same name resolutions over and over.
        self._memo: dict = {}
        self._findings: list[Finding] | None = None
        # Findings of each root, kept across changes: root key -> (findings, modules its walk read
        # positions from, or None when it read facts from every module).  An edit that leaves a
        # module's interface (interface_of) alone only re-walks the roots that reach into it.
        self._root_cache: dict[tuple, tuple[list[Finding], frozenset[str] | None]] = {}
        self._interfaces: dict[str, tuple] = {}
        self.unresolved_calls: dict[str, int] = {}
        # Loads a module of a followed installed package on demand: module name -> loaded?
        self.module_loader = None
        # (module name, name) -> False when the module's source, not yet loaded, cannot define the name
        # (a followed library's star-import chains would otherwise load every module they name)
        self.may_define = None
        # path -> the text a module was analysed from (set by the workspace): functions are analysed
        # again with what their callers pass (_with_tensor_params)
        self.source_of = None
        # (path, text) -> the syntax tree of that text, parsed once for all such analyses (set by the workspace)
        self.tree_of = None
        self._variants: dict[tuple, FunctionSummary] = {}
        self._bases: dict[str, tuple] = {}  # path -> (text hash, ModuleAnalyzer): see _base_analysis
        self._load_attempted: set[str] = set()

    # ---- contents ------------------------------------------------------------------------------
    def set_module(self, summary: ModuleSummary) -> None:
        path = summary.path
        old = self.modules.get(path)
        if old is not None:
            lst = self._by_name.get(old.name, [])
            if old in lst:
                lst.remove(old)
        self.modules[path] = summary
        self._by_name.setdefault(summary.name, []).append(summary)
        iface = interface_of(summary)
        if old is None or self._interfaces.get(path) != iface:
            self._root_cache.clear()  # names, classes or call targets changed: every root may differ
        else:
            for key, (_, deps) in list(self._root_cache.items()):
                if deps is None or path in deps:
                    del self._root_cache[key]
        self._interfaces[path] = iface
        self._invalidate()

    def remove_module(self, path: str) -> None:
        old = self.modules.pop(path, None)
        if old is not None:
            lst = self._by_name.get(old.name, [])
            if old in lst:
                lst.remove(old)
            self._interfaces.pop(path, None)
            self._root_cache.clear()
            self._invalidate()

    def _invalidate(self) -> None:
        self._fn_index = None
        self._guard_memo = {}
        self._memo = {}
        self._findings = None

    @property
    def fn_index(self) -> dict[str, tuple[FunctionSummary, ModuleSummary]]:
        if self._fn_index is None:
            idx: dict[str, tuple[FunctionSummary, ModuleSummary]] = {}
            for m in list(self.modules.values()):
                for q, fs in m.functions.items():
                    idx.setdefault(q, (fs, m))
            self._fn_index = idx
        return self._fn_index

    # ---- name resolution -----------------------------------------------------------------------
    def _module(self, name: str, near: str | None = None) -> ModuleSummary | None:
        cands = self._by_name.get(name)
        if not cands:
            return None
        if len(cands) > 1 and near:
            d = os.path.dirname(near)
            for c in cands:
                if os.path.dirname(c.path) == d:
                    return c
        return cands[0]

    def lookup(self, q: str, near: str | None = None, _depth: int = 0):
        """q -> ("function", fs, mod) | ("class", cs, mod) | ("module", mod) | None."""
        if _depth:
            return self._lookup(q, near, _depth)
        key = ("lookup", q, near)
        memo = self._memo
        if key in memo:
            return memo[key]
        r = self._lookup(q, near, 0)
        memo[key] = r  # (into the dict current at the start: a lazy library load may replace it)
        return r

    def _lookup(self, q: str, near: str | None, _depth: int):
        if not q or _depth > 12:
            return None
        hit = self.fn_index.get(q)
        if hit is not None:
            return ("function", hit[0], hit[1])
        parts = q.split(".")
        for i in range(len(parts), 0, -1):
            mname = ".".join(parts[:i])
            mod = self._module(mname, near)
            if mod is None and self.module_loader is not None and mname not in self._load_attempted:
                self._load_attempted.add(mname)
                if self.module_loader(mname):
                    # start over: the new module's functions are found through the function index
                    return self._lookup(q, near, _depth + 1)
            if mod is None:
                continue
            rest = parts[i:]
            if not rest:
                return ("module", mod)
            cq = f"{mod.name}.{rest[0]}"
            if cq in mod.classes:
                cs = mod.classes[cq]
                if len(rest) == 1:
                    return ("class", cs, mod)
                fq = self.find_method(cs.qualname, rest[1])
                if fq is not None and len(rest) == 2:
                    return ("function", fq[0], fq[1])
                return None
            b = mod.bindings.get(rest[0])
            if b is not None and b[0] == "ref" and b[1] and b[1] != q:
                target = ".".join([b[1], *rest[1:]])
                if target != q:
                    return self.lookup(target, mod.path, _depth + 1)
            for star in mod.star_imports:
                if self.may_define is not None and self._module(star, mod.path) is None and \
                        not self.may_define(star, rest[0]):
                    continue
                r = self.lookup(".".join([star, *rest]), mod.path, _depth + 1)
                if r is not None:
                    return r
            return None
        return None

    def instance_binding(self, q: str, near: str | None = None, _depth: int = 0) -> tuple[str, str] | None:
        """("module.name", class) if q is a module-level name of a project module bound to an
        instance of class (following imports and re-exports), else None."""
        key = ("instance", q, near)
        memo = self._memo
        if key in memo:
            return memo[key]
        r = None
        parts = q.split(".")
        for i in range(len(parts) - 1, 0, -1):
            mod = self._module(".".join(parts[:i]), near)
            if mod is None:
                continue
            if i == len(parts) - 1 and _depth < 12:
                name = parts[-1]
                b = mod.bindings.get(name)
                if b is not None and b[0] == "instance" and b[1]:
                    r = (f"{mod.name}.{name}", b[1])
                elif b is not None and b[0] == "ref" and b[1] and b[1] != q:
                    r = self.instance_binding(b[1], mod.path, _depth + 1)
                elif b is None:
                    for star in mod.star_imports:
                        r = self.instance_binding(f"{star}.{name}", mod.path, _depth + 1)
                        if r is not None:
                            break
            break
        memo[key] = r
        return r

    def function(self, q: str, near: str | None = None) -> tuple[FunctionSummary, ModuleSummary] | None:
        r = self.lookup(q, near)
        if r is not None and r[0] == "function":
            return r[1], r[2]
        return None

    def class_(self, q: str, near: str | None = None) -> tuple[ClassSummary, ModuleSummary] | None:
        r = self.lookup(q, near)
        if r is not None and r[0] == "class":
            return r[1], r[2]
        return None

    def mro(self, class_q: str, near: str | None = None) -> list[tuple[ClassSummary, ModuleSummary]]:
        """The class and its bases (project classes only), nearest first.  Shared: do not mutate."""
        key = ("mro", class_q, near)
        memo = self._memo
        if key not in memo:
            memo[key] = self._mro(class_q, near)
        return memo[key]

    def _mro(self, class_q: str, near: str | None) -> list[tuple[ClassSummary, ModuleSummary]]:
        out: list[tuple[ClassSummary, ModuleSummary]] = []
        seen: set[str] = set()

        def visit(q: str, near_: str | None, depth: int) -> None:
            if depth > 32 or q in seen:
                return
            c = self.class_(q, near_)
            if c is None:
                return
            seen.add(c[0].qualname)
            out.append(c)
            for b in c[0].bases:
                visit(b, c[1].path, depth + 1)

        visit(class_q, near, 0)
        return out

    def bases_closure(self, class_q: str, near: str | None = None) -> set[str]:
        """Every base named anywhere in the hierarchy (external ones included)."""
        out: set[str] = set()
        for cs, _ in self.mro(class_q, near):
            out.update(b for b in cs.bases if b)
        return out

    def is_nn_module(self, class_q: str, near: str | None = None) -> bool:
        """nn.Module or a subclass, also through torch's own layers (`class Safe(nn.BatchNorm1d)`)."""
        return any(V.is_torch_module_class(b) for b in self.bases_closure(class_q, near))

    def is_autograd_function(self, class_q: str, near: str | None = None) -> bool:
        return bool(V.AUTOGRAD_FUNCTION & self.bases_closure(class_q, near))

    def find_method(self, class_q: str, name: str, near: str | None = None, skip_first: bool = False):
        chain = self.mro(class_q, near)
        if skip_first:
            chain = chain[1:]
        for cs, mod in chain:
            fq = cs.methods.get(name)
            if fq and fq in mod.functions:
                replaced = self._replaced_by_decorator(cs, mod, name) if cs.decorators else None
                return replaced or (mod.functions[fq], mod)
        return None

    def _replaced_by_decorator(self, cs: ClassSummary, mod: ModuleSummary, name: str):
        """A class decorator that sets `cls.<name> = <its local function>` (transformers'
        @use_experts_implementation replaces `forward` by a dispatcher): that function."""
        for q, called in cs.decorators:
            hit = self.function(q, mod.path)
            todo, seen = ([hit] if hit is not None else []), set()
            while todo:  # the decorator, and what it returns (`@deco(...)`, the optional-argument idiom)
                fs, fmod = todo.pop()
                if fs.qualname in seen or len(seen) > 8:
                    continue
                seen.add(fs.qualname)
                if name in fs.replaces:
                    return self._local_fn(fs.replaces[name], fmod)
                todo.extend(x for x in (self._local_fn(g, fmod) for _, g in fs.returns_fns) if x is not None)
        return None

    def attr_types(self, class_q: str, attr: str, near: str | None = None, containers: bool = False) -> list[str]:
        out: list[str] = []
        for cs, _ in self.mro(class_q, near):
            src = cs.containers if containers else cs.attrs
            for t in src.get(attr, ()):
                if t not in out:
                    out.append(t)
        return out

    def is_guard(self, q: str, _stack: frozenset = frozenset()) -> bool:
        if q in V.GUARD_FUNCTIONS:
            return True
        if q in self._guard_memo:
            return self._guard_memo[q]
        if q in _stack:
            return False
        res = False
        hit = self.function(q)
        if hit is not None and hit[0].guard_atoms is not None:
            res = all(self.is_guard(a, _stack | {q}) for a in hit[0].guard_atoms)
        self._guard_memo[q] = res
        return res

    def dead(self, dead_if) -> bool:
        return any(all(self.is_guard(a) for a in conj) for conj in dead_if)

    # ---- calls ---------------------------------------------------------------------------------
    def module_call(self, class_q: str, near: str | None):
        """Calling an instance of class_q: nn.Module -> forward (+ hooks); otherwise __call__.
        Shared: do not mutate."""
        key = ("module_call", class_q, near)
        memo = self._memo
        if key not in memo:
            memo[key] = self._module_call(class_q, near)
        return memo[key]

    def _module_call(self, class_q: str, near: str | None):
        if self.class_(class_q, near) is None:
            return []
        out = []
        name = "forward" if self.is_nn_module(class_q, near) else "__call__"
        m = self.find_method(class_q, name, near)
        if m is not None:
            out.append(m)
        out.extend(self.hooks_of(class_q, near))
        return out

    def hooks_of(self, class_q: str, near: str | None):
        out = []
        names = {cs.qualname for cs, _ in self.mro(class_q, near)}
        for mod in list(self.modules.values()):
            for owner, target in mod.hooks:
                okind, oq, oattr = owner
                owners = [oq] if okind == "class" else self.attr_types(oq, oattr, mod.path)
                if not names.intersection(self._class_qualnames(owners, mod.path)):
                    continue
                tkind, tq, tattr = target
                if tkind == "call":
                    hit = self.function(tq, mod.path)
                else:
                    hit = self.find_method(tq, tattr, mod.path)
                if hit is not None:
                    out.append(hit)
        return out

    def _class_qualnames(self, qs: Iterable[str], near: str | None) -> set[str]:
        out = set()
        for q in qs:
            c = self.class_(q, near)
            if c is not None:
                out.add(c[0].qualname)
        return out

    def resolve_edge(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """The functions a call edge of `mod` may run.  Shared: do not mutate."""
        key = ("edge", e.kind, e.target, e.attr, mod.path)
        memo = self._memo
        if key not in memo:
            memo[key] = self._resolve_edge(e, mod)
        return memo[key]

    def _resolve_edge(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        near = mod.path
        k = e.kind
        if k == "call":
            r = self.lookup(e.target, near)
            if r is None:
                parent, _, last = e.target.rpartition(".")
                if last == "apply" and parent and self.class_(parent, near) and \
                        self.is_autograd_function(parent, near):
                    m = self.find_method(parent, "forward", near)
                    return [m] if m else []
                if registry.call_rules(e.target) is None:  # known breaks are reported, not "unresolved"
                    self.unresolved_calls[e.target] = self.unresolved_calls.get(e.target, 0) + 1
                return []
            if r[0] == "function":
                return [(r[1], r[2])]
            if r[0] == "class":
                m = self.find_method(r[1].qualname, "__init__", r[2].path)
                return [m] if m else []
            return []
        if k == "method":
            if e.attr == "apply" and self.is_autograd_function(e.target, near):
                m = self.find_method(e.target, "forward", near)
            else:
                m = self.find_method(e.target, e.attr or "", near)
            if m is not None:
                # `self.loss_function(...)`, a @property: its getter runs, then what it returns is called
                return [m, *self._property_results(e, mod)]
            # self.sub(x) where self.sub = Sub(...): calling a module held in an attribute; calling an
            # nn.Sequential (a container attribute) calls each of its modules
            out = []
            types = self.attr_types(e.target, e.attr or "", near)
            types += [t for t in self.attr_types(e.target, e.attr or "", near, containers=True) if t not in types]
            for t in types:
                out.extend(self.module_call(t, near))
            return out
        if k == "super":
            m = self.find_method(e.target, e.attr or "", near, skip_first=True)
            return [m] if m else []
        if k == "module_call":
            return self.module_call(e.target, near)
        if k == "factory_call":
            hit = self.function(e.target, near)
            if hit is not None and hit[0].returns_instance:
                return self.module_call(hit[0].returns_instance, hit[1].path)
            return self._registry_targets(e, mod)
        if k == "registry_call":
            return self._registry_targets(e, mod)
        if k in ("attr_call", "item_call"):
            out = []
            types = self.attr_types(e.target, e.attr or "", near, containers=(k == "item_call"))
            if k == "item_call":
                types += [t for t in self.attr_types(e.target, e.attr or "", near) if t not in types]
            for t in types:
                out.extend(self.module_call(t, near))
            if k == "attr_call" and not types:
                # self.fn = some_function; self.fn(x)
                pass
            return out
        if k == "attr_method":
            attr, _, meth = (e.attr or "").partition(".")
            out = []
            for t in self.attr_types(e.target, attr, near):
                m = self.find_method(t, meth, near)
                if m:
                    out.append(m)
            return out
        return []

    def _registry_targets(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """Calling what a registry's lookup returned: `fn = ATTENTION.get_interface(key, default); fn(...)`
        (a method of a class holding a class-level dict of functions) or `ATTENTION[key](...)`: any of
        the functions in the class's dicts."""
        if e.kind == "factory_call":
            hit = self.function(e.target, mod.path)
            cls = hit[0].class_qualname if hit is not None else None
            near = hit[1].path if hit is not None else mod.path
            if hit is None:  # `ATTENTION.get_interface` with ATTENTION a module-level instance
                bound = self.instance_binding(e.target.rpartition(".")[0], mod.path)
                cls = bound[1] if bound is not None else None
        else:
            cls, near = e.target, mod.path
        if not cls:
            return []
        out = []
        for cs, cmod in self.mro(cls, near):
            for fns in cs.registries.values():
                for q in fns:
                    f = self.function(q, cmod.path)
                    if f is not None and f not in out:
                        out.append(f)
        return out

    def _property_results(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """The functions a @property getter returns, when a call `self.name(...)` calls its value: those
        of the module-level dicts it returns an entry of (`return LOSS_MAPPING[key]`)."""
        if e.kind != "method" or not any(e.attr in cs.properties for cs, _ in self.mro(e.target, mod.path)):
            return []
        m = self.find_method(e.target, e.attr or "", mod.path)
        out: list = []
        for reg in (m[0].returns_registry if m is not None else ()):
            owner = self._module(reg.rpartition(".")[0], m[1].path)
            if owner is None and self.module_loader is not None:
                self.lookup(reg, m[1].path)  # loads a followed library's module
                owner = self._module(reg.rpartition(".")[0], m[1].path)
            for q in (owner.registries.get(reg.rpartition(".")[2], ()) if owner is not None else ()):
                f = self.function(q, owner.path)
                if f is not None and f not in out:
                    out.append(f)
        return out

    def wrappers(self, fs: FunctionSummary, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary,
                                                                             Span]]:
        """The wrapper functions fs's decorators replace it by (they run first when it is called, and
        Dynamo traces them): `def deco(f): def wrapper(...): ...; return wrapper`, decorator factories
        (`@deco(arg)`), and the optional-argument idiom `def deco(f=None, *, opt=1)` (memoised)."""
        if not fs.wrapped_by:
            return []
        key = ("wrappers", fs.qualname, mod.path)
        memo = self._memo
        if key not in memo:
            out = []
            for q, called, span in fs.wrapped_by:
                hit = self.function(q, mod.path)
                if hit is None:
                    continue
                # `@d(...)`: d(...) returns the decorator (its local functions); `@d`: d is the decorator
                decorators = [self._local_fn(g, hit[1]) for k, g in hit[0].returns_fns if k == "local"] \
                    if called else [hit]
                for dec in decorators:
                    if dec is not None:
                        out.extend((w, wmod, span) for w, wmod in self._applied(dec, 0))
            memo[key] = out
        return memo[key]

    def _local_fn(self, q: str, mod: ModuleSummary) -> tuple[FunctionSummary, ModuleSummary] | None:
        fs = mod.functions.get(q)
        return (fs, mod) if fs is not None else None

    def _applied(self, dec: tuple[FunctionSummary, ModuleSummary], depth: int):
        """What decorator `dec` returns when applied to a function: its local function (the wrapper),
        or, for `return inner(f)`, what inner returns -- preferring that form, which is how the
        optional-argument idiom handles a bare `@d`."""
        dfs, dmod = dec
        calls = [g for k, g in dfs.returns_fns if k == "call"]
        if calls and depth < 4:
            for g in calls:
                inner = self._local_fn(g, dmod)
                if inner is not None:
                    yield from self._applied(inner, depth + 1)
            return
        for k, g in dfs.returns_fns:
            w = self._local_fn(g, dmod) if k == "local" else None
            if w is not None:
                yield w

    # ---- roots ---------------------------------------------------------------------------------
    def roots(self) -> list[RootRecord]:
        out: list[RootRecord] = []
        for mod in list(self.modules.values()):
            for decl in mod.roots:
                out.append(self._root_record(decl, mod))
        for spec in self.config.roots:
            rec = self._config_root(spec)
            if rec is not None:
                out.append(rec)
        return out

    def unresolved_roots(self) -> list[tuple[str, str, Span, str]]:
        """torch.compile calls in user code whose target the analysis cannot see: (label, path, span,
        why), why "unresolved" (what is compiled is not visible) or "not found" (named, not found)."""
        out = []
        for mod in self.modules.values():
            if getattr(mod, "library", False):
                continue
            out.extend((label, mod.path, span, "unresolved") for label, span in mod.unresolved_roots)
        out.extend((r.decl.label, r.mod.path, r.decl.span, "not found") for r in self.roots()
                   if not r.entries and not getattr(r.mod, "library", False))
        return sorted(out, key=lambda u: (u[1], u[2]))

    def _root_record(self, decl: RootDecl, mod: ModuleSummary) -> RootRecord:
        near = mod.path
        entries: list[tuple[FunctionSummary, ModuleSummary]] = []
        if decl.kind == "function":
            hit = self.function(decl.target, near)
            if hit is not None:
                entries.append(hit)
            else:
                c = self.class_(decl.target, near)
                if c is not None:
                    entries.extend(self.module_call(c[0].qualname, near))
        elif decl.kind == "module":
            entries.extend(self.module_call(decl.target, near))
        elif decl.kind == "container":
            for t in decl.target.split("|"):
                entries.extend(e for e in self.module_call(t, near) if e not in entries)
        elif decl.kind == "factory":
            hit = self.function(decl.target, near)
            if hit is not None and hit[0].returns_instance:
                entries.extend(self.module_call(hit[0].returns_instance, hit[1].path))
            elif hit is None and self.class_(decl.target, near) is not None:
                entries.extend(self.module_call(decl.target, near))
        elif decl.kind == "method":
            m = self.find_method(decl.target, decl.attr or "", near)
            if m is not None:
                entries.append(m)
        elif decl.kind == "attr":
            for t in self.attr_types(decl.target, decl.attr or "", near):
                entries.extend(self.module_call(t, near))
            if not entries:  # `torch.compile(self._compute)`: a bound method
                m = self.find_method(decl.target, decl.attr or "", near)
                if m is not None:
                    entries.append(m)
        info = None
        if entries:
            info = RootInfo(qualname=entries[0][0].qualname, label=decl.label,
                            location=Location(mod.path, decl.span), fullgraph=decl.fullgraph)
        return RootRecord(decl, mod, entries, info)

    def _config_root(self, spec: str) -> RootRecord | None:
        text = spec.strip()
        fullgraph = True
        if text.endswith("@graphbreaks"):
            text, fullgraph = text[: -len("@graphbreaks")], False
        modname, _, obj = text.partition(":")
        q = f"{modname}.{obj}" if obj else modname
        r = self.lookup(q)
        if r is None:
            return None
        entries = []
        if r[0] == "function":
            entries.append((r[1], r[2]))
            mod = r[2]
            span = r[1].name_span
        elif r[0] == "class":
            entries.extend(self.module_call(r[1].qualname, r[2].path))
            mod = r[2]
            span = r[1].name_span
        else:
            return None
        decl = RootDecl("config", q, None, fullgraph, f"roots = [\"{spec}\"] (config)", span)
        info = RootInfo(qualname=entries[0][0].qualname if entries else q, label=decl.label,
                        location=Location(mod.path, span), fullgraph=fullgraph) if entries else None
        return RootRecord(decl, mod, entries, info)

    # ---- findings ------------------------------------------------------------------------------
    def findings(self, paths: Iterable[str] | None = None) -> list[Finding]:
        """Findings in `paths` (all when None).  Computed for the whole project once per generation
        (the roots of one file reach into others); each call gets its own copies to annotate."""
        if self._findings is None:
            self._findings = self._all_findings()
        want = set(paths) if paths is not None else None
        out = []
        for f in self._findings:
            if want is None or f.path in want:
                c = copy.copy(f)
                c.data = dict(f.data)
                out.append(c)
        return out

    def _program_settings(self, root_mod: ModuleSummary) -> tuple[frozenset, frozenset, frozenset, frozenset]:
        """Dynamo settings that apply to a root: those made in its own program, i.e. in modules connected
        to the root's module by imports (it imports them, or they import it, transitively); a script
        elsewhere in the checked tree configures its own program, not this one.
        (ignored functions, reorderable functions, allow_in_graph targets, torch._dynamo.config values)"""
        ignored, reorderable, allowed, config = set(), set(), set(), set()
        for m in self._setters():
            if m is root_mod or m.path in self._imports_closure(root_mod) or \
                    root_mod.path in self._imports_closure(m):
                ignored |= m.ignored
                reorderable |= m.reorderable
                allowed |= m.allow_in_graph
                config |= m.dynamo_config
        return frozenset(ignored), frozenset(reorderable), frozenset(allowed), frozenset(config)

    def _setters(self) -> list[ModuleSummary]:
        memo = self._memo
        if "setters" not in memo:
            memo["setters"] = [m for m in self.modules.values()
                               if m.ignored or m.reorderable or m.allow_in_graph or m.dynamo_config]
        return memo["setters"]

    def _imports_closure(self, mod: ModuleSummary) -> frozenset[str]:
        """Paths of the loaded modules `mod` imports, transitively (memoised)."""
        memo = self._memo.setdefault("imports_closure", {})
        hit = memo.get(mod.path)
        if hit is None:
            seen: set[str] = set()
            todo = [mod]
            while todo:
                for dep in self._imported(todo.pop()):
                    if dep.path not in seen and dep is not mod:
                        seen.add(dep.path)
                        todo.append(dep)
            hit = memo[mod.path] = frozenset(seen)
        return hit

    def _imported(self, m: ModuleSummary) -> list[ModuleSummary]:
        """The loaded modules `m` imports (memoised: each closure walks most of a large tree's modules)."""
        memo = self._memo.setdefault("imported", {})
        hit = memo.get(m.path)
        if hit is None:
            hit = []
            for name in m.imports:
                dep = self._module(name, m.path) or self._module(name.rpartition(".")[0], m.path)
                if dep is not None:
                    hit.append(dep)
            memo[m.path] = hit
        return hit

    def _all_findings(self) -> list[Finding]:
        version = self.config.torch()
        best: dict[tuple, Finding] = {}

        for root in self.roots():
            if not root.entries or root.info is None:
                continue
            ignored, reorderable, allowed, dynamo_config = self._program_settings(root.mod)
            key = (_root_key(root), ignored, reorderable, allowed)
            hit = self._root_cache.get(key)
            if hit is None:
                hit = self._root_cache[key] = self._root_findings(root, version, ignored, reorderable, allowed)
            for f in hit[0]:
                rule = registry.BY_CODE.get(f.code)
                if dynamo_config and rule is not None and rule.silenced_by(dynamo_config, f.data):
                    continue  # e.g. capture_scalar_outputs = True, set in this root's program
                _keep_best(best, f)
        echoes: dict[tuple, Finding] = {}
        for f in sorted(best.values(), key=_rank):
            mod = self.modules.get(f.path)
            if mod is None or not getattr(mod, "library", False):
                continue
            # a break inside a followed library: reported at the user's call that reaches it (the
            # last call on the path made from user code, else the torch.compile call itself), one
            # finding per line and code listing every library site behind it
            where = None
            for step in reversed(f.call_path):
                cmod = self.modules.get(step.call.path) if step.call is not None else None
                if cmod is not None and not getattr(cmod, "library", False):
                    where = step.call
                    break
            if where is None and f.root is not None:
                rmod = self.modules.get(f.root.location.path)
                if rmod is not None and not getattr(rmod, "library", False):
                    where = f.root.location
            if where is None:
                # a root inside the library itself (`--root pkg.mod:Cls.forward`): no user line to
                # report it at, so the library finding is shown as it is
                best[_place(f)] = dataclasses.replace(f, data={**f.data, "shown_in_library": True})
                continue
            site = LibrarySite(f.path, f.span, f.code, f.message, f.condition)
            # one finding per line, code and kind: the library's unconditional breaks apart from those on
            # conditional paths (a shown finding lists only sites that break in the default call)
            key = (where.path, where.span, f.code, f.condition is None)
            echo = echoes.get(key)
            if echo is not None:
                echo.library_sites.append(site)
                continue
            echoes[key] = Finding(path=where.path, code=f.code, name=f.name, severity=f.severity, span=where.span,
                                  message="", root=f.root, call_path=f.call_path, gb_codes=f.gb_codes, url=f.url,
                                  data={"library_finding": True}, library_sites=[site], condition=f.condition)
        for echo in sorted(echoes.values(), key=lambda e: e.condition is not None):  # shown ones first
            first, n = echo.library_sites[0], len(echo.library_sites)
            modname = self.modules[first.path].name
            where = f"{modname}:{first.span.start.line + 1}: {first.message}" + (f"; and {n - 1} more" if n > 1 else "")
            echo.message = (f"{'graph break' if n == 1 else f'{n} graph breaks'} inside {modname.split('.')[0]} "
                            f"({where}), reached from your code here")
            umod = self.modules.get(echo.path)
            if not self.config.code_enabled(echo.code) or (umod is not None and _suppressed(umod, echo)):
                continue
            cur = best.get(_place(echo))
            if echo.condition is not None and cur is not None and cur.condition is None:
                # the default call breaks at this line too: the library's conditional sites behind it
                # stay in the output as their own (conditional) finding
                best[(*_place(echo), "conditional")] = echo
            else:
                _keep_best(best, echo)
        return sorted(best.values(), key=Finding.sort_key)

    def _root_findings(self, root: RootRecord, version, ignored: set[str], reorderable: set[str],
                       allowed: set[str]) -> tuple[list[Finding], frozenset[str] | None]:
        """The findings one root reaches, and the modules they were read from (None: from all)."""
        found: dict[tuple, Finding] = {}
        deps: set[str] | None = {root.mod.path}

        def emit(f: Finding) -> None:
            if not self.config.code_enabled(f.code):
                return
            mod = self.modules.get(f.path)
            if mod is not None and _suppressed(mod, f):
                return
            _keep_best(found, f)

        fg = root.decl.fullgraph
        fg408, fg506 = registry.BY_CODE["FG408"], registry.BY_CODE["FG506"]
        severity = ERROR if fg else WARNING
        for fs, mod in root.entries[:1]:
            if fs.is_generator and _applies(registry.BY_CODE["FG401"], version, fg):
                emit(self._make(registry.BY_CODE["FG401"], root.mod.path, root.decl.span,
                                f"`{fs.name}` is a generator; torch.compile cannot compile generators",
                                severity, root, [Step(fs.qualname, None)]))
            if fs.is_async:
                emit(self._make(registry.BY_CODE["FG402"], root.mod.path, root.decl.span,
                                f"`{fs.name}` is `async def`; torch.compile cannot compile coroutines",
                                severity, root, [Step(fs.qualname, None)]))
        facts: dict[str, FrameFacts] = {}

        def own(r: Reached, block, rule, span, message, data, when) -> None:
            # a finding of the function `r` itself, placed once the frames pass has seen them all
            facts[r.fs.qualname].own.append((span.start.line, block, when, (rule, span, message, data)))

        for r in self._reach(root, allowed, ignored):
            if deps is not None:
                deps.add(r.mod.path)
            facts[r.fs.qualname] = FrameFacts(r.fs.name, tuple(r.fs.params), r.mod.path, r.path,
                                              r.fs.comprehensions)
            attr_of = self._self_attr_reader(r.fs, r.mod)
            lib = getattr(r.mod, "library", False)
            for site in r.fs.sites:
                if site.dead_if and self.dead(site.dead_if):
                    continue
                when = C.check(site.conds, r.env, attr_of, lib) if site.conds else ()
                if when is None:
                    continue  # a flag known false: Dynamo never traces it
                data = site.data
                if site.requires is not None:
                    how, q, cls = site.requires
                    if how == "returns":
                        made = self.function(q, r.mod.path)
                        if made is None or made[0].returns_instance != cls:
                            continue
                    else:
                        obj = self.instance_binding(q, r.mod.path)
                        if obj is None or obj[1] != cls:
                            continue
                        m = (site.callee or "").rpartition(".")[2]
                        data = {**data, "receiver": f"{obj[0]}\x00{m}"}
                        if f"{obj[0]}.{m}" in ignored or f"{q}.{m}" in ignored:
                            continue
                if "module_attr" in data and not self._attr_holds_module(r.fs, r.mod, data["module_attr"]):
                    continue  # the rule's break needs `self.<attr>` to be a module (Report data)
                if site.callee and (site.callee in ignored or data.get("receiver") in ignored):
                    continue
                if site.callee and site.callee in reorderable and site.data.get("reorderable"):
                    continue
                rule = registry.BY_CODE.get(site.code)
                if rule is None or not _applies(rule, version, fg) or not rule.holds(data, version):
                    continue
                if site.callee:
                    data = {"callee": site.callee, **data}
                own(r, site.block, rule, site.span, site.message, {**data, "stmt": site.stmt},
                    C.merge(r.cond, when))
            for e in r.fs.edges:
                if e.dead_if and self.dead(e.dead_if):
                    continue
                when = C.check(e.conds, r.env, attr_of, lib) if e.conds else ()
                if when is None:
                    continue
                for rule, message, data in self._torch_receiver_breaks(e, r, version):
                    own(r, e.block, rule, e.span, message, data, C.merge(r.cond, when))
                if e.kind == "tensor_hook":
                    hook = self.find_method(e.target, e.attr, r.mod.path) if e.attr else \
                        self.function(e.target, r.mod.path)
                    if hook is not None and hook[0].effects and _applies(fg506, version, fg):
                        hfs, hmod = hook
                        span, text = hfs.effects[0]  # the first one is where Dynamo stops
                        emit(self._make(fg506, hmod.path, span,
                                        f"`{text}` in the tensor hook `{hfs.name}` changes state outside the hook; "
                                        f"Dynamo traces the hook when `{e.text}(...)` registers it and cannot keep "
                                        "that side effect (\"HOP: Unsafe side effect\")", severity, root,
                                        r.path + [Step(hfs.qualname, Location(r.mod.path, e.span))],
                                        data={"hook": hfs.qualname}, when=C.merge(r.cond, when)))
                    continue
                if e.kind == "outside_ctx":
                    made = self._outside_context(e, r)
                    if made is not None and _applies(fg408, version, fg):
                        # a break at a `with` is not resumed (engine/frames.py): the rest runs uncompiled
                        own(r, e.block if e.block is not None else e.span.start.line, fg408, e.span,
                            f"`with {e.text}:` enters a `{made.rsplit('.', 1)[-1]}` made before the compiled code ran; "
                            "Dynamo enters only the context managers it creates while tracing "
                            "(\"Unsupported context manager\")", {"class": made}, C.merge(r.cond, when))
                    continue
                targets = []
                for tfs, tmod in self._edge_targets(e, r):
                    targets.append(tfs.qualname)
                    if tfs.disabled and tfs.compiled is None and tfs.qualname not in reorderable:
                        own(r, e.block, registry.BY_CODE["FG202"], e.span,
                            f"`{tfs.name}` is decorated with torch.compiler.disable; calling it "
                            f"from compiled code breaks the graph ({V.DISABLE_GB[tfs.disabled]})",
                            {"callee": tfs.qualname}, C.merge(r.cond, when))
                if not targets and r.wraps and e.kind == "param_call" and ":" in e.target:
                    targets.append(r.wraps)  # the wrapper's `func(*args, **kwargs)`: the function it wraps
                facts[r.fs.qualname].calls.append((e.span.start.line, e.block, C.merge(r.cond, when), targets))
                if e.with_item and e.attr != "__enter__":
                    facts[r.fs.qualname].with_calls.append((e.span, e.text, C.merge(r.cond, when), targets))
            if r.fs.iter_uses:
                callers = self.callers_index()
                for use in r.fs.iter_uses:
                    if use.dead_if and self.dead(use.dead_if):
                        continue
                    src = self._iterator_passed(r.fs, use, callers)
                    if src is None:
                        continue
                    deps = None  # the message names a call site in whichever module passes the iterator
                    rule = registry.BY_CODE["FG403"]
                    if not _applies(rule, version, fg):
                        continue
                    emit(self._make(rule, r.mod.path, use.span,
                                    f"`{use.param}` is an iterator passed in from outside (at {src}); "
                                    f"`{use.how}` on it cannot be traced",
                                    severity, root, r.path, data={"param": use.param, "how": use.how},
                                    when=r.cond))
        self._place_frames(Frames(facts), root, version, severity, emit)
        return list(found.values()), (frozenset(deps) if deps is not None else None)

    def _place_frames(self, frames: Frames, root: RootRecord, version, severity, emit) -> None:
        """Each function's own findings, with what an unresumable break does to the rest of it
        (engine/frames.py): the breaks it hides become conditional on its fix; comprehensions
        compiled as frames of their own get FG405."""
        fg = root.decl.fullgraph
        fg405, fg408 = registry.BY_CODE["FG405"], registry.BY_CODE["FG408"]
        if not fg and _applies(fg408, version, fg):
            made = {q: [(span.start.line, span.start.line, when,
                         (fg408, span, f"`{text}(...)` breaks the graph while making this context manager; Dynamo "
                                       "resumes with an object it did not create and cannot enter it (\"Unsupported "
                                       "context manager\")", {"made_by": text}))
                        for span, text, when in frames.unenterable(q)] for q in frames.facts}
            for q, entries in made.items():
                if entries:
                    frames.add_own(q, entries)
        for q, facts in frames.facts.items():
            hidden = frames.hidden(q) if not fg else None
            for line, _block, when, (rule, span, message, data) in facts.own:
                if hidden is not None and line in hidden[1]:
                    fixed_first = (f"the graph break at line {hidden[0] + 1} is fixed (until then Dynamo runs "
                                   f"the rest of `{facts.name}` uncompiled)")
                    when = C.merge(when, (fixed_first,))
                emit(self._make(rule, facts.path, span, message, severity, root, facts.steps, data=data, when=when))
            if fg or not _applies(fg405, version, fg):
                continue
            for span, when, line in frames.comprehension_frames(q):
                emit(self._make(fg405, facts.path, span,
                                f"after the graph break at line {line + 1} Dynamo runs `{facts.name}` uncompiled; "
                                "this comprehension is then compiled as a frame of its own, and Dynamo cannot "
                                "step the iterator it is given (\"Missing tp_iternext\")",
                                severity, root, facts.steps, when=when))

    def _reach(self, root: RootRecord, allowed: set[str], ignored: set[str]) -> Iterable[Reached]:
        seen: dict[str, tuple] = {}  # function -> the condition it was reached with
        queue: deque[Reached] = deque()
        for fs, mod in root.entries:
            if fs.qualname not in seen:
                seen[fs.qualname] = ()
                env = C.entry_env(fs.defaults, self._root_calls(root, fs), fs.params, fs.is_method, fs.positional,
                                  fs.annotated)
                if root.decl.training is not None:
                    env[C.TRAINING] = (root.decl.training, C.KNOWN)
                env.update(self._closure_env(fs))
                queue.append(Reached(self._with_tensor_params(fs, mod, env), mod, [Step(fs.qualname, None)], env))
        while queue:
            r = queue.popleft()
            yield r
            if len(r.path) >= _MAX_DEPTH:
                continue
            for w, wmod, span in self.wrappers(r.fs, r.mod):
                # calling r.fs runs its decorators' wrappers (which then call it)
                if w.qualname not in seen and not (w.opaque or w.disabled):
                    seen[w.qualname] = r.cond
                    queue.append(Reached(w, wmod, r.path + [Step(w.qualname, Location(r.mod.path, span))],
                                         C.callee_env(None, r.env, [], False, {}), r.cond, wraps=r.fs.qualname))
            attr_of = self._self_attr_reader(r.fs, r.mod)
            lib = getattr(r.mod, "library", False)
            for e in r.fs.edges:
                if e.dead_if and self.dead(e.dead_if):
                    continue
                when = C.check(e.conds, r.env, attr_of, lib) if e.conds else ()
                if when is None:
                    continue  # the call sits behind a flag known false
                picked = {f.qualname for f, _ in self._registry_targets(e, r.mod)} \
                    if e.kind in ("factory_call", "registry_call") else \
                    {f.qualname for f, _ in self._property_results(e, r.mod)} if e.kind == "method" else ()
                for tfs, tmod in self._edge_targets(e, r):
                    q = tfs.qualname
                    if tfs.opaque or tfs.disabled or q in allowed or q in ignored:
                        continue
                    if tfs.compiled is not None and q != r.fs.qualname:
                        continue  # another compiled region: its own root covers it
                    # one of a registry's functions: inside a library the lookup's key (configuration)
                    # selects which, a condition like any other unknown test there (conditions.evaluate)
                    chosen = (f"`{e.text}` is `{tfs.name}`",) if q in picked and lib else ()
                    cond = C.merge(C.merge(r.cond, when), chosen)
                    if q in seen:
                        # reached before: walked again only when this path needs less (the first path
                        # found is the shortest, not always the least conditional)
                        cond = C.weaker(seen[q], cond)
                        if cond is None:
                            continue
                    seen[q] = cond
                    env = C.callee_env(self.resolve_fields(e.vals, r.mod.path), r.env, tfs.params, tfs.is_method,
                                       tfs.defaults)
                    tfs = self._with_tensor_params(tfs, tmod, env)
                    queue.append(Reached(tfs, tmod, r.path + [Step(q, Location(r.mod.path, e.span))], env, cond))

    def _edge_targets(self, e: Edge, r: Reached) -> list[tuple[FunctionSummary, ModuleSummary]]:
        if e.kind == "param_call":
            q = self._param_type(e, r)
            return self.module_call(q, r.mod.path) if q else []
        if e.kind == "param_method":
            q = self._param_type(e, r)
            m = self.find_method(q, e.attr or "", r.mod.path) if q else None
            return [m] if m is not None else []
        return self.resolve_edge(e, r.mod)

    def _outside_context(self, e: Edge, r: Reached) -> str | None:
        """The project class with its own `__enter__` of the object an `outside_ctx` edge enters."""
        if e.attr == "@param":
            q = self._param_type(e, r)
            types = [q] if q else []
        elif e.attr is not None:
            types = self.attr_types(e.target, e.attr, r.mod.path)
        else:
            types = [e.target]
        for t in types:
            if not t.startswith(("torch.", "builtins.", "contextlib.", "threading.")) and \
                    self.find_method(t, "__enter__", r.mod.path) is not None:
                return t
        return None

    def _torch_receiver_breaks(self, e: Edge, r: Reached, version):
        """Breaks of calls on torch objects whose class only the project can tell (an attribute set in
        `__init__`, a parameter the caller passes): `self.lstm(x)` (FG208), `self.opt.zero_grad()`,
        `opt.zero_grad()` (FG207, from Dynamo's table)."""
        if e.kind not in ("module_call", "attr_call", "attr_method", "method", "param_call", "param_method"):
            return
        attr, _, meth = (e.attr or "").partition(".")  # "method": `self.lstm(x)` calls attribute `lstm`
        if e.kind in ("param_call", "param_method"):
            q = self._param_type(e, r)
            types, attr, meth = ([q] if q else []), "", (e.attr or "")
        elif e.kind == "module_call":
            types = [e.target]
        else:
            types = self.attr_types(e.target, attr, r.mod.path)
        method_call = e.kind in ("attr_method", "param_method")
        for t in types:
            if not t.startswith("torch."):
                continue
            if not method_call and t in V.NO_FAKE_KERNEL_MODULES:
                yield registry.BY_CODE["FG209"], (f"`{e.text}(...)` calls a `CTCLoss` module, which has no "
                                                  "fake-tensor kernel: Dynamo cannot trace it and breaks the graph"), \
                    {"module": t}
            elif not method_call and t in V.RNN_MODULES:
                yield registry.BY_CODE["FG208"], (f"`{e.text}(...)` calls a `{t.rsplit('.', 1)[1]}` module, which "
                                                  "Dynamo does not trace (unless torch._dynamo.config.allow_rnn = "
                                                  "True)"), {"module": t}
            elif method_call and meth == "step" and t.startswith("torch.optim.") and ".lr_scheduler." not in t:
                # FG502's own check sees the receiver's class only when the analyzer knows it (not for
                # `self.opt.step()` or a parameter's `opt.step()`)
                yield registry.BY_CODE["FG502"], STEP_MESSAGE, {}
            elif method_call and (e.kind in ("param_method", "attr_method") or not registry.METHODS.get(meth)):
                # (a rule of the method's own saw only an unknown receiver: a parameter or `self.x`)
                gb = tracetable.breaks(version).get(f"{t}.{meth}")
                if gb:
                    rule = registry.BY_CODE["FG207"]
                    yield rule, rule.describe(f"{e.text}", gb), {"callee": f"{t}.{meth}"}

    def _make(self, rule, path, span, message, severity, root: RootRecord, path_steps, data=None,
              when: tuple[str, ...] = ()) -> Finding:
        condition = " and ".join(when) if when else None
        if condition:
            message = f"{message} (only when {condition})"
            severity = INFO
        return Finding(path=path, code=rule.code, name=rule.name, message=message, severity=severity, span=span,
                       root=root.info, call_path=list(path_steps), gb_codes=tuple(rule.gb_codes),
                       url=rule.url(), data=dict(data or {}), condition=condition)


def _applies(rule, version, fg: bool | None) -> bool:
    if not rule.versions.contains(version):
        return False
    modes = rule.modes(version)
    if fg is True:
        return FULLGRAPH in modes
    if fg is False:
        return PARTIAL in modes
    return modes == BOTH


def _place(f: Finding) -> tuple:
    """What makes two findings the same report: the place and the code."""
    return f.path, f.code, f.span


def _keep_best(found: dict[tuple, Finding], f: Finding) -> None:
    """One finding per place and code: the one from the strictest root, by the shortest path."""
    key = _place(f)
    cur = found.get(key)
    if cur is None or _rank(f) < _rank(cur):
        found[key] = f


def _rank(f: Finding):
    return (f.condition is not None, 0 if f.severity == ERROR else 1, len(f.call_path))


def _suppressed(mod: ModuleSummary, f: Finding) -> bool:
    if not mod.suppressions:
        return False
    lines = {f.span.start.line}
    stmt = f.data.get("stmt")
    if stmt is not None:
        lines.add(stmt.end.line)
        lines.add(stmt.start.line)
    for line in lines:
        if line in mod.suppressions:
            codes = mod.suppressions[line]
            if codes is None or f.code in codes or any(f.code.startswith(c) for c in codes if len(c) < 5):
                return True
    return False


__all__ = ["Project", "Site"]


def _root_key(root: RootRecord) -> tuple:
    d = root.decl
    return (root.mod.path, d.kind, d.target, d.attr, d.fullgraph, d.label, d.span, root.info, d.calls, d.training)


def interface_of(mod: ModuleSummary) -> tuple:
    """Everything about a module that can change findings located in *other* modules: the names it
    binds, its classes, its functions' signatures and decorations, hooks, logging configuration and
    the calls it makes (for iterator arguments) -- not positions, nor function bodies, which only
    matter to the roots that reach into the module (and those are re-walked when it changes)."""
    funcs = tuple(
        (q, f.name, f.class_qualname, tuple(f.params), f.is_generator, f.is_async, f.is_method, f.compiled,
         f.disabled, f.opaque, f.guard_atoms, f.returns_value, f.returns_instance,
         tuple((q, c) for q, c, _ in f.wrapped_by), tuple(f.returns_fns))
        for q, f in mod.functions.items())
    classes = tuple(
        (q, c.name, tuple(c.bases), tuple(c.methods.items()), tuple(c.attrs.items()), tuple(c.containers.items()))
        for q, c in mod.classes.items())
    calls = tuple((c.target, c.is_method_call, c.args, c.kwargs, c.vals) for c in mod.call_sites)
    classes = classes + tuple((q, tuple(c.decorators)) for q, c in mod.classes.items() if c.decorators)
    return (mod.name, getattr(mod, "library", False), funcs, classes, tuple(mod.bindings.items()),
            tuple(mod.star_imports), tuple(sorted(mod.ignored)), tuple(sorted(mod.reorderable)),
            tuple(sorted(mod.allow_in_graph)), tuple(mod.hooks), calls, tuple(sorted(mod.dynamo_config, key=repr)))

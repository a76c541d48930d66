"""The project: module summaries tied together by qualified names, and the findings of its roots.

It is built from parts, each a module with one job:

- engine/contents.py: the module summaries and the per-generation memos;
- engine/resolve.py: name resolution (imports, re-exports, classes) and what a call may run;
- engine/arrivals.py: what arrives at a function (what callers pass, constructions, config defaults);
- engine/roots.py: what each torch.compile call compiles;
- engine/walk.py: the walk from a root through everything it may call;
- engine/findings.py: the findings of each root's walk (with engine/walk_events.py, the rules'
  project hooks, and engine/frames.py).

Module summaries are cached by content, so re-checking after an edit re-analyses only the edited file;
a root's findings are kept until a module its walk read changes, or any module's interface does.
"""
from __future__ import annotations

import copy
from typing import Iterable

from ..config import Config
from ..model import Finding
from ..positions import LineShift, Span
from .arrivals import Arrivals
from . import garbage
from .contents import Contents
from .moved_results import moved
from .findings import FindingsPass
from .resolve import Resolver
from .roots import RootRecord, find_roots, unresolved_roots
from .ruleset import RuleSet
from .summary import Edge, FunctionSummary, ModuleSummary
from .walk import Walker


class Project:
    def __init__(self, config: Config | None, rules: RuleSet):
        self.config = config or Config()
        self.contents = Contents()
        self.resolver = Resolver(self.contents, rules)
        self.arrivals = Arrivals(self.resolver)
        self.walker = Walker(self.resolver, self.arrivals)
        self._pass = FindingsPass(self.contents, self.resolver, self.walker, rules, self.config)
        self._findings: list[Finding] | None = None
        self._unresolved: list[tuple[str, str, Span, str]] | None = None

    # ---- contents ------------------------------------------------------------------------------
    @property
    def modules(self) -> dict[str, ModuleSummary]:
        return self.contents.modules

    def set_module(self, summary: ModuleSummary, shift: LineShift | None = None) -> None:
        """`summary` in place of the module's last one; `shift`: the new text is the last one with blank lines
        added or removed (engine/incremental.py's blank_lines_edit), so this generation's results are the last
        one's with the module's positions moved (engine/moved_results.py), when they can be moved."""
        path = summary.path
        old = self.contents.put(summary)
        garbage.later(old, self._findings)  # (freed once the results are out)
        # names, classes or call targets changed: every root may differ; else only those that read it
        # (a first load forgets them all: no interface computed, no summary's functions read)
        # (a bulk load's summary whose bodies were never read: its interface is not made only to compare it)
        self._pass.forget(None if old is None or old.body_deferred() or not same_interface(old, summary) else path)
        got = None
        if shift is not None and old is not None and self._findings is not None and self._unresolved is not None \
                and not getattr(old, "library", False):
            got = moved(path, shift, self._findings, self._pass.unfollowed_calls, self._unresolved)
        if got is None:
            self._findings = self._unresolved = None
        else:
            # (the roots' cache forgot this module's: the next edit that is not blank lines walks them again)
            self._findings, self._pass.unfollowed_calls, self._unresolved = got

    def remove_module(self, path: str) -> None:
        if self.contents.pop(path) is not None:
            self._pass.forget(None)
            self._findings = self._unresolved = None

    # what the workspace sets: a followed library's modules loaded on demand, and the texts modules
    # were analysed from (functions are analysed again with what their callers pass)
    def follow(self, module_loader, may_define) -> None:
        self.contents.module_loader = module_loader
        self.contents.may_define = may_define

    def name_aliases(self, aliases_of) -> None:
        """`aliases_of(summary)`: the other names a module is imported by (namespace packages)."""
        self.contents.aliases_of = aliases_of

    def find_imports(self, importer) -> None:
        """`importer(name, path)`: the module Python imports by that name from the module at `path`
        (engine/contents.py), or None to fall back to the modules indexed by name."""
        self.contents.importer = importer

    def keep_sources(self, source_of, tree_of) -> None:
        self.arrivals.source_of = source_of
        self.arrivals.tree_of = tree_of

    def forget_base(self, path: str) -> None:
        self.arrivals.forget_base(path)

    def set_base(self, path: str, text_hash: str, an) -> None:
        self.arrivals.set_base(path, text_hash, an)

    # ---- questions of the other layers ---------------------------------------------------------
    def lookup(self, q: str, near: str | None = None):
        return self.resolver.lookup(q, near)

    def function(self, q: str, near: str | None = None) -> tuple[FunctionSummary, ModuleSummary] | None:
        return self.resolver.function(q, near)

    def resolve_edge(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        return self.resolver.resolve_edge(e, mod)

    def callers_index(self):
        return self.arrivals.callers_index()

    def is_generator_fn(self, q: str, near: str) -> bool:
        return self.arrivals.is_generator_fn(q, near)

    @property
    def unresolved_calls(self) -> dict[str, int]:
        return self.resolver.unresolved_calls

    def unfollowed_calls(self) -> list[tuple[str, str, Span, str]]:
        """Calls from compiled code that the walk could not follow: in the user's own modules, a name not
        found in the analysed code (an installed package not followed, a dynamic import), why ""; anywhere
        on the walk, a local whose value is made at run time (`for k, m in self.items(): m(x)`), why
        "value": (name, path, span of its first place, why), by place."""
        self.findings(())  # (the walks of this generation find them)
        return list(self._pass.unfollowed_calls)

    def roots(self) -> list[RootRecord]:
        return find_roots(self.resolver, self.arrivals, self.config)

    def unresolved_roots(self) -> list[tuple[str, str, Span, str]]:
        """What the analysis could not follow: torch.compile calls in user code whose target it cannot see,
        and replaced methods the compiled code calls: (label, path, span, why), why "unresolved" (what is
        compiled is not visible), "not found" (named, not found), "importlib" (in a module imported by a name not
        visible: engine/imported_names.py) or "assigned in `<method>`" (`self.<name>`
        replaced by something not visible, reported at the user's call that reaches it, else at the
        compile call).  Once per generation: the editor asks for every file it shows."""
        if self._unresolved is None:
            self.findings(())  # the walks find the replaced methods
            out = unresolved_roots(self.resolver, self.roots())
            for root, u in self._pass.unfollowed:
                path, span = u.path, u.span
                if getattr(self.modules.get(path), "library", False):
                    path, span = root.mod.path, root.decl.span
                if getattr(self.modules.get(path), "library", False):
                    continue  # a root configured inside a library: no user line to show it at
                item = (u.label, path, span, f"assigned in `{u.where}`" if u.where else "assigned in the class body")
                if item not in out:
                    out.append(item)
            self._unresolved = sorted(out, key=lambda u: (u[1], u[2]))
        return list(self._unresolved)

    # ---- findings ------------------------------------------------------------------------------
    def findings(self, paths: Iterable[str] | None = None) -> list[Finding]:
        """Findings in `paths` (all when None).  Computed for the whole project once per generation
        (the roots of one file reach into others); each call gets its own copies to annotate."""
        if self._findings is None:
            self._findings = self._pass.all_findings(self.roots())
        want = set(paths) if paths is not None else None
        out = []
        for f in self._findings:
            if want is None or f.path in want:
                c = copy.copy(f)
                c.data = dict(f.data)
                out.append(c)
        return out


def interface_of(mod: ModuleSummary) -> tuple:
    """Everything about a module that can change findings located in *other* modules: the names it
    binds, its classes, its functions' signatures and decorations, hooks, logging configuration and
    the calls it makes (for iterator arguments) -- not positions, nor function bodies, which only
    matter to the roots that reach into the module (and those are re-walked when it changes)."""
    funcs = tuple(_function_interface(q, f) for q, f in mod.functions.items())
    classes = tuple(_class_interface(q, c) for q, c in mod.classes.items())
    calls = tuple(_call_interface(c) for c in mod.call_sites)
    classes = classes + tuple((q, tuple(c.decorators)) for q, c in mod.classes.items() if c.decorators)
    return (mod.name, getattr(mod, "library", False), funcs, classes, calls, _other_interface(mod))


def same_interface(a: ModuleSummary, b: ModuleSummary) -> bool:
    """interface_of(a) == interface_of(b), without making either: an editor buffer's re-analysis keeps the records
    of the statements it did not change (engine/incremental.py), which are the same objects."""
    if a.name != b.name or getattr(a, "library", False) != getattr(b, "library", False):
        return False
    fa, fb = a.functions, b.functions
    # (a function moved down by an Enter above it is a copy from the same analysis, `origin`: positions apart, the
    # same; every function of a 7,000-line module below the Enter was compared field by field)
    if len(fa) != len(fb) or list(fa) != list(fb) or \
            any(f is not (g := fb[q]) and (f.origin is None or f.origin is not g.origin) and
                _function_interface(q, f) != _function_interface(q, g) for q, f in fa.items()):
        return False
    ca, cb = a.classes, b.classes
    if len(ca) != len(cb) or list(ca) != list(cb) or \
            any(c is not (d := cb[q]) and (_class_interface(q, c) != _class_interface(q, d) or
                                          tuple(c.decorators) != tuple(d.decorators)) for q, c in ca.items()):
        return False
    sa, sb = a.call_sites, b.call_sites
    if len(sa) != len(sb) or any(c is not d and _call_interface(c) != _call_interface(d) for c, d in zip(sa, sb)):
        return False
    return _other_interface(a) == _other_interface(b)


def _function_interface(q: str, f) -> tuple:
    return (q, f.name, f.class_qualname, tuple(f.params), f.vararg, f.kwarg, f.is_generator, f.is_async, f.is_method,
            f.compiled, f.disabled, f.opaque, f.guard_atoms, f.returns_value, f.returns_instance, f.returns_factory,
            f.returns_items, tuple((q, c) for q, c, _ in f.wrapped_by), tuple(f.returns_fns), tuple(f.returns_made),
            tuple(f.returns_conds))


def _class_interface(q: str, c) -> tuple:
    return (q, c.name, tuple(c.bases), tuple(c.methods.items()), tuple(c.attrs.items()), tuple(c.containers.items()),
            tuple(c.replaced.items()), tuple(c.choices.items()), tuple(c.made_with.items()))


def _call_interface(c) -> tuple:
    return (c.target, c.is_method_call, c.args, c.kwargs, c.vals)


def _other_interface(mod: ModuleSummary) -> tuple:
    return (tuple(mod.bindings.items()), tuple(mod.star_imports), tuple(sorted(mod.ignored)),
            tuple(sorted(mod.reorderable)), tuple(sorted(mod.allow_in_graph)), tuple(mod.hooks),
            tuple(sorted(mod.dynamo_config, key=repr)), tuple(sorted(mod.device_calls)), tuple(sorted(mod.env_writes)))

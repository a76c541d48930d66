"""Findings: what each compiled root reaches, turned into findings with their root and call path.

For each root (engine/roots.py) in the settings of its program (engine/settings.py), the walk
(engine/walk.py) yields the functions it reaches; their recorded sites whose path conditions hold
(engine/conditions_evaluated.py) are the rules' findings, and the rules' project hooks (engine/walk_events.py)
add what only the project can tell.  What an unresumable break does to the rest of a function is
placed last (engine/frames.py).  A break inside a followed library is reported at the user's call
that reaches it.  One finding per place and code: the strictest root's, by the shortest path.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from ..config import Config
from ..model import ERROR, INFO, WARNING, Finding, LibrarySite, Location, RootInfo, Step
from ..positions import Span
from . import conditions_evaluated as C
from . import garbage
from . import imported_names
from . import values as V
from .contents import Contents
from .frames import FrameFacts, Frames
from .not_followed import IMPORTLIB, NOT_ANALYSED, VALUE
from .resolve import Resolver
from .roots import RootRecord
from .ruleset import RuleSet, applies
from .settings import program_settings
from .summary import Edge, ModuleSummary
from .walk import Reached, Unfollowed, Walker
from .walk_events import CompileEvent, EdgeEvent, FrameEvent, Placed, ReachedEvent, RootEvent, WalkContext

# edges whose own checks are the rules' (a tensor hook's registration, a `with` on an outside object):
# they run no function of their own
_NOT_CALLS = ("tensor_hook", "outside_ctx")


@dataclasses.dataclass(frozen=True)
class _Recorded:
    """A recorded call's place in its function's branches (as Site/Edge hold them), for Walker.traced_when."""

    conds: tuple
    dead_if: tuple


class FindingsPass:
    def __init__(self, contents: Contents, resolver: Resolver, walker: Walker, rules: RuleSet, config: Config):
        self.c = contents
        self.res = resolver
        self.walker = walker
        self.rules = rules
        self.config = config
        # Findings of each root, kept across changes: root key -> (findings, modules its walk read
        # positions from, or None when it read facts from every module).  An edit that leaves a
        # module's interface (project.interface_of) alone only re-walks the roots that reach into it.
        self.root_cache: dict[tuple, tuple[list[Finding], frozenset[str] | None, frozenset, list[Unfollowed]]] = {}
        # what the last all_findings' walks could not follow: the calls in user code (name, path, span),
        # and the replaced methods they called (Walker.reach)
        self.unfollowed_calls: list[tuple[str, str, Span, str]] = []
        self.unfollowed: list[tuple[RootRecord, Unfollowed]] = []

    def forget(self, path: str | None) -> None:
        """Drop the roots whose walk read `path` (None: every root)."""
        if path is None:
            garbage.later(self.root_cache)
            self.root_cache = {}
            return
        for key, (_, deps, *_) in list(self.root_cache.items()):
            if deps is None or path in deps:
                garbage.later(self.root_cache.pop(key))

    def all_findings(self, roots: list[RootRecord]) -> list[Finding]:
        version = self.config.torch()
        best: dict[tuple, Finding] = {}
        calls: set[tuple[str, str, Span, str]] = set()
        self.unfollowed = []
        for root in roots:
            if not root.entries or root.info is None:
                continue
            ignored, reorderable, allowed, dynamo_config = program_settings(self.c, root.mod)
            key = (_root_key(root), ignored, reorderable, allowed)
            hit = self.root_cache.get(key)
            if hit is None:
                hit = self.root_cache[key] = self._root_findings(root, version, ignored, reorderable, allowed)
            calls |= hit[2]
            self.unfollowed.extend((root, u) for u in hit[3])
            for f in hit[0]:
                rule = self.rules.by_code.get(f.code)
                if dynamo_config and rule is not None and rule.silenced_by(dynamo_config, f.data):
                    continue  # e.g. capture_scalar_outputs = True, set in this root's program
                _keep_best(best, f)
        self._compile_sites(roots, version, best)
        self._library_echoes(best)
        first: dict[tuple[str, str], tuple[str, str, Span, str]] = {}
        for u in sorted(calls, key=lambda u: (u[1], u[2], u[0])):
            # each name once, at its first place (a local's name: once per file)
            first.setdefault((u[0], u[1] if u[3] else ""), u)
        self.unfollowed_calls = sorted(first.values(), key=lambda u: (u[1], u[2], u[0]))
        return sorted(best.values(), key=Finding.sort_key)

    def _compile_sites(self, roots: list[RootRecord], version, best: dict[tuple, Finding]) -> None:
        """The rules' compile hooks: what each user module does around the calls of what it compiles
        (engine/recompiles.py), with the compile call as the finding's root."""
        rules = [r for r in self.rules.project["compile"] if r.versions.contains(version)]
        if not rules:
            return
        by_mod: dict[str, dict] = {}
        for root in roots:
            by_mod.setdefault(root.mod.path, {})[root.decl.span] = root
        for mod in self.c.modules.values():
            if getattr(mod, "library", False) or not any(r[0] == "call" for r in mod.recompiles):
                continue
            ev = CompileEvent(mod, by_mod.get(mod.path, {}), resolver=self.res, walker=self.walker)
            compiles = {r[1]: r for r in mod.recompiles if r[0] == "compile"}
            for rule in rules:
                for p in rule.at_compile(ev):
                    at = p.data.get("compile_span")
                    rec = ev.roots.get(at)
                    info = rec.info if rec is not None else None
                    if info is None:
                        _, _, label, fg, target = compiles.get(at, (None, at, "torch.compile(...)", None, ""))
                        info = RootInfo(qualname=target or label, label=label, location=Location(mod.path, at),
                                        fullgraph=fg)
                    f = Finding(path=p.path or mod.path, code=rule.code, name=rule.name, message=p.message,
                                severity=getattr(rule, "severity", None) or WARNING, span=p.span, root=info,
                                call_path=p.steps or [Step(info.qualname, None)], gb_codes=tuple(rule.gb_codes),
                                url=rule.url(), data=dict(p.data))
                    if not self.config.code_enabled(f.code) or _suppressed(mod, f):
                        continue
                    _keep_best(best, f)

    def _library_echoes(self, best: dict[tuple, Finding]) -> None:
        """A break inside a followed library: reported at the user's call that reaches it (the last call
        on the path made from user code, else the torch.compile call itself), one finding per line and
        code listing every library site behind it."""
        modules = self.c.modules
        echoes: dict[tuple, Finding] = {}
        for f in sorted(best.values(), key=_rank):
            mod = modules.get(f.path)
            if mod is None or not getattr(mod, "library", False):
                continue
            where = None
            for step in reversed(f.call_path):
                cmod = modules.get(step.call.path) if step.call is not None else None
                if cmod is not None and not getattr(cmod, "library", False):
                    where = step.call
                    break
            if where is None and f.root is not None:
                rmod = modules.get(f.root.location.path)
                if rmod is not None and not getattr(rmod, "library", False):
                    where = f.root.location
            if where is None:
                # a root inside the library itself (`--root pkg.mod:Cls.forward`): no user line to
                # report it at, so the library finding is shown as it is
                best[_place(f)] = dataclasses.replace(f, data={**f.data, "shown_in_library": True})
                continue
            site = LibrarySite(f.path, f.span, f.code, f.message, f.condition, modules[f.path].name)
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
            modname = modules[first.path].name
            where = f"{modname}:{first.span.start.line + 1}: {first.message}" + (f"; and {n - 1} more" if n > 1 else "")
            echo.message = (f"{'graph break' if n == 1 else f'{n} graph breaks'} inside {modname.split('.')[0]} "
                            f"({where}), reached from your code here")
            umod = modules.get(echo.path)
            if not self.config.code_enabled(echo.code) or (umod is not None and _suppressed(umod, echo)):
                continue
            cur = best.get(_place(echo))
            if echo.condition is not None and cur is not None and cur.condition is None:
                # the default call breaks at this line too: the library's conditional sites behind it
                # stay in the output as their own (conditional) finding
                best[(*_place(echo), "conditional")] = echo
            else:
                _keep_best(best, echo)

    def _root_findings(self, root: RootRecord, version, ignored: frozenset, reorderable: frozenset,
                       allowed: frozenset) -> tuple[list[Finding], frozenset[str] | None, frozenset, list[Unfollowed]]:
        """The findings one root reaches, the modules they were read from (None: from all), the calls in
        user code its walk could not follow, and the replaced methods it could not follow."""
        found: dict[tuple, Finding] = {}
        calls: set[tuple[str, str, Span, str]] = set()
        deps: set[str] | None = {root.mod.path}

        def read_everywhere() -> None:
            nonlocal deps
            deps = None

        def emit(f: Finding) -> None:
            if not self.config.code_enabled(f.code):
                return
            mod = self.c.modules.get(f.path)
            if mod is not None and _suppressed(mod, f):
                return
            _keep_best(found, f)

        fg = root.decl.fullgraph
        severity = ERROR if fg else WARNING
        ctx = WalkContext(self.res, self.walker, self.rules, version, fg, reorderable, read_everywhere)
        hooks = {e: [r for r in rules if applies(r, version, fg)] for e, rules in self.rules.project.items()}

        def place(rule, p: Placed, path: str, span, steps, when: tuple) -> None:
            emit(_make(rule, p.path or path, p.span or span, p.message, getattr(rule, "severity", None) or severity, root,
                       p.steps if p.steps is not None else steps, p.data, p.when if p.when is not None else when))

        for fs, mod in root.entries[:1]:
            ev = RootEvent(fs, root, ctx)
            for rule in hooks["root"]:
                for p in rule.at_root(ev):
                    place(rule, p, root.mod.path, root.decl.span, [Step(fs.qualname, None)], ())
        facts: dict[str, FrameFacts] = {}
        by_class: dict[tuple, FrameFacts] = {}
        replaced: list[Unfollowed] = []
        for r in self.walker.reach(root, allowed, ignored, replaced):
            if deps is not None:
                deps.add(r.mod.path)
            # one function's facts per class of `self` it is reached with (a base class's method, reached for two
            # subclasses: each one's breaks), joined per function below; a walk for other values adds to the
            # last, one on a weaker path replaces it
            key = (r.fs.qualname, r.self_q)
            if not (r.more and key in by_class):
                by_class[key] = FrameFacts(r.fs.name, tuple(r.fs.params), r.mod.path, r.path, r.fs.comprehensions)
            attr_of = self.walker.attr_reader(root, r)
            self._sites(r, by_class[key], attr_of, version, fg, ignored, reorderable)
            self._edges(r, by_class[key], attr_of, ctx, hooks["edge"], place)
            calls.update(_unfollowed_call(e, r.mod.path) for e in r.fs.edges
                         if self.res.unfollowed(e, r.mod) and self.walker.traced_when(e, r, attr_of) is not None)
            if not r.cond:  # (on a conditional path: not counted, like the path's breaks by default)
                calls.update((name, r.mod.path, span, VALUE) for name, span, conds, dead in r.fs.unknown_calls
                             if self.walker.traced_when(_Recorded(conds, dead), r, attr_of) == ())
                # `self.attention(x)`, the module handed to `__init__` by a construction that passes a value the
                # analysis cannot type: counted when it may be traced, as a call not in the analysed code is (it
                # is commonly guarded by `if self.attention is not None:`, which that value leaves undecided)
                calls.update((e.text, r.mod.path, e.span, why) for e in r.fs.edges
                             if (why := self.walker.held_not_followed(e, r)) is not None and
                             self.walker.traced_when(e, r, attr_of) is not None)
            ev = ReachedEvent(r, ctx)
            for rule in hooks["reached"]:
                for p in rule.at_reached(ev):
                    if p.apart:
                        place(rule, p, r.mod.path, p.span, r.path, r.cond)
                    else:  # one of the function's own breaks (engine/frames.py)
                        by_class[key].own.append((p.span.start.line, None if p.resumable else p.span.start.line,
                                                         p.when if p.when is not None else r.cond,
                                                         (rule, p.span, p.message, p.data)))
        for (q, _), f in by_class.items():
            facts[q] = _joined_facts(facts[q], f) if q in facts else f
        self._place_frames(Frames(facts), root, ctx, hooks["frame"], severity, emit)
        return list(found.values()), (frozenset(deps) if deps is not None else None), frozenset(calls), replaced

    def _sites(self, r: Reached, facts: FrameFacts, attr_of: Callable, version, fg: bool, ignored: frozenset,
               reorderable: frozenset) -> None:
        """The function's own recorded sites (the rules' findings in its module) that hold on this path."""
        for site in r.fs.sites:
            when = self.walker.traced_when(site, r, attr_of)
            if when is None:
                continue  # Dynamo never traces it
            data = site.data
            if site.requires is not None:
                how, q, cls = site.requires
                if how == "returns":
                    made = self.res.function(q, r.mod.path)
                    if made is None or not V.is_instance_of(made[0].returns_instance or "", cls):
                        continue
                else:
                    obj = self.res.instance_binding(q, r.mod.path)
                    if obj is None or not V.is_instance_of(obj[1], cls):
                        continue
                    m = (site.callee or "").rpartition(".")[2]
                    data = {**data, "receiver": f"{obj[0]}\x00{m}"}
                    if f"{obj[0]}.{m}" in ignored or f"{q}.{m}" in ignored:
                        continue
            if "module_attr" in data and not self.walker.arr.attr_holds_module(r.fs, r.mod, data["module_attr"]):
                continue  # the rule's break needs `self.<attr>` to be a module (Report data)
            if site.callee and (site.callee in ignored or data.get("receiver") in ignored):
                continue
            if site.callee and site.callee in reorderable and site.data.get("reorderable"):
                continue
            rule = self.rules.by_code.get(site.code)
            if rule is None or not applies(rule, version, fg) or not rule.holds(data, version):
                continue
            if site.callee:
                data = {"callee": site.callee, **data}
            facts.own.append((site.span.start.line, site.block, C.merge(r.cond, when),
                              (rule, site.span, site.message, {**data, "stmt": site.stmt})))
            facts.conds.setdefault(site.span.start.line, site.conds)
            facts.ordered(site.span.start.line, C.first_taken(site.conds, r.env, attr_of))

    def _edges(self, r: Reached, facts: FrameFacts, attr_of: Callable, ctx: WalkContext, rules: list,
               place: Callable) -> None:
        """The function's calls: the rules' edge hooks, and what each call reaches (for engine/frames.py)."""
        for e in r.fs.edges:
            when = self.walker.traced_when(e, r, attr_of)
            if when is None:
                continue
            when = C.merge(r.cond, when)
            call = e.kind not in _NOT_CALLS
            ev = EdgeEvent(e, r, self.walker.edge_targets(e, r, attr_of) if call else [], ctx)
            for rule in rules:
                for p in rule.at_edge(ev):
                    if p.apart:
                        place(rule, p, r.mod.path, e.span, r.path, when)
                        continue
                    span = p.span or e.span
                    block = e.block if p.resumable or e.block is not None else e.span.start.line
                    facts.own.append((span.start.line, block, p.when if p.when is not None else when,
                                      (rule, span, p.message, p.data)))
                    facts.conds.setdefault(span.start.line, e.conds)
            if not call:
                continue
            targets = [tfs.qualname for tfs, _ in ev.targets]
            if not targets and r.wraps and e.kind == "param_call" and ":" in e.target:
                targets.append(r.wraps)  # the wrapper's `func(*args, **kwargs)`: the function it wraps
            facts.calls.append((e.span.start.line, e.block, when, targets))
            facts.conds.setdefault(e.span.start.line, e.conds)
            if e.with_item and e.attr != "__enter__":
                facts.with_calls.append((e.span, e.text, when, targets))

    def _place_frames(self, frames: Frames, root: RootRecord, ctx: WalkContext, rules: list, severity,
                      emit: Callable) -> None:
        """Each function's own findings, with what an unresumable break does to the rest of it
        (engine/frames.py): the breaks it hides become conditional on its fix; then the frame rules'
        findings (FG405, FG408)."""
        fg = root.decl.fullgraph
        gathered = {q: [(rule, p) for rule in rules for p in rule.at_frame(FrameEvent(q, f, frames, True, ctx))]
                    for q, f in frames.facts.items()}
        for q, found in gathered.items():
            if found:
                frames.add_own(q, [(p.span.start.line, None if p.resumable else p.span.start.line, p.when or (),
                                    (rule, p.span, p.message, p.data)) for rule, p in found])
        for q, facts in frames.facts.items():
            hidden = frames.hidden(q) if not fg else None
            for line, _block, when, (rule, span, message, data) in facts.own:
                in_callee = rule.breaks_in_callee or data.get("breaks_in_callee")
                if hidden is not None and line in hidden[1] and not in_callee:
                    fixed_first = (f"the graph break at line {hidden[0] + 1} is fixed (until then Dynamo runs "
                                   f"the rest of `{facts.name}` uncompiled)")
                    when = C.merge(when, (fixed_first,))
                emit(_make(rule, facts.path, span, message, severity, root, facts.steps, data=data, when=when))
            ev = FrameEvent(q, facts, frames, False, ctx)
            for rule in rules:
                for p in rule.at_frame(ev):
                    emit(_make(rule, p.path or facts.path, p.span, p.message, severity, root,
                               p.steps if p.steps is not None else facts.steps, p.data, p.when or ()))


def _joined_facts(a: FrameFacts, b: FrameFacts) -> FrameFacts:
    """One function's facts as reached with two classes of `self`: the first's path, the breaks and calls of
    both."""
    out = FrameFacts(a.name, a.params, a.path, a.steps, a.comprehensions, [*a.own, *b.own], [*a.calls, *b.calls],
                     [*a.with_calls, *b.with_calls], {**b.conds, **a.conds}, dict(a.order))
    for line, when in b.order.items():
        out.ordered(line, when)
    return out


def _make(rule, path, span, message, severity, root: RootRecord, path_steps, data=None,
          when: tuple[str, ...] = ()) -> Finding:
    condition = " and ".join(when) if when else None
    if condition:
        message = f"{message} (only when {condition})"
        severity = INFO
    return Finding(path=path, code=rule.code, name=rule.name, message=message, severity=severity, span=span,
                   root=root.info, call_path=list(path_steps), gb_codes=tuple(rule.gb_codes),
                   url=rule.url(), data=dict(data or {}), condition=condition)


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


def _root_key(root: RootRecord) -> tuple:
    d = root.decl
    return (root.mod.path, d.kind, d.target, d.attr, d.fullgraph, d.label, d.span, root.info, d.calls, d.training,
            d.ctor)


def _unfollowed_call(e: Edge, path: str) -> tuple[str, str, Span, str]:
    """A call from compiled code the walk could not follow, as Project.unfollowed_calls lists it: its target, or
    for a function of a module imported by a name not decided (engine/imported_names.py) the callee as written
    and why IMPORTLIB (engine/not_followed.py)."""
    if imported_names.is_imported_by_name(e.target):
        return e.text, path, e.span, IMPORTLIB
    return e.target, path, e.span, NOT_ANALYSED

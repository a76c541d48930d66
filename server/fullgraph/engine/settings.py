"""The Dynamo settings that apply to a compiled root: those its own program makes.

A program is the root's module and the modules connected to it by imports (it imports them, or they
import it, transitively); a script elsewhere in the checked tree configures its own program, not
this one.  The settings: functions given to `ignore_logging_functions` and
`reorderable_logging_functions`, `allow_in_graph` targets, and `torch._dynamo.config.<name> = <value>`.
"""
from __future__ import annotations

from .contents import Contents
from .summary import ModuleSummary


def program_settings(c: Contents, root_mod: ModuleSummary) -> tuple[frozenset, frozenset, frozenset, frozenset]:
    """(ignored functions, reorderable functions, allow_in_graph targets, torch._dynamo.config values)."""
    ignored, reorderable, allowed, config = set(), set(), set(), set()
    for m in _setters(c):
        if m is root_mod or m.path in imports_closure(c, root_mod) or root_mod.path in imports_closure(c, m):
            ignored |= m.ignored
            reorderable |= m.reorderable
            allowed |= m.allow_in_graph
            config |= m.dynamo_config
    return frozenset(ignored), frozenset(reorderable), frozenset(allowed), frozenset(config)


def _setters(c: Contents) -> list[ModuleSummary]:
    memo = c.memo
    if "setters" not in memo:
        memo["setters"] = [m for m in c.modules.values()
                           if m.ignored or m.reorderable or m.allow_in_graph or m.dynamo_config]
    return memo["setters"]


def imports_closure(c: Contents, mod: ModuleSummary) -> frozenset[str]:
    """Paths of the loaded modules `mod` imports, transitively (memoised)."""
    memo = c.memo.setdefault("imports_closure", {})
    hit = memo.get(mod.path)
    if hit is None:
        seen: set[str] = set()
        todo = [mod]
        while todo:
            for dep in _imported(c, todo.pop()):
                if dep.path not in seen and dep is not mod:
                    seen.add(dep.path)
                    todo.append(dep)
        hit = memo[mod.path] = frozenset(seen)
    return hit


def _imported(c: Contents, m: ModuleSummary) -> list[ModuleSummary]:
    """The loaded modules `m` imports (memoised: each closure walks most of a large tree's modules)."""
    memo = c.memo.setdefault("imported", {})
    hit = memo.get(m.path)
    if hit is None:
        hit = []
        for name in m.imports:
            dep = c.module(name, m.path) or c.module(name.rpartition(".")[0], m.path)
            if dep is not None:
                hit.append(dep)
        memo[m.path] = hit
    return hit

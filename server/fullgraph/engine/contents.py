"""The project's contents: its module summaries by path and by module name, the function index, and
the per-generation memos that every part of the project pass shares (cleared whenever a module is
added, replaced or removed).

A followed library's modules are loaded into it on demand while names are resolved (`module_loader`,
set by the workspace): a load starts a new generation in the middle of a resolution, so a part that
memoises reads `memo` afresh after any look-up rather than keeping the dict.
"""
from __future__ import annotations

import os
from typing import Any, Callable

from . import garbage
from .summary import FunctionSummary, ModuleSummary


class Contents:
    def __init__(self) -> None:
        self.modules: dict[str, ModuleSummary] = {}  # path -> summary
        self.by_name: dict[str, list[ModuleSummary]] = {}
        self._fn_index: dict[str, ModuleSummary] | None = None
        # Per-generation memos: the language server asks for findings after every keystroke and for
        # every open file, and most of the walk is the same name resolutions over and over.
        self.memo: dict = {}
        self.guard_memo: dict[str, bool] = {}
        # Loads a module of a followed installed package on demand: module name -> loaded?
        self.module_loader: Callable[[str], bool] | None = None
        # (module name, name) -> False when the module's source, not yet loaded, cannot define the name
        # (a followed library's star-import chains would otherwise load every module they name)
        self.may_define: Callable[[str, str], bool] | None = None
        self.load_attempted: set[str] = set()
        # a module -> the other names Python imports it by (namespace packages), set by the workspace
        self.aliases_of: Callable[[ModuleSummary], list[str]] | None = None
        self._aliases: dict[str, list[str]] = {}  # path -> the other names it was indexed under
        # (module name, path of the module importing it) -> the module Python would import there (found on
        # that module's search path, loaded if it was not), or None: set by the workspace
        self.importer: Callable[[str, str], ModuleSummary | None] | None = None
        # makes the bodies of a bulk load's summaries (engine/deferred.py) when a reader of every module's
        # bodies comes (all_bodies): set by the workspace (api.py: in worker processes when they are many)
        self.materialize: Callable[[list[ModuleSummary]], None] | None = None
        self._all_bodies = True  # no summary put since the last all_bodies() has its bodies deferred

    def put(self, summary: ModuleSummary) -> ModuleSummary | None:
        """Add or replace the module at `summary.path`; the summary it replaces, if any."""
        old = self.modules.get(summary.path)
        if old is not None:
            self._unname(old)
        self.modules[summary.path] = summary
        self.by_name.setdefault(summary.name, []).append(summary)
        aliases = self.aliases_of(summary) if self.aliases_of is not None else []
        for a in aliases:
            self.by_name.setdefault(a, []).append(summary)
        if aliases:
            self._aliases[summary.path] = aliases
        if summary.body_deferred():
            self._all_bodies = False
        self.invalidate()
        return old

    def all_bodies(self) -> None:
        """Before reading the bodies of every module (an index of every call site, hook, edge): the bulk load's
        summaries get theirs all at once (engine/deferred.py)."""
        if self._all_bodies:
            return
        deferred = [m for m in list(self.modules.values()) if m.body_deferred()]
        if deferred and self.materialize is not None:
            self.materialize(deferred)
        for m in deferred:
            m._load_body()  # (any the materializer left)
        self._all_bodies = True

    def pop(self, path: str) -> ModuleSummary | None:
        """Remove the module at `path`; the summary removed, if any."""
        old = self.modules.pop(path, None)
        if old is not None:
            self._unname(old)
            self.invalidate()
        return old

    def _unname(self, old: ModuleSummary) -> None:
        for name in (old.name, *self._aliases.pop(old.path, ())):
            lst = self.by_name.get(name, [])
            if old in lst:
                lst.remove(old)

    def invalidate(self) -> None:
        garbage.later(self.memo, self.guard_memo, self._fn_index)  # (the last generation's: freed once its results are out)
        self._fn_index = None
        self.guard_memo = {}
        self.memo = {}

    def memoised(self, table: str, key, compute: Callable[[], Any], unreadable: Any) -> Any:
        """`compute()` once per generation and key, in the memo `table`; `unreadable` when a source file it
        reads cannot be read or parsed (what reads library sources on demand: engine/globals_seen.py, ...)."""
        memo = self.memo.setdefault(table, {})
        if key not in memo:
            try:
                memo[key] = compute()
            except (OSError, SyntaxError, ValueError, RecursionError):
                memo[key] = unreadable
        return memo[key]

    def function(self, q: str) -> tuple[FunctionSummary, ModuleSummary] | None:
        """The function of that qualified name and its module (the first module put that has it)."""
        if self._fn_index is None:
            idx: dict[str, ModuleSummary | list[ModuleSummary]] = {}
            for m in list(self.modules.values()):
                for name in m.function_names():  # (names only: a module's functions are read when found)
                    got = idx.setdefault(name, m)
                    if got is not m:  # (a bulk load's names may be more than its functions: the next is kept)
                        if type(got) is list:
                            got.append(m)
                        else:
                            idx[name] = [got, m]
            self._fn_index = idx
        got = self._fn_index.get(q)
        for m in got if type(got) is list else (got,) if got is not None else ():
            fs = m.functions.get(q)
            if fs is not None:
                return fs, m
        return None

    def add_name(self, name: str, summary: ModuleSummary) -> None:
        """Index a module under one more name it is imported by (found on a search path under that name)."""
        lst = self.by_name.setdefault(name, [])
        if summary not in lst:
            lst.append(summary)
            self._aliases.setdefault(summary.path, []).append(name)
            self.invalidate()

    def module(self, name: str, near: str | None = None) -> ModuleSummary | None:
        """The module of that dotted name: the one Python imports from `near` (a path) when its search path
        has it; else of those indexed by that name, the one beside `near`."""
        if near is not None and self.importer is not None:
            found = self.importer(name, near)
            if found is not None:
                return found
        cands = self.by_name.get(name)
        if not cands:
            return None
        if len(cands) > 1 and near:
            d = os.path.dirname(near)
            for c in cands:
                if os.path.dirname(c.path) == d:
                    return c
        return cands[0]

"""Which names a piece of Python binds in its own scope: one walk, shared by the analyzer (a
function's locals) and the fixes (what a statement defines, what a moved block needs)."""
from __future__ import annotations

import ast
from typing import Iterable

from .nodes import children, walk


def scope_facts(body: Iterable[ast.AST], out: set[str], plain: bool = False,
                walrus: bool = True) -> tuple[set[str], bool]:
    """One walk over a function body (not into nested scopes): adds the names it binds to `out` (as
    Python decides locals) and returns the names declared global/nonlocal and whether it yields.

    `plain`: the source has no `:=` and no `yield`, so no expression can bind a name or make a
    generator, and only statements are visited (most of a body is expressions).  `walrus=False`: the
    source has no `:=` (it may yield): the names are the statements', and the walk looks for a yield only,
    up to the first."""
    if plain or not walrus:
        declared: set[str] = set()
        _statement_facts(body, out, declared)
        return declared, False if plain else _yields(body)
    declared = set()
    generator = False
    stack = list(body)
    child_nodes = children
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name):
            if not isinstance(n.ctx, ast.Load):
                out.add(n.id)
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # its name is bound here; decorators and defaults are evaluated here; its body is not ours
            out.add(n.name)
            stack.extend(n.decorator_list)
            if not isinstance(n, ast.ClassDef):
                stack.extend(n.args.defaults)
                stack.extend(d for d in n.args.kw_defaults if d is not None)
            continue
        if isinstance(n, ast.Lambda):
            continue
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                out.add((a.asname or a.name).split(".")[0])
            continue
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            declared.update(n.names)
            continue
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            generator = True
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            # comprehension targets are their own scope; the first iterable is evaluated here, and a
            # walrus inside binds here too
            stack.append(n.generators[0].iter)
            out.update(w.target.id for w in walk(n) if isinstance(w, ast.NamedExpr))
            continue
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.add(n.rest)
        stack.extend(child_nodes(n))
    return declared, generator


def _yields(body: Iterable[ast.AST]) -> bool:
    """Whether a body yields (scope_facts' walk, looking for that only)."""
    stack = list(body)
    child_nodes = children
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.Yield or t is ast.YieldFrom:
            return True
        if t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.ClassDef:
            stack.extend(n.decorator_list)
            if t is not ast.ClassDef:
                stack.extend(n.args.defaults)
                stack.extend(d for d in n.args.kw_defaults if d is not None)
            continue
        if t is ast.Lambda:
            continue
        if t is ast.ListComp or t is ast.SetComp or t is ast.DictComp or t is ast.GeneratorExp:
            stack.append(n.generators[0].iter)
            continue
        stack.extend(child_nodes(n))
    return False


def _target_names(t: ast.AST, out: set[str]) -> None:
    """Names an assignment target binds (`a`, `a, (b, *c)`; not `a.b` or `a[i]`)."""
    if isinstance(t, ast.Name):
        out.add(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _target_names(e, out)
    elif isinstance(t, ast.Starred):
        _target_names(t.value, out)


def _statement_facts(body: Iterable[ast.AST], out: set[str], declared: set[str]) -> None:
    """scope_facts for a body whose expressions bind nothing (no walrus, no yield): statements only."""
    for s in body:
        t = type(s)
        if t is ast.Assign:
            for target in s.targets:
                _target_names(target, out)
        elif t is ast.AugAssign or t is ast.AnnAssign:
            _target_names(s.target, out)
        elif t is ast.Expr or t is ast.Return or t is ast.Pass or t is ast.Raise or t is ast.Assert or \
                t is ast.Break or t is ast.Continue:
            pass
        elif t is ast.If or t is ast.While:
            _statement_facts(s.body, out, declared)
            _statement_facts(s.orelse, out, declared)
        elif t is ast.For or t is ast.AsyncFor:
            _target_names(s.target, out)
            _statement_facts(s.body, out, declared)
            _statement_facts(s.orelse, out, declared)
        elif t is ast.With or t is ast.AsyncWith:
            for item in s.items:
                if item.optional_vars is not None:
                    _target_names(item.optional_vars, out)
            _statement_facts(s.body, out, declared)
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.ClassDef:
            out.add(s.name)  # decorators and defaults are expressions: they bind nothing here
        elif t is ast.Try or type(s).__name__ == "TryStar":
            _statement_facts(s.body, out, declared)
            for h in s.handlers:
                if h.name:
                    out.add(h.name)
                _statement_facts(h.body, out, declared)
            _statement_facts(s.orelse, out, declared)
            _statement_facts(s.finalbody, out, declared)
        elif t is ast.Import or t is ast.ImportFrom:
            for a in s.names:
                out.add((a.asname or a.name).split(".")[0])
        elif t is ast.Global or t is ast.Nonlocal:
            declared.update(s.names)
        elif t is ast.Delete:
            for target in s.targets:
                _target_names(target, out)
        else:  # match statements, and anything newer: the full walk
            d, _ = scope_facts([s], out)
            declared |= d


def bound_names(node: ast.AST) -> set[str]:
    """Names `node` binds in the scope it belongs to: for a module, its top-level names; for a
    statement, what it assigns, imports or defines (a `def` binds its name, not its body's)."""
    out: set[str] = set()
    scope_facts(node.body if isinstance(node, ast.Module) else [node], out)
    return out

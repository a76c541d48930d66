"""Which names a piece of Python binds in its own scope: one walk, shared by the analyzer (a
function's locals) and the fixes (what a statement defines, what a moved block needs)."""
from __future__ import annotations

import ast
from typing import Iterable


def scope_facts(body: Iterable[ast.AST], out: set[str]) -> tuple[set[str], bool]:
    """One walk over a function body (not into nested scopes): adds the names it binds to `out` (as
    Python decides locals) and returns the names declared global/nonlocal and whether it yields."""
    declared: set[str] = set()
    generator = False
    stack = list(body)
    child_nodes = ast.iter_child_nodes
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
            out.update(w.target.id for w in ast.walk(n) if isinstance(w, ast.NamedExpr))
            continue
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.add(n.rest)
        stack.extend(child_nodes(n))
    return declared, generator


def bound_names(node: ast.AST) -> set[str]:
    """Names `node` binds in the scope it belongs to: for a module, its top-level names; for a
    statement, what it assigns, imports or defines (a `def` binds its name, not its body's)."""
    out: set[str] = set()
    scope_facts(node.body if isinstance(node, ast.Module) else [node], out)
    return out

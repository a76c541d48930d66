"""Which names a piece of code reads and binds (ast-based, on the code of libcst nodes)."""
from __future__ import annotations

import ast
import textwrap

from ..engine.scopes import bound_names, scope_facts
from ..positions import first_line


def parse_code(code: str) -> ast.Module:
    try:
        return ast.parse(code)
    except SyntaxError:
        return ast.parse(textwrap.dedent(code))


def loads(node: ast.AST) -> set[str]:
    """Names read anywhere in `node` (nested scopes included: conservative)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            out.add(n.target.id)
    return out


def stores(node: ast.AST) -> set[str]:
    """Names `node` binds in its own scope (not in nested functions, lambdas or comprehensions)."""
    return bound_names(node)


def definitely_stores(stmts: list[ast.stmt]) -> set[str]:
    """Names bound by straight-line statements of a block (not only inside a branch or loop)."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom, ast.Expr)):
            if isinstance(s, ast.AnnAssign) and s.value is None:
                continue
            out |= stores(s)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            out |= stores(s)  # the body of a with-block always runs (unless it raises)
    return out


def has_any(node: ast.AST, types) -> bool:
    return any(isinstance(n, types) for n in ast.walk(node))


def params_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    out = [p.arg for p in (*a.posonlyargs, *a.args)]
    if a.vararg:
        out.append(a.vararg.arg)
    out += [p.arg for p in a.kwonlyargs]
    if a.kwarg:
        out.append(a.kwarg.arg)
    return out


def function_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    out = set(params_of(fn))
    declared, _ = scope_facts(fn.body, out)
    return out - declared


def declared_global(fn: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
    return out


def find_function(tree: ast.Module, def_line: int):
    """The (async) def whose `def` keyword is on 0-based line `def_line`: looked for in the top-level statement
    that holds the line only (every fix offer of a file asks; a walk of a 7,000-line module per offer, or per
    keystroke's new tree, made the editor's fix phase hold up the next keystroke)."""
    line = def_line + 1
    for st in tree.body:
        if (st.end_lineno or st.lineno) < line:
            continue
        if first_line(st) > line:
            break
        for n in ast.walk(st):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno == line:
                return n
    return None


def fresh(name: str, taken: set[str]) -> str:
    """`name`, or `name_2`, `name_3`, ... : the first that is not in `taken`."""
    if name not in taken:
        return name
    k = 2
    while f"{name}_{k}" in taken:
        k += 1
    return f"{name}_{k}"

"""The nodes of a syntax tree as `ast.walk` and `ast.iter_child_nodes` give them, in the same order, without
their generators of generators (`ast.walk` runs `iter_child_nodes`, which runs `iter_fields`, per node): the
analysis walks functions and statements many times per module, and those layers were a tenth of a worker's time
in a profile of the torch tree."""
from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator

_AST = ast.AST


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node under it, breadth first, in `ast.walk`'s order."""
    todo = [node]
    append = todo.append
    i = 0
    while i < len(todo):
        n = todo[i]
        i += 1
        for f in n._fields:
            v = getattr(n, f, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, _AST):
                        append(x)
            elif isinstance(v, _AST):
                append(v)
        yield n


def children(node: ast.AST) -> list[ast.AST]:
    """The direct child nodes of `node`, in `ast.iter_child_nodes`' order."""
    out = []
    for f in node._fields:
        v = getattr(node, f, None)
        if v.__class__ is list:
            out.extend(x for x in v if isinstance(x, _AST))
        elif isinstance(v, _AST):
            out.append(v)
    return out


def extent(s: ast.stmt) -> tuple[int, int]:
    """1-based first and last line of a statement, its decorators included (a `def`'s lineno is its `def` line)."""
    first = s.lineno
    for d in getattr(s, "decorator_list", ()):
        first = min(first, d.lineno)
    return first, s.end_lineno or s.lineno


def holds_line(s: ast.stmt, lines: list[int], decorators: bool = True) -> bool:
    """Does the statement's extent (from its first decorator; with `decorators=False`, from its own first line)
    hold one of the 1-based `lines` (sorted)?"""
    first = extent(s)[0] if decorators else s.lineno
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= (s.end_lineno or s.lineno)


def leaves_early(stmts: list[ast.stmt]) -> bool:
    """Can these statements of a loop's body leave it early (a `break`, `return` or `raise` among them)?"""
    return any(isinstance(n, (ast.Break, ast.Return, ast.Raise)) for s in stmts for n in walk(s))

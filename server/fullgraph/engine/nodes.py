"""The nodes of a syntax tree as `ast.walk` and `ast.iter_child_nodes` give them, in the same order, without
their generators of generators (`ast.walk` runs `iter_child_nodes`, which runs `iter_fields`, per node): the
analysis walks functions and statements many times per module, and those layers were a tenth of a worker's time
in a profile of the torch tree."""
from __future__ import annotations

import ast
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

"""reorderable-disabled: a `@torch.compiler.disable`'d function that only records values (FG202) is
registered in `torch._dynamo.config.reorderable_logging_functions`.

Dynamo then keeps the graph whole and calls the function after it, with the values its arguments have
at the end of the graph (a later in-place update of an argument shows; nothing in the graph can see what
the function did).  Offered only when the call is a statement of its own in the compiled function
itself (torch 2.13 drops reordered calls made in inlined callees), the function is a module-level
function of the file that returns None, and every argument is a constant or a plain local.  Unsafe:
the call moves after the graph, process-wide for that function.
"""
from __future__ import annotations

import ast

import libcst as cst

from ..torchinfo import VersionRange
from . import names as N
from .base import Fix, FixContext, Offer, give_up
from .logging_fns import after_statement_line, registration


class ReorderableDisabled(Fix):
    id = "reorderable-disabled"
    title = "Run the disabled recording function after the graph (`reorderable_logging_functions`)"
    safe = False
    versions = VersionRange(since="2.13")  # a disabled function in the set verified on 2.13

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if len(f.call_path) != 1:
            give_up("the call is not in the compiled function itself")
        hit = ctx.project.function(f.data.get("callee", ""))
        if hit is None:
            give_up()
        fs, mod = hit
        if mod.path != f.path or fs.class_qualname or fs.qualname != f"{mod.name}.{fs.name}":
            give_up("not a module-level function of this file")
        if fs.returns_value or fs.is_generator or fs.is_async:
            give_up("the function returns a value")
        src, frag = ctx.fragment_of(f)
        call = frag.node_at(f.span, cst.Call)
        if frag.span_of(call) != f.span or not isinstance(frag.parent(call), cst.Expr):
            give_up("the call is not a statement of its own")
        if frag.code(call.func).strip() != fs.name:
            give_up("the call does not name the function")
        fn = frag.enclosing_function(call)
        fn_ast = N.find_function(src.tree, frag.span_of(fn).start.line) if fn is not None else None
        if fn_ast is None:
            give_up()
        containers = _container_names(fn_ast)
        for a in call.args:
            if a.star or not _plain_arg(a.value, containers):
                give_up("an argument is not a constant or a plain local")
        if f"reorderable_logging_functions.add({fs.name})" in src.text:
            give_up("already registered")  # the analyzer still reports it (FG202 from call edges)
        reg, edits = registration(ctx, src, "reorderable_logging_functions", fs.name,
                                   after_statement_line(src, fs.name), True)
        return Offer(f"Run `{fs.name}` after the graph: `{reg}` (it sees the values at the end of the graph; "
                     "process-wide)", edits)


def _plain_arg(node, containers: set[str]) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Name):
        return node.value not in containers and node.value not in ("self", "None")
    return False


def _container_names(fn_ast) -> set[str]:
    out = set()
    for n in ast.walk(fn_ast):
        if isinstance(n, ast.Assign) and isinstance(n.value, (ast.List, ast.Dict, ast.Set, ast.Tuple,
                                                              ast.ListComp, ast.DictComp, ast.SetComp)):
            out |= N.stores(n)
    return out

"""num-classes: `F.one_hot(t)` without `num_classes` (FG307) gets the class count the code already has.

Without `num_classes` the width is `t.max() + 1`, a data-dependent shape.  The fix passes the number of
classes when the function names it: a local or parameter called `num_classes`/`n_classes`/... bound
before the call, or such an attribute of `self` set in the class.  Otherwise it gives up (it does not
guess a width).  The width is then that number even when the largest label in a batch is smaller, and a
label >= it raises, so the fix is unsafe.
"""
from __future__ import annotations

import ast
import re

import libcst as cst

from . import names as N
from .base import Fix, FixContext, Offer, give_up

_NAME_RE = re.compile(r"^_?(num_classes|n_classes|nclasses|num_class|n_class|number_of_classes|num_labels|n_labels|"
                      r"nlabels|classes_num|num_categories|n_categories)$")


def _count_name(src, frag, call, fn_ast) -> str | None:
    line = frag.span_of(call).start.line
    params = N.params_of(fn_ast)
    local = [n.id for n in ast.walk(fn_ast) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
             and n.lineno - 1 < line and _NAME_RE.match(n.id)]
    stored_after = {n.id for n in ast.walk(fn_ast) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                    and n.lineno - 1 >= line}
    for name in dict.fromkeys(local):
        if name not in stored_after and _bound_unconditionally(fn_ast, name, line):
            return name
    for name in params:
        if _NAME_RE.match(name) and name not in stored_after and name not in local:
            return name
    if params and params[0] == "self":
        cls = _enclosing_class(src.tree, fn_ast)
        if cls is not None:
            attrs = []
            for n in ast.walk(cls):
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and \
                        isinstance(n.value, ast.Name) and n.value.id == "self" and _NAME_RE.match(n.attr):
                    attrs.append(n.attr)
            if len(set(attrs)) == 1:
                return f"self.{attrs[0]}"
    return None


def _bound_unconditionally(fn_ast, name: str, line: int) -> bool:
    """`name` is assigned by a statement directly in the function body, before `line`."""
    for s in fn_ast.body:
        if s.lineno - 1 >= line:
            break
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and name in N.stores(s):
            return True
    return False


def _enclosing_class(tree, fn_ast):
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef) and fn_ast in n.body:
            return n
    return None


class NumClasses(Fix):
    id = "num-classes"
    title = "Pass `num_classes=` to `one_hot` (the class count the code already has)"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag = ctx.fragment_of(f)
        call = frag.node_at(f.span, cst.Call)
        if frag.span_of(call) != f.span:
            give_up("not the reported call")
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            give_up("one_hot with other arguments")
        fn = frag.enclosing_function(call)
        fn_ast = N.find_function(src.tree, frag.span_of(fn).start.line) if fn is not None else None
        if fn_ast is None:
            give_up("not in a function")
        n = _count_name(src, frag, call, fn_ast)
        if n is None:
            give_up("the number of classes is not known here")
        arg = call.args[0]
        new = call.with_changes(args=[arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                      cst.Arg(value=cst.parse_expression(n), keyword=cst.Name("num_classes"),
                                              equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                                    whitespace_after=cst.SimpleWhitespace("")))])
        e = frag.replace_expr(call, frag.module.code_for_node(new))
        return Offer(f"Pass `num_classes={n}` (the width is then `{n}` even when a batch lacks the top labels; a "
                     "label >= it raises)", [e])

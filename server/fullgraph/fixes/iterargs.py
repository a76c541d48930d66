"""`list-argument`: the guide's Strategy 1 — pass a list, create the iterator inside.

    @torch.compile(fullgraph=True)          @torch.compile(fullgraph=True)
    def f(xs):                              def f(xs):
        a = next(xs)                ->          xs = iter(xs)
        ...                                     a = next(xs)
    f(iter(xs))                             f(xs)

`xs = iter(xs)` keeps the one-shot semantics of the iterator (a second loop over it stays empty);
call sites pass the sequence (`f(iter(xs))` -> `f(xs)` when xs is a list, else `f(list(...))`).
"""
from __future__ import annotations

import ast

import libcst as cst

from . import names as N
from .base import Fix, FixContext, Offer, give_up

_LIST_MAKERS = ("list", "sorted", "tuple")


def _known_sequence(scope: ast.AST, name: str) -> bool:
    """Every binding of `name` in `scope` is a list/tuple display, comprehension or list(...) call."""
    found = False

    def binds(target) -> bool:
        return any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(target))

    for n in ast.walk(scope):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name) and t.id == name:
                    v = n.value
                    if not (isinstance(v, (ast.List, ast.Tuple, ast.ListComp)) or (
                            isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in _LIST_MAKERS)):
                        return False
                    found = True
                elif binds(t):
                    return False
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and binds(n.target):
            return False
        elif isinstance(n, ast.withitem) and n.optional_vars is not None and binds(n.optional_vars):
            return False
    return found


def _in_loop(frag, node, stop) -> bool:
    for a in frag.ancestors(node):
        if a is stop:
            return False
        if isinstance(a, (cst.For, cst.While)):
            return True
    return False


class ListArgument(Fix):
    id = "list-argument"
    title = "Pass a list and create the iterator inside the compiled function"
    safe = True

    def offer(self, ctx: FixContext, f) -> Offer | None:
        param = f.data.get("param")
        if not param or not f.call_path:
            give_up()
        hit = ctx.project.function(f.call_path[-1].qualname)
        if hit is None:
            give_up()
        fs, mod = hit
        if mod.path != f.path:
            give_up()
        src = ctx.source(f.path)
        fn_ast = N.find_function(src.tree, fs.span.start.line)
        if fn_ast is None:
            give_up("function not found")
        positional = [p.arg for p in (*fn_ast.args.posonlyargs, *fn_ast.args.args)]
        kwonly = [p.arg for p in fn_ast.args.kwonlyargs]
        if param in positional:
            index = positional.index(param) - (1 if fs.is_method else 0)
        elif param in kwonly:
            index = None
        else:
            give_up("not a named parameter")
        sites = []
        for cs, cmod in ctx.callers().get(fs.qualname, ()):
            kinds = []
            if index is not None and index < len(cs.args):
                kinds.append(("pos", cs.args[index]))
            kinds += [("kw", k) for name, k in cs.kwargs if name == param]
            for how, k in kinds:
                if k == "iter" or (k.startswith("call:") and ctx.project.is_generator_fn(k[5:], cmod.path)):
                    if cmod.path != f.path:
                        give_up("an iterator is passed from another module")
                    sites.append((cs.span, how))
        if not sites:
            give_up("no call site passes an iterator")

        per_frag: dict = {}
        for span, how in sites:
            frag = src.fragment_at(span.start.line)
            call = frag.node_at(span, cst.Call)
            arg = self._arg(call, index, param, how)
            per_frag.setdefault(frag, {})[arg.value] = self._new_arg(src, frag, call, arg.value)
        # the function: `param = iter(param)` first (after the docstring)
        ffrag = src.fragment_at(fs.span.start.line)
        fdef = ffrag.nodes_covering(fs.name_span, cst.FunctionDef)
        if not fdef or not isinstance(fdef[0].body, cst.IndentedBlock):
            give_up()
        fdef = fdef[0]
        first = fdef.body.body[0] if fdef.body.body else None
        doc = 1 if first is not None and isinstance(first, cst.SimpleStatementLine) and \
            isinstance(first.body[0], cst.Expr) and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString)) else 0
        new_stmt = cst.parse_statement(f"{param} = iter({param})")

        def add_iter(block: cst.IndentedBlock):
            stmts = list(block.body)
            return block.with_changes(body=[*stmts[:doc], new_stmt, *stmts[doc:]])

        per_frag.setdefault(ffrag, {})[fdef.body] = add_iter
        edits = []
        for frag, reps in per_frag.items():
            e = frag.rewrite(reps)
            if e is not None:
                edits.append(e)
        n = len(sites)
        return Offer(f"Take a list: add `{param} = iter({param})` to `{fs.name}` and pass a list at "
                     f"{n} call site{'s' if n != 1 else ''}", edits)

    def _arg(self, call: cst.Call, index, param, how) -> cst.Arg:
        if how == "kw":
            for a in call.args:
                if a.keyword is not None and a.keyword.value == param:
                    return a
            give_up()
        pos = 0
        for a in call.args:
            if a.keyword is not None:
                continue
            if a.star:
                give_up("starred arguments")
            if pos == index:
                return a
            pos += 1
        give_up("argument not found")

    def _new_arg(self, src, frag, call, value):
        scope_fn = frag.enclosing_function(call)
        scope = N.find_function(src.tree, frag.span_of(scope_fn).start.line) if scope_fn is not None else src.tree
        if scope is None:
            give_up()
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "iter" and \
                len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star:
            inner = value.args[0].value
            if isinstance(inner, (cst.List, cst.Tuple, cst.ListComp)) or (
                    isinstance(inner, cst.Name) and _known_sequence(scope, inner.value)):
                return inner
            return cst.parse_expression(f"list({frag.code(inner).strip()})")
        if isinstance(value, cst.Name):
            if _in_loop(frag, call, scope_fn):
                give_up("the iterator is passed in a loop")
            call_line = frag.span_of(call).start.line
            uses = [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == value.value and
                    isinstance(n.ctx, ast.Load) and n.lineno - 1 >= call_line]
            if len(uses) > 1:
                give_up(f"the caller keeps using `{value.value}`")
        return cst.parse_expression(f"list({frag.code(value).strip()})")

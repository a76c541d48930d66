"""`split`: the guide's Strategy 3 — don't compile the statement Dynamo cannot trace.

    @torch.compile(fullgraph=True)          def f(x):                       # uncompiled glue
    def f(x):                                   y = _f_part1(x)
        y = x ** 2 / 2              ->          torch.save(y, "foo.pt")
        torch.save(y, "foo.pt")                 return _f_part2(y)
        z = y ** 3 / 6
        return z                            @torch.compile(fullgraph=True)
                                            def _f_part1(x): ...; return y
                                            @torch.compile(fullgraph=True)
                                            def _f_part2(y): ...

The glue keeps the original name, signature, docstring and position, so callers are unchanged; each
piece receives exactly the variables it reads that were bound before it, and returns exactly the
variables that the rest of the function reads.
"""
from __future__ import annotations

import ast

import libcst as cst

from . import names as N
from .base import Fix, FixContext, Offer, give_up


def _is_docstring(stmt) -> bool:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        return isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    return False


_FORBIDDEN_BEFORE = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.Delete,
                     ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FORBIDDEN_AFTER = (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)


def _frame_introspection(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("locals", "vars", "super"):
            return True
    return False


class Split(Fix):
    id = "split"
    title = "Split the compiled function around the statement (the statement runs uncompiled)"
    safe = True

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if len(f.call_path) != 1 or f.root is None or not f.root.label.startswith("@"):
            give_up("only for a statement directly in a function compiled with a decorator")
        src = ctx.source(f.path)
        frag = src.fragment_at(f.span.start.line)
        if len(frag.module.body) != 1 or not isinstance(frag.module.body[0], cst.FunctionDef):
            give_up("not a module-level function")
        fn: cst.FunctionDef = frag.module.body[0]
        if fn.asynchronous or len(fn.decorators) != 1 or "compile" not in frag.code(fn.decorators[0].decorator):
            give_up("the compile decorator must be the only decorator")
        if not isinstance(fn.body, cst.IndentedBlock):
            give_up()
        stmt = frag.statement_at(f.span)
        body = list(fn.body.body)
        idx = next((k for k, s in enumerate(body) if s is stmt), None)
        if idx is None:
            give_up("not a top-level statement of the function")
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and
                isinstance(stmt.body[0], (cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign))):
            give_up("only simple statements are split out")
        doc_end = 1 if body and _is_docstring(body[0]) else 0
        if idx < doc_end:
            give_up()
        before, after = body[doc_end:idx], body[idx + 1:]
        if not before and not after:
            give_up("nothing would stay compiled")
        fn_ast = N.find_function(src.tree, frag.span_of(fn).start.line)
        if fn_ast is None:
            give_up()
        params = N.params_of(fn_ast)
        a_before = [N.parse_code(frag.code(s)) for s in before]
        a_stmt = N.parse_code(frag.code(stmt))
        a_after = [N.parse_code(frag.code(s)) for s in after]
        for a in a_before:
            if N.has_any(a, _FORBIDDEN_BEFORE) or _frame_introspection(a):
                give_up("the code before the statement returns early, defines functions or uses frames")
        for a in [a_stmt, *a_after]:
            if N.has_any(a, _FORBIDDEN_AFTER) or _frame_introspection(a):
                give_up("generator, global or frame introspection")
        if N.has_any(a_stmt, (ast.Return, ast.Yield, ast.Await)):
            give_up()

        def ordered(seq):
            seen, out = set(), []
            for n in seq:
                if n not in seen:
                    seen.add(n)
                    out.append(n)
            return out

        stores_before = ordered(n for a in a_before for n in _stores_in_order(a))
        definite = N.definitely_stores([s for a in a_before for s in a.body]) | set(params)
        loads_stmt = N.loads(a_stmt)
        loads_after = set().union(*(N.loads(a) for a in a_after)) if a_after else set()
        outputs = [n for n in stores_before if n in loads_stmt | loads_after]
        for n in outputs:
            if n not in definite:
                give_up(f"`{n}` is only bound on some paths before the statement")
        loads_before = set().union(*(N.loads(a) for a in a_before)) if a_before else set()
        inputs1 = [p for p in params if p in loads_before]
        stores_stmt = _stores_in_order(a_stmt)
        inputs2 = [n for n in ordered([*params, *outputs, *stores_stmt]) if n in loads_after]

        taken = src.top_names()
        name1 = _fresh(f"_{fn.name.value}_part1", taken)
        name2 = _fresh(f"_{fn.name.value}_part2", taken | {name1})
        deco = fn.decorators[0]
        indent = fn.body.indent

        def piece(name, args, stmts, ret):
            stmts = list(stmts)
            if ret:
                stmts.append(cst.parse_statement(f"return {', '.join(ret)}"))
            return cst.FunctionDef(
                name=cst.Name(name),
                params=cst.Parameters(params=[cst.Param(cst.Name(a)) for a in args]),
                body=cst.IndentedBlock(body=stmts, indent=indent),
                decorators=[deco.with_changes(leading_lines=[])],
                leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
            )

        glue = list(body[:doc_end])
        new_defs = []
        if before:
            call = f"{name1}({', '.join(inputs1)})"
            glue.append(cst.parse_statement(f"{', '.join(outputs)} = {call}" if outputs else call)
                        .with_changes(leading_lines=before[0].leading_lines))
            first = before[0].with_changes(leading_lines=[])
            new_defs.append(piece(name1, inputs1, [first, *before[1:]], outputs))
        glue.append(stmt)
        if after:
            glue.append(cst.parse_statement(f"return {name2}({', '.join(inputs2)})"))
            new_defs.append(piece(name2, inputs2, [after[0].with_changes(leading_lines=[]), *after[1:]], []))
        new_fn = fn.with_changes(decorators=[], body=fn.body.with_changes(body=glue),
                                 leading_lines=[*fn.leading_lines, *deco.leading_lines])
        new_module = frag.module.with_changes(body=[new_fn, *new_defs])
        e = frag.edit_to(new_module.code)
        if e is None:
            give_up()
        pieces = " and ".join(f"`{n}`" for n, ok in ((name1, before), (name2, after)) if ok)
        return Offer(f"Split `{fn.name.value}`: compile {pieces} and run this statement uncompiled between them",
                     [e])


def _stores_in_order(tree: ast.AST) -> list[str]:
    names = N.stores(tree)
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in names and n.id not in out:
            out.append(n.id)
    for n in sorted(names - set(out)):
        out.append(n)
    return out


def _fresh(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    k = 2
    while f"{name}_{k}" in taken:
        k += 1
    return f"{name}_{k}"

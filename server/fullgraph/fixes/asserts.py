"""assert-async: `if <tensor condition>: raise ...` becomes `torch._assert_async(...)`.

A check that raises on a tensor condition is data-dependent control flow (Dynamo breaks, or fails
under fullgraph=True); `torch._assert_async(cond, msg)` keeps it in the graph and fails at run time
when the condition does not hold (GraphMend's "trap"; the team's catalog, §3).  The error is no
longer the Python exception the code raised (a RuntimeError, reported asynchronously on GPU), so
the fix is offered as unsafe.
"""
from __future__ import annotations

import libcst as cst

from .base import Fix, FixContext, Offer, give_up, py_string, short


def _negated(frag, test) -> str:
    """The code of `not test`, without a double negation."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return frag.code(test.expression).strip()
    code = frag.code(test).strip()
    return f"~({code})"


class AssertAsync(Fix):
    id = "assert-async"
    title = "Check the condition in the graph: `torch._assert_async(...)` instead of `if ...: raise`"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if not f.call_path:
            give_up("not in a compiled region")
        src = ctx.source(f.path)
        frag = src.fragment_at(f.span.start.line)
        stmt = frag.statement_at(f.span)
        if not isinstance(stmt, cst.If) or stmt.orelse is not None:
            give_up("not an `if` without else")
        ts = frag.span_of(stmt.test)
        if not (ts.start <= f.span.start and f.span.end <= ts.end):
            give_up("the break is not in the test")
        body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else stmt.body.body
        if len(body) != 1:
            give_up("the branch does more than raise")
        small = body[0].body[0] if isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
            else None
        if not isinstance(small, cst.Raise):
            give_up("the branch does not just raise")
        msg = "check failed"
        exc = small.exc
        if isinstance(exc, cst.Call) and exc.args and isinstance(exc.args[0].value, cst.SimpleString):
            try:
                value = exc.args[0].value.evaluated_value
            except Exception:  # noqa: BLE001
                value = None
            if isinstance(value, str):
                msg = value
        if isinstance(stmt.test, cst.BooleanOperation):
            give_up("and/or of tensor conditions")  # `~` does not distribute over Python's and/or
        tn, edits = ctx.torch_name(src)
        new = cst.parse_statement(f"{tn}._assert_async({_negated(frag, stmt.test)}, {py_string(msg)})\n")
        new = new.with_changes(leading_lines=stmt.leading_lines)
        e = frag.replace_stmts([stmt], [new])
        if e is None:
            give_up()
        return Offer(f"Check it in the graph: `{short(frag.code(new.body[0]).strip(), 48)}` (raises a "
                     "RuntimeError at run time instead)", edits + [e])

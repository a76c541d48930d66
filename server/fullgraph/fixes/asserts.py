"""Data-dependent checks kept in the graph.

assert-async: `if <tensor condition>: raise ...` becomes `torch._assert_async(...)`.

A check that raises on a tensor condition is data-dependent control flow (Dynamo breaks, or fails
under fullgraph=True); `torch._assert_async(cond, msg)` keeps it in the graph and fails at run time
when the condition does not hold (GraphMend's "trap"; the team's catalog, §3).  The error is no
longer the Python exception the code raised (a RuntimeError, reported asynchronously on GPU), so
the fix is offered as unsafe.  A condition that mixes Python flags and tensors (`if self.strict and
torch.isnan(x).any(): raise`) keeps the Python part as an `if` around the check; `and`/`or`/`not` of
tensors become `torch.logical_and/or/not` (tensorcond.py).

tensor-assert: a plain `assert <tensor>, msg` compiles on torch 2.13 (Dynamo turns it into an async
check), but `assert a and b`, `assert not t` and `torch._assert(t, msg)` do not.  The fix writes one
`assert` per `and` operand and the tensor form of `not`/`or` (`torch.logical_not(t)`), and
`torch._assert(c, m)` (which is `assert c, m`) as the statement.  Eager behaviour is unchanged; a
failing check raises RuntimeError instead of AssertionError when compiled, so it is unsafe.
"""
from __future__ import annotations

import libcst as cst

from ..torchinfo import VersionRange
from . import names as N
from . import tensorcond as TC
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
        src, frag = ctx.fragment_of(f, compiled=True)
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
        tn, edits = ctx.torch_name(src)
        py_ops: list = []
        if TC.has_bool_ops(stmt.test) and not (isinstance(stmt.test, cst.UnaryOperation) and
                                                not TC.has_bool_ops(stmt.test.expression)):
            clf = _classifier(src, frag, stmt, f)
            py_ops, t_ops = TC.split_condition(clf, stmt.test)
            if len(t_ops) == 1:
                check = TC.negated_tensor_expr(frag, t_ops[0], tn)
            else:
                check = f"{tn}.logical_not({_nest(tn, 'logical_and', [TC.tensor_expr(frag, o, tn) for o in t_ops])})"
        else:
            check = _negated(frag, stmt.test)
        call = f"{tn}._assert_async({check}, {py_string(msg)})"
        if py_ops:
            nl = src.newline
            guard = " and ".join(" ".join(frag.code(o).split()) for o in py_ops)
            new = cst.parse_statement(f"if {guard}:{nl}{src.indent_unit}{call}{nl}")
        else:
            new = cst.parse_statement(f"{call}\n")
        new = new.with_changes(leading_lines=stmt.leading_lines)
        e = frag.replace_stmts([stmt], [new])
        if e is None:
            give_up()
        return Offer(f"Check it in the graph: `{short(call, 48)}` (raises a RuntimeError at run time instead)",
                     edits + [e])


def _nest(tn: str, fn: str, codes: list[str]) -> str:
    out = codes[0]
    for c in codes[1:]:
        out = f"{tn}.{fn}({out}, {c})"
    return out


def _classifier(src, frag, stmt, f, tensor_node=None) -> TC.Classifier:
    """A classifier for the operands of `stmt`'s condition: the finding's span (or `tensor_node`, the
    condition the engine found to be a tensor) is a tensor."""
    fn = frag.enclosing_function(stmt)
    fn_ast = N.find_function(src.tree, frag.span_of(fn).start.line) if fn is not None else None
    span = f.span if f is not None else frag.span_of(tensor_node) if tensor_node is not None else None
    return TC.Classifier(frag, src.tree, fn_ast, TC.torch_names(src) | {"torch"}, span)


def _message(frag, node) -> str | None:
    """The code of an assert message that is a plain string (literal or f-string), else None."""
    if node is None:
        return None
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return frag.code(node).strip()
    give_up("the message is not a string literal")


def _is_torch_assert(frag, node, tn: str) -> bool:
    return isinstance(node, cst.Call) and frag.code(node.func).strip() in (f"{tn}._assert", "torch._assert")


class _Coder:
    """frag.code for nodes that may be new (rewritten) ones."""

    def __init__(self, frag):
        self.module = frag.module

    def code(self, node) -> str:
        return self.module.code_for_node(node)


class _AllcloseToIsclose(cst.CSTTransformer):
    """`torch.allclose(a, b, ...)` -> `torch.isclose(a, b, ...).all()` (the same test, as a tensor:
    allclose is `isclose(...)` for every element, with the same rtol/atol/equal_nan)."""

    def __init__(self, frag, torch_names: set[str]):
        super().__init__()
        self.frag = frag
        self.tns = torch_names

    def leave_Call(self, original, updated):
        f = updated.func
        if isinstance(f, cst.Attribute) and f.attr.value == "allclose":
            new_func = f.with_changes(attr=cst.Name("isclose"))
            return cst.Call(func=cst.Attribute(value=updated.with_changes(func=new_func), attr=cst.Name("all")))
        return updated


class TensorAssert(Fix):
    id = "tensor-assert"
    title = "Assert each tensor condition on its own (`assert a, msg` / `assert b, msg`), which Dynamo traces"
    safe = False
    versions = VersionRange(since="2.13")  # plain asserts on tensors verified to compile on 2.13

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag = ctx.fragment_of(f, compiled=True)
        stmt = frag.statement_at(f.span)
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        tn, edits = ctx.torch_name(src)
        if f.code == "FG310" or (f.code == "FG301" and isinstance(small, cst.Expr) and
                                 _is_torch_assert(frag, small.value, tn)):
            call = small.value if isinstance(small, cst.Expr) else None
            if f.code == "FG301" and isinstance(call, cst.Call):
                f_span = f.span
                if not (frag.span_of(call).start <= f_span.start and f_span.end <= frag.span_of(call).end):
                    give_up()
                call_ok = True
            else:
                call_ok = isinstance(call, cst.Call) and frag.span_of(call) == f.span
            if not call_ok:
                give_up("torch._assert is not a statement of its own")
            args = [a for a in call.args]
            if not 1 <= len(args) <= 2 or any(a.star or (a.keyword and a.keyword.value not in
                                                         ("condition", "message")) for a in args):
                give_up("unusual arguments")
            byname = {a.keyword.value if a.keyword else ("condition", "message")[i]: a.value
                      for i, a in enumerate(args)}
            test, msg_node = byname.get("condition"), byname.get("message")
            if test is None:
                give_up()
        elif f.code == "FG301":
            if not isinstance(small, cst.Assert):
                give_up("not an assert statement")
            test, msg_node = small.test, small.msg
        else:
            give_up()
        msg = _message(frag, msg_node)
        ts = frag.span_of(test)
        if f.code == "FG301" and not (ts.start <= f.span.start and f.span.end <= ts.end):
            give_up("the break is not in the condition")
        clf = _classifier(src, frag, stmt, f if f.code == "FG301" else None)
        iso = _AllcloseToIsclose(frag, TC.torch_names(src) | {tn})
        if f.code == "FG310" and clf.kind(test) is None:
            clf = _classifier(src, frag, stmt, None, test)
        asserts = []
        ops = TC.and_operands(test)
        for op in ops:
            k = clf.kind(op)
            if k is None:
                give_up("cannot tell whether an operand of the condition is a tensor")
            if k == TC.TENSOR:
                op = op.visit(iso)
            if k == TC.PY or not TC.has_bool_ops(op):
                code = " ".join(frag.module.code_for_node(op).split())
            else:
                code = TC.tensor_expr(_Coder(frag), op, tn)
            asserts.append(code)
        tail = f", {msg}" if msg is not None else ""
        new = [cst.parse_statement(f"assert {c}{tail}\n") for c in asserts]
        new[0] = new[0].with_changes(leading_lines=stmt.leading_lines)
        e = frag.replace_stmts([stmt], new)
        if e is None:
            give_up("nothing to change")
        shown = "; ".join(f"assert {c}" for c in asserts)
        return Offer(f"Assert the tensor condition{'s one by one' if len(asserts) > 1 else ''}: `{short(shown, 56)}` "
                     "(traced by Dynamo; a failing check raises RuntimeError when compiled)", edits + [e])

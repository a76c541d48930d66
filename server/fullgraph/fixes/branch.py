"""Data-dependent branches: select with `torch.where`, or branch in the graph with `torch.cond`.

Shapes handled (the condition must be a tensor; for FG302 a `.item()`/`float()` in it is dropped):

    a if c else b                           -> torch.where(c, a, b)
    if c: return a  else: return b          -> return torch.where(c, a, b)
    if c: return a  (next) return b         -> return torch.where(c, a, b)
    if c: x = a  [else: x = b]              -> x = torch.where(c, a, b)     (b defaults to x)

Both fixes evaluate/trace both branches, so they are unsafe: the branches must be tensors of the same
shape and dtype (torch.where broadcasts; torch.cond raises otherwise).  torch.cond is offered when a
branch calls something, with the catalog's restrictions: no in-place ops, prints or .item() in the
branches, and a branch that returns an operand unchanged returns `.clone()` of it.
"""
from __future__ import annotations

import ast

import libcst as cst

from . import names as N
from .base import Fix, FixContext, NotOffered, Offer, give_up, short


class _StripScalar(cst.CSTTransformer):
    """`t.item()` -> `t`, `float(t)` -> `t` (value-preserving conversions to Python numbers)."""

    def __init__(self):
        super().__init__()
        self.changed = False

    def leave_Call(self, original, updated):
        f = updated.func
        if isinstance(f, cst.Attribute) and f.attr.value == "item" and not updated.args:
            self.changed = True
            return f.value
        if isinstance(f, cst.Name) and f.value == "float" and len(updated.args) == 1 and not updated.args[0].keyword:
            self.changed = True
            return updated.args[0].value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
                if not isinstance(updated.args[0].value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) \
                else updated.args[0].value
        return updated


def is_literal(node) -> bool:
    return isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                             cst.FormattedString)) or (isinstance(node, cst.Name) and node.value in
                                                       ("None", "True", "False"))


def _single(stmt):
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


class _Branch:
    """What the if computes: kind 'expr' | 'return' | 'assign'; values per name."""

    def __init__(self, kind, node, cond, pairs, remove=()):
        self.kind = kind
        self.node = node  # the If / IfExp to replace
        self.cond = cond  # condition code
        self.pairs = pairs  # [(name or None, true code, false code, true node, false node)]
        self.remove = remove  # extra statements to remove (the `return b` after an if)


def _analyse(ctx: FixContext, f) -> tuple:
    """The if/else around the finding's condition, shared by torch.where and torch.cond (memoised)."""
    key = ("branch", f.path, f.code, f.span)
    if key not in ctx.memo:
        try:
            ctx.memo[key] = _analyse_branch(ctx, f)
        except NotOffered as e:
            ctx.memo[key] = e
    r = ctx.memo[key]
    if isinstance(r, NotOffered):
        raise r
    return r


def _analyse_branch(ctx: FixContext, f) -> tuple:
    src, frag = ctx.fragment_of(f)
    owners = frag.nodes_covering(f.span, (cst.If, cst.IfExp, cst.While))
    if not owners:
        give_up()
    node = owners[0]
    if isinstance(node, cst.While) or frag.span_of(node.test) != f.span:
        give_up("not the condition of an if")
    cond_node = node.test
    if f.code == "FG302":
        t = _StripScalar()
        cond_node = cond_node.visit(t)
        if not t.changed:
            give_up("the condition is not a tensor once .item() is dropped")
    elif not f.data.get("tensor"):
        give_up("the condition is not a tensor")
    cond = frag.module.code_for_node(cond_node).strip()
    return branch_of(src, frag, node, cond)


def branch_of(src, frag, node, cond: str) -> tuple:
    """What the if/else `node` (or conditional expression) computes, to be selected on `cond` (code)."""
    fn = frag.enclosing_function(node)
    if fn is None:
        give_up()
    fn_ast = N.find_function(src.tree, frag.span_of(fn).start.line)
    if fn_ast is None:
        give_up()
    if isinstance(node, cst.IfExp):
        pairs = [(None, frag.code(node.body).strip(), frag.code(node.orelse).strip(), node.body, node.orelse)]
        return src, frag, fn_ast, _Branch("expr", node, cond, pairs)
    if not isinstance(node.body, cst.IndentedBlock):
        give_up("one-line if")
    if isinstance(node.orelse, cst.If):
        give_up("elif chain")
    t_stmts = list(node.body.body)
    e_stmts = list(node.orelse.body.body) if node.orelse is not None else None
    if e_stmts is not None and not isinstance(node.orelse.body, cst.IndentedBlock):
        give_up()
    # return forms
    t_ret = _single(t_stmts[0]) if len(t_stmts) == 1 else None
    if isinstance(t_ret, cst.Return) and t_ret.value is not None:
        if e_stmts is not None:
            e_ret = _single(e_stmts[0]) if len(e_stmts) == 1 else None
            if not (isinstance(e_ret, cst.Return) and e_ret.value is not None):
                give_up("the branches do different things")
            remove = ()
        else:
            block = frag.parent(node)
            body = list(getattr(block, "body", ()))
            i = next((k for k, s in enumerate(body) if s is node), None)
            e_ret = _single(body[i + 1]) if i is not None and i + 1 < len(body) else None
            if not (isinstance(e_ret, cst.Return) and e_ret.value is not None):
                give_up("no `return` after the if")
            remove = (body[i + 1],)
        if isinstance(t_ret.value, cst.Tuple) or isinstance(e_ret.value, cst.Tuple):
            give_up("tuple results")
        pairs = [(None, frag.code(t_ret.value).strip(), frag.code(e_ret.value).strip(), t_ret.value, e_ret.value)]
        return src, frag, fn_ast, _Branch("return", node, cond, pairs, remove)
    # assignment form
    t_assign = _assignments(frag, t_stmts)
    e_assign = _assignments(frag, e_stmts) if e_stmts is not None else {}
    names = list(t_assign) + [n for n in e_assign if n not in t_assign]
    if_line = frag.span_of(node).start.line
    params = set(N.params_of(fn_ast))
    before = set()
    for n in ast.walk(fn_ast):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.lineno - 1 < if_line:
            before.add(n.id)
    pairs = []
    for name in names:
        if name not in t_assign or name not in e_assign:
            if name not in params and name not in before:
                give_up(f"`{name}` has no value when the branch is not taken")
        tv = t_assign.get(name)
        ev = e_assign.get(name)
        pairs.append((name, frag.code(tv).strip() if tv is not None else name,
                      frag.code(ev).strip() if ev is not None else name, tv, ev))
    assigned = set(names)
    if len(pairs) > 1:
        for name, tc, ec, _, _ in pairs:
            reads = N.loads(N.parse_code(f"({tc}, {ec})"))
            if reads & (assigned - {name}):
                give_up("a branch value reads another name the if assigns")
        if N.loads(N.parse_code(cond)) & assigned:
            give_up("the condition reads a name the if assigns")
    return src, frag, fn_ast, _Branch("assign", node, cond, pairs)


def _assignments(frag, stmts) -> dict:
    out: dict = {}
    for s in stmts:
        small = _single(s)
        if not isinstance(small, cst.Assign) or len(small.targets) != 1 or \
                not isinstance(small.targets[0].target, cst.Name):
            give_up("branches must be plain assignments")
        name = small.targets[0].target.value
        if name in out:
            give_up("assigned twice")
        reads = N.loads(N.parse_code(frag.code(small.value)))
        if reads & set(out):
            give_up("a branch value reads a name assigned earlier in the branch")
        out[name] = small.value
    return out


def replace_node(frag, br: _Branch, make) -> list:
    """make(true_code, false_code) -> replacement expression code."""
    if br.kind == "expr":
        (_, tc, ec, _, _), = br.pairs
        code = make(tc, ec)
        cst.parse_expression(code)
        return [frag.replace_expr(br.node, code)]
    if br.kind == "return":
        (_, tc, ec, _, _), = br.pairs
        new = cst.parse_statement(f"return {make(tc, ec)}").with_changes(leading_lines=br.node.leading_lines)
        return [frag.replace_stmts([br.node, *br.remove], [new])]
    stmts = []
    for i, (name, tc, ec, _, _) in enumerate(br.pairs):
        s = cst.parse_statement(f"{name} = {make(tc, ec)}")
        if i == 0:
            s = s.with_changes(leading_lines=br.node.leading_lines)
        stmts.append(s)
    return [frag.replace_stmts([br.node], stmts)]


class TorchWhere(Fix):
    id = "torch-where"
    title = "Select with `torch.where(cond, a, b)` (evaluates both branches)"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag, fn_ast, br = _analyse(ctx, f)
        for _, tc, ec, tn_, en_ in br.pairs:
            if (tn_ is None or is_literal(tn_)) and (en_ is None or is_literal(en_)):
                give_up("both values are Python constants")
            if any(n is not None and isinstance(n, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
                   or (isinstance(n, cst.Name) and n.value == "None") for n in (tn_, en_)):
                give_up("not tensor values")
        tn, edits = ctx.torch_name(src)
        new = replace_node(frag, br, lambda a, b: f"{tn}.where({br.cond}, {a}, {b})")
        return Offer(f"Select with `{tn}.where({short(br.cond, 30)}, …)` (evaluates both branches; they must be "
                     "tensors of the same shape and dtype)", edits + [e for e in new if e is not None])


_INPLACE_OK = frozenset({"__call__"})


class TorchCond(Fix):
    id = "torch-cond"
    title = "Branch inside the graph with `torch.cond(pred, true_fn, false_fn, operands)`"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag, fn_ast, br = _analyse(ctx, f)
        if len(br.pairs) != 1:
            give_up("torch.cond fix handles one result")
        name, tc, ec, tnode, enode = br.pairs[0]
        values = [N.parse_code(f"({tc})"), N.parse_code(f"({ec})")]
        if not any(N.has_any(v, ast.Call) for v in values):
            give_up("no branch calls anything: torch.where is enough")
        for v in values:
            for n in ast.walk(v):
                if isinstance(n, ast.Call):
                    fname = n.func.attr if isinstance(n.func, ast.Attribute) else \
                        n.func.id if isinstance(n.func, ast.Name) else ""
                    if (fname.endswith("_") and not fname.startswith("_")) or fname in ("item", "print", "tolist"):
                        give_up(f"`{fname}` in a branch (in-place, print or .item() are not allowed in torch.cond)")
                if isinstance(n, (ast.NamedExpr, ast.Yield, ast.Await, ast.Lambda)):
                    give_up()
        local = N.function_locals(fn_ast)
        operands = []
        for v in values:
            for n in ast.walk(v):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in local and n.id != "self" \
                        and n.id not in operands:
                    operands.append(n.id)
        if any(is_literal(n) for n in (tnode, enode) if n is not None):
            give_up("a branch is a Python constant")
        tn, edits = ctx.torch_name(src)
        lam_args = ", ".join(operands)

        def branch(code):
            if code in operands:
                code = f"{code}.clone()"  # torch.cond branches must not return an operand unchanged
            return f"lambda {lam_args}: {code}" if operands else f"lambda: {code}"

        ops = "(" + ", ".join(operands) + ("," if len(operands) == 1 else "") + ")"
        new = replace_node(frag, br, lambda a, b: f"{tn}.cond({br.cond}, {branch(a)}, {branch(b)}, {ops})")
        return Offer(f"Branch in the graph with `{tn}.cond({short(br.cond, 30)}, …)` (both branches must return "
                     "tensors of the same shape and dtype)", edits + [e for e in new if e is not None])

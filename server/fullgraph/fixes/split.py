"""`split`: the guide's Strategy 3 — don't compile the statements Dynamo cannot trace.

    @torch.compile(fullgraph=True)          def f(x):                       # uncompiled glue
    def f(x):                                   y = _f_part1(x)
        y = x ** 2 / 2              ->          torch.save(y, "foo.pt")
        torch.save(y, "foo.pt")                 return _f_part2(y)
        z = y ** 3 / 6
        return z                            @torch.compile(fullgraph=True)
                                            def _f_part1(x): ...; return y
                                            @torch.compile(fullgraph=True)
                                            def _f_part2(y): ...

The glue keeps the original name, signature, docstring, other decorators and position, so callers
are unchanged; each piece receives exactly the variables it reads that were bound before it, and
returns exactly the variables that the rest of the function reads.

Every statement of the compiled function that holds a break of the same root (this finding and its
siblings) runs uncompiled in the glue, so a training step splits in one go into the compiled
forward + loss and the eager `zero_grad()` / `backward()` / `step()` (the guide's training-step
split).  A break in the header of a `for`/`while`/`with`/`if` keeps that header in the glue and
splits its blocks.  The pieces are compiled the way the function was:

- `@torch.compile(...)` on the function (or method): the pieces get the same decorator;
- `g = torch.compile(f, <kwargs>)` (also `self._fn = torch.compile(self._compute)`,
  `return torch.compile(step)` for a closure): the call becomes `f` (a `f = torch.compile(f)`
  statement goes) and the pieces are decorated with `@torch.compile(<kwargs>)`.

When nothing but the breaking statements (and trivial bindings) would be compiled, the offer is to
run the function uncompiled.  A module compiled as a whole (`torch.compile(model)`) is not split:
its `forward` is traced from the module's call and stays compiled whatever the glue does.
"""
from __future__ import annotations

import ast

import libcst as cst

from . import names as N
from .base import Fix, FixContext, Offer, TextEdit, give_up, short
from ..positions import Pos, Span


def _is_docstring(stmt) -> bool:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        return isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    return False


# what a compiled piece may not contain (it becomes a function of its own)
_FORBIDDEN_PIECE = (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.Delete,
                    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.Import, ast.ImportFrom)
_STRUCTURAL = (cst.If, cst.For, cst.While, cst.With)
_TRIVIAL_EXPR = (ast.Name, ast.Constant, ast.Attribute, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.Starred,
                 ast.Load, ast.Store, ast.expr_context)


def _frame_introspection(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("locals", "vars", "super"):
            return True
    return False


def _trivial(stmts: list[ast.stmt]) -> bool:
    """Statements not worth compiling: bindings of names, constants, attributes and empty displays."""
    for s in stmts:
        if isinstance(s, ast.Pass):
            continue
        if not isinstance(s, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)):
            return False
        for n in ast.walk(s):
            if isinstance(n, ast.stmt):
                continue
            if not isinstance(n, _TRIVIAL_EXPR):
                return False
    return True


def _loose_jumps(stmts: list[ast.stmt]) -> bool:
    """A break/continue that leaves the statements (not inside a loop of their own)."""
    def walk(node, in_loop):
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        for c in ast.iter_child_nodes(node):
            inner = in_loop or (isinstance(node, (ast.For, ast.While, ast.AsyncFor)) and c in node.body)
            if walk(c, inner):
                return True
        return False
    return any(walk(s, False) for s in stmts)


def exposed_reads(stmts: list[ast.stmt]) -> list[str]:
    """Names the statements may read before writing them (in order of first read)."""
    out: list[str] = []
    _exposed(stmts, set(), out)
    return out


def _exposed(stmts, written: set[str], out: list[str]) -> None:
    written = set(written)

    def reads(node, w):
        for n in _ordered_loads(node):
            if n not in w and n not in out:
                out.append(n)

    for s in stmts:
        if isinstance(s, (ast.For, ast.AsyncFor)):
            reads(s.iter, written)
            _exposed(s.body, written | N.stores(s.target), out)
            _exposed(s.orelse, written, out)
        elif isinstance(s, ast.While):
            reads(s.test, written)
            _exposed(s.body, written, out)
            _exposed(s.orelse, written, out)
        elif isinstance(s, ast.If):
            reads(s.test, written)
            _exposed(s.body, written, out)
            _exposed(s.orelse, written, out)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            inner = set(written)
            for it in s.items:
                reads(it.context_expr, inner)
                if it.optional_vars is not None:
                    inner |= N.stores(it.optional_vars)
            _exposed(s.body, inner, out)
        else:
            reads(s, written)
        written |= N.definitely_stores([s])


def _ordered_loads(node: ast.AST) -> list[str]:
    names = N.loads(node)
    nodes = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in names]
    nodes.sort(key=lambda n: (n.lineno, n.col_offset))
    out: list[str] = []
    for n in nodes:
        if n.id not in out:
            out.append(n.id)
    for n in sorted(names - set(out)):
        out.append(n)
    return out


def _ordered(seq):
    seen, out = set(), []
    for n in seq:
        if n not in seen:
            seen.add(n)
            out.append(n)
    return out


def _ast_units(block: list[ast.stmt], stmts: list) -> list[list[ast.stmt]]:
    """The ast statements of each libcst statement of one block (`a = 1; b = 2` is two)."""
    out = []
    k = 0
    for s in stmts:
        n = len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1
        out.append(block[k:k + n])
        k += n
    if k != len(block):
        give_up("the statements do not line up")
    return out


def root_statement_span(f) -> tuple[str, Span] | None:
    """Where, in the compiled root function, the finding's break happens: the finding itself, or the
    call (from the root) that leads to it."""
    if not f.call_path:
        return None
    if len(f.call_path) == 1:
        return f.path, f.span
    call = f.call_path[1].call
    if call is None:
        return None
    return call.path, call.span


class _Plan:
    """One split: the root function, how it is compiled, the statements that stay uncompiled."""

    def __init__(self, ctx: FixContext, f):
        self.ctx = ctx
        self.f = f
        where = root_statement_span(f)
        if where is None or f.root is None:
            give_up("not in a compiled region")
        self.path, span = where
        self.src = ctx.source(self.path)
        self.frag = self.src.fragment_at(span.start.line)
        own = self._statement(span)
        if own is None:
            give_up("the break is not in a statement of the compiled function")
        self.fn, stmt = own
        self.short_name = f.root.qualname.rsplit(".", 1)[-1]
        if self.fn.name.value != self.short_name or self.fn.asynchronous:
            give_up("not the compiled function")
        if not isinstance(self.fn.body, cst.IndentedBlock):
            give_up("one-line function")
        self.eager = {stmt}
        self.eager_first = stmt
        for g in getattr(ctx, "findings", None) or ():
            if g is f or g.root is None or g.root.qualname != f.root.qualname or g.root.location != f.root.location:
                continue
            w = root_statement_span(g)
            if w is None or w[0] != self.path:
                continue
            try:
                other = self._statement(w[1])
            except Exception:  # noqa: BLE001 - a sibling we cannot place is simply not folded in
                other = None
            if other is not None and other[0] is self.fn:
                self.eager.add(other[1])

    def _statement(self, span: Span):
        lines = self.src.range_at(span.start.line)
        if lines is None or not lines[0] <= span.end.line <= lines[1]:
            return None
        stmt = self.frag.statement_at(span)
        fn = self.frag.enclosing_function(stmt)
        if fn is None:
            return None
        return fn, stmt


class Split(Fix):
    id = "split"
    title = "Split the compiled function around the statement (the statement runs uncompiled)"
    safe = True
    whole_module = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        p = _Plan(ctx, f)
        src, frag, fn = p.src, p.frag, p.fn
        root = f.root
        fn_span = frag.span_of(fn)
        fn_ast = N.find_function(src.tree, fn_span.start.line)
        if fn_ast is None:
            give_up()
        parent = frag.parent(fn)  # Module, or IndentedBlock -> ClassDef / FunctionDef
        if not isinstance(parent, cst.Module):
            parent = frag.parent(parent)
        is_method = isinstance(parent, cst.ClassDef)
        params = N.params_of(fn_ast)
        if is_method:
            if not params or fn_ast.args.posonlyargs[1:] or any(
                    frag.code(d.decorator).strip() in ("staticmethod", "classmethod", "property")
                    for d in fn.decorators):
                give_up("not a plain method")
            receiver = params[0]
            if receiver in N.stores(fn_ast):
                give_up("the method rebinds its receiver")
        for n in ast.walk(fn_ast):
            if n is not fn_ast and isinstance(n, (ast.Global, ast.Nonlocal)):
                give_up("global/nonlocal")
        if _frame_introspection(fn_ast):
            give_up("frame introspection")

        # how the function is compiled
        edits: list[TextEdit] = []
        call_repl = {}
        compile_deco = None
        if root.label.startswith("@") and self.whole_module:
            give_up("compiled by a decorator: `split` applies")
        if root.label.startswith("@"):
            for d in fn.decorators:
                if frag.span_of(d.decorator).start.line == root.location.span.start.line and \
                        "compile" in frag.code(d.decorator):
                    compile_deco = d
            if compile_deco is None:
                give_up("the compile decorator is not on this function")
            piece_deco = compile_deco.with_changes(leading_lines=[])
        else:
            piece_deco, call_edit = self._compile_call(ctx, p, fn)
            if isinstance(call_edit, dict):
                call_repl = call_edit
            elif call_edit is not None:
                edits.append(call_edit)

        locals_fn = N.function_locals(fn_ast)
        taken = set(src.names_in_use())
        all_loads = [n for n in ast.walk(fn_ast) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)] + \
            [n.target for n in ast.walk(fn_ast) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)]

        # what an uncompiled statement binds (a hook handle, a generator, a file) is not handed to a
        # compiled piece: a simple statement that reads it runs uncompiled too
        simple = [n for n in _walk_statements(fn) if isinstance(n, cst.SimpleStatementLine)]
        eager_bound: set[str] = set()
        for st in simple:
            if st in p.eager:
                eager_bound |= N.stores(N.parse_code(frag.code(st).strip()))
        changed = True
        while changed:
            changed = False
            for st in simple:
                if st in p.eager:
                    continue
                a = N.parse_code(frag.code(st).strip())
                if N.loads(a) & eager_bound and not N.has_any(a, ast.Return):
                    p.eager.add(st)
                    eager_bound |= N.stores(a)
                    changed = True

        # a `with ... as h:` whose header breaks runs whole when its block uses `h` (a file, a lock, a
        # profiler object is not something to trace); other eager compound statements keep only their
        # header in the glue, and the statements on the way to an eager statement are structural too
        whole = set()
        for s in p.eager:
            if isinstance(s, cst.With) and any(it.asname is not None for it in s.items):
                bound_here = {n.value for it in s.items if it.asname is not None for n in _names_in(it.asname.name)}
                if bound_here & N.loads(N.parse_code(_block_code(frag, s.body))):
                    whole.add(s)
        structural = set()
        for s in p.eager:
            if any(a in whole for a in frag.ancestors(s)):
                continue
            for a in frag.ancestors(s):
                if a is fn:
                    break
                if isinstance(a, cst.BaseCompoundStatement):
                    if not isinstance(a, _STRUCTURAL):
                        give_up("a break inside try/match is not split")
                    structural.add(a)
            if isinstance(s, cst.BaseCompoundStatement) and s not in whole:
                if not isinstance(s, _STRUCTURAL):
                    give_up("only for/while/with/if headers are kept out of the graph")
                structural.add(s)
        p.eager = {s for s in p.eager if not any(a in whole for a in frag.ancestors(s))}

        pieces: list[cst.FunctionDef] = []
        piece_names: list[str] = []
        indent = fn.body.indent
        eager_codes: list[str] = []

        def piece_call(name: str, args: list[str]) -> str:
            if is_method:
                return f"{receiver}.{name}({', '.join(a for a in args if a != receiver)})"
            return f"{name}({', '.join(args)})"

        def make_piece(stmts_cst, stmts_ast, bound: set[str], in_loop: bool, tail: bool):
            """The glue statement(s) for one run of compiled statements."""
            flat = [a for u in stmts_ast for a in u]
            if _trivial(flat):
                return list(stmts_cst)  # not worth compiling: stays in the glue as written
            for a in flat:
                if N.has_any(a, _FORBIDDEN_PIECE) or _frame_introspection(a):
                    give_up("a compiled piece would define functions, import, delete or use frames")
            if not tail and any(N.has_any(a, ast.Return) for a in flat):
                give_up("a return in the middle of the function")
            if _loose_jumps(flat):
                give_up("break/continue out of a piece")
            first, last = flat[0], flat[-1]
            lo, hi = (first.lineno, first.col_offset), (last.end_lineno, last.end_col_offset)
            inside = lambda n: lo <= (n.lineno, n.col_offset) <= hi  # noqa: E731
            exposed = [n for n in exposed_reads(flat) if n in locals_fn]
            stored = _ordered(n for a in flat for n in _stores_in_order(a))
            stored = [n for n in stored if n in locals_fn]
            read_outside = {n.id for n in all_loads if not inside(n)}
            outputs = [] if tail else [n for n in stored if n in read_outside or (in_loop and n in exposed)]
            definite = N.definitely_stores(flat)
            inputs = list(exposed)
            for n in outputs:
                if n not in definite and n not in inputs:
                    inputs.append(n)  # passed through unchanged on the paths that do not bind it
            for n in inputs:
                if n not in bound:
                    give_up(f"`{n}` may be unbound where the piece would be called")
            if is_method and receiver not in inputs:
                inputs = [receiver, *inputs]
            elif is_method:
                inputs = [receiver, *[a for a in inputs if a != receiver]]
            name = N.fresh(f"_{fn.name.value.lstrip('_')}_part{len(pieces) + 1}", taken)
            taken.add(name)
            body = [stmts_cst[0].with_changes(leading_lines=[]), *stmts_cst[1:]]
            if outputs:
                body.append(cst.parse_statement(f"return {', '.join(outputs)}"))
            pieces.append(cst.FunctionDef(
                name=cst.Name(name),
                params=cst.Parameters(params=[cst.Param(cst.Name(a)) for a in inputs]),
                body=cst.IndentedBlock(body=body, indent=indent),
                decorators=[piece_deco],
                leading_lines=[cst.EmptyLine(indent=False)] * (2 if isinstance(parent, cst.Module) else 1),
            ))
            piece_names.append(name)
            call = piece_call(name, inputs)
            if tail:
                code = f"return {call}"
            elif outputs:
                code = f"{', '.join(outputs)} = {call}"
            else:
                code = call
            return [cst.parse_statement(code).with_changes(leading_lines=stmts_cst[0].leading_lines)]

        def rebuild(stmts: list, block_ast: list[ast.stmt], bound: set[str], in_loop: bool, tail: bool) -> list:
            units = _ast_units(block_ast, stmts)
            out: list = []
            run: list[int] = []
            bound = set(bound)
            run_bound = set(bound)

            def flush(is_tail: bool):
                nonlocal run, run_bound
                if run:
                    out.extend(make_piece([stmts[i] for i in run], [units[i] for i in run], run_bound, in_loop,
                                          is_tail))
                run = []

            for i, s in enumerate(stmts):
                last = i == len(stmts) - 1
                if s in p.eager or s in structural:
                    flush(False)
                    if s in structural:
                        out.append(rebuild_compound(s, units[i][0], bound, in_loop, tail and last))
                    else:
                        eager_codes.append(_header(frag, s) if isinstance(s, cst.BaseCompoundStatement)
                                           else frag.code(s).strip())
                        out.append(s)
                    bound |= N.definitely_stores(units[i])
                    run_bound = set(bound)
                    continue
                if not run:
                    run_bound = set(bound)
                run.append(i)
                bound |= N.definitely_stores(units[i])
            flush(tail)
            return out

        def rebuild_block(block, block_ast, bound, in_loop, tail):
            if not isinstance(block, cst.IndentedBlock):
                give_up("one-line block")
            return block.with_changes(body=rebuild(list(block.body), block_ast, bound, in_loop, tail))

        def rebuild_compound(s, s_ast, bound, in_loop, tail):
            if s in p.eager:
                eager_codes.append(_header(frag, s))
            if isinstance(s, cst.If):
                if isinstance(s.orelse, cst.If):
                    give_up("elif chains are not split")
                new = s.with_changes(body=rebuild_block(s.body, s_ast.body, bound, in_loop, tail))
                if s.orelse is not None:
                    new = new.with_changes(orelse=s.orelse.with_changes(
                        body=rebuild_block(s.orelse.body, s_ast.orelse, bound, in_loop, tail)))
                return new
            if isinstance(s, (cst.For, cst.While)):
                inner = set(bound)
                if isinstance(s, cst.For):
                    inner |= N.stores(s_ast.target)
                new = s.with_changes(body=rebuild_block(s.body, s_ast.body, inner, True, False))
                if s.orelse is not None:
                    new = new.with_changes(orelse=s.orelse.with_changes(
                        body=rebuild_block(s.orelse.body, s_ast.orelse, bound, in_loop, False)))
                return new
            if isinstance(s, cst.With):
                if s.asynchronous:
                    give_up("async with")
                inner = set(bound)
                for it in s_ast.items:
                    if it.optional_vars is not None:
                        inner |= N.stores(it.optional_vars)
                return s.with_changes(body=rebuild_block(s.body, s_ast.body, inner, in_loop, tail))
            give_up()

        body = list(fn.body.body)
        doc = 1 if body and _is_docstring(body[0]) else 0
        glue = [*body[:doc], *rebuild(body[doc:], fn_ast.body[doc:], set(params), False, True)]

        glue_decos = [d for d in fn.decorators if d is not compile_deco]
        lead = list(fn.leading_lines)
        if compile_deco is not None:
            if fn.decorators and fn.decorators[0] is compile_deco:
                lead += list(compile_deco.leading_lines)
            elif glue_decos:
                pass
        new_fn = fn.with_changes(decorators=glue_decos, body=fn.body.with_changes(body=glue), leading_lines=lead)
        rep = {fn: cst.FlattenSentinel([new_fn, *pieces]) if pieces else new_fn, **call_repl}
        e = frag.rewrite(rep)
        if e is not None:
            edits.append(e)
        if not edits:
            give_up()
        what = short(eager_codes[0] if eager_codes else "the statement", 40)
        more = len(eager_codes) - 1
        also = (f" (and {more} more statement{'s' if more > 1 else ''} that break{'' if more > 1 else 's'} the graph)"
                if more > 0 else "")
        if not piece_names:
            how = f"remove `@{frag.code(compile_deco.decorator).strip()}`" if compile_deco is not None else \
                "call it without `torch.compile`"
            return Offer(f"Run `{fn.name.value}` uncompiled: nothing in it but `{what}`{also} would be compiled "
                         f"({how})", edits)
        names_txt = ", ".join(f"`{n}`" for n in piece_names)
        if self.whole_module:
            return Offer(f"Compile the pieces of `forward` ({names_txt}) instead of the whole module and run "
                         f"`{what}`{also} uncompiled (`{short(root.label, 40)}` becomes the module itself: "
                         "no `_orig_mod.` in its state_dict keys)", edits)
        return Offer(f"Split `{fn.name.value}`: compile {names_txt} and run `{what}`{also} uncompiled",
                     edits)

    # ---- a root compiled by a call -----------------------------------------------------------------
    def _compile_call(self, ctx: FixContext, p: _Plan, fn):
        """(the pieces' decorator, the edit of the compile call: an edit, or replacements in p.frag)."""
        loc = p.f.root.location
        if loc.path != p.path:
            give_up("torch.compile is called in another file")
        frag = p.src.fragment_at(loc.span.start.line)
        call = frag.node_at(loc.span, cst.Call)
        func = frag.code(call.func).strip()
        if func.rsplit(".", 1)[-1] != "compile" or not call.args or call.args[0].keyword is not None or \
                call.args[0].star:
            give_up("not a torch.compile(f, ...) call")
        target = call.args[0].value
        tname = target.value if isinstance(target, cst.Name) else \
            target.attr.value if isinstance(target, cst.Attribute) else None
        if (tname == fn.name.value) == self.whole_module:
            give_up("a module compiled as a whole is split by split-module" if not self.whole_module else
                    "the compiled object is the function itself")
        if self.whole_module and (fn.name.value != "forward" or not isinstance(target, (cst.Name, cst.Call))):
            give_up("only a module's forward, compiled as `torch.compile(model)` / `torch.compile(Net(...))`")
        if func != "torch.compile":
            bound = p.src.module_bindings().get(func.split(".")[0])
            if bound not in ("torch", "torch.compile"):
                give_up("not torch.compile")
        kwargs = []
        for a in call.args[1:]:
            if a.keyword is None or a.star:
                give_up("positional options")
            code = frag.code(a.value).strip()
            try:
                ast.literal_eval(code)
            except (ValueError, SyntaxError):
                give_up(f"`{a.keyword.value}=` is not a literal: it cannot move to a decorator")
            kwargs.append(f"{a.keyword.value}={code}")
        deco = cst.Decorator(decorator=cst.parse_expression(f"{func}({', '.join(kwargs)})" if kwargs else func))
        # `f = torch.compile(f)`: the statement goes; otherwise the call becomes its argument
        stmt = frag.statement_at(loc.span)
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        target_code = frag.code(target).strip()
        drop = isinstance(small, cst.Assign) and len(small.targets) == 1 and \
            frag.code(small.targets[0].target).strip() == target_code and small.value is call
        same = frag is p.frag
        block = frag.parent(stmt)
        if drop and (isinstance(block, cst.Module) and not frag.prefix or
                     isinstance(block, cst.IndentedBlock) and len(block.body) > 1):
            if same:
                return deco, {stmt: cst.RemovalSentinel.REMOVE}
            return deco, self._delete_lines(p.src, frag, stmt)
        if same:
            return deco, {call: target.with_changes(lpar=[], rpar=[])}
        return deco, frag.replace_expr(call, target_code)

    @staticmethod
    def _delete_lines(src, frag, stmt) -> TextEdit:
        sp = frag.span_of(stmt)
        first, last = sp.start.line, sp.end.line
        if src.line(first)[:sp.start.col].strip():
            give_up()
        # also the blank lines after it when a blank line precedes it (no run of four blank lines)
        while last + 1 < src.n_lines and not src.line(last + 1).strip() and first > 0 and \
                not src.line(first - 1).strip():
            last += 1
        end = Pos(last + 1, 0) if last + 1 < len(src.starts) else src.pos(len(src.text))
        return TextEdit(Span(Pos(first, 0), end), "")


def _walk_statements(fn) -> list:
    """The statements of a function in source order, not those of nested functions or classes."""
    out = []

    def walk(node):
        for c in node.children:
            if isinstance(c, (cst.FunctionDef, cst.ClassDef)):
                out.append(c)
                continue
            if isinstance(c, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                out.append(c)
            walk(c)
    walk(fn.body)
    return out


def _names_in(node) -> list:
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.append(n)
        stack.extend(n.children)
    return out


def _block_code(frag, block) -> str:
    import textwrap

    return textwrap.dedent("".join(frag.code(st) for st in getattr(block, "body", ())))


class SplitModule(Split):
    """`split` for a module compiled as a whole (`net = torch.compile(Net(...))`): `forward` becomes the
    uncompiled glue, its pieces are compiled methods, and the compile call returns the module itself.
    Unsafe: the object callers get is the module, not an OptimizedModule (state_dict keys without
    `_orig_mod.`, no `_orig_mod` attribute), and code reached only from the glue runs eagerly."""

    id = "split-module"
    title = "Compile the pieces of `forward` instead of the whole module (the breaking statements run uncompiled)"
    safe = False
    whole_module = True


def _header(frag, s) -> str:
    code = frag.code(s).strip()
    line = code.splitlines()[0] if code else code
    return line.rstrip(":").strip()


def _stores_in_order(tree: ast.AST) -> list[str]:
    names = N.stores(tree)
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in names and n.id not in out:
            out.append(n.id)
    for n in sorted(names - set(out)):
        out.append(n)
    return out

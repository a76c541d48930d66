"""Statement-local fixes: guard, remove-graph-break, API rewrites (clone, torch-math, fstring), suppress."""
from __future__ import annotations

import ast
import io
import re
import tokenize

import libcst as cst

from ..engine import suppressions
from ..positions import Pos, Span
from ..torchinfo import VersionRange
from . import names as N
from .base import Fix, FixContext, Offer, TextEdit, give_up, short, walk


def _single_small(stmt) -> cst.BaseSmallStatement | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def _first_line(code: str) -> str:
    for line in code.splitlines():
        s = line.strip()
        if s and not s.startswith("#"):
            return s
    return code.strip()


class Guard(Fix):
    id = "guard"
    title = "Skip the statement when compiled: wrap it in `if not torch.compiler.is_compiling():`"
    safe = False
    versions = VersionRange(since="2.3")

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag = ctx.fragment_of(f, compiled=True)
        stmt = frag.statement_at(f.span)
        small = _single_small(stmt)
        if small is not None:
            if not isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign)):
                give_up("only expression statements, assignments and with-blocks are guarded")
        elif not isinstance(stmt, cst.With):
            give_up("not a whole simple statement or with-block")
        if not isinstance(frag.parent(stmt), cst.IndentedBlock):
            give_up("statement does not stand on its own lines in a block")
        fn = frag.enclosing_function(stmt)
        if fn is None:
            give_up("not in a function")
        code = frag.code(stmt)
        try:
            stmt_ast = N.parse_code(code)
        except SyntaxError:
            give_up("cannot analyse")
        defined = N.stores(stmt_ast)
        if defined:
            fn_ast = N.find_function(src.tree, frag.span_of(fn).start.line)
            if fn_ast is None:
                give_up("function not found")
            if defined & N.declared_global(fn_ast):
                give_up("assigns a global")
            sp = frag.span_of(stmt)
            for n in ast.walk(fn_ast):
                used = None
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    used = n.id
                elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                    used = n.target.id
                if used in defined and not (sp.start.line <= n.lineno - 1 <= sp.end.line):
                    give_up(f"`{used}` is used outside the guarded code")
        tn, edits = ctx.torch_name(src)
        guard_test = f"not {tn}.compiler.is_compiling()"
        block = frag.parent(stmt)
        body = list(block.body)
        i = next(k for k, s in enumerate(body) if s is stmt)
        prev = body[i - 1] if i > 0 else None
        if isinstance(prev, cst.If) and prev.orelse is None and isinstance(prev.body, cst.IndentedBlock) and \
                frag.code(prev.test).strip() == guard_test:
            # right after an existing guard: join it instead of stacking another `if`
            moved = stmt.with_changes(leading_lines=[ln for ln in stmt.leading_lines if ln.comment is not None])
            new_prev = prev.with_changes(body=prev.body.with_changes(body=[*prev.body.body, moved]))
            e = frag.replace_stmts([prev, stmt], [new_prev])
            if e is None:
                give_up()
            what = short(_first_line(frag.code(small) if small is not None else code))
            return Offer(f"Skip `{what}` when compiled (move it into the `if {guard_test}:` above)", edits + [e])
        new_if = cst.If(
            test=cst.parse_expression(f"not {tn}.compiler.is_compiling()"),
            body=cst.IndentedBlock(body=[stmt.with_changes(leading_lines=[])]),
            leading_lines=stmt.leading_lines,
        )
        e = frag.replace_stmts([stmt], [new_if])
        if e is None:
            give_up()
        if small is not None:
            what = short(_first_line(frag.code(small)))
        else:
            what = short("with " + ", ".join(frag.code(i.item).strip() for i in stmt.items))
        return Offer(f"Skip `{what}` when compiled (wrap it in `if not {tn}.compiler.is_compiling():`)",
                     edits + [e])


class RemoveGraphBreak(Fix):
    id = "remove-graph-break"
    title = "Remove the explicit `graph_break()` call"
    safe = True

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag = ctx.fragment_of(f)
        stmt = frag.statement_at(f.span)
        small = _single_small(stmt)
        if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
            give_up("graph_break() is not a statement of its own")
        if frag.span_of(small.value) != f.span:
            give_up("not the reported call")
        block = frag.parent(stmt)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            give_up()
        body = list(block.body)
        i = next(k for k, s in enumerate(body) if s is stmt)
        keep = [ln for ln in stmt.leading_lines]
        has_comment = any(ln.comment is not None for ln in keep)
        if i + 1 < len(body):
            nxt = body[i + 1]
            e = frag.replace_stmts([stmt, nxt], [nxt.with_changes(leading_lines=[*keep, *nxt.leading_lines])])
        elif len(body) == 1 or has_comment:
            e = frag.replace_stmts([stmt], [cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=keep)])
        else:
            e = frag.replace_stmts([stmt], [])
        if e is None:
            give_up()
        return Offer("Remove the explicit `graph_break()` call", [e])


class CloneRewrite(Fix):
    id = "clone"
    title = "Use `t.clone()` instead of `copy.deepcopy(t)`"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if not (f.data.get("tensor_arg") or f.data.get("arg_kind") == "unknown"):
            give_up("not a tensor")
        src, frag = ctx.fragment_of(f)
        call = frag.node_at(f.span, cst.Call)
        func = frag.code(call.func).strip()
        if not (func == "deepcopy" or func.endswith(".deepcopy")):
            give_up("not deepcopy")
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            give_up("deepcopy with extra arguments")
        arg = call.args[0].value
        code = frag.code(arg).strip()
        if not isinstance(arg, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or arg.lpar:
            code = f"({code})"
        e = frag.replace_expr(call, f"{code}.clone()")
        kind = "" if f.data.get("tensor_arg") else "assumes a tensor; "
        return Offer(f"Use `{short(code, 30)}.clone()` instead of `copy.deepcopy()` ({kind}differs for leaf "
                     "tensors that require grad: the clone stays connected to autograd)", [e])


_MATH_TO_TORCH = {
    "exp": "exp", "log": "log", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin",
    "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "asinh",
    "acosh": "acosh", "atanh": "atanh", "log2": "log2", "log10": "log10", "log1p": "log1p", "expm1": "expm1",
    "erf": "erf", "erfc": "erfc", "lgamma": "lgamma", "fabs": "abs", "exp2": "exp2",
}


class TorchMath(Fix):
    id = "torch-math"
    title = "Use the torch function (`torch.exp(t)` for `math.exp(t)`)"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag = ctx.fragment_of(f)
        call = frag.node_at(f.span, cst.Call)
        func = frag.code(call.func).strip()
        name = func.rsplit(".", 1)[-1]
        q = src.module_bindings().get(func.split(".")[0], "")
        if not (q == "math" or q == f"math.{name}"):
            give_up("not a math function")
        target = _MATH_TO_TORCH.get(name)
        if target is None:
            give_up("no elementwise torch equivalent")
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            give_up("not a one-argument call")
        tn, edits = ctx.torch_name(src)
        e = frag.replace_expr(call.func, f"{tn}.{target}")
        return Offer(f"Use `{tn}.{target}()` instead of `{func}()` (returns a tensor, not a Python float)",
                     edits + [e])


# ---- f-strings -----------------------------------------------------------------------------------
def _simple_string(node) -> tuple[str, str] | None:
    """(quote, raw body) of a plain one-line string literal, else None."""
    if not isinstance(node, cst.SimpleString) or node.lpar:
        return None
    v = node.value
    if v[:1] not in ("'", '"') or v.startswith(("'''", '"""')):
        return None
    return v[0], v[1:-1]


def _expr_ok_in_fstring(code: str, quote: str) -> bool:
    return not any(ch in code for ch in (quote, "\\", "#", "{", "}", "\n", "\r", "!", ":")) and code.strip() != ""


class FString(Fix):
    id = "fstring"
    title = "Format the tensor with an f-string instead of str()/repr()/%"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag = ctx.fragment_of(f)
        node = frag.node_at(f.span, (cst.Call, cst.BinaryOperation))
        parts: list = []  # ("lit", raw) | ("expr", code, conv)
        quote = None
        top = node
        if isinstance(node, cst.Call):
            func = frag.code(node.func).strip()
            if func not in ("str", "repr") or len(node.args) != 1 or node.args[0].keyword or node.args[0].star:
                give_up("not str(x)/repr(x)")
            parts = [("expr", frag.code(node.args[0].value).strip(), "!r" if func == "repr" else "")]
            # merge with string literals it is concatenated to: "a" + str(x) + "b"
            chain = [node]
            p = frag.parent(node)
            while isinstance(p, cst.BinaryOperation) and isinstance(p.operator, cst.Add) and not p.lpar:
                chain.append(p)
                top = p
                p = frag.parent(p)
            if top is not node:
                parts = []
                ok = self._flatten(frag, top, parts)
                if not ok:
                    give_up("concatenation of something other than literals and str()")
        else:
            if not isinstance(node.operator, cst.Modulo):
                give_up()
            lit = _simple_string(node.left)
            if lit is None:
                give_up("format is not a plain literal")
            quote, body = lit
            right = node.right
            args = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
            pieces = re.split(r"(%%|%[sr])", body)
            if re.search(r"%(?!%|s|r)", re.sub(r"%%|%[sr]", "", body)):
                give_up("conversions other than %s/%r")
            k = 0
            for piece in pieces:
                if piece == "%%":
                    parts.append(("lit", "%"))
                elif piece in ("%s", "%r"):
                    if k >= len(args):
                        give_up("argument count")
                    parts.append(("expr", frag.code(args[k]).strip(), "!r" if piece == "%r" else ""))
                    k += 1
                elif piece:
                    parts.append(("lit", piece))
            if k != len(args):
                give_up("argument count")
        quotes = {q for q in [quote] if q} | {p[2] for p in parts if p[0] == "litq"}
        quote = quote or next((p[2] for p in parts if p[0] == "litq"), '"')
        del quotes
        body = []
        for p in parts:
            if p[0] in ("lit", "litq"):
                if p[0] == "litq" and p[2] != quote:
                    give_up("mixed quote styles")
                body.append(p[1].replace("{", "{{").replace("}", "}}"))
            else:
                if not _expr_ok_in_fstring(p[1], quote):
                    give_up("expression cannot go into an f-string as written")
                body.append("{" + p[1] + p[2] + "}")
        new = f"f{quote}{''.join(body)}{quote}"
        self._check_use(ctx, frag, top)
        cst.parse_expression(new)
        e = frag.replace_expr(top, new)
        return Offer(f"Use the f-string `{short(new, 40)}` (0-d tensors format as numbers)", [e])

    def _flatten(self, frag, node, parts) -> bool:
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add) and not node.lpar:
            return self._flatten(frag, node.left, parts) and self._flatten(frag, node.right, parts)
        lit = _simple_string(node)
        if lit is not None:
            parts.append(("litq", lit[1], lit[0]))
            return True
        if isinstance(node, cst.Call) and not node.lpar:
            func = frag.code(node.func).strip()
            if func in ("str", "repr") and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star:
                parts.append(("expr", frag.code(node.args[0].value).strip(), "!r" if func == "repr" else ""))
                return True
        return False

    def _check_use(self, ctx, frag, expr) -> None:
        """Dynamo traces an f-string of a tensor only as a value it passes on (a call argument, a
        returned value); using it in Python computations (len, +) still breaks."""
        p = frag.parent(expr)
        if isinstance(p, cst.Arg) and _is_message_call(frag, frag.parent(p)):
            return
        if isinstance(p, cst.Element) and isinstance(frag.parent(p), cst.Tuple) and \
                isinstance(frag.parent(frag.parent(p)), cst.Return):
            return
        if isinstance(p, cst.Return):
            return
        if isinstance(p, cst.Assign) and len(p.targets) == 1 and isinstance(p.targets[0].target, cst.Name):
            name = p.targets[0].target.value
            fn = frag.enclosing_function(p)
            if fn is None:
                give_up()
            fn_ast = N.find_function(ctx.source(frag.src.path).tree, frag.span_of(fn).start.line)
            if fn_ast is None:
                give_up()
            parents = {}
            for n in ast.walk(fn_ast):
                for c in ast.iter_child_nodes(n):
                    parents[c] = n
            for n in ast.walk(fn_ast):
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                    q = parents.get(n)
                    if isinstance(q, ast.Call) and n in q.args and _message_func(q.func):
                        continue
                    if isinstance(q, ast.Return):
                        continue
                    if isinstance(q, ast.Tuple) and isinstance(parents.get(q), ast.Return):
                        continue
                    give_up(f"`{name}` is used in a computation")
            return
        give_up("the string is used in a computation")


_MESSAGE_FUNCS = frozenset({"print", "info", "debug", "warning", "warn", "error", "exception", "critical",
                            "log", "write"})


def _message_func(func: ast.AST) -> bool:
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name in _MESSAGE_FUNCS


def _is_message_call(frag, call) -> bool:
    if not isinstance(call, cst.Call):
        return False
    name = call.func.value if isinstance(call.func, cst.Name) else \
        call.func.attr.value if isinstance(call.func, cst.Attribute) else ""
    return name in _MESSAGE_FUNCS


# ---- suppress ------------------------------------------------------------------------------------
class Suppress(Fix):
    id = "suppress"
    title = "Suppress this finding with `# fullgraph: ignore[FGnnn]`"
    safe = True

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src = ctx.source(f.path)
        stmt = f.data.get("stmt")
        line = stmt.end.line if stmt is not None else f.span.start.line
        text = src.line(line)
        # what follows the statement on its last line holds no comment, string or other statement: nothing to
        # tokenize (the statement itself ends there, so no string of it is open at the line's end)
        plain_end = stmt is not None and not any(ch in text[stmt.end.col:] for ch in "#'\";\\")
        comment = None if plain_end else self._line_comment(src, line, stmt.start.line if stmt is not None else None)
        if comment is None:
            end = len(text.rstrip())
            if text.rstrip().endswith("\\"):
                give_up("line continues with a backslash")
            e = TextEdit(Span(Pos(line, end), Pos(line, len(text))), f"  # fullgraph: ignore[{f.code}]")
        else:
            col, ctext = comment
            m = suppressions.PATTERN.search(ctext)
            if m and m.group("codes") is not None:
                codes = [c.strip() for c in m.group("codes").split(",") if c.strip()]
                if f.code in [c.upper() for c in codes]:
                    give_up("already suppressed")
                new_codes = ", ".join([*codes, f.code])
                s = col + m.start("codes")
                e = TextEdit(Span(Pos(line, s), Pos(line, col + m.end("codes"))), new_codes)
            elif m:
                give_up("already suppressed")
            else:
                end = len(text.rstrip())
                e = TextEdit(Span(Pos(line, end), Pos(line, len(text))), f"  # fullgraph: ignore[{f.code}]")
        return Offer(f"Suppress {f.code} on this line (`# fullgraph: ignore[{f.code}]`)", [e])

    def _line_comment(self, src, line: int, first: int | None = None):
        """(column, text) of the comment ending physical line `line`, or None; gives up when the end
        of the line is inside a string.  Tokenized from line `first`, where a statement starts (no string
        or bracket is open there), else from the top-level statement holding `line` (a class's whole body
        before a line near its end: a fifth of a second for the findings of torch/)."""
        if first is None:
            i = src.top_index_at(line)
            first = src.top_level()[i][0] if i is not None else line
        chunk_end = src.starts[line + 1] if line + 1 < len(src.starts) else len(src.text)
        chunk = src.text[src.starts[first]:chunk_end]
        found = None
        try:
            for tok in tokenize.generate_tokens(io.StringIO(chunk).readline):
                row = tok.start[0] - 1 + first
                if tok.type == tokenize.COMMENT and row == line:
                    found = (tok.start[1], tok.string)
                if tok.type == tokenize.STRING and tok.start[0] - 1 + first <= line < tok.end[0] - 1 + first:
                    give_up("the line ends inside a string")
        except tokenize.TokenError as e:
            if "string" in str(e).lower():
                give_up("the line ends inside a string")
        except (SyntaxError, IndentationError):
            give_up("cannot tokenize")
        if found is not None:
            # tokenize columns are code points of that physical line
            return found
        return None


class MinMaxList(Fix):
    id = "min-max-list"
    title = "Build a list and make the default its fallback: `max([...] or [d])` for `max((...), default=d)`"
    safe = True

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if f.data.get("keywords") != ["default"]:
            give_up("only `default=`")
        src, frag = ctx.fragment_of(f)
        call = frag.node_at(f.span, cst.Call)
        pos = [a for a in call.args if a.keyword is None]
        kws = [a for a in call.args if a.keyword is not None]
        if len(pos) != 1 or pos[0].star or len(kws) != 1 or kws[0].keyword.value != "default":
            give_up("not `max(<iterable>, default=...)`")
        arg, default = pos[0].value, kws[0].value
        if any(isinstance(n, (cst.Call, cst.Await, cst.Yield, cst.NamedExpr)) for n in walk(default)):
            give_up("the default could have side effects: it would be evaluated later")
        if isinstance(arg, cst.GeneratorExp):
            items = frag.code(cst.ListComp(elt=arg.elt, for_in=arg.for_in))
        elif isinstance(arg, (cst.List, cst.Tuple)):
            items = frag.code(cst.List(elements=arg.elements))
        else:
            give_up("not a generator or a list")
        func = frag.code(call.func).strip()
        e = frag.replace_expr(call, f"{func}({items} or [{frag.code(default).strip()}])")
        return Offer(f"Use `{func}([...] or [default])` instead of `default=` (the same value, without the keyword Dynamo cannot trace)", [e])


class SortKey(Fix):
    id = "sort-key"
    title = "Sort a dict's items by their keys: `sorted(d.items(), key=lambda kv: kv[0])`"
    safe = True  # a dict's keys are distinct: the order is the same

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if not f.data.get("items"):
            give_up("only the items of a dict")
        src, frag = ctx.fragment_of(f)
        call = frag.node_at(f.span, cst.Call)
        if not call.args or call.args[0].keyword is not None or call.args[0].star:
            give_up("not `sorted(d.items())`")
        last = call.args[-1]
        e = frag.replace_expr(last, f"{frag.code(last.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip()}, "
                                    "key=lambda kv: kv[0]")
        return Offer("Sort by the keys only: `key=lambda kv: kv[0]` (the same order: a dict's keys are distinct)", [e])

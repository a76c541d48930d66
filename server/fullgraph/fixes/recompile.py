"""Remedies for recompilation hazards (rules/recompile.py, FG6xx): the value Dynamo guards on made
something it does not guard by value.  Each one is checked by compiling the fixed example and counting
compiles (tests/test_rules_recompile.py): one compile, the same result as eager (the config switch: two).

- `tensor-arg`: a Python number argument passed as a tensor (`f(x, torch.tensor(lr))`);
- `counter-buffer`: an int/float attribute the module changes in forward kept in a non-persistent
  buffer (`self.register_buffer("step", torch.tensor(0), persistent=False)`);
- `mark-dynamic`: `torch._dynamo.mark_dynamic(x, d)` after the loop makes the tensor of a new size;
- `dynamic-true`: `dynamic=False` becomes `dynamic=True` in the torch.compile call;
- `unspec-int-config`: `torch._dynamo.config.allow_unspec_int_on_nn_module = True` (one recompile, then dynamic).

Only the changed text is edited: the argument, the one assignment in `__init__`, one inserted line, the
keyword's value; comments and formatting around them stay.
"""
from __future__ import annotations

import ast
import re

from ..positions import Pos, Span
from .base import Fix, FixContext, Offer, TextEdit, give_up


def _text(src, span: Span) -> str:
    return src.text[src.offset(span.start):src.offset(span.end)]


class TensorArg(Fix):
    id = "tensor-arg"
    title = "Pass the number as a tensor (`torch.tensor(lr)`): Dynamo does not guard on a tensor's value"
    safe = False  # the compiled function then gets a tensor: Python control flow or shapes on it break

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if f.code != "FG602" or f.data.get("type") not in ("int", "float"):
            give_up("not a Python number argument")
        src = ctx.source(f.path)
        if f.span.start.line != f.span.end.line:
            give_up("argument over several lines")
        arg = _text(src, f.span)
        tn, edits = ctx.torch_name(src)
        new = f"{tn}.tensor({arg})"
        return Offer(f"Pass `{new}` instead of `{arg}` (a tensor's value is not guarded; the compiled function "
                     f"then gets a tensor)", edits + [TextEdit(f.span, new)])


class CounterBuffer(Fix):
    id = "counter-buffer"
    title = "Keep the attribute in a non-persistent buffer (a tensor updated in place, not guarded by value)"
    safe = False  # the attribute becomes a tensor

    def offer(self, ctx: FixContext, f) -> Offer | None:
        attr = f.data.get("attr")
        if f.code != "FG601" or f.data.get("outside") or f.data.get("type") not in ("int", "float") or not attr:
            give_up("not a number attribute changed in a method")
        src = ctx.source(f.path)
        tree = src.tree
        if tree is None:
            give_up("no tree")
        line = f.span.start.line + 1
        for cls in ast.walk(tree):
            if not isinstance(cls, ast.ClassDef) or not cls.lineno <= line <= (cls.end_lineno or 0):
                continue
            init = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
            if init is None:
                continue
            for s in ast.walk(init):
                if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Attribute) \
                        and isinstance(s.targets[0].value, ast.Name) and s.targets[0].value.id == "self" \
                        and s.targets[0].attr == attr and isinstance(s.value, ast.Constant) \
                        and s.lineno == s.end_lineno:
                    text = src.line(s.lineno - 1)
                    m = re.search(rf"self\s*\.\s*{re.escape(attr)}\s*=\s*([^#;]*?)\s*(#.*)?$", text)
                    if m is None:
                        give_up("assignment not found in its line")
                    tn, edits = ctx.torch_name(src)
                    new = f"self.register_buffer({attr!r}, {tn}.tensor({m.group(1)}), persistent=False)"
                    new = new.replace(f"'{attr}'", f'"{attr}"')
                    span = Span(Pos(s.lineno - 1, m.start()), Pos(s.lineno - 1, m.end(1)))
                    return Offer(f"Make `self.{attr}` a non-persistent buffer in `__init__` (`{new}`): it is "
                                 f"updated in place, and Dynamo does not guard on its value", edits + [TextEdit(span, new)])
        give_up("no literal assignment in __init__")


class MarkDynamic(Fix):
    id = "mark-dynamic"
    title = "Mark the varying dimension dynamic (`torch._dynamo.mark_dynamic(x, 0)`) where the tensor is made"
    safe = True

    def offer(self, ctx: FixContext, f) -> Offer | None:
        dims = f.data.get("dims")
        name = f.data.get("arg")
        if f.code not in ("FG605", "FG606") or not dims or not name or not name.isidentifier() \
                or not f.data.get("assigned"):
            give_up("not a tensor made by an assignment in the loop")
        src = ctx.source(f.path)
        line = src.line(f.span.start.line)
        if f.span.end.line != f.span.start.line:
            give_up("assignment over several lines")
        indent = line[: len(line) - len(line.lstrip())]
        tn, edits = ctx.torch_name(src)
        calls = "; ".join(f"{tn}._dynamo.mark_dynamic({name}, {d})" for d in dims)
        new = f"{indent}{calls}{src.newline}"
        return Offer(f"Mark `{name}`'s dimension{'s' if len(dims) > 1 else ''} {', '.join(map(str, dims))} dynamic "
                     f"after it is made (`{calls}`)", edits + [src.line_insert(f.span.end.line + 1, new)])


class DynamicTrue(Fix):
    id = "dynamic-true"
    title = "Compile with `dynamic=True`: sizes and numbers are dynamic from the first compile"
    safe = True

    def offer(self, ctx: FixContext, f) -> Offer | None:
        at = f.root.location.span if f.root is not None else None
        if at is None or f.data.get("dynamic") is not False:
            give_up("not compiled with dynamic=False")
        src = ctx.source(f.root.location.path)
        if at.start.line != at.end.line:
            give_up("compile call over several lines")
        text = _text(src, at)
        m = list(re.finditer(r"\bdynamic\s*=\s*False\b", text))
        if len(m) != 1:
            give_up("dynamic=False not found once")
        start = Pos(at.start.line, at.start.col + m[0].start())
        end = Pos(at.start.line, at.start.col + m[0].end())
        return Offer("Compile with `dynamic=True` instead of `dynamic=False`", [TextEdit(Span(start, end), "dynamic=True")])


class UnspecIntConfig(Fix):
    id = "unspec-int-config"
    title = "Set `torch._dynamo.config.allow_unspec_int_on_nn_module = True` (program-wide)"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if f.code != "FG601" or f.data.get("type") != "int" or f.data.get("object"):
            give_up("not an int attribute of an nn.Module")
        src = ctx.source(f.path)
        tn, edits = ctx.torch_name(src)
        line = f"{tn}._dynamo.config.allow_unspec_int_on_nn_module = True"
        if any(ln.strip() == line for ln in src.lines):
            give_up("already set")
        return Offer(f"Set `{line}` after the imports (int attributes of modules become dynamic after one more "
                     "compile; program-wide)", edits + [src.line_insert(src.imports_end_line(), line + src.newline)])

"""`hoist-init`: a lazy set-up block in a compiled method moves to the end of `__init__`.

    class Stats(nn.Module):                         class Stats(nn.Module):
        def __init__(self, model):                      def __init__(self, model):
            self.model = model                              self.model = model
            self._installed = False         ->              self._installed = False
                                                            if not self._installed:
        def forward(self, x):                                   self._install()
            if not self._installed:
                self._install()                         def forward(self, x):
            return self.model(x)                            return self.model(x)

The guide's remedy for hooks, parameters, layers, generators and copies made inside the compiled
region: create them once, before compiling.  Offered only for an `if` directly in the method whose
test is a first-call test on an attribute `__init__` sets (`not self.flag`, `self.x is None`,
`self.x is False`), whose block reads nothing of the call (no argument, no local of the method: a
shape taken from the input cannot be known in `__init__`) and does not return.  Unsafe: the block
runs when the object is built instead of at its first call (weights loaded, modules swapped or
attributes changed in between are not seen).
"""
from __future__ import annotations

import ast


from . import names as N
from .base import Fix, FixContext, Offer, TextEdit, give_up, short
from .split import exposed_reads, root_statement_span
from ..positions import Pos, Span


def _first_call_attr(test: ast.expr, receiver: str) -> str | None:
    """The attribute a first-call test looks at: `not self.a`, `self.a is None`, `self.a is False`, `self.a == None`."""
    def attr(e):
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == receiver:
            return e.attr
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return attr(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq)) and \
            isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value in (None, False):
        return attr(test.left)
    return None


def _assigns_attr(fn: ast.FunctionDef, receiver: str, name: str) -> bool:
    for n in ast.walk(fn):
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                for e in ast.walk(t):
                    if isinstance(e, ast.Attribute) and e.attr == name and isinstance(e.value, ast.Name) and \
                            e.value.id == receiver:
                        return True
    return False


class HoistInit(Fix):
    id = "hoist-init"
    title = "Move the lazy set-up block to the end of `__init__` (it runs once when the object is built)"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        where = root_statement_span(f)
        if where is None:
            give_up("not in a compiled region")
        path, span = where
        src = ctx.source(path)
        tree = src.tree
        if tree is None:
            give_up()
        cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and
                    n.lineno - 1 <= span.start.line <= (n.end_lineno or n.lineno) - 1), None)
        if cls is None:
            give_up("not in a method of a top-level class")
        method = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and
                       m.lineno - 1 <= span.start.line <= (m.end_lineno or m.lineno) - 1), None)
        init = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
        if method is None or init is None or method is init:
            give_up("no __init__ in the class, or not in a method")
        params, init_params = N.params_of(method), N.params_of(init)
        if not params or not init_params or params[0] != init_params[0] or method.decorator_list and any(
                isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in method.decorator_list):
            give_up("not a plain method")
        receiver = params[0]
        block = next((s for s in method.body if s.lineno - 1 <= span.start.line <= (s.end_lineno or s.lineno) - 1),
                     None)
        if not isinstance(block, ast.If) or block.orelse:
            give_up("not inside a lazy set-up `if` of the method")
        attr = _first_call_attr(block.test, receiver)
        if attr is None or not _assigns_attr(init, receiver, attr):
            give_up("not a first-call test on an attribute __init__ sets")
        if any(N.has_any(s, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal))
               for s in block.body):
            give_up("the block returns or is a generator")
        if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(block)):
            give_up("break/continue")
        local = N.function_locals(method) - {receiver}
        if set(exposed_reads([block])) & local:
            give_up("the block reads what the call is given (it cannot run in __init__)")
        later = set()
        for s in method.body:
            if s.lineno > (block.end_lineno or block.lineno):
                later |= N.loads(s)
        if N.stores(block) & local & later:
            give_up("the method uses what the block binds")
        if init.body and isinstance(init.body[-1], ast.Return):
            give_up("__init__ ends with a return")
        # the text: the block's lines, cut from the method and pasted after __init__'s last line
        first, last = block.lineno - 1, (block.end_lineno or block.lineno) - 1
        b_indent = src.line(first)[:block.col_offset]
        last_init = init.body[-1]
        i_indent = src.line(last_init.lineno - 1)[:last_init.col_offset]
        if b_indent.strip() or i_indent.strip() or b_indent != i_indent:
            give_up("different indentation")
        if src.line(first)[len(b_indent):].strip() != src.line(first).strip() or \
                src.line(last).rstrip().endswith("\\"):
            give_up()
        if len(method.body) == 1:
            give_up("nothing would stay in the method")
        # comments right above the block move with it
        top = first
        while top - 1 > method.lineno - 1 and src.line(top - 1).strip().startswith("#"):
            top -= 1
        end_line = last + 1
        text = "".join(src.line(k) + src.newline for k in range(top, end_line))
        cut_end = Pos(end_line, 0) if end_line < len(src.starts) else src.pos(len(src.text))
        init_end = (init.end_lineno or init.lineno)
        if top <= init_end - 1 <= last:
            give_up()
        paste = TextEdit(Span(Pos(init_end, 0), Pos(init_end, 0)), text)
        cut = TextEdit(Span(Pos(top, 0), cut_end), "")
        test = ast.get_source_segment(src.text, block.test) or "..."
        return Offer(f"Move the lazy set-up `if {short(test, 30)}:` from `{method.name}` to the end of `__init__` "
                     "(it runs once when the object is built, not at the first call)", [paste, cut])

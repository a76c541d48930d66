"""hop-print: keep a print in the graph with `torch._higher_order_ops.print("fmt {}", t)`.

PyTorch's graph-break guidance recommends this higher-order op for prints in compiled code: Dynamo
traces it (no break under `fullgraph=True`), and it prints at run time, in order with the tensor
computations, under eager, aot_eager and inductor (the team's catalog, §3).  It is a private API:
the title says so.  `print(a, "b", t)` becomes `torch._higher_order_ops.print("{!s} b {!s}", a, t)`
(arguments joined by spaces and shown with str() as print does; literal strings and f-strings
without format specs or conversions go into the format).  What it prints under compile can differ
in details (a `torch.Size` shows as a tuple).
"""
from __future__ import annotations

import libcst as cst

from ..torchinfo import VersionRange
from .base import Fix, FixContext, Offer, give_up, py_string, short


def _literal(node) -> str | None:
    """The value of a plain (not byte, not f-) string literal, or None."""
    if isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower():
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - libcst cannot evaluate every literal
            return None
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None or right is None else left + right
    return None


class HopPrint(Fix):
    id = "hop-print"
    title = "Keep the print in the graph: `torch._higher_order_ops.print(...)` (private API)"
    safe = False
    # The positional form ("{}", t) arrived in Dec 2025 (pytorch#170880): 2.11 is the first release
    # after it (inferred); verified on 2.13 (tests/test_fixes_oracle.py).
    versions = VersionRange(since="2.11")
    apis = ("torch._higher_order_ops.print",)

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag = ctx.fragment_of(f, compiled=True)
        call = frag.node_at(f.span, cst.Call)
        if frag.code(call.func).strip() != "print":
            give_up("not a print() call")
        if not isinstance(frag.parent(call), cst.Expr):
            give_up("the print's value is used")
        fmt: list[str] = []
        args: list[str] = []
        for a in call.args:
            if a.keyword is not None or a.star:
                give_up("print() with keywords (sep=, end=, file=) or *args")
            lit = _literal(a.value)
            if lit is not None:
                fmt.append(lit.replace("{", "{{").replace("}", "}}"))
            elif isinstance(a.value, cst.FormattedString):
                piece = []
                for part in a.value.parts:
                    if isinstance(part, cst.FormattedStringText):
                        piece.append(part.value.replace("{{", "\0").replace("}}", "\1"))
                    elif part.conversion is None and part.format_spec is None and part.equal is None:
                        piece.append("{}")
                        args.append(frag.code(part.expression).strip())
                    else:
                        give_up("f-string with a conversion or format spec")
                if "\\" in "".join(piece) or "b" in a.value.start.lower():
                    give_up("escapes or byte strings in the f-string")
                fmt.append("".join(piece).replace("\0", "{{").replace("\1", "}}"))
            else:
                fmt.append("{!s}")  # print() shows str(value): `{}` would format a 0-d tensor as a number
                args.append(frag.code(a.value).strip())
        tn, edits = ctx.torch_name(src)
        new = f"{tn}._higher_order_ops.print({py_string(' '.join(fmt))}{''.join(', ' + x for x in args)})"
        cst.parse_expression(new)
        e = frag.replace_expr(call, new)
        if e is None:
            give_up()
        return Offer(f"Keep the print in the graph: `{short(new, 48)}` (private API, prints at run time)",
                     edits + [e])

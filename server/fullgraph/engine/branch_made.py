"""Values an `if` branch makes tensors: a test on them breaks only when that branch ran.

    skip_the_layer = False
    if self.training and self.layerdrop > 0.0:
        skip_the_layer = torch.rand([]) < self.layerdrop
    if not skip_the_layer:          # bool(tensor) only when the branch above ran
        hidden_states = layer(hidden_states)

The analyzer keeps the last value a name was given, so after the first `if` the name is a tensor and the
second test is a graph break on every path.  Dynamo sees the literal `False` whenever the branch did not run
(eval mode: `self.training` is False) and traces the test without a break (checked against Dynamo 2.13:
tests/test_branch_made.py).  This module keeps, per name, the path condition under which a branch made it a
tensor when it held a literal before the `if` (`made`), and gives a test of those names that condition
(`test_conds`), which the analyzer adds to the test's own path condition; the walk then decides it like any
other (the mode at the call, a config default).
"""
from __future__ import annotations

import ast

from . import values as V

__all__ = ["made_in_branches", "test_conds"]

_DATA = (V.TENSOR, V.DDSCALAR)
# what a test may hold for its tensor-ness to come only from names: a call, an attribute or a subscript
# could be a tensor of its own (`if not skip or x.any():` breaks on every path)
_PLAIN = (ast.Name, ast.Constant, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Load, ast.boolop, ast.unaryop,
          ast.cmpop)


def made_in_branches(made: dict[str, tuple], before: dict, after: dict, bound: list[str], marks: tuple,
                     body_conds: tuple, else_conds: tuple) -> None:
    """After an `if` (env `before` it and `after` it; `bound`, the names the analyzer bound in order, and
    `marks`, its length before the body, after it and after the else): record in `made` each name one branch
    alone made a tensor (or a number read from one) while it held a literal before, with that branch's path
    condition (`body_conds`/`else_conds`, absolute: the enclosing ones included); a condition recorded by an
    `if` inside the branch is kept (it holds the branch's and its own)."""
    start, mid, end = marks
    for i in range(start, end):
        name = bound[i]
        v = after.get(name)
        if v is None or v.kind not in _DATA:
            continue  # (the usual case: nothing more is looked at)
        old = before.get(name)
        if old is None or old.kind != V.CONST:
            continue
        in_body = name in bound[start:mid]
        if in_body and name in bound[mid:end]:
            continue  # both branches bound it
        conds = body_conds if in_body else else_conds
        inner = made.get(name)
        made[name] = inner if inner is not None and len(inner) > len(conds) and inner[:len(conds)] == conds \
            else conds


def test_conds(test: ast.AST, env: dict, made: dict[str, tuple]) -> tuple | None:
    """The path condition under which `test` is a test on tensor data, when that comes only from names a
    branch made tensors (all under the same condition); else None."""
    found = None
    for n in ast.walk(test):
        if not isinstance(n, _PLAIN):
            return None
        if type(n) is ast.Name:
            v = env.get(n.id)
            if v is None or v.kind not in _DATA:
                continue
            conds = made.get(n.id)
            if conds is None or (found is not None and conds != found):
                return None
            found = conds
    return found

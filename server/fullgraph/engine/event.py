"""What a rule sees: one call, method call or syntactic event, with its resolved values."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import values as V
from .values import Val

if TYPE_CHECKING:  # pragma: no cover
    from .analyzer import FunctionAnalyzer


@dataclass
class Event:
    """What a rule sees: one call, method call or syntactic event, with resolved values."""

    kind: str  # "call" | "method" | a hook name
    node: ast.AST
    fn: "FunctionAnalyzer"
    q: str | None = None  # qualified callee
    method: str | None = None
    recv: Val | None = None
    args: list[Val] = field(default_factory=list)
    kwargs: dict[str, Val] = field(default_factory=dict)
    value: Val | None = None  # hook subject

    def text(self, node: ast.AST | None = None) -> str:
        return self.fn.mod.text_of(node or self.node)

    def arg_is_tensor_like(self, v: Val) -> bool:
        return v.kind in (V.TENSOR, V.CONST, V.FSTRING)

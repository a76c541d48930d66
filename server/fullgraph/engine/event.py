"""What a rule sees of one call, method call or syntactic event (with its resolved values), and what
a rule's ``check`` may return (a message, or a Report)."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import values as V
from .summary import ModuleSummary
from .values import Val


class ModuleView(Protocol):
    """What a rule may read of the module being analysed."""

    summary: ModuleSummary

    def text_of(self, node: ast.AST) -> str: ...


class FunctionView(Protocol):
    """What a rule may read of the function being analysed (engine/analyzer.py's FunctionAnalyzer)."""

    mod: ModuleView
    tensor_holders: dict[str, str]

    def lookup(self, name: str) -> Val: ...

    def resolve_dotted_node(self, node: ast.AST) -> str | None: ...


@dataclass
class Event:
    """What a rule sees: one call, method call or syntactic event, with resolved values."""

    kind: str  # "call" | "method" | a hook name
    node: ast.AST
    fn: FunctionView
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


@dataclass
class Report:
    """A rule's finding at an event: its message, the node to underline (default: the event's), and
    data kept with the finding (read by fixes, `holds` and `silenced_by`)."""

    message: str
    node: Any = None
    data: dict = field(default_factory=dict)

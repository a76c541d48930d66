"""The findings every front-end (CLI, language server, runtime capture) shares."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .positions import Span

ERROR = "error"
WARNING = "warning"
INFO = "info"
HINT = "hint"  # the gathered conditional library findings (conditional.py): no squiggle in editors


@dataclass(frozen=True)
class Location:
    path: str
    span: Span

    def to_json(self) -> dict:
        return {"path": self.path, "range": self.span.to_json()}


@dataclass(frozen=True)
class Step:
    """One call on the path from a compiled root to a finding."""

    qualname: str  # the function entered
    call: Location | None  # where it is called from (None for the root itself)

    def to_json(self) -> dict:
        return {"function": self.qualname, "call": self.call.to_json() if self.call else None}


@dataclass(frozen=True)
class RootInfo:
    """A compiled region's entry: what torch.compile is applied to, and how."""

    qualname: str  # the function Dynamo starts tracing (e.g. "model.Net.forward")
    label: str  # what the user wrote, e.g. "@torch.compile(fullgraph=True)" or "torch.compile(model)"
    location: Location  # where torch.compile is written
    fullgraph: bool | None  # None: not a literal (e.g. fullgraph=args.strict)

    def to_json(self) -> dict:
        return {
            "function": self.qualname,
            "label": self.label,
            "fullgraph": self.fullgraph,
            **self.location.to_json(),
        }


@dataclass(frozen=True)
class FixRef:
    id: str
    title: str
    safe: bool

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "safe": self.safe}


@dataclass(frozen=True)
class LibrarySite:
    """A break inside a followed library that a finding at the user's line stands for."""

    path: str
    span: Span
    code: str
    message: str
    condition: str | None = None
    module: str = ""  # the library module it is in ("transformers.modeling_utils")

    def to_json(self) -> dict:
        return {"path": self.path, "range": self.span.to_json(), "code": self.code, "message": self.message,
                "condition": self.condition}


@dataclass
class Finding:
    path: str
    code: str
    name: str
    message: str
    severity: str
    span: Span
    root: RootInfo | None = None
    call_path: list[Step] = field(default_factory=list)
    gb_codes: tuple[str, ...] = ()
    url: str = ""
    fixes: list[FixRef] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)  # rule facts the fixes use
    origin: str = "static"  # "static" | "runtime" | "confirmed"
    library_sites: list[LibrarySite] = field(default_factory=list)  # the library breaks behind an echo
    # when the path from the root depends on flags that are off by default or unknown: the condition
    # ("`output_attentions=True`"); such a finding is *conditional* (reported apart, severity info)
    condition: str | None = None

    def sort_key(self):
        return (self.path, self.span.start, self.code)

    def path_text(self) -> str:
        return " -> ".join(s.qualname for s in self.call_path)

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "severity": self.severity,
            "range": self.span.to_json(),
            "root": self.root.to_json() if self.root else None,
            "call_path": [s.qualname for s in self.call_path],
            "calls": [s.to_json() for s in self.call_path],
            "gb_codes": list(self.gb_codes),
            "url": self.url,
            "fixes": [f.to_json() for f in self.fixes],
            "origin": self.origin,
            "library_sites": [x.to_json() for x in self.library_sites],
            "conditional": self.condition is not None,
            "condition": self.condition,
            **({"cell": self.data["cell"]} if "cell" in self.data else {}),  # a notebook's cell (from 1)
        }

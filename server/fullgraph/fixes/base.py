"""The fix engine's building blocks, in one import for a fix: text edits (fixes/edits.py), the source a fix
reads (fixes/source.py: its libcst fragments), the per-call cache (FixContext) and the Fix base class.

A fix never transforms a whole module.  It parses (with libcst) only the *top-level statement* that
contains the code it changes — a function, a class, a module-level statement — rewrites nodes in
it, and turns the difference between the old and the new text of that statement into one minimal
text edit.  Module-level insertions (an import, a registration line, a generated function) are
plain line insertions.  Everything is cached per `FixContext`, which lives for one
`attach_fixes` call, so each file is read, `ast`-parsed and libcst-parsed (per statement) at most
once per call.

Positions are `Pos(line, col)` with 0-based lines and code-point columns (positions.py), against
the exact text the workspace analysed.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from typing import Callable, ClassVar

import libcst as cst

from ..positions import Pos, Span
from ..torchinfo import ALL_VERSIONS, TorchVersion, VersionRange, api_exists
from .edits import (
    NotOffered,
    TextEdit,
    apply_edits,
    detect_newline,
    give_up,
    line_starts,
)
from .source import Fragment, Replacer, Source, walk


@dataclass
class Offer:
    """What a fix proposes for one finding."""

    title: str
    edits: list[TextEdit]


class FixContext:
    """Caches for one attach_fixes / edits_for call."""

    def __init__(self, workspace):
        self.ws = workspace
        self.project = workspace.project
        self.version: TorchVersion = workspace.config.torch()
        self._sources: dict[str, Source | None] = {}
        self.memo: dict = {}

    def source(self, path: str) -> Source:
        if path not in self._sources:
            self._sources[path] = self.ws.fix_source(path)
        s = self._sources[path]
        if s is None:
            give_up("source not available")
        return s

    def fragment_of(self, f, compiled: bool = False) -> tuple[Source, Fragment]:
        """The source of the finding's file and the fragment (its top-level statement) it lies in; with
        `compiled`, gives up when the finding is not in a compiled region (it has no call path)."""
        if compiled and not f.call_path:
            give_up("not in a compiled region")
        src = self.source(f.path)
        return src, src.fragment_at(f.span.start.line)

    def callers(self):
        return self.project.callers_index()

    def torch_name(self, src: Source) -> tuple[str, list[TextEdit]]:
        """How the module names torch, and the import to add if it does not."""
        for local, q in src.module_bindings().items():
            if q == "torch":
                return local, []
        return "torch", [src.line_insert(src.imports_end_line(), "import torch" + src.newline)]

    def validate(self, src: Source, edits: list[TextEdit]) -> bool:
        """The edited module parses.  Parsing only what changed is enough: each edit lies inside one
        top-level statement (that statement's new text must parse on its own, at column 0) or inserts
        whole lines between top-level statements (they must parse on their own).  Anything else is
        checked by parsing the whole new text."""
        groups: dict[tuple[int, int], list[TextEdit]] = {}
        try:
            for e in edits:
                s, t = e.range.start, e.range.end
                r = src.range_at(s.line)
                if s == t and s.col == 0 and (r is None or r[0] == s.line) and \
                        e.new_text.endswith(("\n", "\r")) and _parses(e.new_text):
                    continue  # whole lines inserted between top-level statements
                if r is None or t.line > r[1]:
                    ast.parse(apply_edits(src.text, edits, src.starts))
                    return True
                # inside one method of a top-level class: that method alone (a class of thousands of
                # lines is not parsed again for each offer)
                m = src._method_range(r[0], r[1], s.line)
                if m is not None and m[0] <= s.line and t.line <= m[1]:
                    r = (m[0], m[1], True)
                groups.setdefault(r, []).append(e)
            for key, eds in groups.items():
                a, b = key[0], key[1]
                s_off = src.starts[a]
                e_off = src.starts[b + 1] if b + 1 < len(src.starts) else len(src.text)
                seg = src.text[s_off:e_off]
                shifted = [TextEdit(Span(Pos(x.range.start.line - a, x.range.start.col),
                                         Pos(x.range.end.line - a, x.range.end.col)), x.new_text) for x in eds]
                new = apply_edits(seg, shifted)
                ast.parse(f"class _:{src.newline}{new}" if len(key) == 3 else new)
        except (SyntaxError, ValueError):
            return False
        return True


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def text_of(workspace, path: str) -> str | None:
    """The text the workspace analysed for `path`: the editor buffer if there is one, else the file."""
    return workspace.source_of(path)


# ---- fixes ---------------------------------------------------------------------------------------
class Fix:
    id: ClassVar[str]
    title: ClassVar[str]  # generic title (docs); offers carry a specific one
    safe: ClassVar[bool]
    versions: ClassVar[VersionRange] = ALL_VERSIONS
    # torch names the fix's code needs: not offered on a release whose collected `apis` lack one
    apis: ClassVar[tuple[str, ...]] = ()

    def supported(self, version: TorchVersion) -> bool:
        return self.versions.contains(version) and all(api_exists(a, version) is not False for a in self.apis)

    def offer(self, ctx: FixContext, finding) -> Offer | None:  # pragma: no cover - abstract
        raise NotImplementedError


def merge_edits(edits: list[TextEdit], src: Source) -> list[TextEdit]:
    """Sort edits, drop duplicates, and merge edits that touch into one (LSP clients need disjoint edits)."""
    items = []
    seen = set()
    for i, e in enumerate(edits):
        key = (e.range, e.new_text)
        if key in seen:
            continue
        seen.add(key)
        items.append((src.offset(e.range.start), src.offset(e.range.end), i, e))
    items.sort(key=lambda t: (t[0], t[1], t[2]))
    out: list[list] = []
    for s, e, _, ed in items:
        if out and s <= out[-1][1]:
            ps, pe, ptext = out[-1]
            if s < pe:
                raise NotOffered("a fix produced overlapping edits")
            out[-1] = [ps, max(pe, e), ptext + ed.new_text]
        else:
            out.append([s, e, ed.new_text])
    return [TextEdit(Span(src.pos(s), src.pos(e)), t) for s, e, t in out]


def py_string(s: str) -> str:
    """A Python string literal for `s`, in double quotes when it needs no escapes."""
    return f'"{s}"' if not any(c in s for c in '"\\\n\r') else repr(s)


def short(code: str, limit: int = 40) -> str:
    code = " ".join(code.split())
    return code if len(code) <= limit else code[: limit - 1] + "…"


def function_summary(ctx: FixContext, qualname: str):
    hit = ctx.project.function(qualname)
    return hit


def parse_expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def parse_stmt(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


__all__ = [
    "TextEdit", "Offer", "NotOffered", "give_up", "Source", "Fragment", "FixContext", "Fix", "text_of",
    "apply_edits", "merge_edits", "short", "parse_expr", "parse_stmt", "line_starts", "detect_newline",
    "Replacer", "walk", "field", "dataclass", "Callable", "os",
]

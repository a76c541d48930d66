"""`fullgraph trace --compare`: what Dynamo met at run time against what the static analysis says.

* found: a runtime break and a static finding in the same file, on the same line or in the same
  statement (a multi-line call reported by Dynamo at one line and by the analyzer at another);
* missed: runtime breaks no static finding matches;
* unconfirmed: static findings in files that ran under Dynamo (the record lists the file: Dynamo
  compiled, traced or broke in it) that no runtime break matches.  Code that never ran under
  Dynamo is not judged; those findings are only counted (``not_run``).

Files whose content changed since the capture are not compared (their lines may have moved); they
are listed as stale.

Recompiles are listed beside the breaks (``recompiles``), each with the static finding of a
recompilation rule (FG6xx: recompile hazards, not graph breaks) at its site, in the same statement,
or at the compiled function's first line, when there is one; FG6xx findings in files that ran that
no recompile matches are ``recompiles_unconfirmed``.  Neither is part of the break counts.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from ..model import Finding
from ..positions import first_line
from .record import (
    Break,
    Recompile,
    Record,
    norm_path,
    read_text,
    recompile_message,
    sha1_file,
)

NOT_GRAPH_BREAKS = ("FG001", "FG002")  # syntax error / unreadable file
RECOMPILE_RULES = "FG6"  # code prefix of the static rules about recompiles


@dataclass
class Comparison:
    found: list[tuple[Break, Finding]] = field(default_factory=list)
    missed: list[Break] = field(default_factory=list)
    unconfirmed: list[Finding] = field(default_factory=list)
    stale_files: list[str] = field(default_factory=list)
    not_run: int = 0
    recompiles: list[tuple[Recompile, Finding | None]] = field(default_factory=list)
    recompiles_unconfirmed: list[Finding] = field(default_factory=list)

    def to_json(self, record_path: str | None = None) -> dict:
        return {
            "record": record_path,
            "found": [{"runtime": b.to_json(), "static": f.to_json()} for b, f in self.found],
            "missed": [b.to_json() for b in self.missed],
            "unconfirmed": [f.to_json() for f in self.unconfirmed],
            "stale_files": list(self.stale_files),
            "not_run": self.not_run,
            "recompiles": [{"runtime": r.to_json(), "static": f.to_json() if f is not None else None}
                           for r, f in self.recompiles],
            "recompiles_unconfirmed": [f.to_json() for f in self.recompiles_unconfirmed],
            "summary": {"runtime_breaks": len(self.found) + len(self.missed), "found": len(self.found),
                        "missed": len(self.missed), "unconfirmed": len(self.unconfirmed)},
        }


def compare(record: Record, static: list[Finding]) -> Comparison:
    out = Comparison()
    current: dict[str, str | None] = {}

    def fresh(path: str) -> bool:
        key = norm_path(path)
        recorded = next((h for p, h in record.files.items() if norm_path(p) == key), None)
        if key not in current:
            current[key] = sha1_file(path)
        return recorded is not None and recorded == current[key]

    statics = [f for f in static if f.code not in NOT_GRAPH_BREAKS and not f.code.startswith(RECOMPILE_RULES)]
    by_file: dict[str, list[Finding]] = {}
    for f in statics:
        by_file.setdefault(norm_path(f.path), []).append(f)
    stmts = _Statements()
    matched: set[int] = set()
    stale: set[str] = set()
    for b in record.breaks:
        key = norm_path(b.path)
        if not fresh(b.path):
            stale.add(b.path)
            continue
        hit = None
        for f in by_file.get(key, []):
            if f.span.start.line + 1 == b.line or stmts.same(key, f.span.start.line + 1, b.line):
                hit = f
                break
        if hit is None:
            out.missed.append(b)
        else:
            matched.add(id(hit))
            out.found.append((b, hit))
    ran = {norm_path(p) for p in record.files}
    for f in statics:
        if id(f) in matched:
            continue
        key = norm_path(f.path)
        if key in ran and fresh(f.path):
            out.unconfirmed.append(f)
        elif key in ran:
            stale.add(f.path)
        else:
            out.not_run += 1
    recompile_rules = [f for f in static if f.code.startswith(RECOMPILE_RULES)]
    for r in record.recompiles:
        if not fresh(r.path):
            stale.add(r.path)
            continue
        key = norm_path(r.path)
        hit = None
        for f in recompile_rules:
            fl = f.span.start.line + 1
            fkey = norm_path(f.path)
            if fkey == key and (fl in r.lines() or stmts.same(key, fl, r.line)) or \
                    fkey == norm_path(r.frame.get("path", "")) and fl == r.frame.get("line"):
                hit = f
                break
        out.recompiles.append((r, hit))
    seen = {id(f) for _, f in out.recompiles if f is not None}
    for f in recompile_rules:
        if id(f) not in seen and norm_path(f.path) in ran and fresh(f.path):
            out.recompiles_unconfirmed.append(f)
    out.stale_files = sorted(stale)
    return out


class _Statements:
    """line -> the statement it belongs to (a compound statement's header is its own statement)."""

    def __init__(self):
        self._maps: dict[str, dict[int, tuple[int, int]]] = {}

    def _map(self, path: str) -> dict[int, tuple[int, int]]:
        if path in self._maps:
            return self._maps[path]
        text = read_text(path)
        m: dict[int, tuple[int, int]] = {}
        try:
            tree = ast.parse(text) if text is not None else None
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None:
            ranges = []
            for node in ast.walk(tree):
                if not isinstance(node, ast.stmt):
                    continue
                end = getattr(node, "end_lineno", None) or node.lineno
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.AST):
                    first_child = first_line(body[0])
                    end = max(node.lineno, first_child - 1)
                start = first_line(node)
                ranges.append((start, end))
            ranges.sort(key=lambda r: r[1] - r[0], reverse=True)  # smallest range wins: assign last
            for r in ranges:
                for ln in range(r[0], r[1] + 1):
                    m[ln] = r
        self._maps[path] = m
        return m

    def same(self, path: str, a: int, b: int) -> bool:
        m = self._map(path)
        return a in m and m.get(a) == m.get(b)


def format_comparison_text(c: Comparison, record: Record, record_path: str, base: str) -> str:
    def rel(p: str) -> str:
        try:
            r = os.path.relpath(p, base)
        except ValueError:
            return p
        return p if r.startswith("..") else r

    def loc(path: str, line: int, col: int | None) -> str:
        return f"{rel(path)}:{line}:{col or 1}"

    command = " ".join(record.command) or "(imported log)"
    lines = [(f"Runtime record {rel(record_path)}: `{command}` (exit {record.exit_code}, "
              f"torch {record.torch_version or 'unknown'}, {record.finished or record.source})")]
    lines.append(f"\nFound by static analysis ({len(c.found)}):")
    for b, f in c.found:
        lines.append(f"  {loc(b.path, b.line, b.column)}: {b.code} {b.gb_type}  ==  "
                     f"{f.code} {f.name} at line {f.span.start.line + 1}")
    lines.append(f"\nMissed by static analysis ({len(c.missed)}):")
    for b in c.missed:
        lines.append(f"  {loc(b.path, b.line, b.column)}: {b.code} {b.gb_type}"
                     + (f" (hit {b.count} times)" if b.count > 1 else ""))
    lines.append(f"\nStatic findings Dynamo did not confirm, in files that ran ({len(c.unconfirmed)}):")
    for f in c.unconfirmed:
        lines.append(f"  {loc(f.path, f.span.start.line + 1, f.span.start.col + 1)}: {f.code} {f.message}")
    if c.stale_files:
        lines.append(f"\nNot compared, changed since the capture ({len(c.stale_files)}):")
        lines.extend(f"  {rel(p)}" for p in c.stale_files)
    if c.recompiles:
        lines.append(f"\nRecompiles observed at run time ({len(c.recompiles)}):")
        for r, f in c.recompiles:
            static = f"  ==  {f.code} {f.name} at line {f.span.start.line + 1}" if f is not None \
                else "  (no static finding)"
            lines.append(f"  {loc(r.path, r.line, None)}: {r.code} {recompile_message(r)}{static}")
    if c.recompiles_unconfirmed:
        lines.append(f"\nRecompile findings Dynamo did not confirm, in files that ran ({len(c.recompiles_unconfirmed)}):")
        for f in c.recompiles_unconfirmed:
            lines.append(f"  {loc(f.path, f.span.start.line + 1, f.span.start.col + 1)}: {f.code} {f.message}")
    total = len(c.found) + len(c.missed)
    pct = f" ({100 * len(c.found) // total}%)" if total else ""
    lines.append(f"\n{len(c.found)} of {total} runtime break{'s' if total != 1 else ''} found statically{pct}; "
                 f"{len(c.unconfirmed)} static finding{'s' if len(c.unconfirmed) != 1 else ''} on code that ran "
                 f"not confirmed; {c.not_run} in code Dynamo did not run.")
    return "\n".join(lines)

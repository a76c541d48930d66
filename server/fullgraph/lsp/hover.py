"""Hover: the rule, the call path from the compiled root, Dynamo's own text for the GB code (filled as
it would print it), the fixes; on a root, the breaks it reaches; on a code in a suppression comment,
the rule's docs."""
from __future__ import annotations

import os
import re

from lsprotocol import types as t
from pygls.uris import from_fs_path

from ..conditional import by_condition, is_group, site_where
from ..model import ERROR, Finding
from ..output import rule_docs
from ..positions import Pos, Span
from ..rules import registry
from ..torchinfo import gb_registry
from . import convert as cv
from .documents import Doc
from .engine import NOW
from .session import FullgraphServer, is_recompile_hazard

_SUPPRESS_CODE_RE = re.compile(r"#\s*fullgraph:\s*ignore\[([^\]]*)\]")


async def hover(ls: FullgraphServer, params: t.HoverParams):
    uri = params.text_document.uri
    res = await ls.result_for(uri)
    doc = ls.docs.get(uri)
    if res is None or doc is None:
        return None
    pos = cv.from_position(res.index, doc.to_module(uri, params.position), ls.encoding)

    def shown(span: Span) -> t.Range:  # in the document, or in the cell hovered
        moved = doc.to_owner(cv.to_range(res.index, span, ls.encoding))
        return moved[1] if moved is not None else t.Range(params.position, params.position)

    for f in res.findings:
        if f.span.start <= pos <= f.span.end and (f.span.start != f.span.end or f.span.start == pos):
            return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=_finding_hover(ls, f, doc)),
                           range=shown(f.span))
    line = res.index.line(pos.line)
    m = None
    for m_ in _SUPPRESS_CODE_RE.finditer(line):
        if m_.start() <= pos.col <= m_.end():
            m = m_
    if m is not None:
        for cm in re.finditer(r"[A-Za-z0-9_]+", m.group(1)):
            a, b = m.start(1) + cm.start(), m.start(1) + cm.end()
            if a <= pos.col <= b:
                rule = registry.get(cm.group(0))
                if rule is not None:
                    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=rule_docs(rule)),
                                   range=shown(Span.of(pos.line, a, pos.line, b)))
    root_md = await ls.engine.submit((NOW, 0), _root_hover, ls, ls.path_of(res.key), pos)
    if root_md:
        md, span = root_md
        return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=md),
                       range=shown(span))
    return None


def _finding_hover(ls: FullgraphServer, f: Finding, doc: Doc) -> str:
    if is_group(f):
        return group_hover(ls, f)
    rule = registry.BY_CODE.get(f.code)
    recompile = f.data.get("kind") == "recompile" or getattr(rule, "recompile", False)
    if f.condition is not None:
        kind = f"conditional: a graph break only when {f.condition}"
    elif recompile:
        kind = "warning: a recompilation (slowdown)"
    elif f.severity == ERROR:
        kind = "error: this raises under `fullgraph=True`"
    else:
        kind = "warning: a graph break (slowdown)"
    parts = [f"**fullgraph {f.code}** `{f.name}` — {kind}", "", f.message, ""]
    rt = f.data.get("runtime")
    if f.origin == "confirmed" and rt:
        parts += [f"**Confirmed at runtime** (`fullgraph trace`): Dynamo reported *{rt.get('gb_type')}* here.", ""]
    elif f.origin == "runtime" and f.data.get("kind") == "recompile":
        parts += ["**Observed at runtime** (`fullgraph trace`); static analysis did not find it.", ""]
        parts += _recompile_parts(f.data)
    elif f.origin == "runtime":
        parts += ["**Observed at runtime** (`fullgraph trace`); static analysis did not find it.", ""]
        if f.data.get("explanation"):
            parts += [str(f.data["explanation"]).strip(), ""]
        parts += [f"- {h}" for h in (f.data.get("hints") or [])[:4]]
        parts.append("")
    for seen in f.data.get("recompiles_observed") or []:
        parts += [f"**Observed at runtime** (`fullgraph trace`): Dynamo recompiled "
                  f"`{(seen.get('frame') or {}).get('function') or '?'}` {seen.get('count') or 1} "
                  f"time{'s' if (seen.get('count') or 1) != 1 else ''}.", ""]
        parts += _recompile_parts(seen)
    if f.root is not None:
        line = f.root.location.span.start.line
        where = f"{os.path.basename(f.root.location.path)}:{line + 1}"
        if doc.cells is not None and f.root.location.path == ls.path_of(doc.key):
            where = f"{os.path.basename(f.root.location.path)}, {doc.cells.where(line)}"
        parts.append(f"Reached from {cv.path_description(f)} (compiled by `{f.root.label}` at {where}).")
        parts.append("")
    gb = gb_registry(ls.config.torch())  # the user's version's texts; a code it lacks is not shown
    callee = str(f.data.get("callee") or "")
    known = {"fn.__name__": callee.rpartition(".")[2].replace("builtins.", ""), "qualname": callee,
             "module_name": callee.rpartition(".")[0]} if callee else {}
    for code in f.gb_codes:
        entry = gb.get(code)
        if entry is None:
            continue
        explanation, hints = entry.filled(known)
        parts.append(f"**Dynamo [{code}]({entry.url}): {entry.gb_type}**  ")
        if explanation:
            parts.append(explanation.replace("\n", " "))
        for h in hints[:4]:
            parts.append(f"- {h}")
        parts.append("")
    if f.fixes:
        parts.append("**Fixes:** " + "; ".join(f"{x.title}{'' if x.safe else ' (changes behaviour)'}" for x in f.fixes))
        parts.append("")
    if rule is not None:
        why = "Why it recompiles" if getattr(rule, "recompile", False) else "Why it breaks the graph"
        parts += ["---", f"**{why}.** {' '.join(rule.why.split())}", "",
                  f"**Use instead.** {' '.join(rule.instead.split())}"]
    return "\n".join(parts)


def _recompile_parts(d: dict) -> list[str]:
    """A runtime recompile's guards that failed (Dynamo's text), its hint and the limit, as hover lines."""
    guards = [g for g in d.get("guards") or [] if g] or [d.get("guard") or "?"]
    shown = guards[:3] + (["..."] if len(guards) > 4 else []) + (guards[-1:] if len(guards) > 3 else [])
    out = ["Guard that failed: " if len(guards) == 1 else "Guards that failed: "]
    out[0] += ", ".join(g if g == "..." else f"`{g}`" for g in shown)
    if d.get("limit_hit"):
        lim = d.get("limit") or {}
        out[0] += f"; hit `{lim.get('name') or 'recompile_limit'}`" + (
            f" ({lim['value']})" if lim.get("value") is not None else "")
    out.append("")
    hints = d.get("hints") or []
    out += [f"- {h}" for h in hints[:2]] + ([""] if hints else [])
    return out


HOVER_SITES = 60  # sites listed in a gathered finding's hover


def group_hover(ls: FullgraphServer, f: Finding) -> str:
    """The gathered conditional findings inside a library (conditional.py): the sites by condition."""
    lib = f.data.get("library", "the library")
    parts = [f"**fullgraph {f.code}** — {f.message}", "",
             f"Each is a graph break inside `{lib}` only on a path that depends on something fullgraph cannot "
             "decide from the source (a flag, the config, the inputs). The default call is not known to take them."]
    if f.data.get("not_reached"):
        parts += ["", "The last run under runtime capture (`fullgraph trace`) went through this file and broke at none of them."]
    elif ls.trusted():
        parts += ["", "**Confirm with Dynamo** (quick fix, or the code lens above the compile call) runs this file under "
                      "runtime capture: the sites it breaks at become errors or warnings."]
    shown = 0
    for condition, sites in by_condition(f.library_sites):
        if shown >= HOVER_SITES:
            break
        parts += ["", f"**when {condition or 'a path this call may take'}**: {len(sites)} site{'s' if len(sites) != 1 else ''}"]
        for s in sites[: HOVER_SITES - shown]:
            message = re.sub(r" \(only when .*\)$", "", s.message) if condition else s.message
            target = f"{from_fs_path(s.path)}#L{s.span.start.line + 1}"
            parts.append(f"- `{s.code}` {message} — [{site_where(s)}]({target})")
            shown += 1
    if len(f.library_sites) > shown:
        parts += ["", f"… and {len(f.library_sites) - shown} more (the diagnostic's related information lists them all)"]
    return "\n".join(parts)


def _root_hover(ls: FullgraphServer, path: str, pos: Pos):
    proj = ls.ws.project
    for root in proj.roots():
        if root.mod.path != path or not root.decl.span.contains(pos):
            continue
        findings = [f for f in proj.findings() if f.root is not None and f.root.location.path == path
                    and f.root.location.span == root.decl.span]
        fg = "fullgraph=True" if root.decl.fullgraph else "without fullgraph=True"
        if root.info is None:
            return (f"**fullgraph**: `{root.decl.label}` — fullgraph cannot see what it compiles.", root.decl.span)
        lines = [f"**fullgraph**: `{root.decl.label}` compiles `{root.info.qualname}` ({fg})", ""]
        hazards = sum(1 for f in findings if is_recompile_hazard(f))  # FG6xx: recompiles, no graph breaks
        breaks = len(findings) - hazards
        also = f", {hazards} recompilation hazard{'s' if hazards != 1 else ''}" if hazards else ""
        if not findings:
            lines.append("No graph breaks reachable from here (fullgraph-clean).")
        elif not breaks:
            lines.append(f"No graph breaks reachable from here (fullgraph-clean){also}:")
        else:
            lines.append(f"{breaks} graph break{'s' if breaks != 1 else ''} reachable{also}:")
            for f in findings[:20]:
                lines.append(f"- `{f.code}` {os.path.basename(f.path)}:{f.span.start.line + 1} — {f.message}")
            if len(findings) > 20:
                lines.append(f"- … and {len(findings) - 20} more")
        return "\n".join(lines), root.decl.span
    return None

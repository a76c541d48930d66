"""Findings -> LSP objects.  Every position the server sends or receives is converted here, with
`LineIndex` (code points <-> the negotiated UTF-8/16/32 units), and clamped inside the document."""
from __future__ import annotations

from typing import Callable

from lsprotocol import types as t

from ..model import ERROR, HINT, WARNING, Finding
from ..positions import UTF8, UTF16, UTF32, LineIndex, Pos, Span

SOURCE = "fullgraph"


def encoding_name(kind) -> str:
    v = getattr(kind, "value", kind) or UTF16
    return {"utf-8": UTF8, "utf-16": UTF16, "utf-32": UTF32}.get(str(v), UTF16)


def to_range(idx: LineIndex, span: Span, enc: str) -> t.Range:
    sl, sc = idx.to_client(span.start, enc)
    el, ec = idx.to_client(span.end, enc)
    if (el, ec) < (sl, sc):
        el, ec = sl, sc
    return t.Range(t.Position(sl, sc), t.Position(el, ec))


def from_position(idx: LineIndex, pos: t.Position, enc: str) -> Pos:
    return idx.from_client(pos.line, pos.character, enc)


def from_range(idx: LineIndex, rng: t.Range, enc: str) -> Span:
    return Span(from_position(idx, rng.start, enc), from_position(idx, rng.end, enc))


def severity(f: Finding) -> t.DiagnosticSeverity:
    if f.severity == ERROR:
        return t.DiagnosticSeverity.Error
    if f.severity == WARNING:
        return t.DiagnosticSeverity.Warning
    if f.severity == HINT:
        return t.DiagnosticSeverity.Hint
    return t.DiagnosticSeverity.Information


def path_description(f: Finding) -> str:
    if not f.call_path:
        return ""
    names = [s.qualname.rsplit(".", 1)[-1] if "<locals>" not in s.qualname else s.qualname for s in f.call_path]
    return " → ".join(f"`{n}`" for n in names)


def to_diagnostic(f: Finding, idx: LineIndex, enc: str, uri_of: Callable[[str], str],
                  index_of: Callable[[str], LineIndex | None], suppress_edit: dict | None = None) -> t.Diagnostic:
    related = []
    if f.root is not None:
        ridx = index_of(f.root.location.path)
        if ridx is not None:
            related.append(t.DiagnosticRelatedInformation(
                location=t.Location(uri_of(f.root.location.path), to_range(ridx, f.root.location.span, enc)),
                message=f"compiled here: {f.root.label}" + (" (fullgraph=True)" if f.root.fullgraph else "")))
    for step in f.call_path:
        if step.call is None:
            continue
        cidx = index_of(step.call.path)
        if cidx is None:
            continue
        related.append(t.DiagnosticRelatedInformation(
            location=t.Location(uri_of(step.call.path), to_range(cidx, step.call.span, enc)),
            message=f"calls `{step.qualname}`"))
    not_reached = " — not reached in the last run" if f.data.get("not_reached") else ""
    for site in f.library_sites:
        sidx = index_of(site.path)
        if sidx is None:
            continue
        related.append(t.DiagnosticRelatedInformation(
            location=t.Location(uri_of(site.path), to_range(sidx, site.span, enc)),
            message=f"{site.code}: {site.message}{not_reached}"))
    fixes = []
    edits_by_fix = f.data.get("fix_edits") or {}
    for ref in f.fixes:
        if ref.id == "suppress":
            continue  # the editor offers "Disable FGnnn for this line" (suppress_edit) instead
        edits = []
        for e in edits_by_fix.get(ref.id, []):
            epath = e.get("path") or f.path
            eidx = idx if epath == f.path else index_of(epath)
            if eidx is None:
                edits = None
                break
            edits.append({"uri": uri_of(epath), "range": _range_json(to_range(eidx, e["range"], enc)),
                          "newText": e["new_text"]})
        if edits:
            fixes.append({"id": ref.id, "title": ref.title, "safe": ref.safe, "edits": edits})
    message = f.message
    # an observed site, and a recompile hazard Dynamo recompiled at (session._with_recompiles), say so already
    if f.origin == "confirmed" and not f.data.get("observed_site") and not f.data.get("recompiles_observed"):
        message += " (confirmed at runtime)"
    elif f.origin == "runtime" and f.data.get("kind") != "recompile":
        message += " (observed at runtime)"
    return t.Diagnostic(
        range=to_range(idx, f.span, enc),
        severity=severity(f),
        code=f.code,
        code_description=t.CodeDescription(href=f.url) if f.url else None,
        source=SOURCE,
        message=message,
        related_information=related or None,
        data={"code": f.code, "fixes": fixes, "suppress": suppress_edit, "origin": f.origin,
              **({"conditional": True} if f.data.get("conditional_group") else {})},
    )


def diagnostic_key(f: Finding, idx: LineIndex, enc: str, uri: str) -> tuple | None:
    """What to_diagnostic (with suppression_edit) reads to make the diagnostic of `f` in an ASCII document
    `uri`, as a key (None: not kept): a keystroke re-publishes the same findings, most of them unmoved.  Only
    findings without fixes, library sites or locations in other files; the lengths of the lines their
    positions are on stand for the text (in ASCII, a column is its own UTF-16 unit, clamped to its line)."""
    if not idx.ascii or f.fixes or f.library_sites or f.data.get("fix_edits"):
        return None
    spans = [f.span]
    root = None
    if f.root is not None:
        if f.root.location.path != f.path:
            return None
        root = (f.root.location.span, f.root.label, f.root.fullgraph)
        spans.append(f.root.location.span)
    steps = []
    for s in f.call_path:
        if s.call is not None:
            if s.call.path != f.path:
                return None
            spans.append(s.call.span)
        steps.append((s.qualname, s.call.span if s.call is not None else None))
    stmt = f.data.get("stmt")
    line_no = stmt.end.line if stmt is not None else f.span.start.line
    d = f.data
    # the number of lines matters only to a position past the last line (clamped to it): an Enter below the
    # finding keeps its diagnostic
    n = len(idx.lines)
    lines = True if all(0 <= p.line < n for s in spans for p in (s.start, s.end)) else n
    return (uri, enc, f.code, f.severity, f.url, f.message, f.origin, root, tuple(steps), stmt, idx.line(line_no),
            lines, tuple(len(idx.line(p.line)) for s in spans for p in (s.start, s.end)),
            bool(d.get("not_reached")), bool(d.get("conditional_group")), bool(d.get("observed_site")),
            bool(d.get("recompiles_observed")), d.get("kind"), *spans)


def _range_json(r: t.Range) -> dict:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}


def range_from_json(d: dict) -> t.Range:
    return t.Range(t.Position(d["start"]["line"], d["start"]["character"]),
                   t.Position(d["end"]["line"], d["end"]["character"]))


def suppression_edit(f: Finding, text: str, idx: LineIndex, enc: str, uri: str) -> dict | None:
    """`# fullgraph: ignore[CODE]` at the end of the finding's statement (merged into an existing one)."""
    import re

    stmt = f.data.get("stmt")
    line_no = stmt.end.line if stmt is not None else f.span.start.line
    line = idx.line(line_no)
    m = re.search(r"#\s*fullgraph:\s*ignore\[([A-Za-z0-9_,\s]*)\]", line)
    if m:
        codes = [c.strip() for c in m.group(1).split(",") if c.strip()]
        if f.code in codes:
            return None
        new = f"# fullgraph: ignore[{', '.join(codes + [f.code])}]"
        span = Span.of(line_no, m.start(), line_no, m.end())
    elif re.search(r"#\s*fullgraph:\s*ignore\b", line):
        return None
    else:
        stripped = line.rstrip()
        new = f"  # fullgraph: ignore[{f.code}]"
        span = Span.of(line_no, len(stripped), line_no, len(line))
    return {"uri": uri, "range": _range_json(to_range(idx, span, enc)), "newText": new}


def into_cells(d: t.Diagnostic, doc) -> tuple[str, t.Diagnostic]:
    """A notebook's diagnostic (module coordinates, `doc` a documents.Doc with cells) as (cell URI,
    diagnostic in that cell): its range, the related locations and the edits of its fixes and
    suppression that point into the notebook move to their cells; a fix with an edit across two cells
    is dropped (the editor applies edits per cell document)."""
    owner = doc.to_owner(d.range)
    if owner is None:  # across cells (not a statement): shown at its start
        owner = doc.to_owner(t.Range(d.range.start, d.range.start)) or (doc.key, d.range)
    uri, rng = owner
    related = None
    if d.related_information:
        related = []
        for r in d.related_information:
            moved = doc.to_owner(r.location.range) if r.location.uri == doc.key else (r.location.uri, r.location.range)
            if moved is not None:
                related.append(t.DiagnosticRelatedInformation(t.Location(moved[0], moved[1]), r.message))
    data = dict(d.data or {})
    fixes = []
    for fx in data.get("fixes") or []:
        edits = [_edit_into_cells(e, doc) for e in fx["edits"]]
        if all(e is not None for e in edits):
            fixes.append({**fx, "edits": edits})
    data["fixes"] = fixes
    if data.get("suppress"):
        data["suppress"] = _edit_into_cells(data["suppress"], doc)
    return uri, t.Diagnostic(range=rng, severity=d.severity, code=d.code, code_description=d.code_description,
                             source=d.source, message=d.message, related_information=related or None, data=data)


def _edit_into_cells(e: dict, doc) -> dict | None:
    if e["uri"] != doc.key:
        return e
    moved = doc.to_owner(range_from_json(e["range"]))
    return None if moved is None else {"uri": moved[0], "range": _range_json(moved[1]), "newText": e["newText"]}

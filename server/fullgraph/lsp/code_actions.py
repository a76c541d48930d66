"""Code actions: the quick fixes of a diagnostic (computed on request when the fix phase has not reached
it), "Disable FGnnn for this line", and fix-all (source.fixAll.fullgraph)."""
from __future__ import annotations

import os
import time
from urllib.parse import unquote

from lsprotocol import types as t

from ..model import Finding
from . import convert as cv
from .codelens import CONFIRM_TITLE, confirm_command
from .documents import same_uri
from .engine import NOW
from .session import DocResult, FullgraphServer

FIX_ALL_KIND = "source.fixAll.fullgraph"
OPTIONS = t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix, t.CodeActionKind.SourceFixAll,
                                                 FIX_ALL_KIND], resolve_provider=False)


def _workspace_edit(edits: list[dict]) -> t.WorkspaceEdit:
    changes: dict[str, list[t.TextEdit]] = {}
    for e in edits:
        changes.setdefault(e["uri"], []).append(t.TextEdit(range=cv.range_from_json(e["range"]), new_text=e["newText"]))
    return t.WorkspaceEdit(changes=changes)


def _wants(kinds, kind: str) -> bool:
    if not kinds:
        return True
    return any(kind == k or kind.startswith(str(getattr(k, "value", k)) + ".") or
               kind == str(getattr(k, "value", k)) for k in kinds)


async def code_action(ls: FullgraphServer, params: t.CodeActionParams):
    kinds = params.context.only
    actions: list[t.CodeAction] = []
    uri = params.text_document.uri
    started = time.perf_counter()
    if _wants(kinds, t.CodeActionKind.QuickFix.value):
        ours = [d for d in params.context.diagnostics if d.source == cv.SOURCE and isinstance(d.data, dict)]
        # the client holds diagnostics from before their fixes were attached: take the fixes from
        # the latest result, or compute them for just these diagnostics
        known = await _fixes_of(ls, uri, [d for d in ours if not d.data.get("fixes")])
        confirm_done = False
        for d in ours:
            code = d.data.get("code") or d.code
            fixes = d.data.get("fixes") or known.get(_diag_key(d)) or []
            preferred_done = False
            for fx in fixes:
                actions.append(t.CodeAction(
                    title=f"fullgraph ({code}): {fx['title']}",
                    kind=t.CodeActionKind.QuickFix,
                    diagnostics=[d],
                    edit=_workspace_edit(fx["edits"]),
                    is_preferred=(not preferred_done and fx.get("safe", False)) or None,
                ))
                if fx.get("safe"):
                    preferred_done = True
            if d.data.get("conditional") and ls.trusted() and not confirm_done:
                confirm_done = True  # one per request: it runs the whole file
                actions.append(t.CodeAction(title=f"fullgraph: {CONFIRM_TITLE} (run this file under runtime capture)",
                                            kind=t.CodeActionKind.QuickFix, diagnostics=[d],
                                            command=confirm_command(uri, d.range.start.line)))
            sup = d.data.get("suppress")
            if sup:
                actions.append(t.CodeAction(title=f"fullgraph ({code}): Disable {code} for this line",
                                            kind=t.CodeActionKind.QuickFix, diagnostics=[d],
                                            edit=_workspace_edit([sup])))
    if kinds and any(str(getattr(k, "value", k)) in ("source", "source.fixAll", FIX_ALL_KIND) for k in kinds):
        res = await ls.result_for(uri)
        if res is not None:
            mine = [d for _, d in _shown_in(res, uri)]
            known = {} if res.fixes_done else await _fixes_of(ls, uri, mine)
            edits = _fix_all_edits(mine, known)
            if edits:
                actions.append(t.CodeAction(title="fullgraph: Fix all auto-fixable graph breaks",
                                            kind=FIX_ALL_KIND, edit=_workspace_edit(edits)))
    start = params.range.start
    ls.log("debug", f"code actions at {os.path.basename(ls.path_of(uri))}:{start.line + 1}:{start.character + 1} "
                    f"for {len(params.context.diagnostics)} diagnostic(s): {len(actions)} in "
                    f"{(time.perf_counter() - started) * 1000:.0f} ms")
    return actions or None


def _diag_key(d: t.Diagnostic) -> tuple:
    r = d.range
    return (d.code, r.start.line, r.start.character, r.end.line, r.end.character)


def _shown_in(res: DocResult, uri: str) -> list[tuple[Finding, t.Diagnostic]]:
    """The findings of a result shown in `uri` (the document, or one cell of a notebook), with their diagnostics."""
    return [(f, d) for f, d, owner in zip(res.findings, res.diagnostics, res.owners) if same_uri(owner, uri)]


async def _fixes_of(ls: FullgraphServer, uri: str, diags: list[t.Diagnostic]) -> dict[tuple, list[dict]]:
    """The fixes of `diags` (shown in `uri`) in the current result.  If the fix phase has not reached
    them yet, they are computed now, for these findings only: the lightbulb never waits for
    the rest of the file's fixes."""
    if not diags:
        return {}
    res = await ls.result_for(uri)
    if res is None:
        return {}
    wanted = {_diag_key(d) for d in diags}
    mine = _shown_in(res, uri)
    if res.fixes_done:
        return {k: (cd.data or {}).get("fixes") or [] for _, cd in mine if (k := _diag_key(cd)) in wanted}
    here = unquote(uri)  # a notebook's result serves all its cells: keys carry the cell
    cache = res.fixes_on_request  # editors ask again on every cursor move: compute each once
    picked = [f for f, cd in mine if (k := _diag_key(cd)) in wanted and (here, k) not in cache]
    if picked:
        started = time.perf_counter()
        text = res.text
        fixed = await ls.engine.submit((NOW, 0), ls.engine_fixes_now, ls.path_of(res.key), text, picked)
        if fixed is None:
            return {}
        diagnostics, owners = ls.diagnostics_of(res.key, text, res.index, fixed)
        computed = {(unquote(owner), _diag_key(cd)): (cd.data or {}).get("fixes") or []
                    for cd, owner in zip(diagnostics, owners)}
        if res.fixes_on_request is cache:  # the findings were not replaced meanwhile
            cache.update(computed)
        ls.log("debug", f"fixes for {len(fixed)} finding(s) of {os.path.basename(ls.path_of(res.key))} "
                        f"v{res.version} on request in {(time.perf_counter() - started) * 1000:.0f} ms")
        return {k: v for (u, k), v in {**cache, **computed}.items() if u == here and k in wanted}
    return {k: cache[(here, k)] for k in wanted if (here, k) in cache}


def _fix_all_edits(diagnostics: list[t.Diagnostic], known: dict[tuple, list[dict]]) -> list[dict]:
    """The safe fixes of every diagnostic (from its data, or `known` by _diag_key), first come
    first served when edits overlap."""
    chosen: list[dict] = []
    taken: list[tuple] = []
    for d in diagnostics:
        for fx in (d.data or {}).get("fixes") or known.get(_diag_key(d)) or []:
            if not fx.get("safe") or fx.get("id") == "suppress":  # fix-all never adds suppressions
                continue
            spans = [(e["uri"], (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                      (e["range"]["end"]["line"], e["range"]["end"]["character"])) for e in fx["edits"]]
            if any(u1 == u2 and not (e1 <= s2 or e2 <= s1) for (u1, s1, e1) in spans for (u2, s2, e2) in taken):
                continue
            chosen.extend(fx["edits"])
            taken.extend(spans)
            break
    return chosen

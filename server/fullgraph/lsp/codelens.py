"""Code lens on compiled roots: "3 graph breaks reachable, 5 more when `output_attentions=True`"."""
from __future__ import annotations

from lsprotocol import types as t

from ..model import Finding
from . import convert as cv
from .documents import same_uri
from .engine import NOW
from .session import FullgraphServer


async def code_lens(ls: FullgraphServer, params: t.CodeLensParams):
    if not ls.code_lens_enabled():
        return []
    uri = params.text_document.uri
    res = await ls.result_for(uri)
    doc = ls.docs.get(uri)
    if res is None or doc is None:
        return []
    path = ls.path_of(res.key)

    def compute():
        proj = ls.ws.project
        out = []
        roots = [r for r in proj.roots() if r.mod.path == path]
        if not roots:
            return out
        all_findings = proj.findings()
        for r in roots:
            mine = [f for f in all_findings if f.root is not None and f.root.location.path == path
                    and f.root.location.span == r.decl.span]
            out.append((r.decl.span, "fullgraph: target not found" if r.info is None else _lens_title(mine)))
        return out

    items = await ls.engine.submit((NOW, 0), compute)
    lenses = []
    for span, title in items:
        moved = doc.to_owner(cv.to_range(res.index, span, ls.encoding))  # a notebook's: lenses of this cell
        if moved is not None and same_uri(moved[0], uri):
            lenses.append(t.CodeLens(range=moved[1], command=t.Command(title=title, command=NOOP_COMMAND)))
    return lenses


NOOP_COMMAND = "fullgraph.codeLens"


def _lens_title(findings: list[Finding]) -> str:
    """"3 graph breaks reachable, 5 more when `output_attentions=True`" (the commonest condition)."""
    n = sum(1 for f in findings if f.condition is None)
    conditional = [f.condition for f in findings if f.condition is not None]
    title = f"{n} graph break{'s' if n != 1 else ''} reachable" if n else "fullgraph-clean"
    if conditional:
        common = max(set(conditional), key=conditional.count)
        more = len(conditional)
        title += f", {more} more when {common}" if conditional.count(common) == more else \
            f", {more} more on conditional paths (e.g. when {common})"
    return title


def code_lens_command(ls: FullgraphServer, *args):
    """Code lenses are informational; clicking one does nothing."""
    return None

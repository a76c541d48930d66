"""Code lens on compiled roots: "3 graph breaks reachable, 5 more when `output_attentions=True`", and
"Confirm with Dynamo" beside it when some are on conditional paths (in a trusted workspace: it runs the
file under runtime capture, client-side)."""
from __future__ import annotations

from lsprotocol import types as t

from ..model import Finding, LibrarySite
from . import convert as cv
from .documents import same_uri
from .engine import NOW
from .session import FullgraphServer, is_recompile_hazard


async def code_lens(ls: FullgraphServer, params: t.CodeLensParams):
    if not ls.code_lens_enabled():
        return []
    uri = params.text_document.uri
    res = await ls.result_for(uri)
    doc = ls.docs.get(uri)
    if res is None or doc is None:
        return []
    path = ls.path_of(res.key)
    # library sites the runtime record saw break (conditional.py): breaks now, not conditional
    observed = {(x.path, x.span) for f in res.findings if f.data.get("observed_site") for x in f.library_sites}

    def compute():
        proj = ls.ws.project
        out = []
        roots = [r for r in proj.roots() if r.mod.path == path]
        if not roots:
            return out
        all_findings = proj.findings()
        for r in roots:
            # a break inside a followed library is counted once, by the finding at the user's call that
            # lists it (the library's own finding is not shown)
            mine = [f for f in all_findings if f.root is not None and f.root.location.path == path
                    and f.root.location.span == r.decl.span
                    and not getattr(proj.modules.get(f.path), "library", False)]
            conditional = r.info is not None and any(f.condition is not None for f in mine)
            out.append((r.decl.span, "fullgraph: target not found" if r.info is None else _lens_title(mine, observed),
                        conditional))
        return out

    items = await ls.engine.submit((NOW, 0), compute)
    lenses = []
    confirm = ls.trusted() and doc.cells is None and ls.config.conditional != "off"
    for span, title, conditional in items:
        moved = doc.to_owner(cv.to_range(res.index, span, ls.encoding))  # a notebook's: lenses of this cell
        if moved is not None and same_uri(moved[0], uri):
            lenses.append(t.CodeLens(range=moved[1], command=t.Command(title=title, command=NOOP_COMMAND)))
            if conditional and confirm:
                lenses.append(t.CodeLens(range=moved[1], command=confirm_command(uri, moved[1].start.line)))
    return lenses


NOOP_COMMAND = "fullgraph.codeLens"
# client-side (client/src/commands.ts): runs the file under `fullgraph trace` in a terminal
CONFIRM_COMMAND = "fullgraph.confirmWithDynamo"
CONFIRM_TITLE = "Confirm with Dynamo"


def confirm_command(uri: str, line: int) -> t.Command:
    return t.Command(title=CONFIRM_TITLE, command=CONFIRM_COMMAND, arguments=[uri, line])


def _lens_title(findings: list[Finding], observed: frozenset | set = frozenset()) -> str:
    """"3 graph breaks reachable, 5 more when `output_attentions=True`" (the commonest condition).  A break
    inside a library counts once per site; `observed`: (path, span) of the sites a recorded run broke at.
    Recompilation hazards (FG6xx) are no graph breaks: "fullgraph-clean, 1 recompilation hazard"."""
    hazards = sum(1 for f in findings if is_recompile_hazard(f))
    findings = [f for f in findings if not is_recompile_hazard(f)]
    n = sum(len(f.library_sites) or 1 for f in findings if f.condition is None)
    n += sum(1 for f in findings if f.condition is not None for s in f.library_sites if (s.path, s.span) in observed)
    conditional = [s.condition or f.condition for f in findings if f.condition is not None
                   for s in (f.library_sites or [f]) if not isinstance(s, LibrarySite) or (s.path, s.span) not in observed]
    title = f"{n} graph break{'s' if n != 1 else ''} reachable" if n else "fullgraph-clean"
    if hazards:
        title += f", {hazards} recompilation hazard{'s' if hazards != 1 else ''}"
    if conditional:
        common = min(set(conditional), key=lambda c: (-conditional.count(c), c))  # the commonest; ties: sorted
        more = len(conditional)
        title += f", {more} more when {common}" if conditional.count(common) == more else \
            f", {more} more on conditional paths (e.g. when {common})"
    return title


def code_lens_command(ls: FullgraphServer, *args):
    """Code lenses are informational; clicking one does nothing."""
    return None

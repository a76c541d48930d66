"""Pull diagnostics (textDocument/diagnostic): the current result's diagnostics of a document or of one
notebook cell.  (Clients without pull support get them pushed by the session, session.py.)"""
from __future__ import annotations

from lsprotocol import types as t

from .documents import same_uri
from .session import FullgraphServer

OPTIONS = t.DiagnosticOptions(identifier="fullgraph", inter_file_dependencies=True, workspace_diagnostics=False)


async def pull_diagnostics(ls: FullgraphServer, params: t.DocumentDiagnosticParams):
    uri = params.text_document.uri
    res = await ls.result_for(uri)
    items = [d for d, owner in zip(res.diagnostics, res.owners) if same_uri(owner, uri)] if res is not None else []
    return t.RelatedFullDocumentDiagnosticReport(items=items)

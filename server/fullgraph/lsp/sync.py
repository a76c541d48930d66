"""Document sync: text documents (didOpen/didChange/didClose) and notebooks (notebookDocument/*): each
change schedules the analysis of its unit (a notebook is analysed as one module, documents.py)."""
from __future__ import annotations

import time

from lsprotocol import types as t

from .engine import NOW
from .session import FullgraphServer


def did_open(ls: FullgraphServer, params: t.DidOpenTextDocumentParams):
    ls.schedule(params.text_document.uri, delay=0)


def did_change(ls: FullgraphServer, params: t.DidChangeTextDocumentParams):
    ls.last_change = time.monotonic()
    ls.schedule(params.text_document.uri)


async def did_close(ls: FullgraphServer, params: t.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    await _closed(ls, uri, [uri])


# ---- notebooks: pygls keeps the notebook and its cells in its workspace before these run -------------------
def notebook_did_open(ls: FullgraphServer, params: t.DidOpenNotebookDocumentParams):
    ls.schedule(params.notebook_document.uri, delay=0)


def notebook_did_change(ls: FullgraphServer, params: t.DidChangeNotebookDocumentParams):
    ls.last_change = time.monotonic()
    ls.schedule(params.notebook_document.uri)


def notebook_did_save(ls: FullgraphServer, params: t.DidSaveNotebookDocumentParams):
    pass  # the cells' text is what is analysed; saving changes nothing


async def notebook_did_close(ls: FullgraphServer, params: t.DidCloseNotebookDocumentParams):
    uri = params.notebook_document.uri
    ls.docs.closed(uri)
    await _closed(ls, uri, [c.uri for c in params.cell_text_documents])


async def _closed(ls: FullgraphServer, key: str, shown: list[str]) -> None:
    """A unit closed: drop its work and results, clear the diagnostics pushed to `shown` (its URI, or
    its cells'), and fall back to the file on disk for the rest of the project."""
    task = ls.tasks.pop(key, None)
    if task is not None:
        task.cancel()
    res = ls.results.pop(key, None)
    job = ls.fix_jobs.pop(key, None)
    if job is not None:
        job.cancel()
    if not ls.pull:
        for uri in dict.fromkeys([*shown, *(res.published if res is not None else ())]):
            ls.protocol.publish_diagnostics(uri, [])
    await ls.engine.submit((NOW, 0), ls.ws.forget_text, ls.path_of(key))
    ls.generation += 1
    await ls.refresh_others(key)

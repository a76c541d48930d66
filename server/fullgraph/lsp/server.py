"""`fullgraph lsp`, the entry point: makes the language server (pygls 2.x, on the same engine as the CLI),
registers router.py's table of handlers on it, and runs it over stdio (or TCP).

The state and the analysis pipeline are session.py; each LSP feature is a module of its own (router.py
lists them).  Imports within lsp/ go one way: this module -> router -> feature modules -> session ->
documents, convert, engine, protocol.
"""
from __future__ import annotations

import logging

from . import router
from .session import FullgraphServer

server = FullgraphServer()
router.register(server)


def run(tcp: bool = False, port: int = 2087) -> None:
    # stderr is shown as errors by editors: only real errors go there; the rest is window/logMessage
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("pygls").setLevel(logging.ERROR)
    server.engine.manage_gc()
    if tcp:
        server.start_tcp("127.0.0.1", port)
    else:
        server.start_io()

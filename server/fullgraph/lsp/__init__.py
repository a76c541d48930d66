"""The language server (`fullgraph lsp`).  Imports go one way, from the top down:

server.py      the entry point: makes the server, registers router.py's table, runs it
router.py      the one table: LSP method (or command) -> handler in a feature module, and its options
lifecycle.py, sync.py, configuration.py, diagnostics.py, code_actions.py, hover.py, codelens.py
               one LSP feature each: plain functions (ls, params) -> result
indexing.py    indexing the workspace in the background (lifecycle, configuration)
session.py     the state and the analysis pipeline, behind public methods (handlers get it as `ls`)
documents.py, convert.py, engine.py, protocol.py
               open documents and notebooks; findings <-> LSP types; the engine thread; pygls's protocol
"""

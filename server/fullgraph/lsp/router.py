"""The one table of the language server's handlers: each LSP method (and command) the server answers,
the plain function in a feature module that answers it, and the options it advertises; `register`
installs the table on a pygls server.  Handlers take (ls, params): `ls` is the session (session.py)."""
from __future__ import annotations

from typing import Any, Callable

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer

from . import code_actions, codelens, configuration, diagnostics, hover, lifecycle, sync

# (LSP method, handler, options or None)
FEATURES: list[tuple[str, Callable[..., Any], Any]] = [
    # lifecycle.py
    (t.INITIALIZE, lifecycle.initialize, None),
    (t.INITIALIZED, lifecycle.initialized, None),
    (t.SHUTDOWN, lifecycle.shutdown, None),
    # sync.py: text documents and notebooks
    (t.TEXT_DOCUMENT_DID_OPEN, sync.did_open, None),
    (t.TEXT_DOCUMENT_DID_CHANGE, sync.did_change, None),
    (t.TEXT_DOCUMENT_DID_CLOSE, sync.did_close, None),
    (t.NOTEBOOK_DOCUMENT_DID_OPEN, sync.notebook_did_open, None),
    (t.NOTEBOOK_DOCUMENT_DID_CHANGE, sync.notebook_did_change, None),
    (t.NOTEBOOK_DOCUMENT_DID_SAVE, sync.notebook_did_save, None),
    (t.NOTEBOOK_DOCUMENT_DID_CLOSE, sync.notebook_did_close, None),
    # configuration.py
    (t.WORKSPACE_DID_CHANGE_CONFIGURATION, configuration.did_change_configuration, None),
    (t.WORKSPACE_DID_CHANGE_WATCHED_FILES, configuration.did_change_watched_files, None),
    # the features on a document
    (t.TEXT_DOCUMENT_DIAGNOSTIC, diagnostics.pull_diagnostics, diagnostics.OPTIONS),
    (t.TEXT_DOCUMENT_CODE_ACTION, code_actions.code_action, code_actions.OPTIONS),
    (t.TEXT_DOCUMENT_HOVER, hover.hover, None),
    (t.TEXT_DOCUMENT_CODE_LENS, codelens.code_lens, None),
]

# (command, handler)
COMMANDS: list[tuple[str, Callable[..., Any]]] = [
    (codelens.NOOP_COMMAND, codelens.code_lens_command),
    (configuration.AWAIT_RECORD_COMMAND, configuration.await_runtime_record),
]


def register(ls: LanguageServer) -> None:
    """Install the table on `ls` (once, before it starts)."""
    for method, handler, options in FEATURES:
        ls.feature(method, options)(handler)
    for command, handler in COMMANDS:
        ls.command(command)(handler)

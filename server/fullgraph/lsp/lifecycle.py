"""Lifecycle: initialize (capabilities, settings), initialized (file watchers, configuration, the runtime
record, indexing the workspace in the background), shutdown."""
from __future__ import annotations

import asyncio
import os

from lsprotocol import types as t
from pygls.uris import to_fs_path

from .. import __version__
from ..api import Workspace
from .configuration import pull_configuration
from .indexing import index_workspace
from .session import FullgraphServer


def initialize(ls: FullgraphServer, params: t.InitializeParams):
    caps = params.capabilities
    td = caps.text_document
    ls.pull = bool(td is not None and td.diagnostic is not None)
    ws_caps = caps.workspace
    ls.refresh_support = bool(ws_caps and ws_caps.diagnostics and ws_caps.diagnostics.refresh_support)
    ls.watch_support = bool(ws_caps and ws_caps.did_change_watched_files
                            and ws_caps.did_change_watched_files.dynamic_registration)
    ls.config_support = bool(ws_caps and ws_caps.configuration)
    root = None
    if params.workspace_folders:
        root = to_fs_path(params.workspace_folders[0].uri)
    elif params.root_uri:
        root = to_fs_path(params.root_uri)
    elif params.root_path:
        root = params.root_path
    ls.root = os.path.abspath(root) if root else None
    ls.apply_editor_settings(params.initialization_options if isinstance(params.initialization_options, dict)
                             else {})
    ls.ws = Workspace(ls.config)
    ls.log("info", f"fullgraph {__version__}; torch {ls.config.torch()} ({ls.config.torch_source()}); "
                   f"{'pull' if ls.pull else 'push'} diagnostics; positions {ls.encoding}")


async def initialized(ls: FullgraphServer, params: t.InitializedParams):
    if ls.watch_support:
        try:
            await ls.client_register_capability_async(t.RegistrationParams(registrations=[t.Registration(
                id="fullgraph-watch", method=t.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=t.DidChangeWatchedFilesRegistrationOptions(watchers=[
                    t.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
                    t.FileSystemWatcher(glob_pattern="**/*.py"),
                    t.FileSystemWatcher(glob_pattern="**/.fullgraph/*.json"),
                ]))]))
        except Exception as e:
            ls.log("warning", f"could not watch files: {e}")
    if ls.config_support:
        await pull_configuration(ls)
    ls.load_runtime_record()
    ls.send_status()
    asyncio.ensure_future(index_workspace(ls))


def shutdown(ls: FullgraphServer, params=None):
    for task in ls.tasks.values():
        task.cancel()

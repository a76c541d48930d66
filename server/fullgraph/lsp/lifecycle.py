"""Lifecycle: initialize (capabilities, settings), initialized (file watchers, configuration, the runtime
record, indexing the workspace in the background), shutdown."""
from __future__ import annotations

import asyncio
import os

from lsprotocol import types as t
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..api import Workspace
from .engine import BACKGROUND
from .server import MAX_INDEX_FILES, INDEX_CHUNK, FullgraphServer, server


@server.feature(t.INITIALIZE)
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


@server.feature(t.INITIALIZED)
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
        await _pull_configuration(ls)
    ls.load_runtime_record()
    ls.send_status()
    asyncio.ensure_future(_index(ls))


async def _pull_configuration(ls: FullgraphServer) -> None:
    try:
        result = await ls.workspace_configuration_async(t.ConfigurationParams(items=[
            t.ConfigurationItem(scope_uri=from_fs_path(ls.root) if ls.root else None, section="fullgraph")]))
    except Exception as e:
        ls.log("debug", f"workspace/configuration failed: {e}")
        return
    if result and isinstance(result[0], dict):
        merged = dict(ls.settings)
        merged.update(result[0])
        ls.apply_editor_settings(merged)
        ls.rebuild_workspace()


async def _index(ls: FullgraphServer) -> None:
    if not ls.root:
        return
    token = "fullgraph-index"
    progress = False
    try:
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(token, t.WorkDoneProgressBegin(title="fullgraph", message="indexing workspace"))
        progress = True
    except Exception:
        pass
    n = 0
    try:
        files = await ls.engine.submit((BACKGROUND, 0), ls._index_files)
        if isinstance(files, str):
            ls.log("warning", files)
            files = []
        if len(files) > MAX_INDEX_FILES:
            ls.log("warning", f"{len(files)} Python files under {ls.root}: indexing the first {MAX_INDEX_FILES}")
            files = files[:MAX_INDEX_FILES]
        # in pieces: an edit's analysis runs between two pieces, not after the whole workspace
        for i in range(0, len(files), INDEX_CHUNK):
            chunk = files[i:i + INDEX_CHUNK]
            await ls.engine.submit((BACKGROUND, 0), ls._index_chunk, chunk)
            n += len(chunk)
            if progress and len(files) > INDEX_CHUNK:
                ls.work_done_progress.report(token, t.WorkDoneProgressReport(
                    message=f"{n}/{len(files)} files", percentage=n * 100 // len(files)))
        await ls.engine.submit((BACKGROUND, 0), ls.engine.settle)
    except Exception as e:
        ls.log("error", f"indexing failed: {e}")
    if progress:
        ls.work_done_progress.end(token, t.WorkDoneProgressEnd(message=f"{n} files"))
    ls.indexed = True
    ls.log("info", f"indexed {n} files under {ls.root}")
    for uri in list(ls.docs.keys()):
        ls.schedule(uri, delay=0)
    ls.refresh_pulls()


@server.feature(t.SHUTDOWN)
def shutdown(ls: FullgraphServer, params=None):
    for task in ls.tasks.values():
        task.cancel()

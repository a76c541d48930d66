"""Configuration: editor settings (didChangeConfiguration, or pulled with workspace/configuration),
pyproject.toml, Python files changed on disk and the runtime record (didChangeWatchedFiles)."""
from __future__ import annotations

import asyncio
import os

from lsprotocol import types as t
from pygls.uris import from_fs_path, to_fs_path

from .engine import NOW
from .indexing import index_workspace
from .session import FullgraphServer


async def did_change_configuration(ls: FullgraphServer, params: t.DidChangeConfigurationParams):
    settings = params.settings
    if isinstance(settings, dict) and isinstance(settings.get("fullgraph"), dict):
        merged = dict(ls.settings)
        merged.update(settings["fullgraph"])
        ls.apply_editor_settings(merged)
        ls.rebuild_workspace()
    elif ls.config_support:
        await pull_configuration(ls)
    else:
        return
    await _reanalyze_all(ls)


async def pull_configuration(ls: FullgraphServer) -> None:
    """Ask the client for its `fullgraph` settings (workspace/configuration) and apply them."""
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


async def _reanalyze_all(ls: FullgraphServer) -> None:
    ls.send_status()
    asyncio.ensure_future(index_workspace(ls))


async def did_change_watched_files(ls: FullgraphServer, params: t.DidChangeWatchedFilesParams):
    config_changed = False
    record_changed = False
    changed_py: list[tuple[str, int]] = []
    for ch in params.changes:
        path = to_fs_path(ch.uri)
        if not path:
            continue
        if ls.record_path and os.path.abspath(path) == os.path.abspath(ls.record_path):
            record_changed = True
        elif os.path.basename(path) == "pyproject.toml":
            config_changed = True
        elif path.endswith(".py"):
            changed_py.append((os.path.abspath(path), ch.type))
    if config_changed:
        ls.log("info", "pyproject.toml changed: reloading configuration")
        ls.apply_editor_settings(ls.settings)
        ls.rebuild_workspace()
        await _reanalyze_all(ls)
        return
    if record_changed:
        await reload_runtime_record(ls)
    open_paths = {ls.path_of(u) for u in ls.docs.keys()}
    todo = [(p, k) for p, k in changed_py if p not in open_paths]
    if not todo:
        return

    def apply():
        for p, kind in todo:
            if kind == t.FileChangeType.Deleted or not os.path.isfile(p):
                ls.ws.remove(p)
            else:
                ls.ws.load_files([p], jobs=1)

    await ls.engine.submit((NOW, 0), apply)
    ls.generation += 1
    await ls.refresh_others("")


async def reload_runtime_record(ls: FullgraphServer) -> None:
    """Read the runtime record again and analyse the open documents with it."""
    await ls.engine.submit((NOW, 0), ls.load_runtime_record)
    ls.send_status()
    for uri in list(ls.docs.keys()):
        ls.schedule(uri, delay=0)


AWAIT_RECORD_COMMAND = "fullgraph.awaitRuntimeRecord"
AWAIT_RECORD_FOR = 3600.0  # seconds a run started by "Confirm with Dynamo" is waited for
_POLL = 0.5


def _record_stamp(path: str | None):
    try:
        st = os.stat(path) if path else None
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size) if st else None


async def await_runtime_record(ls: FullgraphServer, *args):
    """Command `fullgraph.awaitRuntimeRecord`, sent by the client when it starts a run under runtime capture
    ("Confirm with Dynamo"): the record is read again as soon as that run writes it, without waiting for a
    file watcher event (clients may miss the creation of .fullgraph/ while they watch)."""
    if ls.record_path is None:
        ls.load_runtime_record()
    prev = ls.record_poll
    if prev is not None and not prev.done():
        prev.cancel()
    start = _record_stamp(ls.record_path)

    async def poll():
        loop = asyncio.get_running_loop()
        end = loop.time() + AWAIT_RECORD_FOR
        while loop.time() < end:
            await asyncio.sleep(_POLL)
            now = _record_stamp(ls.record_path)
            if now is not None and now != start:
                ls.log("info", f"runtime record {ls.record_path} written: reading it")
                await reload_runtime_record(ls)
                return

    ls.record_poll = asyncio.ensure_future(poll())
    return None

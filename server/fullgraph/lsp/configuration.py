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
        await ls.engine.submit((NOW, 0), ls.load_runtime_record)
        ls.send_status()
        for uri in list(ls.docs.keys()):
            ls.schedule(uri, delay=0)
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

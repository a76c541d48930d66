"""Indexing the workspace in the background: list its Python files and analyse them from disk in chunks on
the engine thread (an edit's analysis runs between two chunks), with work-done progress; then re-analyse
the open documents against the whole project."""
from __future__ import annotations

from pathlib import Path

from lsprotocol import types as t

from .engine import BACKGROUND
from .session import FullgraphServer

MAX_INDEX_FILES = 20000
INDEX_CHUNK = 32  # workspace files analysed per engine job while indexing


def _list_files(ls: FullgraphServer) -> list[str] | str:
    """Engine job: the workspace's Python files (or why they cannot be listed)."""
    try:
        return ls.ws.discover([Path(ls.root)]) if ls.root else []
    except (OSError, FileNotFoundError) as e:
        return f"cannot index {ls.root}: {e}"


def _load_chunk(ls: FullgraphServer, files: list[str]) -> None:
    """Engine job: analyse some workspace files from disk (open documents keep their buffers)."""
    ls.ws.load_files([f for f in files if f not in ls.ws.texts], jobs=1)


async def index_workspace(ls: FullgraphServer) -> None:
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
        files = await ls.engine.submit((BACKGROUND, 0), _list_files, ls)
        if isinstance(files, str):
            ls.log("warning", files)
            files = []
        if len(files) > MAX_INDEX_FILES:
            ls.log("warning", f"{len(files)} Python files under {ls.root}: indexing the first {MAX_INDEX_FILES}")
            files = files[:MAX_INDEX_FILES]
        # in pieces: an edit's analysis runs between two pieces, not after the whole workspace
        for i in range(0, len(files), INDEX_CHUNK):
            chunk = files[i:i + INDEX_CHUNK]
            await ls.engine.submit((BACKGROUND, 0), _load_chunk, ls, chunk)
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

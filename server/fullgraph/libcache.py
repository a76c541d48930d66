"""On-disk cache of the summaries of followed (installed, read-only) library modules.

`--follow transformers` analyses the few dozen transformers modules a root reaches; they do not change
between runs, so their summaries are kept in ``$FULLGRAPH_CACHE_DIR`` (default
``~/.cache/fullgraph``), one pickle per file, keyed by the file's path, size and modification time
and by the analyzer's own source (a changed fullgraph never reads an older fullgraph's summaries).
Only library modules are cached: the user's files are analysed afresh.  ``FULLGRAPH_CACHE_DIR=off``
turns the cache off.  A cache that cannot be read or written is ignored.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
from pathlib import Path

from .fsutil import write_bytes_atomic


@functools.lru_cache(maxsize=None)
def _engine_key() -> str:
    """Hash of the sources whose output is cached: the analyzer and what it reads (rules, values,
    Dynamo's tables, the position conversion)."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha1()
    files = [p for sub in ("engine", "rules", "data") for p in sorted((here / sub).glob("*"))]
    for p in [*files, here / "positions.py", here / "tracetable.py"]:
        if p.suffix in (".py", ".json"):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path | None:
    d = os.environ.get("FULLGRAPH_CACHE_DIR")
    if d and d.lower() in ("off", "0", "none"):
        return None
    base = Path(d) if d else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fullgraph"
    return base / "summaries" / _engine_key()


def _entry(path: str, modname: str) -> Path | None:
    d = cache_dir()
    if d is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = f"{path}\0{modname}\0{st.st_size}\0{st.st_mtime_ns}".encode()
    return d / (hashlib.sha1(key).hexdigest() + ".pickle")


def load(path: str, modname: str):
    entry = _entry(path, modname)
    if entry is None:
        return None
    try:
        with open(entry, "rb") as fh:
            return pickle.load(fh)
    except Exception:  # noqa: BLE001 - a missing, partial or foreign entry: analyse again
        return None


def store(path: str, modname: str, summary) -> None:
    entry = _entry(path, modname)
    if entry is None:
        return
    try:
        write_bytes_atomic(str(entry), pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - read-only home, full disk: the cache is an optimisation
        pass

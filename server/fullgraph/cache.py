"""On-disk cache of module summaries: what the analyzer computes per file before the project pass.

A check of an unchanged tree reads every summary back instead of analysing the file again; after an
edit only the edited files are analysed.  Used by `Workspace.load_files` (the CLI, the language
server's background index) and by `--follow` for installed library modules.

Where: ``$FULLGRAPH_CACHE_DIR`` (default ``$XDG_CACHE_HOME/fullgraph``, else ``~/.cache/fullgraph``);
``FULLGRAPH_CACHE_DIR=off`` turns the cache off, ``fullgraph check --no-cache`` bypasses it for one
run and ``fullgraph clean`` deletes it.  The directory holds a ``.gitignore`` (``*``) and a
``CACHEDIR.TAG``, so a cache placed inside a project is neither committed nor backed up.

Key.  An entry lives under ``summaries/<engine key>/``, the engine key hashing fullgraph's version,
the Python version (the syntax trees differ between versions) and the sources of everything the
analysis runs: the analyzer, the rules, Dynamo's shipped trace tables (``data/``), the file reading
and notebook reading.  Inside, the entry's name hashes the file's **bytes**, its absolute path and
module name (summaries embed both) and whether it is a followed library module.  Nothing else goes
into a summary: the torch version rules are evaluated for, ``select``/``ignore``, roots and the other
settings are applied by the project pass after the summaries are loaded (tests/test_cache.py checks a
cached tree under another ``--torch-version`` and ``--select``), and the installed torch is never
read by the analysis.  An entry also records its engine and file key and a digest of its payload: a truncated,
corrupt or foreign file is ignored (the module is analysed again and the entry rewritten).

Concurrency.  Entries are written to a temporary file in the same directory and renamed into place
(`fsutil.write_bytes_atomic`), so a reader sees a whole entry or none; two runs writing the same entry
write the same bytes.  Size: after a run that wrote entries, the oldest entries (by modification
time; a hit refreshes an entry older than an hour) are deleted until the cache is under
``$FULLGRAPH_CACHE_MAX_MB`` (default 512), old engine keys' entries first since they are older.
A cache that cannot be read or written is ignored: it is an optimisation, never an error.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import time
from pathlib import Path

from .fsutil import write_bytes_atomic

MAGIC = b"FGSUM1\n"
DIGEST = 20  # bytes of the payload digest
SUFFIX = ".fgs"
DEFAULT_MAX_MB = 512
TOUCH_AFTER = 3600.0  # seconds: a hit on an older entry refreshes its time (for the eviction order)
GITIGNORE = "# created by fullgraph: the analysis cache (`fullgraph clean` deletes it)\n*\n"
CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by fullgraph.\n")
_PACKAGE = Path(__file__).resolve().parent
# entries' permissions, from the umask read once (write_bytes_atomic would set and reset the process's
# umask per file, which races with the language server's other threads creating files)
_UMASK = os.umask(0o022)
os.umask(_UMASK)
_MODE = 0o666 & ~_UMASK
# what does not change what a summary holds: the fixes, the language server, the runtime capture, the
# command line and the output formats
_NOT_ANALYSIS = ("lsp", "fixes", "trace", "cli.py", "output.py", "__main__.py")


@functools.lru_cache(maxsize=None)
def engine_key() -> str:
    """Hash of what a summary depends on besides the file: fullgraph's version, the Python version
    and the sources of the analysis (everything in the package but the fixes, the language server and
    the runtime capture), Dynamo's tables included.  "" when one of those sources changed after this
    process imported fullgraph (someone is editing fullgraph itself): the code running may be the older
    one, and its summaries stored under the newer sources' key broke a later check; such a process
    uses no cache."""
    from . import IMPORTED_AT, __version__

    h = hashlib.sha1(f"{__version__}\0{sys.version_info[:2]}\0{pickle.HIGHEST_PROTOCOL}\0".encode())
    files = sorted(p for p in _PACKAGE.rglob("*") if p.suffix in (".py", ".json")
                   and p.relative_to(_PACKAGE).parts[0] not in _NOT_ANALYSIS)
    now = time.time()
    for p in files:
        with open(p, "rb") as fh:
            mtime = os.fstat(fh.fileno()).st_mtime
            if IMPORTED_AT < mtime <= now + 1:  # (a time in the future: a clock skew, not an edit)
                return ""
            h.update(p.relative_to(_PACKAGE).as_posix().encode() + b"\0")
            h.update(fh.read())
    return h.hexdigest()[:16]


def cache_root() -> Path | None:
    """The cache directory (None when ``FULLGRAPH_CACHE_DIR=off``)."""
    d = os.environ.get("FULLGRAPH_CACHE_DIR")
    if d and d.strip().lower() in ("off", "0", "none", "false", "no"):
        return None
    if d:
        return Path(d).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fullgraph"


def summaries_dir() -> str | None:
    """Where this engine's entries go (a str: it is passed to worker processes)."""
    root = cache_root()
    key = engine_key() if root is not None else ""
    return str(root / "summaries" / key) if key else None


def max_bytes() -> int:
    try:
        return max(0, int(float(os.environ.get("FULLGRAPH_CACHE_MAX_MB", DEFAULT_MAX_MB)) * 1024 * 1024))
    except ValueError:
        return DEFAULT_MAX_MB * 1024 * 1024


def file_key(path: str, modname: str | None, is_pkg: bool, data: bytes, library: bool = False) -> str:
    """The entry name of a file's summary: its bytes, path, module name, package flag, library flag."""
    h = hashlib.blake2b(digest_size=20)
    h.update(f"{'lib' if library else 'file'}\0{path}\0{modname}\0{int(bool(is_pkg))}\0{len(data)}\0"
             .encode("utf-8", "surrogatepass"))
    h.update(data)
    return h.hexdigest()


def _tag(key: str) -> bytes:
    """What an entry says it is: the engine and the file key (an entry copied or renamed into another
    engine's directory, or under another name, is not read)."""
    return f"{engine_key()}:{key}\n".encode()


def _entry(directory: str, key: str) -> str:
    return os.path.join(directory, key + SUFFIX)


def load(directory: str | None, key: str):
    """The summary stored under `key`, or None (missing, partial, corrupt, another key's)."""
    if directory is None:
        return None
    path = _entry(directory, key)
    try:
        with open(path, "rb") as fh:
            blob = fh.read()
            mtime = os.fstat(fh.fileno()).st_mtime
    except OSError:
        return None
    tag = _tag(key)
    head = len(MAGIC) + len(tag)
    if blob[:len(MAGIC)] != MAGIC or blob[len(MAGIC):head] != tag:
        return None
    payload = memoryview(blob)[head + DIGEST:]
    if hashlib.blake2b(payload, digest_size=DIGEST).digest() != blob[head:head + DIGEST]:
        return None
    try:
        summary = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - an entry from an incompatible build: analyse again
        return None
    if time.time() - mtime > TOUCH_AFTER:
        try:
            os.utime(path)
        except OSError:
            pass
    return summary


def dumps(summary) -> bytes:
    return pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL)


def store(directory: str | None, key: str, payload: bytes) -> bool:
    """Write an entry (`payload` = dumps(summary)); False when it could not be written."""
    if directory is None:
        return False
    digest = hashlib.blake2b(payload, digest_size=DIGEST).digest()
    try:
        if not os.path.isdir(directory):
            _make_root(Path(directory).parent.parent)
        # no fsync: a reader never sees a partial entry (rename), and one torn by a crash fails its digest
        write_bytes_atomic(_entry(directory, key), b"".join((MAGIC, _tag(key), digest, payload)), mode=_MODE,
                           fsync=False)
        return True
    except Exception:  # noqa: BLE001 - read-only home, full disk: the cache is an optimisation
        return False


def _make_root(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", GITIGNORE), ("CACHEDIR.TAG", CACHEDIR_TAG)):
        p = root / name
        if not p.exists():
            try:
                write_bytes_atomic(str(p), text.encode(), mode=_MODE, fsync=False)
            except OSError:
                pass


def _entries(root: Path):
    """(mtime, size, path) of every entry and leftover temporary file under root/summaries."""
    out = []
    base = root / "summaries"
    try:
        engines = list(os.scandir(base))
    except OSError:
        return out
    for eng in engines:
        if not eng.is_dir(follow_symlinks=False):
            continue
        try:
            for e in os.scandir(eng.path):
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                out.append((st.st_mtime, st.st_size, e.path))
        except OSError:
            continue
    return out


def prune(limit: int | None = None) -> int:
    """Delete the oldest entries until the cache holds at most `limit` bytes (default max_bytes());
    also leftover temporary files of runs that were killed.  Returns the number of files deleted."""
    root = cache_root()
    if root is None:
        return 0
    limit = max_bytes() if limit is None else limit
    entries = _entries(root)
    now = time.time()
    deleted = 0
    kept = []
    for mtime, size, path in entries:
        if path.endswith(".fgtmp") and now - mtime > TOUCH_AFTER:
            deleted += _unlink(path)
        elif path.endswith(SUFFIX):
            kept.append((mtime, size, path))
    total = sum(size for _, size, _ in kept)
    if total > limit:
        target = limit * 0.9  # some room, so that the next run does not prune again
        for mtime, size, path in sorted(kept):
            if total <= target:
                break
            deleted += _unlink(path)
            total -= size
    base = root / "summaries"
    current = engine_key()
    for eng in (list(os.scandir(base)) if base.is_dir() else []):
        if eng.name != current and eng.is_dir(follow_symlinks=False):
            try:
                os.rmdir(eng.path)  # only if empty
            except OSError:
                pass
    return deleted


def _unlink(path: str) -> int:
    try:
        os.unlink(path)
        return 1
    except OSError:
        return 0


def usage(root: Path | None = None) -> tuple[int, int]:
    """(files, bytes) in the cache."""
    root = cache_root() if root is None else root
    if root is None:
        return 0, 0
    entries = _entries(root)
    return len(entries), sum(size for _, size, _ in entries)


def clean() -> tuple[Path | None, int, int]:
    """Delete the cache: every engine's summaries and the marker files fullgraph wrote, then the
    directory itself if that left it empty (a directory the user pointed us at keeps whatever else
    they keep there).  Returns (root, files deleted, bytes freed); root is None when the cache is off."""
    import shutil

    root = cache_root()
    if root is None:
        return None, 0, 0
    files, size = usage(root)
    shutil.rmtree(root / "summaries", ignore_errors=True)
    for name, text in ((".gitignore", GITIGNORE), ("CACHEDIR.TAG", CACHEDIR_TAG)):
        try:
            if (root / name).read_text() == text:
                (root / name).unlink()
        except (OSError, UnicodeDecodeError):
            pass
    try:
        root.rmdir()  # only if empty
    except OSError:
        pass
    return root, files, size

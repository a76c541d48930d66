"""File-system helpers shared by the fixes and the runtime record."""
from __future__ import annotations

import os
import tempfile


def write_bytes_atomic(path: str, data: bytes, mode: int | None = None, fsync: bool = True) -> None:
    """Replace `path` with `data` atomically: a temp file in the same directory, fsync, os.replace.

    `mode` is the new file's permission bits; None gives a normal file for the current umask
    (not mkstemp's 0600).  `fsync=False` skips the flush to disk (caches: a reader still sees the old
    file or the whole new one; only a crash may leave a torn file, which the reader must detect)."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".", suffix=".fgtmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

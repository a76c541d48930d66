"""Baselines: adopt fullgraph on an existing code base by failing only on graph breaks that are new.

    fullgraph check --baseline .fullgraph/baseline.json [--update-baseline]
    pytest --graph-breaks=fail --graph-breaks-baseline .fullgraph/baseline.json [--graph-breaks-update-baseline]

One file serves both (static findings carry FG codes, runtime breaks Dynamo's GB codes; each
entry says which it came from, and updating from one front-end keeps the other's entries)::

    {"version": 1,
     "entries": [{"path": "pkg/model.py", "code": "FG303", "text": "if x.sum().item() > 0:",
                  "count": 1, "origin": "static"}, ...]}

An entry is keyed by the file (relative to the baseline file's directory, "/" separators), the code
and the stripped text of the finding's line, not the line number: edits elsewhere in the file do
not invalidate it.  ``count`` is how many such findings the baseline accepts (two identical lines
with the same break are two); a finding beyond the count is new, as in ruff's and mypy's baselines.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

VERSION = 1
ORIGINS = ("static", "runtime")
T = TypeVar("T")
Key = tuple[str, str, str]  # (relative path, code, stripped line text)


class BaselineError(Exception):
    """The baseline file cannot be read or is not a baseline (the message says which and why)."""


@dataclass
class Baseline:
    path: str  # the baseline file; entries' paths are relative to its directory
    counts: dict[str, Counter] = field(default_factory=lambda: {o: Counter() for o in ORIGINS})

    @property
    def base(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    def key(self, path: str, line: int, code: str, lines_of: Callable[[str], list[str] | None] | None = None) -> Key:
        """The key of a finding at `path`, 1-based `line`."""
        lines = (lines_of or _file_lines)(path)
        text = lines[line - 1].strip() if lines is not None and 1 <= line <= len(lines) else ""
        return (relpath(path, self.base), code, text)

    def split(self, items: Iterable[T], key: Callable[[T], Key], origin: str) -> tuple[list[T], list[T]]:
        """(new, known): items beyond what the baseline accepts for their key, and the others, in order."""
        left = Counter(self.counts[origin])
        new: list[T] = []
        known: list[T] = []
        for it in items:
            k = key(it)
            if left[k] > 0:
                left[k] -= 1
                known.append(it)
            else:
                new.append(it)
        return new, known

    def replace(self, origin: str, keys: Iterable[Key]) -> None:
        """Make `keys` (one per finding) the accepted findings of `origin`; the other origin's stay."""
        self.counts[origin] = Counter(keys)

    def total(self, origin: str | None = None) -> int:
        return sum(sum(c.values()) for o, c in self.counts.items() if origin in (None, o))

    def to_json(self) -> dict:
        entries = [{"path": p, "code": c, "text": t, "count": n, "origin": o}
                   for o in ORIGINS for (p, c, t), n in sorted(self.counts[o].items()) if n > 0]
        return {"version": VERSION, "entries": entries}

    def save(self) -> None:
        from .fsutil import write_bytes_atomic

        text = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            write_bytes_atomic(self.path, text.encode("utf-8"))
        except OSError as e:
            raise BaselineError(f"cannot write baseline {self.path}: {e.strerror or e}") from None


def load(path: str, missing_ok: bool = False, update_flag: str = "--update-baseline") -> Baseline:
    """Read a baseline; raises BaselineError with a one-line reason.  `missing_ok`: a missing file
    is an empty baseline (for `update_flag`, named in the message when the file is missing)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        if missing_ok:
            return Baseline(path)
        raise BaselineError(f"baseline {path} does not exist (create it with {update_flag})") from None
    except OSError as e:
        raise BaselineError(f"cannot read baseline {path}: {e.strerror or e}") from None
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise BaselineError(f"baseline {path} is not valid JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("entries"), list):
        raise BaselineError(f"baseline {path} is not a fullgraph baseline (version {VERSION} with \"entries\")")
    b = Baseline(path)
    for i, e in enumerate(doc["entries"]):
        ok = isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("path", "code", "text")) \
            and isinstance(e.get("count", 1), int) and e.get("origin", "static") in ORIGINS
        if not ok:
            raise BaselineError(f"baseline {path}: entry #{i + 1} needs path, code, text (strings), "
                                f"count (an integer) and origin (one of {', '.join(ORIGINS)})")
        b.counts[e.get("origin", "static")][(e["path"], e["code"], e["text"])] += max(int(e.get("count", 1)), 0)
    return b


def relpath(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(os.path.realpath(path), os.path.realpath(base))
    except ValueError:  # another drive
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


def _file_lines(path: str) -> list[str] | None:
    from .trace.record import read_text

    from .positions import split_lines

    text = read_text(path)
    return split_lines(text) if text is not None else None


def cached_lines() -> Callable[[str], list[str] | None]:
    """A `lines_of` for `Baseline.key` that reads each file once."""
    cache: dict[str, list[str] | None] = {}

    def lines_of(path: str) -> list[str] | None:
        if path not in cache:
            cache[path] = _file_lines(path)
        return cache[path]

    return lines_of

"""What an analysis replaces, freed later: the last generation's memo and walk tables, the roots' findings an edit
made stale, the units an Enter moved.  Freeing them object by object (reference counting) inside the analysis,
before its diagnostics went out, was ~5% of an editor keystroke at 7,000 lines and ~20% of an Enter (148 -> 119 ms
in-process with it held).  The language server's engine holds them (`defer`) and frees
them once the diagnostics are out, in pieces it stops between when a keystroke comes (lsp/engine.py:
Engine.free_garbage); the CLI and tests hold nothing (`later` is then a no-op: the caller's drop frees them).

Only the engine thread calls these.  A dict or list is emptied piece by piece only when nothing but this module
refers to it (sys.getrefcount): one still in use elsewhere is dropped whole, never emptied under its user."""
from __future__ import annotations

import sys
from typing import Callable

LIMIT = 64  # objects held at most (a keystroke hands over ~10): past it the oldest are freed at once
CHUNK = 256  # items freed between two calls of `stop`

_held: list = []
_deferring = False


def defer(on: bool = True) -> None:
    """Hold what `later` is given until `release` (the language server's process); off: free it as given."""
    global _deferring
    _deferring = on
    if not on:
        _held.clear()


def later(*objs) -> None:
    """Free `objs` at the next `release` (when deferring; else when the caller drops them)."""
    if not _deferring:
        return
    _held.extend(o for o in objs if o)
    if len(_held) > LIMIT:
        del _held[:len(_held) - LIMIT]  # (the editor is not pausing: freed now, as without deferring)


def pending() -> bool:
    return bool(_held)


def release(stop: Callable[[], bool] | None = None) -> bool:
    """Free what is held, checking `stop()` every CHUNK items (and between objects); True when all is freed."""
    while _held:
        obj = _held.pop()
        kind = type(obj)
        # (2: `obj` and the argument; an object still in use elsewhere has more, and is only dropped)
        if (kind is dict or kind is list) and sys.getrefcount(obj) == 2 and not _emptied(obj, stop):
            return False
        del obj
        if stop is not None and _held and stop():
            return False
    return True


def _emptied(obj, stop: Callable[[], bool] | None) -> bool:
    """Empty `obj` (a dict or list only this module refers to) CHUNK items at a time, putting a large dict or list
    it held and nobody else does back to be emptied the same way; False when `stop()` said to stop (what is left of
    `obj` is held again)."""
    is_dict = type(obj) is dict
    n = 0
    while obj:
        v = obj.popitem()[1] if is_dict else obj.pop()
        if (type(v) is dict or type(v) is list) and len(v) > CHUNK and sys.getrefcount(v) == 2:
            _held.append(v)
        del v
        n += 1
        if n % CHUNK == 0 and obj and stop is not None and stop():
            _held.append(obj)
            return False
    return True

"""The project's results moved by blank lines: after an edit that only added or removed blank lines in one module
(an Enter: engine/incremental.py's blank_lines_edit), every analysis of the new text is the last one's with the
positions in that module moved, so the findings of the roots that read it are the last ones moved (LineShift),
not walked again.  Only what can be moved for sure is: a finding whose text names a line (`after the graph break at
line 12`, `model.py:40`, a lambda's `<lambda:3:8>`) or whose data holds a position this module does not know the
file of makes the caller walk again (None).  tests/test_moved_results.py checks the moved results against a fresh
workspace's after blank lines added and removed at random in real modules."""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..model import Finding, LibrarySite, Location, RootInfo, Step
from ..positions import LineShift, Pos, Span

# how the findings' texts name a line (rules/python.py, engine/findings.py, engine/recompiles.py, engine/walk.py,
# engine/arrivals.py, a lambda's qualname): such a text is not moved, the findings are made again
_NAMES_A_LINE = re.compile(r"\bline \d|\w:\d|<lambda:")
# Finding.data keys holding a position, and the file each is in: the finding's own ("stmt"), its compile call's
_SPAN_KEYS = {"stmt": "finding", "compile_span": "root"}


class _Unmovable(Exception):
    pass


class _Mover:
    def __init__(self, path: str, shift: LineShift):
        self.path, self.shift = path, shift
        self._roots: dict[int, RootInfo] = {}

    def span(self, path: str, s: Span) -> Span:
        if path != self.path:
            return s
        got = self.shift.span(s)
        if got is None:
            raise _Unmovable  # on a line the edit removed
        return got

    def text(self, s: str | None) -> None:
        if s and _NAMES_A_LINE.search(s):
            raise _Unmovable

    def location(self, loc: Location) -> Location:
        span = self.span(loc.path, loc.span)
        return loc if span is loc.span else Location(loc.path, span)

    def root(self, r: RootInfo | None) -> RootInfo | None:
        if r is None:
            return None
        got = self._roots.get(id(r))
        if got is None:
            self.text(r.qualname)
            self.text(r.label)
            loc = self.location(r.location)
            got = self._roots[id(r)] = r if loc is r.location else dataclasses.replace(r, location=loc)
        return got

    def step(self, s: Step) -> Step:
        self.text(s.qualname)
        if s.call is None:
            return s
        call = self.location(s.call)
        return s if call is s.call else Step(s.qualname, call)

    def site(self, s: LibrarySite) -> LibrarySite:
        self.text(s.message)
        self.text(s.condition)
        span = self.span(s.path, s.span)
        return s if span is s.span else dataclasses.replace(s, span=span)

    def data(self, f: Finding) -> dict:
        out = None
        for k, v in f.data.items():
            owner = _SPAN_KEYS.get(k)
            if owner is not None and isinstance(v, Span):
                path = f.path if owner == "finding" else f.root.location.path if f.root is not None else None
                if path is None:
                    raise _Unmovable
                moved = self.span(path, v)
                if moved is not v:
                    out = out if out is not None else dict(f.data)
                    out[k] = moved
            else:
                self.value(v)
        return f.data if out is None else out

    def value(self, v: Any) -> None:
        """A data value that must hold no position and name no line."""
        if isinstance(v, str):
            self.text(v)
        elif isinstance(v, (Span, Pos, Location, Step, RootInfo, LibrarySite)):
            raise _Unmovable
        elif isinstance(v, dict):
            for k, x in v.items():
                self.value(k)
                self.value(x)
        elif isinstance(v, (list, tuple, set, frozenset)):
            for x in v:
                self.value(x)
        elif not isinstance(v, (int, float, bool, type(None))):
            raise _Unmovable  # (an object of its own: what it holds is not known here)

    def finding(self, f: Finding) -> Finding:
        for s in (f.message, f.condition, f.name):
            self.text(s)
        return dataclasses.replace(f, span=self.span(f.path, f.span), root=self.root(f.root),
                                   call_path=[self.step(s) for s in f.call_path], fixes=list(f.fixes),
                                   data=self.data(f), library_sites=[self.site(s) for s in f.library_sites])

    def place(self, item: tuple) -> tuple:
        """(name or label, path, span, why), as Project.unfollowed_calls and unresolved_roots list them."""
        name, path, span, why = item
        self.text(name)
        self.text(why)
        moved = self.span(path, span)
        return item if moved is span else (name, path, moved, why)


def moved(path: str, shift: LineShift, findings: list[Finding], *places: list[tuple]) -> tuple | None:
    """`findings` and each list of `places` with the positions in `path` moved by `shift`, or None when one of
    them cannot be moved for sure."""
    m = _Mover(path, shift)
    try:
        return ([m.finding(f) for f in findings], *([m.place(p) for p in items] for items in places))
    except _Unmovable:
        return None

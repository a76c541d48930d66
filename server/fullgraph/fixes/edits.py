"""Text edits: what a fix proposes, applied to the exact text the workspace analysed (0-based lines,
code-point columns: positions.py)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from ..positions import Pos, Span


# ---- edits ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TextEdit:
    range: Span
    new_text: str

    def to_data(self) -> dict:
        return {"range": self.range, "new_text": self.new_text}

    @staticmethod
    def from_data(d: dict) -> "TextEdit":
        return TextEdit(d["range"], d["new_text"])

    def to_json(self) -> dict:
        return {"range": self.range.to_json(), "newText": self.new_text}


class NotOffered(Exception):
    """Raised inside a fix when it does not apply (caught by the engine)."""


def give_up(_why: str = "") -> None:
    raise NotOffered(_why)


# ---- text helpers --------------------------------------------------------------------------------
_NL_RE = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offsets where each line starts (\\r\\n, \\r and \\n end a line, like positions.split_lines)."""
    starts = [0]
    for m in _NL_RE.finditer(text):
        starts.append(m.end())
    return starts


def detect_newline(text: str) -> str:
    m = _NL_RE.search(text)
    return m.group(0) if m else "\n"


def apply_edits(text: str, edits: Iterable[TextEdit], starts: list[int] | None = None) -> str:
    """Apply non-overlapping edits (positions against `text`)."""
    starts = starts or line_starts(text)

    def off(p: Pos) -> int:
        if p.line >= len(starts):
            return len(text)
        return min(starts[p.line] + p.col, len(text))

    items = sorted(((off(e.range.start), off(e.range.end), i, e.new_text) for i, e in enumerate(edits)))
    out = []
    cur = 0
    for s, e, _, new in items:
        if s < cur:
            raise ValueError("overlapping edits")
        out.append(text[cur:s])
        out.append(new)
        cur = e
    out.append(text[cur:])
    return "".join(out)


def pos_of_offset(starts: list[int], offset: int) -> Pos:
    import bisect

    line = bisect.bisect_right(starts, offset) - 1
    return Pos(line, offset - starts[line])


# ---- one source file -----------------------------------------------------------------------------

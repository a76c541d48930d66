"""Positions: the one place where columns change units.

Inside fullgraph every position is ``(line, column)`` with a 0-based line and a column in
Unicode code points (a Python ``str`` index into the line), like libcst.  Python's ``ast``
reports columns in UTF-8 bytes; the LSP speaks UTF-16 code units unless the client negotiates
UTF-8 or UTF-32; the CLI prints 1-based character columns.  Every conversion between these goes
through this module.
"""
from __future__ import annotations

from dataclasses import dataclass

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"


@dataclass(frozen=True, order=True)
class Pos:
    line: int  # 0-based
    col: int  # code points

    def __reduce__(self):  # pickled as its two numbers (module summaries hold hundreds of thousands)
        return _pos, (self.line, self.col)


_new = object.__new__


def _pos(line: int, col: int) -> Pos:
    """Pos(line, col), made without the frozen dataclass's __init__ (which sets each field through
    object.__setattr__): the analysis makes one per node end, and a summary holds hundreds of thousands."""
    p = _new(Pos)
    d = p.__dict__
    d["line"] = line
    d["col"] = col
    return p


def _span(start: Pos, end: Pos) -> "Span":
    """Span(start, end), made as _pos makes a Pos."""
    s = _new(Span)
    d = s.__dict__
    d["start"] = start
    d["end"] = end
    return s


def moved_span(s: "Span", d: int) -> "Span":
    """`s` moved `d` lines down, made as _span makes a Span and without a call more (an Enter moves every span
    of the statements below it: tens of thousands in a long module)."""
    start = s.__dict__["start"].__dict__
    end = s.__dict__["end"].__dict__
    a = _new(Pos)
    ad = a.__dict__
    ad["line"] = start["line"] + d
    ad["col"] = start["col"]
    b = _new(Pos)
    bd = b.__dict__
    bd["line"] = end["line"] + d
    bd["col"] = end["col"]
    out = _new(Span)
    od = out.__dict__
    od["start"] = a
    od["end"] = b
    return out


@dataclass(frozen=True, order=True)
class Span:
    start: Pos
    end: Pos

    @staticmethod
    def of(l1: int, c1: int, l2: int, c2: int) -> "Span":
        return _span(_pos(l1, c1), _pos(l2, c2))

    def __reduce__(self):  # pickled as its four numbers: smaller and quicker to write than two Pos
        return Span.of, (self.start.line, self.start.col, self.end.line, self.end.col)

    def contains(self, pos: Pos) -> bool:
        return self.start <= pos <= self.end

    def to_json(self) -> dict:
        """1-based lines and 1-based character columns (the CLI's JSON schema)."""
        return {
            "start": {"line": self.start.line + 1, "column": self.start.col + 1},
            "end": {"line": self.end.line + 1, "column": self.end.col + 1},
        }


@dataclass(frozen=True)
class LineShift:
    """An edit that replaced the lines [at, at + removed) with `added` lines, all of them blank (an Enter, a blank
    line deleted): a position on a line below moves by `added - removed` lines, one above stays, and one on a
    replaced line has no place after the edit (None)."""

    at: int
    removed: int
    added: int

    def line(self, line: int) -> int | None:
        if line < self.at:
            return line
        if line < self.at + self.removed:
            return None
        return line + self.added - self.removed

    def span(self, s: Span) -> Span | None:
        if s.end.line < self.at:
            return s
        a, b = self.line(s.start.line), self.line(s.end.line)
        if a is None or b is None:
            return None
        if b - a == s.end.line - s.start.line:
            return s if a == s.start.line else moved_span(s, a - s.start.line)
        return _span(_pos(a, s.start.col), _pos(b, s.end.col))  # (the edit is inside it)


def first_line(node) -> int:
    """The 1-based line an `ast` statement starts at, a definition's decorators included (`@torch.compile`
    above `def f` is where `f`'s code object starts: co_firstlineno)."""
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])


def split_lines(text: str) -> list[str]:
    """Lines as Python and the LSP count them (\\n, \\r\\n and \\r end a line), without the ends."""
    lines = text.splitlines()
    # str.splitlines also splits on \x0b, \x0c, \x1c-\x1e, \x85, \u2028, \u2029, which neither
    # Python's tokenizer nor the LSP treat as line ends; re-split on the real ones only.
    if any(ch in text for ch in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if lines and lines[-1] == "" and text.endswith(("\n", "\r")):
            lines.pop()
    return lines


def _units(ch: str, encoding: str) -> int:
    o = ord(ch)
    if encoding == UTF16:
        return 2 if o > 0xFFFF else 1
    if encoding == UTF8:
        return 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
    return 1


def col_to_units(line: str, col: int, encoding: str) -> int:
    """Code-point column -> column in `encoding` units (clamped to the line)."""
    col = max(0, min(col, len(line)))
    if encoding == UTF32 or line.isascii():
        return col
    return sum(_units(ch, encoding) for ch in line[:col])


def units_to_col(line: str, units: int, encoding: str) -> int:
    """Column in `encoding` units -> code-point column (clamped; a split surrogate rounds down)."""
    if units <= 0:
        return 0
    if encoding == UTF32 or line.isascii():
        return min(units, len(line))
    acc = 0
    for i, ch in enumerate(line):
        acc += _units(ch, encoding)
        if acc > units:
            return i
        if acc == units:
            return i + 1
    return len(line)


def utf8_byte_to_col(line: str, byte_col: int) -> int:
    """`ast` column (UTF-8 bytes) -> code-point column."""
    if line.isascii():
        return byte_col
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


class LineIndex:
    """Lines of one document, for converting spans (built once per text)."""

    __slots__ = ("lines", "ascii")

    def __init__(self, text: str):
        self.lines = split_lines(text)
        self.ascii = text.isascii()  # then every column is the same in every unit

    def line(self, n: int) -> str:
        return self.lines[n] if 0 <= n < len(self.lines) else ""

    def from_ast(self, lineno: int, byte_col: int) -> Pos:
        """ast's 1-based line and UTF-8 byte column -> Pos."""
        line = lineno - 1
        if self.ascii:
            return _pos(line, byte_col)
        return _pos(line, utf8_byte_to_col(self.line(line), byte_col))

    def span_from_ast(self, node) -> Span:
        lineno, col = node.lineno, node.col_offset
        end_lineno = getattr(node, "end_lineno", None) or lineno
        end_col = getattr(node, "end_col_offset", None)
        if end_col is None:
            end_col = col
        if self.ascii:  # from_ast, inlined: the analysis makes a span for most nodes it records
            return _span(_pos(lineno - 1, col), _pos(end_lineno - 1, end_col))
        return _span(self.from_ast(lineno, col), self.from_ast(end_lineno, end_col))

    def clamp(self, pos: Pos) -> Pos:
        if not self.lines:
            return Pos(0, 0)
        if pos.line >= len(self.lines):
            return Pos(len(self.lines) - 1, len(self.lines[-1]))
        line = max(pos.line, 0)
        return Pos(line, max(0, min(pos.col, len(self.lines[line]))))

    def clamp_span(self, span: Span) -> Span:
        return Span(self.clamp(span.start), self.clamp(span.end))

    def to_client(self, pos: Pos, encoding: str) -> tuple[int, int]:
        """Pos -> (line, character) in the client's encoding, clamped inside the document."""
        line, col = pos.line, pos.col
        if 0 <= line < len(self.lines):  # (every position of a publication, most of them in an ASCII file)
            text = self.lines[line]
            col = 0 if col < 0 else len(text) if col > len(text) else col
            return line, col if self.ascii else col_to_units(text, col, encoding)
        p = self.clamp(pos)
        return p.line, col_to_units(self.line(p.line), p.col, encoding)

    def from_client(self, line: int, character: int, encoding: str) -> Pos:
        if line >= len(self.lines):
            return self.clamp(Pos(line, character))
        return Pos(max(line, 0), units_to_col(self.line(line), character, encoding))

    def offset(self, pos: Pos, text: str) -> int:
        """Pos -> index into `text` (the same text this index was built from)."""
        # Walk line starts in the original text so \r\n and \r are honoured.
        idx = 0
        line = 0
        n = len(text)
        while line < pos.line and idx < n:
            j = idx
            while j < n and text[j] not in "\r\n":
                j += 1
            if j >= n:
                return n
            idx = j + (2 if text.startswith("\r\n", j) else 1)
            line += 1
        return min(idx + pos.col, n)

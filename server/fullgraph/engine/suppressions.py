"""`# fullgraph: ignore` and `# fullgraph: ignore[FG101, FG102]` comments: which lines they silence.

Only comments count (a string holding the same text does not), so the text is tokenized.  In a module that
parses, only the top-level statements (or the lines between them) holding "fullgraph:" are: each
tokenizes on its own, and tokenizing a whole module costs as much as parsing it, which an editor does on
every keystroke.
"""
from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize

from .nodes import extent

PATTERN = re.compile(r"#\s*fullgraph:\s*ignore(?![\w-])(?:\[(?P<codes>[A-Za-z0-9_,\s]*)\])?", re.I)


def read(text: str, lines: list[str], tree: ast.Module | None) -> dict[int, frozenset | None]:
    """0-based line -> the codes suppressed there (None: every code).  `lines`: the text's lines;
    `tree`: its syntax tree when it parses (None: the whole text is tokenized, as well as it goes)."""
    # the marker in any case: bytes.lower() maps ASCII letters only, a third of the cost of str.upper(), and
    # no other character matches a letter of "fullgraph" case-insensitively
    if "fullgraph:" not in text and b"fullgraph:" not in text.encode("utf-8", "surrogatepass").lower():
        return {}
    out: dict[int, frozenset | None] = {}
    for line, comment in _comments(text, lines, tree):
        m = PATTERN.search(comment)
        if not m:
            continue
        codes = m.group("codes")
        if codes is None:
            out[line] = None
        else:
            parsed = frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
            prev = out.get(line, frozenset())
            out[line] = None if prev is None else prev | parsed
    return out


def _comments(text: str, lines: list[str], tree: ast.Module | None) -> list[tuple[int, str]]:
    """(0-based line, text) of the comments that may hold a suppression."""
    if tree is None:
        try:
            return [(t.start[0] - 1, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                    if t.type == tokenize.COMMENT]
        except (tokenize.TokenError, SyntaxError, IndentationError):
            # best effort on broken files: whatever follows a "#"
            return [(i, line[line.index("#"):]) for i, line in enumerate(lines) if "#" in line]
    extents = [extent(s) for s in tree.body]
    starts = [e[0] for e in extents]
    regions: dict[tuple[int, int], None] = {}
    for n, line in enumerate(lines, start=1):
        if "fullgraph:" in line.lower():
            k = bisect.bisect_right(starts, n) - 1
            regions[extents[k] if k >= 0 and extents[k][1] >= n else (n, n)] = None
    out = []
    for first, last in regions:
        part = "\n".join(lines[first - 1:last]) + "\n"
        try:
            out.extend((t.start[0] + first - 2, t.string) for t in tokenize.generate_tokens(io.StringIO(part).readline)
                       if t.type == tokenize.COMMENT)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            pass
    return out

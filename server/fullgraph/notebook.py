"""Jupyter notebooks (`.ipynb`, nbformat 4) as one Python module, for `fullgraph check`.

The code cells, in the notebook's order, are one module (a model defined in cell 2 and compiled in cell 5
is one program; cells run out of order are read in file order).  IPython syntax that is not Python is
masked in place, so it neither fails to parse nor moves any position: a cell magic (`%%time`) masks its
cell, a line magic or shell line (`%timeit f(x)`, `!pip install ...`, `obj?`) becomes a comment, and
`files = !ls` keeps its assignment (`files = None #ls`).  Findings are reported per cell: cell numbers
count every cell from 1, as notebook editors show them; lines and columns are the cell's own.

Fixes are computed on that module and written back into the cells they change (`write_back`): only the
`source` of those cells changes, and the file keeps its JSON layout (indent, key order, escapes, trailing
newline); a notebook whose layout cannot be reproduced, or a fix that would touch a masked line, is left
alone.  The language server reads open notebooks' cells the same way (lsp/documents.py).
"""
from __future__ import annotations

import dataclasses
import difflib
import json
import re

from .model import Finding, Location
from .positions import Pos, Span

_LINE_MAGIC = re.compile(r"^(\s*)([%!])")
_HELP = re.compile(r"^\s*[\w.]+\?{1,2}\s*$|^\s*\?{1,2}[\w.]+\s*$")
_SHELL_ASSIGN = re.compile(r"^(\s*[\w.,\s\[\]()]+?=\s*)([%!].*)$")


class NotebookError(ValueError):
    """The file is not a notebook this reader understands (the message says why)."""


@dataclasses.dataclass(frozen=True)
class CellMap:
    """Where each code cell starts in the module text: ((module line, cell number), ...), in order."""

    starts: tuple[tuple[int, int], ...]

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, line in the cell) of a 0-based module line."""
        cell, first = 0, 0
        for start, number in self.starts:
            if start > line:
                break
            cell, first = number, start
        return cell, line - first

    def span(self, span: Span) -> tuple[int, Span]:
        """The cell of a module span and the span in that cell's own lines."""
        cell, line = self.locate(span.start.line)
        shift = span.start.line - line
        return cell, Span(Pos(line, span.start.col), Pos(span.end.line - shift, span.end.col))


def read(data: bytes) -> tuple[str, CellMap]:
    """The module text of a notebook's code cells, and where each cell starts in it."""
    return cells_module(parse_notebook(data)[1])


def parse_notebook(data: bytes) -> tuple[str, dict]:
    """The notebook's JSON text and document; NotebookError if it is not an nbformat 4 notebook."""
    try:
        raw = data.decode("utf-8-sig")
        nb = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise NotebookError(f"not a notebook (invalid JSON: {e})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError("not an nbformat 4 notebook (no `cells` list)")
    return raw, nb


def code_cells_of(nb: dict) -> list[tuple[int, dict]]:
    """(cell number counting every cell from 1, cell) of each code cell."""
    return [(number, cell) for number, cell in enumerate(nb["cells"], 1)
            if isinstance(cell, dict) and cell.get("cell_type") == "code"]


def cells_module(nb: dict) -> tuple[str, CellMap]:
    cells = code_cells_of(nb)
    text, starts = module_of_cells([_cell_text(cell) for _, cell in cells])
    return text, CellMap(tuple(zip(starts, (number for number, _ in cells))))


def module_of_cells(sources: list[str]) -> tuple[str, list[int]]:
    """The module of code cells (their source texts), IPython lines masked, and the module line where
    each cell starts.  The notebook file reader and the language server's open notebooks both build
    their module here."""
    out: list[str] = []
    starts: list[int] = []
    for src in sources:
        starts.append(len(out))
        out.extend(_mask(_lines(src)))
    return "\n".join(out) + "\n", starts


# cell magics whose body is Python that IPython runs as it is (timed, profiled, its output captured)
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})


def _mask(lines: list[str]) -> list[str]:
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    out = []
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(maxsplit=1)
        if not magic or magic[0] not in PYTHON_CELL_MAGICS:  # the cell is not Python (%%bash, %%writefile, ...)
            return ["#" + ln if ln.strip() else ln for ln in lines]
        out = [*lines[:first], "#" + lines[first]]  # `%%time`: the magic's line only
        lines = lines[first + 1:]
    for ln in lines:
        m = _SHELL_ASSIGN.match(ln)
        if m and not ln.lstrip().startswith(("%", "!")):
            out.append(f"{m.group(1)}None #{m.group(2)[1:]}")
        elif _LINE_MAGIC.match(ln) or _HELP.match(ln):
            indent = len(ln) - len(ln.lstrip())
            out.append(ln[:indent] + "#" + ln[indent + 1:] if ln[indent] in "%!" else ln[:indent] + "#" + ln[indent:])
        else:
            out.append(ln)
    return out


def in_cells(findings: list[Finding], modules: dict) -> list[Finding]:
    """The findings with positions in notebooks given per cell: the span in the cell's own lines and
    `data["cell"]` (and `data["root_cell"]` for a root compiled in a notebook); others unchanged."""
    out = []
    for f in findings:
        mod = modules.get(f.path)
        cells = getattr(mod, "cells", None)
        if cells is not None:
            cell, span = cells.span(f.span)
            f = dataclasses.replace(f, span=span, data={**f.data, "cell": cell})
        root = f.root
        rmod = modules.get(root.location.path) if root is not None else None
        if getattr(rmod, "cells", None) is not None:
            cell, span = rmod.cells.span(root.location.span)
            f = dataclasses.replace(f, root=dataclasses.replace(root, location=Location(root.location.path, span)),
                                    data={**f.data, "root_cell": cell})
        out.append(f)
    return out


def write_back(data: bytes, old: str, new: str) -> tuple[bytes, list[tuple[int, str, str]]]:
    """The notebook `data` with the code cells changed as the module text changed from `old` to `new`,
    and the (cell number, old source, new source) of each cell that changed.  Lines a fix inserts go to
    the cell of the line before them (the first cell for lines added at the top).  Raises NotebookError
    when the change touches a masked (IPython) line or the file's layout cannot be kept."""
    raw, nb = parse_notebook(data)
    layout = _layout(raw, nb)
    text, cells = cells_module(nb)
    if text != old:
        raise NotebookError("the notebook changed since it was analysed")
    old_lines, new_lines = old.splitlines(), new.splitlines()
    owner = [cells.locate(i)[0] for i in range(len(old_lines))]
    code_cells = code_cells_of(nb)
    per_cell: dict[int, list[str]] = {number: [] for number, _ in code_cells}
    original = {number: source_lines(cell) for number, cell in code_cells}
    masked = set()  # module lines that differ from their cell's line: IPython syntax masked by `read`
    for i, text_line in enumerate(old_lines):
        number, line = cells.locate(i)
        src = original[number]
        if line >= len(src) or src[line] != text_line:
            masked.add(i)
    sm = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for op, a1, a2, b1, b2 in sm.get_opcodes():
        if op != "equal" and any(i in masked for i in range(a1, a2)):
            raise NotebookError("a fix would change an IPython line")
        for k in range(b2 - b1):
            i = a1 + k if op == "equal" else None
            if i is not None:
                number, line = cells.locate(i)
                per_cell[number].append(original[number][line])  # as written (magics unmasked)
            else:
                anchor = min(a1 + k, a2 - 1) if a2 > a1 else a1 - 1  # a replaced line's cell, else the line before's
                number = owner[anchor] if 0 <= anchor < len(owner) else code_cells[0][0]
                per_cell[number].append(new_lines[b1 + k])
    changed = []
    for number, cell in code_cells:
        after = per_cell[number]
        if after != original[number]:
            src = cell.get("source", "")
            text_before = _cell_text(cell)
            nl = "\r\n" if "\r\n" in text_before else "\n"
            body = nl.join(after) + (nl if text_before.endswith(("\n", "\r")) or not text_before else "")
            cell["source"] = body.splitlines(keepends=True) if isinstance(src, list) else body
            changed.append((number, text_before, body))
    out = json.dumps(nb, indent=layout[0], ensure_ascii=layout[1], separators=layout[2]) + layout[3]
    return (b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b"") + out.encode("utf-8"), changed


def _cell_text(cell) -> str:
    """A cell's source (nbformat stores it as a string or a list of lines)."""
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _lines(text: str) -> list[str]:
    return text.splitlines() or [""]


def source_lines(cell) -> list[str]:
    return _lines(_cell_text(cell))


def _layout(raw: str, nb) -> tuple:
    """(indent, ensure_ascii, separators, trailing text) with which json.dumps gives back `raw` exactly;
    NotebookError if none does (then the file is not rewritten)."""
    trailing = raw[len(raw.rstrip()):]
    body = raw.rstrip()
    second = body.splitlines()[1] if "\n" in body else ""
    indent = len(second) - len(second.lstrip(" ")) or None
    for ensure_ascii in (False, True):
        for seps in ((",", ": "), (", ", ": ")):
            if json.dumps(nb, indent=indent, ensure_ascii=ensure_ascii, separators=seps) == body:
                return indent, ensure_ascii, seps, trailing
    raise NotebookError("its JSON layout is not one this writer reproduces; not rewritten")

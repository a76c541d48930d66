"""Jupyter notebooks (`.ipynb`, nbformat 4) as one Python module, for `fullgraph check`.

The code cells, in the notebook's order, are one module (a model defined in cell 2 and compiled in cell 5
is one program; cells run out of order are read in file order).  IPython syntax that is not Python is
masked in place, so it neither fails to parse nor moves any position: a cell magic (`%%time`) masks its
cell, a line magic or shell line (`%timeit f(x)`, `!pip install ...`, `obj?`) becomes a comment, and
`files = !ls` keeps its assignment (`files = None #ls`).  Findings are reported per cell: cell numbers
count every cell from 1, as notebook editors show them; lines and columns are the cell's own.

Not yet: fixes in notebooks (none is offered), the language server's notebook documents, runtime capture
in a kernel.
"""
from __future__ import annotations

import dataclasses
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
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise NotebookError(f"not a notebook (invalid JSON: {e})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError("not an nbformat 4 notebook (no `cells` list)")
    out: list[str] = []
    starts: list[tuple[int, int]] = []
    for number, cell in enumerate(nb["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        lines = text.splitlines() or [""]
        starts.append((len(out), number))
        out.extend(_mask(lines))
    return "\n".join(out) + "\n", CellMap(tuple(starts))


def _mask(lines: list[str]) -> list[str]:
    first = next((ln for ln in lines if ln.strip()), "")
    if first.lstrip().startswith("%%"):  # a cell magic: the cell is not Python
        return ["#" + ln if ln.strip() else ln for ln in lines]
    out = []
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

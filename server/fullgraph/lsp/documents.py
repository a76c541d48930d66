"""What the language server analyses: open text documents and open notebooks, one `Doc` each.

A text document is analysed under its own URI.  A notebook (LSP 3.17 notebookDocument sync) is analysed
as one module, like `fullgraph check` reads an `.ipynb` file (notebook.py): its Python code cells in
order, IPython lines masked in place, under the notebook's URI and path.  Its findings are shown in the
cells: `Cells` maps module lines to (cell URI, line in the cell) and back.  Every LSP feature asks
`doc_of(uri)` for the unit a URI belongs to (a cell URI gives its notebook), so features never care
whether they serve a file or a cell.

Only line numbers move between the module and its cells: a cell's lines are the module's lines (an
IPython line is masked to a comment of the same length, except `x = !cmd`, whose columns after `=` can
shift), so column conversion to the negotiated encoding uses the module's `LineIndex`.
"""
from __future__ import annotations

import bisect
import dataclasses
from typing import Iterator
from urllib.parse import unquote

from lsprotocol import types as t

from ..notebook import module_of_cells


@dataclasses.dataclass(frozen=True)
class Cells:
    """The code cells of a notebook as one module: each cell's URI, the module line it starts at, and its
    number among all the notebook's cells (from 1, as notebook editors and `fullgraph check` count)."""

    uris: tuple[str, ...]
    starts: tuple[int, ...]
    numbers: tuple[int, ...]

    def locate(self, line: int) -> tuple[str, int]:
        """(cell URI, line in the cell) of a 0-based module line."""
        i = max(bisect.bisect_right(self.starts, line) - 1, 0)
        return self.uris[i], line - self.starts[i]

    def where(self, line: int) -> str:
        """A module line as people read it in a notebook: "cell 4, line 2"."""
        i = max(bisect.bisect_right(self.starts, line) - 1, 0)
        return f"cell {self.numbers[i]}, line {line - self.starts[i] + 1}"

    def offset(self, cell_uri: str) -> int | None:
        """The module line where a cell starts (None: not a code cell of this notebook)."""
        try:
            return self.starts[self.uris.index(cell_uri)]
        except ValueError:
            return None

    def end(self, cell_uri: str) -> int:
        """The module line after the cell's last line."""
        i = self.uris.index(cell_uri)
        return self.starts[i + 1] if i + 1 < len(self.starts) else 1 << 30

    def to_cell(self, rng: t.Range) -> tuple[str, t.Range] | None:
        """A module range as (cell URI, range in that cell); None if it spans two cells (or there are none)."""
        if not self.uris:
            return None
        uri, line = self.locate(rng.start.line)
        end_uri, end_line = self.locate(rng.end.line)
        if end_uri != uri:
            return None
        return uri, t.Range(t.Position(line, rng.start.character), t.Position(end_line, rng.end.character))


@dataclasses.dataclass(frozen=True)
class Doc:
    """An analysis unit: `key` is the URI results are kept under (the document's, or the notebook's)."""

    key: str
    version: int | None
    text: str
    cells: Cells | None = None  # for a notebook

    def owners(self) -> tuple[str, ...]:
        """The URIs diagnostics are published to."""
        return self.cells.uris if self.cells is not None else (self.key,)

    def to_module(self, uri: str, pos: t.Position) -> t.Position:
        """A position in `uri` (a cell of this notebook, or the document) in module coordinates."""
        shift = self.cells.offset(uri) if self.cells is not None else 0
        return t.Position(pos.line + (shift or 0), pos.character)

    def to_owner(self, rng: t.Range) -> tuple[str, t.Range] | None:
        """A module range as (URI, range) of the document or cell that shows it."""
        return (self.key, rng) if self.cells is None else self.cells.to_cell(rng)


class Documents:
    """The open units of pygls's workspace (which files notebook cells as text documents too)."""

    def __init__(self, server):
        self._server = server  # pygls makes its workspace at `initialize`
        self._built: dict[str, tuple[tuple, Doc]] = {}  # notebook key -> (versions it was built at, its Doc)

    @property
    def workspace(self):
        return self._server.workspace

    def is_cell(self, uri: str) -> bool:
        return self.workspace.get_notebook_document(cell_uri=uri) is not None

    def keys(self) -> Iterator[str]:
        """Every open unit: text documents that are not notebook cells, then notebooks."""
        for uri, doc in list(self.workspace.text_documents.items()):
            if not self.is_cell(uri):
                yield doc.uri  # as the client spells it (pygls files it unquoted)
        for nb in list(self.workspace.notebook_documents.values()):
            yield nb.uri

    def get(self, uri: str) -> Doc | None:
        """The unit `uri` belongs to: a notebook for a notebook or cell URI, else the text document
        (None when nothing of that URI is open)."""
        nb = self.workspace.get_notebook_document(notebook_uri=uri) or \
            self.workspace.get_notebook_document(cell_uri=uri)
        if nb is not None:
            return self._notebook(nb)
        if unquote(uri) not in self.workspace.text_documents:
            return None
        doc = self.workspace.get_text_document(uri)
        return Doc(doc.uri, doc.version, doc.source)

    def cell_version(self, cell_uri: str) -> int | None:
        doc = self.workspace.text_documents.get(unquote(cell_uri))
        return doc.version if doc is not None else None

    def version(self, key: str) -> int | None | object:
        doc = self.get(key)
        return doc.version if doc is not None else _CLOSED

    def _notebook(self, nb: t.NotebookDocument) -> Doc:
        code = []
        for number, cell in enumerate(nb.cells, 1):
            if cell.kind != t.NotebookCellKind.Code or unquote(cell.document) not in self.workspace.text_documents:
                continue
            doc = self.workspace.get_text_document(cell.document)
            if (doc.language_id or "python") == "python":
                code.append((cell.document, doc.source, doc.version, number))
        # VS Code edits a cell's text without changing the notebook's version: the unit's version counts
        # changes of the notebook or of any cell (a result is current while it is unchanged)
        stamp = (nb.version, tuple((uri, v, number) for uri, _, v, number in code))
        built = self._built.get(nb.uri)
        if built is not None and built[0] == stamp:
            return built[1]
        text, starts = module_of_cells([src for _, src, _, _ in code])
        version = built[1].version + 1 if built is not None else 1
        doc = Doc(nb.uri, version, text, Cells(tuple(c[0] for c in code), tuple(starts), tuple(c[3] for c in code)))
        self._built[nb.uri] = (stamp, doc)
        return doc

    def closed(self, key: str) -> None:
        self._built.pop(key, None)


def same_uri(a: str, b: str) -> bool:
    """Two spellings of one URI (clients may escape characters pygls keeps unescaped)."""
    return a == b or unquote(a) == unquote(b)


_CLOSED = object()  # the version of a unit that is no longer open (never equal to a real one)

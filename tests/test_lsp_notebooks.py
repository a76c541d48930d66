"""Notebooks in the language server (LSP 3.17 notebookDocument sync), end to end over stdio with VS Code's
client capabilities (push diagnostics) and a pull-diagnostics client: the notebook's Python cells are one
module, as `fullgraph check` reads an .ipynb; squiggles, hover, code lens and quick fixes appear in the
cell they belong to, at the cell's own lines and the negotiated column units (CJK and emoji before the
finding), and follow the cells when cells are edited, inserted or closed."""
from __future__ import annotations

import os
import sys

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from harness import record_publications
from test_lsp import apply_edits, eventually

IMPORTS = "%matplotlib inline\nimport torch\nimport torch.nn as nn\n"
NET = '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        label = "统计 😀"; print(label, x.mean())
        return self.lin(x).relu()
'''
COMPILE = "model = torch.compile(Net(), fullgraph=True)\nout = model(torch.randn(2, 4))\n"
PRINT_LINE = 6  # in the Net cell
PREFIX = '        label = "统计 😀"; '
COLS = {"utf-32": len(PREFIX), "utf-16": len(PREFIX.encode("utf-16-le")) // 2, "utf-8": len(PREFIX.encode("utf-8"))}


def _caps(name: str) -> t.ClientCapabilities:
    caps = client_capabilities("visual-studio-code")
    # what VS Code (1.75+) sends; the recorded capabilities predate notebook sync
    caps.notebook_document = t.NotebookDocumentClientCapabilities(
        synchronization=t.NotebookDocumentSyncClientCapabilities(dynamic_registration=True,
                                                                 execution_summary_support=True))
    if name == "pull":
        caps.text_document.diagnostic = t.DiagnosticClientCapabilities(dynamic_registration=False,
                                                                       related_document_support=True)
    return caps


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "fullgraph", "lsp"],
                              server_env={**os.environ, "PYTHONUNBUFFERED": "1"}),
    params=["visual-studio-code", "pull"],
)
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    ws = tmp_path_factory.mktemp("ws")
    record_publications(lsp_client)
    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=_caps(request.param), root_uri=ws.as_uri(),
        workspace_folders=[t.WorkspaceFolder(uri=ws.as_uri(), name="ws")],
        # the editor's debounce: a pull that comes before it has passed must still get the edited text's answer
        initialization_options={"settings": {"debounce": 0.3, "logLevel": "debug"}}))
    assert result.capabilities.notebook_document_sync is not None, "the server must offer notebook sync"
    enc = result.capabilities.position_encoding
    lsp_client.enc = getattr(enc, "value", enc) or "utf-16"
    lsp_client.pull = request.param == "pull"
    lsp_client.ws = ws
    yield
    await lsp_client.shutdown_session()


class Notebook:
    """A notebook the test client holds: its cells' URIs (spelled as VS Code does) and texts."""

    def __init__(self, client: LanguageClient, name: str, cells: list[tuple[str, str]]):
        self.client = client
        self.uri = (client.ws / name).as_uri()
        self.version = 1
        self.cells: list[list] = []  # [uri, language, text, version]
        for i, (language, text) in enumerate(cells):
            self.cells.append([self._cell_uri(i), language, text, 1])

    def _cell_uri(self, i: int) -> str:
        return f"vscode-notebook-cell:{self.uri[len('file://'):]}#W{i}sZmlsZQ%3D%3D"

    def uri_of(self, i: int) -> str:
        return self.cells[i][0]

    def _cell(self, c) -> t.NotebookCell:
        kind = t.NotebookCellKind.Code if c[1] == "python" else t.NotebookCellKind.Markup
        return t.NotebookCell(kind=kind, document=c[0])

    def _item(self, c) -> t.TextDocumentItem:
        return t.TextDocumentItem(uri=c[0], language_id=c[1], version=c[3], text=c[2])

    def open(self) -> None:
        self.client.notebook_document_did_open(t.DidOpenNotebookDocumentParams(
            notebook_document=t.NotebookDocument(uri=self.uri, notebook_type="jupyter-notebook", version=self.version,
                                                 cells=[self._cell(c) for c in self.cells]),
            cell_text_documents=[self._item(c) for c in self.cells]))

    def edit(self, i: int, text: str) -> None:
        c = self.cells[i]
        c[2], c[3] = text, c[3] + 1  # VS Code sends a cell's text edit with the notebook's version unchanged
        self.client.notebook_document_did_change(t.DidChangeNotebookDocumentParams(
            notebook_document=t.VersionedNotebookDocumentIdentifier(version=self.version, uri=self.uri),
            change=t.NotebookDocumentChangeEvent(cells=t.NotebookDocumentCellChanges(text_content=[
                t.NotebookDocumentCellContentChanges(
                    document=t.VersionedTextDocumentIdentifier(uri=c[0], version=c[3]),
                    changes=[t.TextDocumentContentChangeWholeDocument(text=text)])]))))

    def insert(self, i: int, text: str) -> str:
        c = [self._cell_uri(100 + len(self.cells)), "python", text, 1]
        self.cells.insert(i, c)
        self.version += 1
        self.client.notebook_document_did_change(t.DidChangeNotebookDocumentParams(
            notebook_document=t.VersionedNotebookDocumentIdentifier(version=self.version, uri=self.uri),
            change=t.NotebookDocumentChangeEvent(cells=t.NotebookDocumentCellChanges(
                structure=t.NotebookDocumentCellChangeStructure(
                    array=t.NotebookCellArrayChange(start=i, delete_count=0, cells=[self._cell(c)]),
                    did_open=[self._item(c)])))))
        return c[0]

    def close(self) -> None:
        self.client.notebook_document_did_close(t.DidCloseNotebookDocumentParams(
            notebook_document=t.NotebookDocumentIdentifier(uri=self.uri),
            cell_text_documents=[t.TextDocumentIdentifier(uri=c[0]) for c in self.cells]))


async def cell_diagnostics(client: LanguageClient, uri: str) -> list[t.Diagnostic]:
    if client.pull:
        rep = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
            text_document=t.TextDocumentIdentifier(uri=uri)))
        return list(rep.items)
    return client.published.get(uri, (None, []))[1]


def _published(client: LanguageClient, uri: str, version: int):
    async def probe():
        if client.pull:
            return await cell_diagnostics(client, uri)
        got = client.published.get(uri)
        return got[1] if got is not None and got[0] == version else None
    return probe


async def wait_cell(client: LanguageClient, nb: Notebook, i: int, done) -> list[t.Diagnostic]:
    """The diagnostics of cell i once `done(diagnostics)` holds (pushed for the cell's current version)."""
    value = await eventually(_published(client, nb.uri_of(i), nb.cells[i][3]), lambda v: v is not None and done(v))
    assert value is not None and done(value), value
    return value


def standard(client: LanguageClient) -> Notebook:
    nb = Notebook(client, "train.ipynb", [("markdown", "# Training 😀\nprint(1)  # not code\n"),
                                          ("python", IMPORTS), ("python", NET), ("python", COMPILE)])
    nb.open()
    return nb


# ---------------------------------------------------------------------------------------------------------
async def test_squiggle_in_the_cell_at_its_own_line_and_column(client: LanguageClient):
    nb = standard(client)
    diags = await wait_cell(client, nb, 2, lambda d: len(d) == 1)
    d = diags[0]
    assert d.code == "FG101" and d.range.start.line == PRINT_LINE
    assert d.range.start.character == COLS[client.enc], (client.enc, d.range)
    root = [r for r in d.related_information if r.message.startswith("compiled here")][0]
    assert root.location.uri == nb.uri_of(3) and root.location.range.start.line == 0
    for i in (0, 1, 3):  # the markdown cell's print is not code; the others are clean
        assert await cell_diagnostics(client, nb.uri_of(i)) == []


async def test_hover_and_code_lens_in_cells(client: LanguageClient):
    nb = standard(client)
    d = (await wait_cell(client, nb, 2, lambda d: len(d) == 1))[0]
    h = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=nb.uri_of(2)), position=d.range.start))
    assert "FG101" in h.contents.value and "Reached from" in h.contents.value
    assert "at train.ipynb, cell 4, line 1)" in h.contents.value  # cells counted as the editor shows them
    assert h.range == d.range
    h = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=nb.uri_of(3)), position=t.Position(0, 12)))
    assert "1 graph break reachable" in h.contents.value
    assert h.range.start.line == 0
    lenses = {}
    for i in (1, 2, 3):
        got = await client.text_document_code_lens_async(t.CodeLensParams(
            text_document=t.TextDocumentIdentifier(uri=nb.uri_of(i))))
        lenses[i] = [(cl.range.start.line, cl.command.title) for cl in got or []]
    assert lenses == {1: [], 2: [], 3: [(0, "1 graph break reachable")]}


async def test_quick_fix_edits_the_cell_and_the_squiggle_goes(client: LanguageClient):
    nb = standard(client)
    d = (await wait_cell(client, nb, 2, lambda d: len(d) == 1))[0]
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=nb.uri_of(2)), range=d.range,
        context=t.CodeActionContext(diagnostics=[d])))
    titles = [a.title for a in actions]
    assert "fullgraph (FG101): Disable FG101 for this line" in titles, titles
    skip = next((a for a in actions if "ignore_logging_functions" in a.title), None)
    assert skip is not None, "\n".join(titles)
    uris = [c[0] for c in nb.cells]
    assert set(skip.edit.changes) <= set(uris)  # edits go to cells, never to the .ipynb file
    new_texts = {uri: apply_edits(nb.cells[uris.index(uri)][2], edits, client.enc)
                 for uri, edits in skip.edit.changes.items()}
    module = "".join(new_texts.get(c[0], c[2]) for c in nb.cells if c[1] == "python").replace("%matplotlib", "#")
    compile(module, "train.ipynb", "exec")  # the cells still parse as one module
    assert "torch._dynamo.config.ignore_logging_functions.add(print)" in module
    for uri, text in new_texts.items():
        nb.edit(uris.index(uri), text)
    if client.pull:  # VS Code pulls once after an edit: that answer must already be the edited cells'
        assert await cell_diagnostics(client, nb.uri_of(2)) == []
    await wait_cell(client, nb, 2, lambda d: d == [])
    # the suppression comment lands on the cell's line
    nb.edit(2, NET)
    d = (await wait_cell(client, nb, 2, lambda d: len(d) == 1))[0]
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=nb.uri_of(2)), range=d.range,
        context=t.CodeActionContext(diagnostics=[d])))
    sup = next(a for a in actions if a.title.endswith("Disable FG101 for this line"))
    fixed = apply_edits(NET, sup.edit.changes[nb.uri_of(2)], client.enc)
    assert fixed.splitlines()[PRINT_LINE].endswith("# fullgraph: ignore[FG101]")


async def test_findings_follow_their_cell_when_cells_change(client: LanguageClient):
    nb = standard(client)
    await wait_cell(client, nb, 2, lambda d: len(d) == 1)
    new_uri = nb.insert(2, "x = 1\n\n\n")  # three lines before the model's cell
    assert nb.uri_of(3) != new_uri
    diags = await wait_cell(client, nb, 3, lambda d: len(d) == 1 and d[0].range.start.line == PRINT_LINE)
    assert diags[0].code == "FG101"
    assert await cell_diagnostics(client, new_uri) == []
    # a break typed into the compiling cell shows there, the model's stays in its cell
    nb.edit(4, COMPILE + "torch._dynamo.graph_break()\n")
    await wait_cell(client, nb, 3, lambda d: len(d) == 1 and d[0].range.start.line == PRINT_LINE)
    # removing the compile call clears the model's cell
    nb.edit(4, "out = 1\n")
    await wait_cell(client, nb, 3, lambda d: d == [])


async def test_closing_the_notebook_clears_its_cells(client: LanguageClient):
    if client.pull:
        pytest.skip("pull clients drop diagnostics of closed documents themselves")
    nb = standard(client)
    await wait_cell(client, nb, 2, lambda d: len(d) == 1)
    nb.close()
    cleared = await eventually(lambda: _async(client.published.get(nb.uri_of(2))),
                               lambda v: v is not None and v[1] == [])
    assert cleared is not None and cleared[1] == []


async def _async(value):
    return value


async def test_a_notebook_without_code_cells_is_served(client: LanguageClient):
    nb = Notebook(client, "notes.ipynb", [("markdown", "# Only notes 😀\nprint(1)\n")])
    nb.open()
    # the server answers (and stays up) for a notebook with nothing to analyse
    h = await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=nb.uri_of(0)), position=t.Position(0, 0)))
    assert h is None
    assert await cell_diagnostics(client, nb.uri_of(0)) == []

"""The language server end to end: the real `fullgraph lsp` over stdio, driven by pytest-lsp with the
recorded client capabilities of VS Code, Neovim 0.7 and 0.11, and Emacs (plus a pull-diagnostics
client), on realistic code with emoji and CJK text before the findings."""
from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from harness import record_publications

ROOT = Path(__file__).resolve().parent.parent

MODEL = '''import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


def log_stats(t: torch.Tensor) -> None:
    label = "统计 😀"; print(label, t.mean())


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        log_stats(y)
        logger.info("block done")
        return y.relu()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        if x.sum() > 0:
            x = x * 2
        return self.block(x)


model = torch.compile(Net(), fullgraph=True)
'''
# 0-based line of the print, and its column per encoding: `    label = "统计 😀"; print(`
PRINT_LINE = 9
PREFIX = '    label = "统计 😀"; '
COLS = {"utf-32": len(PREFIX), "utf-16": len(PREFIX.encode("utf-16-le")) // 2, "utf-8": len(PREFIX.encode("utf-8"))}

CLIENTS = ["visual-studio-code", "neovim@v0.7.0", "neovim@v0.11.0", "emacs", "pull"]


def _caps(name: str) -> t.ClientCapabilities:
    if name == "pull":
        caps = client_capabilities("visual-studio-code")
        caps.text_document.diagnostic = t.DiagnosticClientCapabilities(dynamic_registration=False,
                                                                       related_document_support=True)
        return caps
    return client_capabilities(name)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "fullgraph", "lsp"],
                              server_env={**os.environ, "PYTHONUNBUFFERED": "1"}),
    params=CLIENTS,
)
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    ws = tmp_path_factory.mktemp("ws")

    record_publications(lsp_client)  # the recorded clients register file watchers dynamically

    result = await lsp_client.initialize_session(t.InitializeParams(
        capabilities=_caps(request.param),
        root_uri=ws.as_uri(),
        workspace_folders=[t.WorkspaceFolder(uri=ws.as_uri(), name="ws")],
        initialization_options={"settings": {"debounce": 0, "logLevel": "debug"}},
    ))
    enc = result.capabilities.position_encoding
    lsp_client.enc = getattr(enc, "value", enc) or "utf-16"
    lsp_client.kind = request.param
    caps = _caps(request.param)
    lsp_client.pull = caps.text_document is not None and caps.text_document.diagnostic is not None
    lsp_client.ws = ws
    yield
    await lsp_client.shutdown_session()


async def open_doc(client: LanguageClient, name: str, text: str, version: int = 1) -> str:
    path = client.ws / name
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


async def diagnostics(client: LanguageClient, uri: str) -> list[t.Diagnostic]:
    if client.pull:
        rep = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
            text_document=t.TextDocumentIdentifier(uri=uri)))
        return list(rep.items)
    for _ in range(200):
        if uri in client.diagnostics:
            return client.diagnostics[uri]
        await asyncio.wait_for(client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 30)
    raise AssertionError("no diagnostics")


async def eventually(probe, done, timeout: float = 60.0, step: float = 0.05):
    """Poll `probe()` until `done(value)` holds: as long as the event takes, with a generous ceiling for
    a loaded machine (the background index and re-analyses run beside other jobs); returns the last value."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await probe()
        if done(value) or loop.time() > deadline:
            return value
        await asyncio.sleep(step)


async def change(client: LanguageClient, uri: str, text: str, version: int) -> list[t.Diagnostic]:
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=text)]))
    if client.pull:
        return await diagnostics(client, uri)
    for _ in range(3000):
        if client.published.get(uri, (None,))[0] == version:
            return client.published[uri][1]
        await asyncio.sleep(0.01)
    raise AssertionError("no diagnostics for the new version")


def apply_edits(text: str, edits: list[t.TextEdit], enc: str) -> str:
    from fullgraph.positions import LineIndex

    idx = LineIndex(text)
    spans = []
    for e in edits:
        s = idx.offset(idx.from_client(e.range.start.line, e.range.start.character, enc), text)
        en = idx.offset(idx.from_client(e.range.end.line, e.range.end.character, enc), text)
        spans.append((s, en, e.new_text))
    for s, en, new in sorted(spans, reverse=True):
        text = text[:s] + new + text[en:]
    return text


def by_code(diags):
    return {d.code: d for d in diags}


# ---------------------------------------------------------------------------------------------------------
async def test_a_compile_call_it_cannot_follow_is_shown(client: LanguageClient):
    """`torch.compile(getattr(models, name)())`: nothing behind it is analysed, and the editor says so on the
    call (information), instead of showing a clean file."""
    uri = await open_doc(client, "dyn.py", "import torch\nimport models\n\nname = 'Net'\n"
                                           "m = torch.compile(getattr(models, name)())\n")
    diags = await diagnostics(client, uri)
    assert [(d.range.start.line, d.code, d.severity) for d in diags] == [
        (4, "FG003", t.DiagnosticSeverity.Information)]
    assert diags[0].message.startswith("fullgraph could not follow `torch.compile(getattr(models, name)())`")


async def test_a_call_from_compiled_code_it_cannot_follow_is_shown(client: LanguageClient):
    """A compiled function calls into a package that is not analysed: the editor says so at the call
    (information); a standard-library call beside it is Dynamo's own and gets nothing."""
    uri = await open_doc(client, "ext.py", "import math\n\nimport torch\nfrom not_installed import helper\n\n\n"
                                           "@torch.compile\ndef f(x):\n    return helper(x) * math.sqrt(2.0)\n")
    diags = await diagnostics(client, uri)
    assert [(d.range.start.line, d.range.start.character, d.code, d.severity) for d in diags] == [
        (8, 11, "FG003", t.DiagnosticSeverity.Information)]
    assert diags[0].message.startswith("fullgraph could not follow `not_installed.helper` from compiled code")


async def test_diagnostics_positions_and_metadata(client: LanguageClient):
    uri = await open_doc(client, "model.py", MODEL)
    diags = await diagnostics(client, uri)
    got = sorted((d.range.start.line, d.code) for d in diags)
    assert got == [(PRINT_LINE, "FG101"), (20, "FG102"), (30, "FG301")], got
    pr = by_code(diags)["FG101"]
    assert pr.range.start.character == COLS[client.enc], (client.enc, pr.range)
    assert pr.severity == t.DiagnosticSeverity.Error
    assert pr.source == "fullgraph"
    assert pr.code_description.href.endswith("gb0059.html")
    related = [r.message for r in pr.related_information]
    assert any("compiled here: torch.compile(Net(), fullgraph=True)" in m for m in related)
    assert any("calls `model.Block.forward`" in m for m in related) and any("calls `model.log_stats`" in m for m in related)
    root_info = [r for r in pr.related_information if r.message.startswith("compiled here")][0]
    assert root_info.location.range.start.line == 35
    # every range is inside the document
    lines = MODEL.splitlines()
    for d in diags:
        assert 0 <= d.range.start.line < len(lines) and d.range.end.line < len(lines)


async def test_hover_rule_path_and_torch_registry(client: LanguageClient):
    uri = await open_doc(client, "model.py", MODEL)
    diags = await diagnostics(client, uri)
    pr = by_code(diags)["FG101"]
    h = await client.text_document_hover_async(t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                                                             position=pr.range.start))
    md = h.contents.value
    assert "FG101" in md and "print-call" in md
    assert "Reached from `forward` → `forward` → `log_stats`" in md
    assert "Failed to trace builtin operator" in md  # the installed torch's graph_break_registry.json
    # its template filled with what the analysis knows, the rest dropped, as Dynamo would print it
    assert "Dynamo does not know how to trace builtin operator `print`" in md
    assert "{fn.__name__}" not in md and "{real_arg_types}" not in md and "has_kwargs" not in md
    assert "Why it breaks the graph" in md
    # hover on the compiled root
    h = await client.text_document_hover_async(t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                                                             position=t.Position(35, 12)))
    assert "3 graph breaks reachable" in h.contents.value


RECOMPILING = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.step = 0

    def forward(self, x):
        self.step += 1
        return self.lin(x)


def main():
    model = torch.compile(Model(), fullgraph=True)
    x = torch.randn(2, 4)
    for _ in range(10):
        model(x)
"""


async def test_recompilation_hazard_is_a_warning_with_dynamo_guard_in_hover(client: LanguageClient):
    uri = await open_doc(client, "stepper.py", RECOMPILING)
    diags = await diagnostics(client, uri)
    d = by_code(diags)["FG601"]
    assert d.severity == t.DiagnosticSeverity.Warning  # a slowdown, even under fullgraph=True
    assert d.range.start.line == 11
    h = await client.text_document_hover_async(t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                                                             position=d.range.start))
    md = h.contents.value
    assert "FG601" in md and "`self.step == 7`" in md and "Why it recompiles" in md
    assert "warning: a recompilation (slowdown)" in md

    async def lenses():
        got = await client.text_document_code_lens_async(t.CodeLensParams(text_document=t.TextDocumentIdentifier(uri=uri)))
        return [(cl.range.start.line, cl.command.title) for cl in got]

    compile_line = RECOMPILING.split("\n").index("    model = torch.compile(Model(), fullgraph=True)")
    assert await lenses() == [(compile_line, "fullgraph-clean, 1 recompilation hazard")]  # no graph break
    # the quick fix `counter-buffer` (what the editor e2e scenario tests/e2e/recompile.test.js applies): the
    # counter becomes a buffer updated in place, the file still parses, and the warning goes
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=d.range, context=t.CodeActionContext(diagnostics=[d])))
    buffer = [a for a in actions if "non-persistent buffer" in a.title]
    assert len(buffer) == 1, [a.title for a in actions]
    assert buffer[0].title.startswith("fullgraph (FG601): Make `self.step` a non-persistent buffer")
    fixed = apply_edits(RECOMPILING, buffer[0].edit.changes[uri], client.enc)
    assert 'self.register_buffer("step", torch.tensor(0), persistent=False)' in fixed
    compile(fixed, "stepper.py", "exec")
    assert "FG601" not in by_code(await change(client, uri, fixed, 2))
    assert await lenses() == [(compile_line, "fullgraph-clean")]


async def test_code_lens_on_root(client: LanguageClient):
    uri = await open_doc(client, "model.py", MODEL)
    await diagnostics(client, uri)
    lenses = await client.text_document_code_lens_async(t.CodeLensParams(text_document=t.TextDocumentIdentifier(uri=uri)))
    assert [(cl.range.start.line, cl.command.title) for cl in lenses] == [(35, "3 graph breaks reachable")]


async def test_disable_for_line_then_recheck(client: LanguageClient):
    uri = await open_doc(client, "model.py", MODEL)
    diags = await diagnostics(client, uri)
    d = by_code(diags)["FG102"]
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=d.range,
        context=t.CodeActionContext(diagnostics=[d])))
    titles = [a.title for a in actions]
    assert "fullgraph (FG102): Disable FG102 for this line" in titles
    assert all(ti.startswith("fullgraph (FG102): ") for ti in titles)
    act = [a for a in actions if a.title.endswith("Disable FG102 for this line")][0]
    new = apply_edits(MODEL, act.edit.changes[uri], client.enc)
    assert 'logger.info("block done")  # fullgraph: ignore[FG102]' in new
    diags2 = await change(client, uri, new, 2)
    assert sorted(d.code for d in diags2) == ["FG101", "FG301"]


async def test_every_quick_fix_applies_and_rechecks(client: LanguageClient):
    if client.kind not in ("visual-studio-code", "neovim@v0.11.0"):
        pytest.skip("one utf-16 and one utf-8 client are enough for the fix loop")
    uri = await open_doc(client, "model.py", MODEL)
    diags = await diagnostics(client, uri)
    version = 1
    for d in diags:
        actions = await client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), range=d.range, context=t.CodeActionContext(diagnostics=[d])))
        for a in actions or []:
            new = apply_edits(MODEL, a.edit.changes[uri], client.enc)
            compile(new, "model.py", "exec")  # every edit parses
            version += 1
            after = await change(client, uri, new, version)
            assert not any(x.code == d.code and x.range.start.line == d.range.start.line for x in after), a.title
    version += 1
    await change(client, uri, MODEL, version)


async def test_lightbulb_does_not_wait_for_the_whole_files_fixes(client: LanguageClient):
    """Ctrl+. right after the squiggles appear: the diagnostics the client holds have no fixes yet,
    and the file's fix phase has hundreds of findings to go.  The fixes of the diagnostic under the
    cursor are computed on request (the fix phase yields to it), not after the rest of the file's."""
    if client.kind != "visual-studio-code":
        pytest.skip("one client is enough")
    body = "".join(f"    print({i})\n    x = x + {i}\n" for i in range(300))
    text = f"import torch\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n{body}    return x\n"
    uri = await open_doc(client, "many.py", text)
    diags = await diagnostics(client, uri)
    assert len(diags) == 300 and not any(d.data.get("fixes") for d in diags)
    last = diags[-1]
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=last.range,
        context=t.CodeActionContext(diagnostics=[last])))
    titles = [a.title for a in actions]
    guard = next((a for a in actions if "is_compiling" in a.title), None)
    assert guard is not None, titles
    new = apply_edits(text, guard.edit.changes[uri], client.enc)
    assert "    if not torch.compiler.is_compiling():\n        print(299)\n" in new
    logs = [m.message for m in client.log_messages]
    on_request = [i for i, m in enumerate(logs) if "on request" in m]
    assert on_request, logs
    whole = [i for i, m in enumerate(logs) if m.startswith("fixes for many.py v1 in")]
    assert not whole or whole[0] > on_request[0], logs  # answered before the file's fix phase finished
    # the editor asks again (every cursor move): the same answer, not computed again
    again = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=last.range,
        context=t.CodeActionContext(diagnostics=[last])))
    assert [a.title for a in again] == titles
    assert len([m for m in client.log_messages if "on request" in m.message]) == 1


async def test_fix_all_applies_only_safe_fixes(client: LanguageClient):
    uri = await open_doc(client, "model.py", MODEL)
    await diagnostics(client, uri)
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=t.Range(t.Position(0, 0), t.Position(0, 0)),
        context=t.CodeActionContext(diagnostics=[], only=["source.fixAll.fullgraph"])))
    for a in actions or []:
        assert a.kind == "source.fixAll.fullgraph"
        new = apply_edits(MODEL, a.edit.changes[uri], client.enc)
        compile(new, "model.py", "exec")


async def test_config_change_takes_effect(client: LanguageClient):
    uri = await open_doc(client, "model.py", MODEL)
    await diagnostics(client, uri)
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(
        settings={"fullgraph": {"ignore": ["FG101"], "debounce": 0, "bogusSetting": 1}}))
    async def current():
        return await diagnostics(client, uri) if client.pull else client.diagnostics.get(uri, [])

    diags = await eventually(current, lambda ds: "FG101" not in {d.code for d in ds})
    assert sorted(d.code for d in diags) == ["FG102", "FG301"]
    assert any("unknown setting fullgraph.bogusSetting" in m.message for m in client.log_messages)


async def test_syntax_error_keeps_other_findings(client: LanguageClient):
    uri = await open_doc(client, "model.py", MODEL)
    await diagnostics(client, uri)
    broken = MODEL.replace("    def forward(self, x):\n        if x.sum() > 0:", "    def forward(self, x:\n        if x.sum() > 0:")
    diags = await change(client, uri, broken, 2)
    codes = sorted(d.code for d in diags)
    assert "FG001" in codes
    # the broken class is blanked; the others still report (Block is no longer reached from a root, so
    # what remains is what a root still reaches: nothing here) -- and the server answers
    assert all(0 <= d.range.start.line < len(broken.splitlines()) for d in diags)
    diags = await change(client, uri, MODEL, 3)
    assert sorted(d.code for d in diags) == ["FG101", "FG102", "FG301"]


async def test_syntax_error_in_one_function_keeps_findings_of_others(client: LanguageClient):
    src = ('import torch\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n    print(x)\n    return x\n\n\n'
           'def g(x:\n    return x\n\n\n@torch.compile\ndef h(x):\n    print(x)\n    return x\n')
    uri = await open_doc(client, "two.py", src)
    diags = await diagnostics(client, uri)
    assert sorted((d.range.start.line, d.code) for d in diags) == [(5, "FG101"), (9, "FG001"), (15, "FG101")]


async def test_cross_file_roots_and_close(client: LanguageClient):
    lib = "import torch\n\n\ndef helper(x):\n    print(x)\n    return x\n"
    main = "import torch\n\nfrom lib import helper\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n    return helper(x)\n"
    (client.ws / "main.py").write_text(main)
    lib_uri = await open_doc(client, "lib.py", lib)
    # the workspace index finds main.py's root in the background
    diags = await eventually(lambda: diagnostics(client, lib_uri), bool)
    assert [(d.range.start.line, d.code) for d in diags] == [(4, "FG101")], [m.message for m in client.log_messages]
    assert any("compiled here: @torch.compile(fullgraph=True)" in r.message for r in diags[0].related_information)
    if not client.pull:
        client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=lib_uri)))
        async def published():
            return client.diagnostics.get(lib_uri)

        await eventually(published, lambda ds: not ds)
        assert not client.diagnostics[lib_uri]


async def test_huge_and_binary_documents(client: LanguageClient):
    uri = await open_doc(client, "bin.py", "x = 1\x00\n")
    diags = await diagnostics(client, uri)
    assert [d.code for d in diags] == ["FG002"]
    assert "NUL" in diags[0].message


async def test_runtime_record_merge_and_staleness(client: LanguageClient):
    import hashlib
    import json

    if client.kind not in ("visual-studio-code", "neovim@v0.11.0"):
        pytest.skip("one push and one pull client are enough")
    src = ("import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    y = x.numpy()\n    return x + 1\n")
    uri = await open_doc(client, "rt.py", src)
    diags = await diagnostics(client, uri)
    assert [(d.range.start.line, d.code) for d in diags] == [(5, "FG101")]
    path = client.ws / "rt.py"
    sha = hashlib.sha1(path.read_bytes()).hexdigest()

    def brk(line, gb_type, code):
        return {"path": str(path), "line": line, "column": 5, "end_line": line, "end_column": 13, "gb_type": gb_type,
                "gb_code": code, "exc_class": "Unsupported", "explanation": "Dynamo says no.", "hints": ["a hint"],
                "stack": [{"path": str(path), "line": line, "function": "f"}],
                "root": {"path": str(path), "line": 4, "function": "f", "fullgraph": False}, "count": 1}

    rec = {"version": 1, "source": "live", "torch_version": "2.13.0+cpu", "command": ["python", "rt.py"],
           "exit_code": 0, "started": "2026-11-29T18:00:00Z", "finished": "2026-11-29T18:00:05Z",
           "files": {str(path): sha},
           "breaks": [brk(6, "Failed to trace builtin operator", "GB0059"), brk(7, "Some runtime-only break", "GB0156")]}
    (client.ws / ".fullgraph").mkdir()
    rec_path = client.ws / ".fullgraph" / "breaks.json"
    rec_path.write_text(json.dumps(rec))
    client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(changes=[
        t.FileEvent(uri=rec_path.as_uri(), type=t.FileChangeType.Created)]))
    diags = await eventually(lambda: diagnostics(client, uri), lambda ds: len(ds) == 2)
    got = sorted((d.range.start.line, d.message) for d in diags)
    assert len(got) == 2, got
    assert got[0][0] == 5 and got[0][1].endswith("(confirmed at runtime)")  # static + runtime: one diagnostic
    assert got[1][0] == 6 and got[1][1].endswith("(observed at runtime)")
    # the file changes: the record no longer matches it, runtime entries go away
    edited = src.replace("    return x + 1\n", "    return x + 2\n")
    diags = await change(client, uri, edited, 2)
    assert [(d.range.start.line, d.code) for d in diags] == [(5, "FG101")]
    assert not diags[0].message.endswith("(confirmed at runtime)")


async def test_runtime_recompiles_confirm_hazards_or_are_observed(client: LanguageClient):
    """Issue 28: the recompiles of a real `fullgraph trace` run (record version 2) show in the editor. A static
    recompilation hazard (FG6xx) at a recompile's line (the line that reads the guarded value, or the call of the
    compiled function) is confirmed, one diagnostic saying "observed at runtime: Dynamo recompiled ..."; a
    recompile no static finding stands for (FG602 suppressed here) is a warning of its own at its line; an edit
    drops them (the record no longer matches the file)."""
    import subprocess

    if client.kind not in ("visual-studio-code", "neovim@v0.11.0"):
        pytest.skip("one push and one pull client are enough")
    src = (Path(__file__).parent / "trace_fixtures" / "recompiles" / "train.py").read_text()
    src = src.replace("compiled(torch.ones(3), lr)", "compiled(torch.ones(3), lr)  # fullgraph: ignore[FG602]")
    lines = src.split("\n")
    counter = lines.index("        self.calls += 1")  # 0-based
    step = lines.index("    return x * lr")
    uri = await open_doc(client, "train.py", src)
    diags = await eventually(lambda: diagnostics(client, uri), lambda ds: bool(ds))
    assert [(d.range.start.line, d.code) for d in diags] == [(counter, "FG601")]
    static_message = diags[0].message

    env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
    run = subprocess.run([sys.executable, "-m", "fullgraph", "trace", "--", sys.executable, "train.py"],
                         cwd=client.ws, env=env, capture_output=True, text=True, timeout=300)
    rec_path = client.ws / ".fullgraph" / "breaks.json"
    assert rec_path.is_file(), run.stdout + run.stderr
    client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(changes=[
        t.FileEvent(uri=rec_path.as_uri(), type=t.FileChangeType.Created)]))
    diags = await eventually(lambda: diagnostics(client, uri), lambda ds: len(ds) == 2)
    got = sorted((d.range.start.line, d.code, d.severity, d.message) for d in diags)
    assert [g[:3] for g in got] == [(step, "Recompile", t.DiagnosticSeverity.Warning),
                                    (counter, "FG601", t.DiagnosticSeverity.Warning)], got
    assert got[0][3] == "observed at runtime: Dynamo recompiled `step` 1 time (guard `lr == 0.1` failed)"
    assert got[1][3] == (static_message + " — observed at runtime: Dynamo recompiled `forward` 3 times "
                         "(guard `self.calls == 0` ... `self.calls == 2` failed; hit recompile_limit (3))")
    assert sorted(d.data["origin"] for d in diags) == ["confirmed", "runtime"]

    async def hover(d):
        h = await client.text_document_hover_async(t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                                                                 position=d.range.start))
        return h.contents.value

    confirmed = by_code(diags)["FG601"]
    md = await hover(confirmed)
    assert "**Observed at runtime** (`fullgraph trace`): Dynamo recompiled `forward` 3 times." in md
    assert "Guards that failed: `self.calls == 0`, `self.calls == 1`, `self.calls == 2`; hit `recompile_limit` (3)" in md
    assert "integer attributes of the nn.Module to be static" in md  # Dynamo's hint
    assert "warning: a recompilation (slowdown)" in md and "Why it recompiles" in md
    md = await hover(by_code(diags)["Recompile"])
    assert "static analysis did not find it" in md and "Guard that failed: `lr == 0.1`" in md
    # the fix of the static finding is still offered
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=confirmed.range,
        context=t.CodeActionContext(diagnostics=[confirmed])))
    assert any("non-persistent buffer" in a.title for a in actions), [a.title for a in actions]

    # the file changes: the record no longer matches it, the runtime parts go
    diags = await change(client, uri, src.replace("return x * lr", "return x * lr * 1"), 2)
    assert [(d.range.start.line, d.code, d.message) for d in diags] == [(counter, "FG601", static_message)]


async def test_project_findings_update_after_editing_a_callee(client: LanguageClient):
    """Roots in scripts/train.py, breaks in the package: open files show them; an edit in a callee
    file updates every open file."""
    import shutil

    if client.kind not in ("visual-studio-code", "neovim@v0.11.0"):
        pytest.skip("one push and one pull client are enough")
    shop = Path(__file__).resolve().parent / "projects" / "shop"
    for item in shop.iterdir():
        dst = client.ws / item.name
        if item.is_dir():
            shutil.copytree(item, dst)
        else:
            shutil.copy(item, dst)
    logs = client.ws / "src" / "shopnet" / "utils" / "logs.py"
    heads = client.ws / "src" / "shopnet" / "models" / "heads.py"
    logs_uri, heads_uri = logs.as_uri(), heads.as_uri()
    for p in (logs, heads):
        client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
            uri=p.as_uri(), language_id="python", version=1, text=p.read_text())))
    async def both():  # the background index finds the root in scripts/train.py
        return await diagnostics(client, logs_uri), await diagnostics(client, heads_uri)

    d1, d2 = await eventually(both, lambda ds: bool(ds[0] and ds[1]))
    assert [(d.range.start.line, d.code) for d in d1] == [(10, "FG101")]
    assert [(d.range.start.line, d.code) for d in d2] == [(11, "FG301")]
    assert any("train.py" in r.location.uri for r in d1[0].related_information)
    # guard the print in the callee file: its diagnostic goes
    text = logs.read_text().replace('    print("trace", x.shape)  # expect: FG101',
                                    '    if not compiling():\n        print("trace", x.shape)')
    assert not await change(client, logs_uri, text, 2)
    # break the root's reach in net.py (not open, edited on disk): the other open file updates too
    net = client.ws / "src" / "shopnet" / "models" / "net.py"
    net.write_text(net.read_text().replace("        return self.head(x)", "        return x"))
    client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(changes=[
        t.FileEvent(uri=net.as_uri(), type=t.FileChangeType.Changed)]))
    assert not await eventually(lambda: diagnostics(client, heads_uri), lambda ds: not ds)


FLAGGED = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x, verbose=False):
        print("always")
        if verbose:
            print("only with verbose=True")
        return x


model = torch.compile(Net())
'''


async def test_conditional_findings_are_information_with_their_condition(client: LanguageClient):
    uri = await open_doc(client, "flagged.py", FLAGGED)
    diags = sorted(await diagnostics(client, uri), key=lambda d: d.range.start.line)
    assert [(d.range.start.line, d.severity) for d in diags] == [
        (6, t.DiagnosticSeverity.Warning), (8, t.DiagnosticSeverity.Information)]
    assert diags[1].message.endswith("(only when `verbose=True`)")
    h = await client.text_document_hover_async(t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                                                             position=diags[1].range.start))
    assert "conditional: a graph break only when `verbose=True`" in h.contents.value
    lenses = await client.text_document_code_lens_async(t.CodeLensParams(text_document=t.TextDocumentIdentifier(uri=uri)))
    assert [cl.command.title for cl in lenses] == ["1 graph break reachable, 1 more when `verbose=True`"]


async def test_conditional_library_breaks_are_one_hint_confirmed_by_a_run(client: LanguageClient):
    """Issue 27: a followed library's breaks on paths fullgraph cannot decide are one hint on the compile call
    (no squiggle), its hover lists them by condition; in a trusted workspace "Confirm with Dynamo" (quick fix
    and code lens) is offered, and the record of the run it starts (`fullgraph trace -- python train.py`)
    turns the site Dynamo broke at into an error observed at runtime."""
    import subprocess

    from test_conditional import COMPILE_LINE, PRINT_LINE, SITE, WARNING_LINE, make_project

    if client.kind not in ("visual-studio-code", "neovim@v0.11.0"):
        pytest.skip("one push and one pull client are enough")
    make_project(client.ws, fullgraph=True)
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(
        settings={"fullgraph": {"debounce": 0, "logLevel": "debug"}}))  # reads pyproject.toml again
    path = client.ws / "train.py"
    uri = await open_doc(client, "train.py", path.read_text())
    line = COMPILE_LINE - 1
    diags = await eventually(lambda: diagnostics(client, uri), lambda ds: bool(ds))
    assert [(d.range.start.line, d.code, d.severity, d.message) for d in diags] == [
        (line, "FG004", t.DiagnosticSeverity.Hint, "2 possible graph breaks inside fglib on paths this call may take")]
    related = sorted((r.location.range.start.line + 1, r.message) for r in diags[0].related_information)
    assert [(n, m.split(":")[0]) for n, m in related] == [(COMPILE_LINE, "compiled here"), (PRINT_LINE, "FG101"),
                                                          (WARNING_LINE, "FG102")]
    assert related[2][1].endswith('(only when `not (hasattr(self, "_loss_function"))`)')

    h = await client.text_document_hover_async(t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                                                             position=diags[0].range.start))
    md = h.contents.value
    assert '**when `not (hasattr(self, "_loss_function"))`**: 1 site' in md
    assert "**when `verbose=True`**: 1 site" in md
    assert f"- `FG102` `logger.warning()` (a logging.Logger method) breaks the graph — [fglib.model:{WARNING_LINE}]" in md

    async def actions():  # (title, command, arguments) of the actions that run a command
        got = await client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), range=diags[0].range,
            context=t.CodeActionContext(diagnostics=diags))) or []
        out = []
        for a in got:  # pygls' client reads a CodeAction without an edit back as a Command (of str(command))
            cmd = a.command if isinstance(a, t.CodeAction) else a
            if isinstance(cmd, t.Command) and isinstance(cmd.command, str) and cmd.command.startswith("{"):
                import ast

                cmd = ast.literal_eval(cmd.command)
            if isinstance(cmd, t.Command):
                out.append((a.title, cmd.command, cmd.arguments))
            elif isinstance(cmd, dict):
                out.append((a.title, cmd["command"], cmd.get("arguments")))
            elif isinstance(cmd, str):
                out.append((a.title, cmd, a.arguments))
        return out

    async def lenses():
        got = await client.text_document_code_lens_async(t.CodeLensParams(text_document=t.TextDocumentIdentifier(uri=uri)))
        return [(cl.range.start.line, cl.command.title, cl.command.command) for cl in got]

    # an untrusted workspace (the client never said it trusts it): nothing that runs code is offered
    assert await actions() == []
    title = "fullgraph-clean, 2 more on conditional paths (e.g. when `not (hasattr(self, \"_loss_function\"))`)"
    assert await lenses() == [(line, title, "fullgraph.codeLens")]
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(
        settings={"fullgraph": {"trusted": True}}))
    confirm = await eventually(lambda: lenses(), lambda ls: len(ls) == 2)
    assert confirm == [(line, title, "fullgraph.codeLens"), (line, "Confirm with Dynamo", "fullgraph.confirmWithDynamo")]
    diags = await eventually(lambda: diagnostics(client, uri), lambda ds: bool(ds))
    assert await actions() == [
        ("fullgraph: Confirm with Dynamo (run this file under runtime capture)", "fullgraph.confirmWithDynamo",
         [uri, line])]

    # what the client's command runs: the file under runtime capture, the record in .fullgraph/breaks.json,
    # which the server reads as soon as it is written (no file watcher event needed)
    await client.workspace_execute_command_async(t.ExecuteCommandParams(command="fullgraph.awaitRuntimeRecord"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(client.ws / SITE), os.environ.get("PYTHONPATH", "")])}
    env.pop("TORCH_LOGS", None)
    run = subprocess.run([sys.executable, "-m", "fullgraph", "trace", "--", sys.executable, str(path)],
                         cwd=client.ws, env=env, capture_output=True, text=True, timeout=300)
    rec_path = client.ws / ".fullgraph" / "breaks.json"
    assert rec_path.is_file(), run.stdout + run.stderr
    diags = await eventually(lambda: diagnostics(client, uri), lambda ds: len(ds) == 2)
    got = sorted((d.severity, d.code, d.range.start.line, d.message) for d in diags)
    assert [g[:3] for g in got] == [(t.DiagnosticSeverity.Error, "FG102", line), (t.DiagnosticSeverity.Hint, "FG004", line)]
    assert got[0][3].startswith(f"graph break inside fglib (fglib.model:{WARNING_LINE}: `logger.warning()`")
    assert got[0][3].endswith("observed at runtime")
    assert got[1][3] == ("1 possible graph break inside fglib on paths this call may take "
                         f"(not reached by `{os.path.basename(sys.executable)} train.py`)")
    assert await lenses() == [(line, "1 graph break reachable, 1 more when `verbose=True`", "fullgraph.codeLens"),
                              (line, "Confirm with Dynamo", "fullgraph.confirmWithDynamo")]

    # fullgraph.conditional = off: the undecided one goes, the observed one stays
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(
        settings={"fullgraph": {"conditional": "off"}}))
    diags = await eventually(lambda: diagnostics(client, uri), lambda ds: len(ds) == 1)
    assert [(d.severity, d.code) for d in diags] == [(t.DiagnosticSeverity.Error, "FG102")]

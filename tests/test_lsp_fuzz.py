"""Fuzz the language server with thousands of random edits (seeded, reproducible).

Each edit is an incremental didChange (insertions of partial code, emoji and CJK text, deletions,
pastes of whole lines) on realistic files.  After every edit the server must answer, every range it
publishes must lie inside the document, and — whenever the text parses — its diagnostics must equal
a fresh CLI-engine run on the same text.
"""
from __future__ import annotations

import ast
import asyncio
import os
import random
import sys

import pytest_lsp
from harness import EXAMPLES, record_publications
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from fullgraph.api import Workspace
from fullgraph.config import Config
from fullgraph.positions import LineIndex, col_to_units

EDITS = int(os.environ.get("FULLGRAPH_FUZZ_EDITS", "2000"))
SNIPPETS = ["if x", "print(", ")", "\n", "    ", "def ", ":", "(", "x.sum() > 0", "😀", "中文", '"', "'''",
            "torch.", "import time\n", "time.time()", "logger.info('x')", "\n    return x\n", "#", "\\", "@torch.compile\n",
            "class C:\n", "    print(x)\n", "]", "{", "lambda: ", "await ", "yield x"]
FILES = [EXAMPLES / "nanogpt" / "layers.py", EXAMPLES / "training_step.py"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "fullgraph", "lsp"],
                                              server_env={**os.environ}))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    ws = tmp_path_factory.mktemp("fuzz")

    record_publications(lsp_client)
    await lsp_client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=ws.as_uri(),
        workspace_folders=[t.WorkspaceFolder(uri=ws.as_uri(), name="fuzz")],
        initialization_options={"settings": {"debounce": 0}}))
    lsp_client.ws = ws
    yield
    await lsp_client.shutdown_session()


def _random_edit(rng: random.Random, text: str, paste_lines: list[str]) -> tuple[int, int, str]:
    n = len(text)
    kind = rng.random()
    if kind < 0.45:
        pos = rng.randint(0, n)
        return pos, pos, rng.choice(SNIPPETS)
    if kind < 0.8 and n:
        a = rng.randint(0, n - 1)
        return a, min(n, a + rng.randint(1, 40)), ""
    pos = text.rfind("\n", 0, rng.randint(0, n)) + 1 if n else 0
    return pos, pos, rng.choice(paste_lines) + "\n"


def _to_lsp(text: str, offset: int) -> t.Position:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    col = offset - start
    cur = text[start:text.find("\n", start) if text.find("\n", start) != -1 else len(text)]
    return t.Position(line, col_to_units(cur, col, "utf-16"))


def _expected(tmp, name: str, text: str) -> list[tuple]:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    res = Workspace(Config(project_root=str(tmp))).check([p])
    idx = LineIndex(text)
    return sorted((f.code, *idx.to_client(f.span.start, "utf-16")) for f in res.findings)


async def test_random_edits(client: LanguageClient, tmp_path):
    rng = random.Random(20261129)
    uri_texts = {}
    for i, src in enumerate(FILES):
        text = src.read_text(encoding="utf-8")
        path = client.ws / f"fuzz{i}.py"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        client.text_document_did_open(t.DidOpenTextDocumentParams(
            text_document=t.TextDocumentItem(uri=uri, language_id="python", version=0, text=text)))
        uri_texts[uri] = [text, 0, path.name]
    paste = [line for src in FILES for line in src.read_text().splitlines() if line.strip()]
    checked_parsing = 0
    last: dict[str, list[tuple[int, int, str]]] = {}
    for step in range(EDITS):
        uri = rng.choice(list(uri_texts))
        text, version, name = uri_texts[uri]
        history = last.setdefault(uri, [])
        if history and rng.random() < 0.6:
            a, b, new = history.pop()  # the user undoes an edit: the text often parses again
        else:
            a, b, new = _random_edit(rng, text, paste)
            if len(text) > 20000:  # keep documents realistic in size
                a, b, new = 0, len(text), FILES[0].read_text()
            history.append((a, a + len(new), text[a:b]))
        rng_ = t.Range(_to_lsp(text, a), _to_lsp(text, b))
        text = text[:a] + new + text[b:]
        version += 1
        uri_texts[uri] = [text, version, name]
        client.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[t.TextDocumentContentChangePartial(range=rng_, text=new)]))
        deadline = asyncio.get_running_loop().time() + 60
        while client.published.get(uri, (None,))[0] != version:
            assert asyncio.get_running_loop().time() < deadline, f"step {step}: no diagnostics for version {version}"
            await asyncio.sleep(0.002)
        published = client.published[uri][1]
        lines = text.split("\n")
        for d in published:
            for p in (d.range.start, d.range.end):
                assert 0 <= p.line < max(len(lines), 1), (step, d)
                assert 0 <= p.character <= len(lines[p.line].encode("utf-16-le")) // 2, (step, d)
        try:
            for other_text, _, _ in uri_texts.values():
                ast.parse(other_text)
        except SyntaxError:
            continue  # recovery mode (editor) and the CLI differ by design on files that do not parse
        got = sorted((d.code, d.range.start.line, d.range.start.character) for d in published)
        # other open files may contribute roots: compare against the same set of files
        for other_uri, (other_text, _, other_name) in uri_texts.items():
            if other_uri != uri:
                (tmp_path / other_name).write_text(other_text, encoding="utf-8")
        assert got == _expected(tmp_path, name, text), f"step {step}"
        checked_parsing += 1
    assert checked_parsing >= EDITS // 100  # the comparison really ran on parsing texts

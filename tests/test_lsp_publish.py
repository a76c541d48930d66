"""publishDiagnostics as the server writes it (lsp/protocol.py): the message pygls would write for the same
diagnostics, framed with its length in bytes, whatever the diagnostics hold (text that is not ASCII, related
locations, data) and whether they are the kept ones of the last publication or new."""
from __future__ import annotations

import json

from lsprotocol import types as t

from fullgraph.lsp.session import FullgraphServer


class _Writer:
    def __init__(self):
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data


def _messages(raw: bytes) -> list[dict]:
    out = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
        out.append(json.loads(rest[:length]))
        raw = rest[length:]
    return out


def _diagnostic(line: int, message: str) -> t.Diagnostic:
    return t.Diagnostic(
        range=t.Range(t.Position(line, 2), t.Position(line, 9)), message=message, severity=t.DiagnosticSeverity.Error,
        code="FG101", source="fullgraph", code_description=t.CodeDescription(href="https://example.org/gb"),
        related_information=[t.DiagnosticRelatedInformation(
            location=t.Location("file:///w/m%C3%BCdel.py", t.Range(t.Position(0, 0), t.Position(0, 5))),
            message="compiled here: torch.compile(model) — 编译")],
        data={"code": "FG101", "fixes": [], "origin": "static"}, tags=[t.DiagnosticTag.Unnecessary])


def _written(publish) -> list[dict]:
    ls = FullgraphServer()
    ls.protocol._include_headers = True
    ls.protocol.writer = w = _Writer()
    publish(ls)
    return _messages(w.data)


def test_the_server_writes_the_message_pygls_would_write():
    a, b = _diagnostic(3, "`print()` breaks the graph 😀"), _diagnostic(7, "ünïcode")
    uri = "file:///w/m%C3%BCdel.py"
    steps = [([a, b], 4), ([a, b], 5), ([b], 6), ([a, _diagnostic(9, "new")], None), ([], 7), ([], None)]

    def theirs(ls):
        for diags, version in steps:
            ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version))

    def ours(ls):
        for diags, version in steps:
            ls.protocol.publish_diagnostics(uri, diags, version)

    want, got = _written(theirs), _written(ours)
    assert len(got) == len(steps)
    assert got == want
    assert got[1]["params"]["diagnostics"][0]["message"] == "`print()` breaks the graph 😀"


def test_a_new_diagnostic_in_the_place_of_a_kept_one_is_written_anew():
    # (the kept text belongs to the diagnostic object, not to its place or its key)
    uri = "file:///w/a.py"

    def ours(ls):
        d = _diagnostic(1, "first")
        ls.protocol.publish_diagnostics(uri, [d], 1)
        ls.protocol.publish_diagnostics(uri, [_diagnostic(1, "second")], 2)

    got = _written(ours)
    assert [m["params"]["diagnostics"][0]["message"] for m in got] == ["first", "second"]

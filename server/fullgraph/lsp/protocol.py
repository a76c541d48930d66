"""The server's pygls protocol: LanguageServerProtocol, less a leak of handled notifications' futures, and with
diagnostics published from the JSON text of each, kept between publications."""
from __future__ import annotations

import asyncio
import inspect
import json

from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol


class FullgraphProtocol(LanguageServerProtocol):
    """pygls 2.1 files the future of every notification it handles asynchronously (its own
    didOpen/didChange/didClose handlers, our async ones) in `_request_futures` under a fresh id
    and never removes it: one future (~1 KB) per keystroke, kept for the life of the server.  And it
    publishes diagnostics from each one's JSON text, kept between publications (publish_diagnostics)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # uri -> {id(diagnostic): (diagnostic, its JSON text)} of its last publication (publish_diagnostics)
        self._published: dict[str, dict[int, tuple]] = {}

    def _check_handler_result(self, future):
        try:
            super()._check_handler_result(future)
        finally:
            # later, not now: pygls may be iterating the table (shutdown cancels what is pending)
            try:
                asyncio.get_running_loop().call_soon(self._forget, future)
            except RuntimeError:
                self._forget(future)

    def _forget(self, future) -> None:
        for msg_id in [k for k, f in self._request_futures.items() if f is future]:
            del self._request_futures[msg_id]

    # ---- publishing diagnostics -------------------------------------------------------------------
    def publish_diagnostics(self, uri: str, diagnostics: list, version: int | None = None) -> None:
        """textDocument/publishDiagnostics, its body put together from each diagnostic's JSON text: a keystroke
        publishes the diagnostics of the whole file again, most of them the same objects as last time (the
        session keeps them: convert.diagnostic_key), and pygls would turn each into JSON values (cattrs, in
        Python) and the whole message into text again (205 diagnostics of a 7,000-line file: 3.6 ms).  Each
        diagnostic's text is kept for as long as the document's last publication holds it."""
        last = self._published.get(uri, {})
        now: dict[int, tuple] = {}
        unstructure = self._converter.unstructure
        for d in diagnostics:
            got = last.get(id(d))
            if got is None or got[0] is not d:
                got = (d, json.dumps(unstructure(d)))
            now[id(d)] = got
        if diagnostics:
            self._published[uri] = now
        else:
            self._published.pop(uri, None)
        items = ",".join(now[id(d)][1] for d in diagnostics)
        version_part = "" if version is None else f', "version": {json.dumps(version)}'
        self._send_json('{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": '
                        f'{{"uri": {json.dumps(uri)}, "diagnostics": [{items}]{version_part}}}}}')

    def _send_json(self, body: str) -> None:
        """JsonRPCProtocol._send_data for a message already in JSON (ASCII: json.dumps escapes the rest, so its
        length in characters is its length in bytes, as pygls counts it)."""
        if self.writer is None:
            return
        try:
            if self._include_headers:
                body = (f"Content-Length: {len(body)}\r\n"
                        f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n") + body
            res = self.writer.write(body.encode(self.CHARSET))
            if inspect.isawaitable(res):
                asyncio.ensure_future(res)
        except BrokenPipeError:
            raise
        except Exception as error:
            self._server._report_server_error(error, JsonRpcInternalError)

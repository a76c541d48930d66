"""The server's pygls protocol: LanguageServerProtocol, less a leak of handled notifications' futures."""
from __future__ import annotations

import asyncio

from pygls.protocol import LanguageServerProtocol


class FullgraphProtocol(LanguageServerProtocol):
    """pygls 2.1 files the future of every notification it handles asynchronously (its own
    didOpen/didChange/didClose handlers, our async ones) in `_request_futures` under a fresh id
    and never removes it: one future (~1 KB) per keystroke, kept for the life of the server."""

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
        """textDocument/publishDiagnostics, the message made of plain JSON values: a keystroke publishes the
        diagnostics of the whole file again, most of them the same objects as last time (the session keeps
        them: convert.diagnostic_key), and pygls would turn each into JSON values again (cattrs, in Python:
        a tenth of a 7,000-line file's keystroke).  Each diagnostic's JSON values are kept for as long as
        the document's last publication holds it."""
        last = self._published.get(uri, {})
        now: dict[int, tuple] = {}
        items = []
        unstructure = self._converter.unstructure
        for d in diagnostics:
            got = last.get(id(d))
            if got is None or got[0] is not d:
                got = (d, unstructure(d))
            now[id(d)] = got
            items.append(got[1])
        if diagnostics:
            self._published[uri] = now
        else:
            self._published.pop(uri, None)
        params: dict = {"uri": uri, "diagnostics": items}
        if version is not None:
            params["version"] = version
        self._send_data({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})

    @property
    def _published(self) -> dict[str, dict[int, tuple]]:
        # uri -> {id(diagnostic): (diagnostic, its JSON values)} of its last publication
        got = self.__dict__.get("_fg_published")
        if got is None:
            got = self.__dict__["_fg_published"] = {}
        return got

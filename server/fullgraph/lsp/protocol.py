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

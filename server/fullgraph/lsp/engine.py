"""The language server's engine thread: all analysis runs on one thread (the engine is not
thread-safe), in priority order, so the event loop never blocks and a keystroke never waits behind
background work.

Priorities (lower first): the edited document's analysis and user requests, then refreshing other
open documents, then fix offers (newest document first), then indexing the workspace.  Long jobs
(fixes, indexing) are cut into pieces and ask `urgent_waiting()` between pieces, so that anything
more urgent that arrived meanwhile runs next.
"""
from __future__ import annotations

import asyncio
import itertools
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

# priority levels; a priority is (level, order within the level)
NOW = 0  # the edited document, hover, code lens, configuration
REFRESH = 1  # other open documents after an edit
FIXES = 2  # fix offers (order: -phase number, so the newest document's fixes come first)
BACKGROUND = 3  # workspace indexing


class Engine:
    def __init__(self, name: str = "fullgraph-engine"):
        self._q: queue.PriorityQueue = queue.PriorityQueue()
        self._seq = itertools.count()
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def submit(self, priority: tuple[int, int], fn: Callable[..., Any], *args) -> asyncio.Future:
        """Run fn(*args) on the engine thread; cancelling the returned future drops a job not yet started."""
        cf: Future = Future()
        self._q.put((priority, next(self._seq), cf, fn, args))
        return asyncio.wrap_future(cf)

    def urgent_waiting(self, priority: tuple[int, int]) -> bool:
        """Is a job more urgent than `priority` waiting?  (Called by long jobs between pieces.)"""
        with self._q.mutex:
            return any(item[0] < priority and not item[2].cancelled() for item in self._q.queue)

    def shutdown(self) -> None:
        self._q.put(((-1, 0), next(self._seq), None, None, ()))

    def _work(self) -> None:
        while True:
            priority, _, cf, fn, args = self._q.get()
            if cf is None:
                return
            if not cf.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args)
            except BaseException as e:  # delivered to the awaiting coroutine
                cf.set_exception(e)
            else:
                cf.set_result(result)

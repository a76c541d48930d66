"""The language server's engine thread: all analysis runs on one thread (the engine is not
thread-safe), in priority order, so the event loop never blocks and a keystroke never waits behind
background work.

Memory: the server holds the summaries of every indexed module (hundreds of thousands of objects),
so each of Python's automatic full collections costs a few hundred milliseconds, and analysing a
file used to trigger one every couple of keystrokes.  The engine therefore runs the collector
itself, never in the middle of a job: a full collection when the engine has been idle for a moment,
or at least every FULL_GC_EVERY seconds while busy; the young generations only when jobs have left
more than YOUNG_BUSY objects since the last collection (a keystroke's analysis makes no reference
cycles: what it leaves is freed when the next replaces it, and collecting young objects after every
job cost a keystroke a tenth of its time), right after the job that left them, except after an edited
document's analysis (NOW), whose young collection waits for the first pause of YOUNG_GRACE seconds: the
collection holds the interpreter, and right after that job the event loop is publishing its diagnostics (an
Enter in a 7,000-line file left enough objects for one, which then took ~30 ms of the keystroke's latency;
deferring every job's, the fix phases' cycles stayed longer and the server's RSS was ~25 MiB higher); and
what indexing loaded is frozen out of later full collections (`settle`).  What an analysis replaces (the last
generation's memo and walk tables: engine/garbage.py) is freed by a job of its own once the edited document's
diagnostics are out (`free_garbage`, in pieces that stop when a keystroke comes), or at a pause: freeing it
inside the analysis was ~5% of a keystroke at 7,000 lines, ~20% of an Enter.

Priorities (lower first): the edited document's analysis and user requests, then refreshing other
open documents, then fix offers (newest document first), then indexing the workspace.  Long work is
cut into pieces (indexing: a few files per job; fixes: a job stops between findings when
`urgent_waiting()`), so that anything more urgent that arrived meanwhile runs next.
"""
from __future__ import annotations

import asyncio
import gc
import heapq
import itertools
import queue
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable

from ..engine import garbage

# priority levels; a priority is (level, order within the level)
NOW = 0  # the edited document, hover, code lens, configuration
REFRESH = 1  # other open documents after an edit
FIXES = 2  # fix offers (order: -phase number, so the newest document's fixes come first)
BACKGROUND = 3  # workspace indexing
RELEASE = (REFRESH, 1)  # freeing what the last analyses replaced: after refreshing other documents, before fixes

FULL_GC_IDLE = 1.0  # seconds without work before a full collection
FULL_GC_EVERY = 30.0  # seconds between full collections while busy
YOUNG_BUSY = 50_000  # objects allocated (less those freed) since the last collection: past it, one is due
YOUNG_GRACE = 0.05  # seconds without work before a due young collection (the last job's results go out first)


class Engine:
    def __init__(self, name: str = "fullgraph-engine"):
        self._q: queue.PriorityQueue = queue.PriorityQueue()
        self._seq = itertools.count()
        self._manage_gc = False
        self._dirty = False  # jobs ran since the last full collection
        self._last_full = time.monotonic()
        self._young_due = False  # jobs left more than YOUNG_BUSY objects: collect the young generations at a pause
        self.idle_collected = threading.Event()  # set by each full collection made while idle (tests wait for it)
        self.young_collected = threading.Event()  # set by each young collection (tests wait for it)
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def manage_gc(self) -> None:
        """Take over the process's garbage collector (the server process only)."""
        self._manage_gc = True
        gc.disable()
        garbage.defer(True)

    def settle(self) -> None:
        """Engine job after (re)indexing: collect, then exempt everything alive (mostly module
        summaries, which hold no reference cycles and are freed by reference counting when
        replaced) from later full collections, which then only scan what changed since."""
        if self._manage_gc:
            gc.unfreeze()
            gc.collect()
            gc.freeze()

    def submit(self, priority: tuple[int, int], fn: Callable[..., Any], *args) -> asyncio.Future:
        """Run fn(*args) on the engine thread; cancelling the returned future drops a job not yet started."""
        cf: Future = Future()
        with self._q.mutex:
            if len(self._q.queue) >= 32:
                # cancelled jobs leave the queue only when popped, and a cancelled low-priority job
                # (with the findings it was given) may not be popped for as long as work keeps coming
                live = [item for item in self._q.queue if not item[2].cancelled()]
                if len(live) < len(self._q.queue):
                    heapq.heapify(live)
                    self._q.queue[:] = live
        self._q.put((priority, next(self._seq), cf, fn, args))
        return asyncio.wrap_future(cf)

    def free_garbage(self) -> asyncio.Future | None:
        """Free what the last jobs replaced (engine/garbage.py), as a job of its own that stops between pieces
        when a more urgent one is waiting (the rest is freed by the next such job, or at a pause).  The session
        asks once an edited document's diagnostics are out.  (Called on the event loop.)"""
        if garbage.pending():
            return self.submit(RELEASE, garbage.release, lambda: self.urgent_waiting(RELEASE))
        return None

    def urgent_waiting(self, priority: tuple[int, int]) -> bool:
        """Is a job more urgent than `priority` waiting?  (Called by long jobs between pieces.)"""
        with self._q.mutex:
            return any(item[0] < priority and not item[2].cancelled() for item in self._q.queue)

    def _work(self) -> None:
        while True:
            try:
                wait = YOUNG_GRACE if self._young_due else FULL_GC_IDLE if self._dirty else None
                item = self._q.get(timeout=wait)
            except queue.Empty:
                if self._young_due:  # a pause: the last job's results are out
                    self._collect_young()
                    continue
                self._collect_full()  # idle: nobody waits for this
                self.idle_collected.set()
                continue
            priority, _, cf, fn, args = item
            if not cf.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args)
            except BaseException as e:  # delivered to the awaiting coroutine
                cf.set_exception(e)
            else:
                cf.set_result(result)
            finally:
                del item, cf, fn, args
            self._dirty = True
            if time.monotonic() - self._last_full > FULL_GC_EVERY:
                self._collect_full()
            elif self._manage_gc and gc.get_count()[0] > YOUNG_BUSY:
                if priority[0] == NOW or priority == RELEASE:
                    # the event loop is publishing the results (or freeing what they replaced was: the count is
                    # the analysis's, and the next keystroke may be on its way): at the first pause
                    self._young_due = True
                else:
                    self._collect_young()

    def _collect_full(self) -> None:
        if not self._manage_gc:
            return
        garbage.release()
        gc.collect()
        self._dirty = self._young_due = False
        self._last_full = time.monotonic()

    def _collect_young(self) -> None:
        garbage.release(lambda: not self._q.empty())
        gc.collect(1)  # what the jobs allocated: their cycles go now, survivors age
        self._young_due = False
        self.young_collected.set()

"""The language server's engine thread: priority order, yielding, cancellation, and its collector."""
from __future__ import annotations

import asyncio
import gc
import threading

from fullgraph.engine import garbage
from fullgraph.lsp.engine import BACKGROUND, FIXES, NOW, RELEASE, YOUNG_BUSY, Engine


def _hold(eng: Engine, gate: threading.Event):
    """Submit a job that keeps the engine busy until `gate` is set; returns once it runs."""
    started = threading.Event()

    def hold():
        started.set()
        gate.wait(5)

    job = eng.submit((BACKGROUND, 0), hold)
    assert started.wait(5)
    return job


def test_jobs_run_in_priority_order_and_long_jobs_yield():
    async def main():
        eng = Engine()
        gate = threading.Event()
        order = []
        # hold the engine so that everything below queues up behind this job
        first = _hold(eng, gate)
        jobs = [
            eng.submit((BACKGROUND, 0), order.append, "index"),
            eng.submit((FIXES, -1), order.append, "fixes of an older document"),
            eng.submit((FIXES, -2), order.append, "fixes of the newest document"),
            eng.submit((NOW, 0), order.append, "keystroke"),
        ]
        dropped = eng.submit((NOW, 0), order.append, "cancelled keystroke")
        dropped.cancel()
        await asyncio.sleep(0)  # the cancellation reaches the engine's future on the next loop turn
        assert eng.urgent_waiting((FIXES, -2)) and not eng.urgent_waiting((NOW, 0))
        gate.set()
        await first
        await asyncio.gather(*jobs)
        return order

    assert asyncio.run(main()) == ["keystroke", "fixes of the newest document", "fixes of an older document", "index"]


def test_errors_reach_the_caller_and_the_engine_goes_on():
    async def main():
        eng = Engine()
        try:
            await eng.submit((NOW, 0), lambda: 1 / 0)
        except ZeroDivisionError:
            pass
        else:
            raise AssertionError("no error")
        return await eng.submit((NOW, 0), lambda: 42)

    assert asyncio.run(main()) == 42


class _Node:
    pass


def _make_cycles(pairs: int) -> None:
    for _ in range(pairs):
        a, b = _Node(), _Node()
        a.other, b.other = b, a


def _nodes() -> int:
    # type(), not isinstance(): a dead weakref.proxy left by another test raises on isinstance()
    return sum(type(o) is _Node for o in gc.get_objects())


def test_the_engine_collects_cycles_a_job_left_at_the_first_pause_not_before_the_next_job():
    async def main():
        eng = Engine()
        eng.manage_gc()
        try:
            assert not gc.isenabled()
            gate = threading.Event()
            busy = _hold(eng, gate)
            # more objects than YOUNG_BUSY (a node and its __dict__ each): a young collection is due after
            # the job, but not while work is waiting (the event loop is publishing the last job's results):
            # the job queued behind it finds the cycles still there
            made = eng.submit((NOW, 0), _make_cycles, YOUNG_BUSY)
            counted = eng.submit((NOW, 1), _nodes)
            eng.young_collected.clear()
            gate.set()
            await asyncio.gather(busy, made)
            left = await counted
            # the first pause collects them
            await asyncio.to_thread(eng.young_collected.wait, 60)
            return left, _nodes()
        finally:
            garbage.defer(False)
            gc.enable()

    left, after = asyncio.run(main())
    assert left >= YOUNG_BUSY  # (2 per pair)
    assert after < YOUNG_BUSY // 10


def _nodes_seen_by(last: tuple[int, int], *jobs) -> int:
    """Queue `jobs` ((priority, fn, *args)) behind a held engine that manages the collector, then a job at priority
    `last` counting the cycles' nodes: what the engine's collections left them when it ran."""
    async def main():
        eng = Engine()
        eng.manage_gc()
        try:
            gate = threading.Event()
            busy = _hold(eng, gate)
            queued = [eng.submit(priority, fn, *args) for priority, fn, *args in jobs]
            counted = eng.submit(last, _nodes)
            gate.set()
            await asyncio.gather(busy, *queued)
            return await counted
        finally:
            garbage.defer(False)
            gc.enable()

    return asyncio.run(main())


def test_freeing_what_an_analysis_replaced_leaves_its_young_collection_to_the_pause():
    # a keystroke's analysis (a collection due), the session's job freeing what it replaced once its diagnostics
    # are out, then the next job (the next keystroke may be on its way): the cycles are still there
    assert _nodes_seen_by((FIXES, 0), ((NOW, 0), _make_cycles, YOUNG_BUSY), (RELEASE, garbage.release)) >= YOUNG_BUSY


def test_cycles_another_job_left_are_collected_right_after_it():
    # a fix phase's job (nobody waits for its publication): collected before the next job runs
    assert _nodes_seen_by((FIXES, 1), ((FIXES, 0), _make_cycles, YOUNG_BUSY)) < YOUNG_BUSY // 10


def test_the_engine_collects_a_few_cycles_once_it_is_idle():
    async def main():
        eng = Engine()
        eng.manage_gc()
        try:
            await eng.submit((NOW, 0), _make_cycles, 1000)  # (a keystroke's jobs leave no collection behind them)
            eng.idle_collected.clear()
            await eng.submit((NOW, 0), lambda: None)
            await asyncio.to_thread(eng.idle_collected.wait, 60)
            return _nodes()
        finally:
            garbage.defer(False)
            gc.enable()

    assert asyncio.run(main()) < 100


def test_what_an_analysis_replaced_is_freed_by_a_job_after_it_and_a_keystroke_goes_first():
    import weakref

    class Payload:
        pass

    async def main():
        eng = Engine()
        eng.manage_gc()
        try:
            held = [Payload() for _ in range(4 * garbage.CHUNK)]
            refs = [weakref.ref(p) for p in held]
            garbage.later({i: p for i, p in enumerate(held)})  # (as the engine hands over the last memo)
            del held
            gate = threading.Event()
            busy = _hold(eng, gate)
            freeing = eng.free_garbage()
            keystroke = eng.submit((NOW, 0), lambda: sum(r() is not None for r in refs))
            gate.set()
            await busy
            alive_at_keystroke = await keystroke  # (queued after the release job, run before it)
            await freeing
            return alive_at_keystroke, sum(r() is not None for r in refs), eng.free_garbage()
        finally:
            garbage.defer(False)
            gc.enable()

    alive_at_keystroke, alive_after, again = asyncio.run(main())
    assert alive_at_keystroke == 4 * garbage.CHUNK
    assert alive_after == 0
    assert again is None  # nothing left to free: no job


def test_a_release_job_stops_between_pieces_when_a_keystroke_is_waiting():
    async def main():
        eng = Engine()
        eng.manage_gc()
        try:
            garbage.later({i: [i] for i in range(8 * garbage.CHUNK)})
            gate = threading.Event()
            busy = _hold(eng, gate)
            # the release job's own check: a job more urgent than it waiting (here from the start)
            freeing = eng.submit(RELEASE, garbage.release, lambda: True)
            gate.set()
            await busy
            stopped = await freeing
            return stopped, garbage.pending(), await eng.free_garbage()
        finally:
            garbage.defer(False)
            gc.enable()

    finished_first, left, finished_then = asyncio.run(main())
    assert finished_first is False and left
    assert finished_then is True


def test_cancelled_jobs_do_not_keep_their_arguments_alive_while_the_engine_is_busy():
    import weakref

    class Payload:
        pass

    async def main():
        eng = Engine()
        gate = threading.Event()
        busy = _hold(eng, gate)
        payload = Payload()
        ref = weakref.ref(payload)
        stale = eng.submit((FIXES, 0), lambda p: None, payload)  # an old document's fixes
        del payload
        stale.cancel()
        await asyncio.sleep(0)  # the cancellation reaches the engine's future on the next loop turn
        # newer work keeps arriving ahead of it; the cancelled job must not wait in the queue
        newer = [eng.submit((FIXES, -k), lambda: None) for k in range(1, 40)]
        alive = ref() is not None
        gate.set()
        await busy
        await asyncio.gather(*newer)
        return alive

    assert asyncio.run(main()) is False


def test_settle_freezes_what_indexing_loaded_out_of_later_full_collections():
    async def main():
        eng = Engine()
        eng.manage_gc()
        try:
            kept = [[i] for i in range(10000)]  # what indexing loaded
            await eng.submit((NOW, 0), eng.settle)
            return gc.get_freeze_count(), kept
        finally:
            garbage.defer(False)
            gc.unfreeze()
            gc.enable()

    frozen, kept = asyncio.run(main())
    assert frozen >= len(kept)


def test_handled_notifications_do_not_stay_in_pygls_request_table():
    """pygls 2.1 keeps the future of every asynchronously handled notification (didOpen, didChange,
    didClose are generator handlers in pygls) under a fresh id forever; the server's protocol
    removes it when the handler is done, or each keystroke would leak one."""
    import uuid
    from concurrent.futures import Future

    from fullgraph.lsp.server import server

    proto = server.protocol
    futures = []
    for _ in range(3):
        fut: Future = Future()
        proto._request_futures[str(uuid.uuid4())] = fut
        fut.add_done_callback(proto._check_handler_result)
        futures.append(fut)
    pending = Future()
    proto._request_futures["still-running"] = pending
    for fut in futures:
        fut.set_result(None)  # no event loop here: removed at once (with one, on its next turn)
    try:
        assert not any(f in proto._request_futures.values() for f in futures)
        assert proto._request_futures["still-running"] is pending
    finally:
        proto._request_futures.pop("still-running", None)

"""engine/garbage.py: what an analysis replaces, held until the language server's engine frees it."""
from __future__ import annotations

import weakref

import pytest

from fullgraph.engine import garbage


class Payload:
    pass


@pytest.fixture
def deferring():
    garbage.defer(True)
    yield
    garbage.defer(False)


def test_without_deferring_nothing_is_held():
    p = Payload()
    ref = weakref.ref(p)
    garbage.later({"p": p})
    del p
    assert ref() is None
    assert not garbage.pending()


def test_what_is_handed_over_lives_until_released(deferring):
    p = Payload()
    ref = weakref.ref(p)
    garbage.later({"p": p}, [], None)  # (empty and None are not held)
    del p
    assert ref() is not None and garbage.pending()
    assert garbage.release() is True
    assert ref() is None and not garbage.pending()


def test_a_dict_still_used_elsewhere_is_dropped_not_emptied(deferring):
    shared = {i: [i] for i in range(3 * garbage.CHUNK)}
    outer = {"shared": shared, "own": {i: i for i in range(3 * garbage.CHUNK)}}
    garbage.later(outer, shared)
    del outer
    assert garbage.release() is True
    assert shared == {i: [i] for i in range(3 * garbage.CHUNK)}


def test_release_stops_between_pieces_and_the_next_one_finishes(deferring):
    held = [Payload() for _ in range(5 * garbage.CHUNK)]
    refs = [weakref.ref(p) for p in held]
    garbage.later({i: p for i, p in enumerate(held)})
    del held
    asked = []

    def stop() -> bool:
        asked.append(1)
        return True

    assert garbage.release(stop) is False
    alive = sum(r() is not None for r in refs)
    assert asked and 0 < alive < 5 * garbage.CHUNK  # a piece freed, the rest held
    assert garbage.release() is True
    assert sum(r() is not None for r in refs) == 0


def test_a_large_table_inside_what_is_freed_is_freed_in_pieces_too(deferring):
    held = [Payload() for _ in range(5 * garbage.CHUNK)]
    refs = [weakref.ref(p) for p in held]
    garbage.later({"lookup": {i: p for i, p in enumerate(held)}, "mro": {}})  # (a memo: tables by name)
    del held
    calls = []
    while not garbage.release(lambda: calls.append(1) or len(calls) % 2 == 0):
        assert sum(r() is not None for r in refs) > 0
    assert len(calls) >= 5  # (the inner table's pieces: one check each)
    assert sum(r() is not None for r in refs) == 0


def test_past_the_limit_the_oldest_are_freed_at_once(deferring):
    first = Payload()
    ref = weakref.ref(first)
    garbage.later([first])
    del first
    for _ in range(garbage.LIMIT):
        garbage.later([Payload()])
    assert ref() is None
    assert garbage.pending()

"""The table of what Dynamo skips (fullgraph.tracetable) is Dynamo's word: every shipped row is
confirmed by compiling a call of it under the installed torch."""
from __future__ import annotations

import importlib

import pytest

from fullgraph import tracetable
from fullgraph.torchinfo import TorchVersion


def _resolve(q: str):
    parts = q.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name, None)
            if obj is None:
                return None
        return obj
    return None


def test_every_row_of_the_shipped_table_breaks_under_dynamo():
    torch = pytest.importorskip("torch")
    pytest.importorskip("numpy")
    v = TorchVersion.parse(torch.__version__)
    table = tracetable.load(v)
    assert table["torch"].startswith(f"{v.major}.{v.minor}")
    rows = [(q, tracetable.SKIPPED_MARK) for q in table["skipped"]] + \
        [(q, tracetable.NUMPY_MARK) for q in table["numpy_unsupported"]]
    assert len(rows) > 300
    checked, wrong = 0, []
    for q, mark in rows:
        obj = _resolve(q)
        if obj is None:
            continue  # not in this Python / NumPy
        checked += 1
        if not tracetable.dynamo_breaks_on_call(obj, mark):
            wrong.append(q)
    assert checked > 300 and wrong == []


def test_rows_apply_from_their_torch_version_on():
    assert "heapq.heappush" in tracetable.skipped(TorchVersion.parse("2.13"))
    assert "heapq.heappush" in tracetable.skipped(TorchVersion.parse("2.14"))  # the nearest older table
    assert tracetable.skipped(TorchVersion.parse("2.5")) == frozenset()  # no table: nothing is claimed
    # what Dynamo handles itself is not listed, though its trace rules alone would skip it
    assert "random.randint" not in tracetable.skipped(TorchVersion.parse("2.13"))

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
    assert len(table["breaks"]) > 500
    checked, wrong = 0, []
    for q, gb in table["breaks"].items():
        obj = _resolve(q)
        if obj is None:
            continue  # not in this Python / NumPy
        checked += 1
        got = tracetable.dynamo_break_on_call(obj)
        if got != gb:
            wrong.append((q, gb, got))
    assert checked > 500 and wrong == []


def test_rows_apply_from_their_torch_version_on():
    assert "heapq.heappush" in tracetable.breaks(TorchVersion.parse("2.13"))
    assert "heapq.heappush" in tracetable.breaks(TorchVersion.parse("2.14"))  # the nearest older table
    assert tracetable.breaks(TorchVersion.parse("2.5")) == {}  # no table: nothing is claimed
    # what Dynamo handles itself is not listed, though its trace rules alone would skip it
    assert "random.randint" not in tracetable.breaks(TorchVersion.parse("2.13"))


PROBES = """\
import bisect
import datetime
import heapq

import torch

LSTM = torch.nn.LSTM(4, 4)


def f_heap(x):
    h = []
    heapq.heappush(h, 2)  # expect: FG207
    return x * len(h)


def f_rng(x):
    s = torch.get_rng_state()  # expect: FG207
    return x + 1


def f_cudnn(x):
    with torch.backends.cudnn.flags(enabled=False):  # expect: FG207
        x = x * 2
    return x


def f_when(x):
    t = datetime.datetime.now()  # expect: FG107
    return x + bisect.bisect_left([1, 3], 2)  # expect: FG207


def main():
    x = torch.randn(2, 4)
    return [torch.compile(f)(x) for f in (f_heap, f_rng, f_cudnn, f_when)]
"""


def test_the_table_finds_what_dynamo_breaks_on_in_a_module(tmp_path):
    from harness import check_code, dynamo_lines, expected, found

    code = PROBES + "\n\nROOTS = [torch.compile(f_heap), torch.compile(f_rng), torch.compile(f_cudnn), " \
                    "torch.compile(f_when)]\n"
    assert found(check_code(code, tmp_path, name="probes")) == expected(PROBES)
    assert dynamo_lines(tmp_path, "probes") == {line for line, _ in expected(PROBES)}


def test_every_gb_template_reads_without_placeholders():
    """Hover quotes the registry's explanation and hints with `{placeholders}` filled or dropped."""
    from fullgraph.torchinfo import _PLACEHOLDER, load_gb_registry

    reg = load_gb_registry()
    if not reg:
        pytest.skip("no torch installed next to fullgraph")
    left = [(code, text) for code, e in reg.items() for text in (lambda x: [x[0], *x[1]])(e.filled({}))
            if _PLACEHOLDER.search(text)]
    assert left == []
    expl, _ = reg["GB0059"].filled({"fn.__name__": "print"})
    assert expl == "Dynamo does not know how to trace builtin operator `print`"

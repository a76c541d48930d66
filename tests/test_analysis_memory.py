"""The workers analyse a whole tree with the cyclic garbage collector off (it would rescan every summary
they hold): a module's analysis must leave no reference cycle, or each cycle keeps that module's syntax tree
alive until the process ends (a recursive closure in engine/recompiles.py kept every tree of the torch
package: 920 MB per worker instead of 310 MB).  The language server's engine collects young objects only
past lsp/engine.YOUNG_BUSY or when idle: a keystroke's re-analysis and re-walk must leave no cycle either."""
from __future__ import annotations

import ast
import contextlib
import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fullgraph.api import Workspace
from fullgraph.config import Config
from fullgraph.engine.module import analyze
from fullgraph.rules import registry

# what each walk of engine/recompiles.py reads: a compiled function, a class with an int attribute, a
# module-level loop rebinding a global, a helper returning a tensor of a drawn size, nested functions,
# try/except and with blocks
SOURCE = '''
import torch

SCALE = 2
for step in range(3):
    SCALE = step


def sizes(n):
    parts = []
    for i in range(n):
        parts.append(torch.randn(i + 1, 8))
    return torch.cat(parts)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0

    def forward(self, x):
        self.count += 1
        try:
            with torch.no_grad():
                y = x * SCALE
        except RuntimeError:
            y = x

        def inner(z):
            def deeper(w):
                return w + 1
            return deeper(z)
        return inner(y)


model = torch.compile(Net())
for n in range(4):
    model(sizes(n))
'''


def _ours(o) -> bool:
    """A syntax tree's node, or an object or function of fullgraph's (what a cycle of the analysis holds)."""
    if isinstance(o, ast.AST):
        return True
    module = getattr(o, "__module__", None) if callable(o) else type(o).__module__
    return isinstance(module, str) and module.startswith("fullgraph")


# a module without roots, as a bulk load analyses it (engine/deferred.py: its bodies when first read)
LIBRARY = """
import torch

def helper(x, key=lambda v: v):
    import math
    if x.sum() > 0:
        return sorted([x], key=lambda t: t.sum())
    return math.pi

class Layer(torch.nn.Module):
    def forward(self, x):
        from torch.nn import functional as F
        return F.relu(x)
"""


@contextlib.contextmanager
def _cycles_left() -> Iterator[list]:
    """The objects of fullgraph's that what runs in the block leaves in reference cycles (filled at its end), the
    collector off meanwhile."""
    found: list = []
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collection finds unreachable stays in gc.garbage to look at
    try:
        yield found
        gc.collect()
        # (other threads of the process, torch's after a Dynamo test, may leave garbage of their own meanwhile)
        found.extend(o for o in gc.garbage if _ours(o))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("source, defer", [(SOURCE, False), (LIBRARY, True)], ids=["full", "deferred"])
def test_analysing_a_module_leaves_no_reference_cycle(source, defer):
    with _cycles_left() as left:
        summary = analyze("/proj/mod.py", source, "mod", False, rules=registry.RULESET, defer=defer)
        # (the walks did run)
        assert (summary.roots and summary.recompiles) if not defer else \
            (summary.body_deferred() and "mod.helper.<lambda:7:31>" in summary.function_names()
             and "math" in summary.imports)
    assert left == []


def test_a_keystroke_in_the_editor_leaves_no_reference_cycle(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        from lsp_latency import model_file  # the editor benchmark's model: blocks reached from a compiled root
    finally:
        sys.path.pop(0)
    text = model_file(300)
    path = str(tmp_path / "model.py")
    ws = Workspace(Config(project_root=str(tmp_path)), use_cache=False)
    ws.set_text(path, text)
    assert any(f.code == "FG301" for f in ws.findings_for([path], fixes=False))  # (the walk reaches the blocks)
    lines = text.splitlines(keepends=True)
    with _cycles_left() as left:
        for i, typed in ((40, " "), (90, "\n"), (150, "  # note")):  # typing, a new line, a comment
            lines[i] = lines[i].rstrip("\n") + typed + "\n"
            ws.set_text(path, "".join(lines))
            ws.findings_for([path], fixes=False)
            ws.unfollowed([path])
    assert left == []

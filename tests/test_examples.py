"""The realistic examples (README's main command runs on them): the analyzer and Dynamo agree.

Every `# expect: FGnnn` marker in examples/ is a line where Dynamo really breaks when the example
runs, and every line where Dynamo breaks carries a marker; guarded code, code reached only from
eager code, and patterns torch 2.13 compiles stay silent.
"""
from __future__ import annotations

import importlib
import os
import sys

import pytest
from harness import EXAMPLES, dynamo_breaks_of_run, expected

from fullgraph.api import Workspace
from fullgraph.config import Config

FILES = sorted(p for p in EXAMPLES.rglob("*.py"))


def _expected_all() -> set[tuple[str, int, str]]:
    out = set()
    for p in FILES:
        for line, code in expected(p.read_text()):
            out.add((os.path.realpath(p), line, code))
    return out


def test_static_findings_match_markers():
    res = Workspace(Config(project_root=str(EXAMPLES))).check([EXAMPLES])
    got = {(os.path.realpath(f.path), f.span.start.line + 1, f.code) for f in res.findings}
    assert got == _expected_all()
    assert res.files_checked == len(FILES)
    # every finding names its root and the call path from it
    for f in res.findings:
        assert f.root is not None and f.call_path and f.call_path[0].qualname == f.root.qualname


def test_cross_module_call_path():
    res = Workspace(Config(project_root=str(EXAMPLES))).check([EXAMPLES / "nanogpt"])
    by_code = {f.code: f for f in res.findings}
    pr = by_code["FG101"]
    assert [s.qualname for s in pr.call_path] == [
        "nanogpt.model.GPT.forward", "nanogpt.layers.Block.forward",
        "nanogpt.layers.CausalSelfAttention.forward", "nanogpt.utils.log_shape"]
    assert pr.root.location.path.endswith("train.py") and pr.root.fullgraph
    assert pr.severity == "error"


ENTRIES = [("guide", "main"), ("training_step", "train"), ("nanogpt.train", "main")]


@pytest.fixture()
def examples_on_path():
    sys.path.insert(0, str(EXAMPLES))
    yield
    sys.path.remove(str(EXAMPLES))
    for name in list(sys.modules):
        if name in ("guide", "training_step") or name.startswith("nanogpt"):
            del sys.modules[name]


def test_dynamo_agrees_on_examples(examples_on_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("tqdm")
    seen: set[tuple[str, int]] = set()
    for mod, fn in ENTRIES:
        # import inside the run: decorators call torch.compile at import time
        seen |= dynamo_breaks_of_run(lambda: getattr(importlib.import_module(mod), fn)())
    seen = {(p, line) for p, line in seen if p.startswith(os.path.realpath(EXAMPLES))}
    # FG6xx markers are recompiles, not breaks (tests/test_rules_recompile.py counts them)
    want = {(p, line) for p, line, code in _expected_all() if not code.startswith("FG6")}
    assert seen == want

"""Imports as Python resolves them: a folder without `__init__.py` is a namespace package (`from
trainer.main import train` works when the script's folder is on sys.path), so fullgraph follows the call
into it -- and Dynamo agrees on what breaks there."""
from __future__ import annotations

import os

from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.config import Config

TRAIN = '''\
import torch


def train(x):
    print("step", x.shape)
    return x * 2
'''

RUN = '''\
import torch
from trainer.main import train
from trainer.nested.util import scale


def main():
    step = torch.compile(train)
    step(torch.randn(2))
    torch.compile(scale)(torch.randn(2))
'''

UTIL = '''\
def scale(x):
    if x.sum() > 0:
        return x * 2
    return x
'''


def test_a_namespace_package_is_followed_and_dynamo_agrees(tmp_path):
    (tmp_path / "trainer" / "nested").mkdir(parents=True)
    (tmp_path / "trainer" / "main.py").write_text(TRAIN)
    (tmp_path / "trainer" / "nested" / "util.py").write_text(UTIL)
    (tmp_path / "run.py").write_text(RUN)
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path])
    assert res.unresolved_roots == []
    got = {(os.path.realpath(f.path), f.span.start.line + 1, f.code) for f in res.findings}
    train, util = os.path.realpath(tmp_path / "trainer" / "main.py"), os.path.realpath(tmp_path / "trainer" / "nested" / "util.py")
    assert got == {(train, 5, "FG101"), (util, 2, "FG301")}
    seen = dynamo_breaks_of_main(tmp_path, "run")
    assert {(p, line) for p, line in seen if p in (train, util)} == {(p, line) for p, line, _ in got}


def test_a_package_inside_a_namespace_folder(tmp_path):
    """`outer/` (no `__init__.py`) holding the regular package `pkg/`: `from outer.pkg.mod import train` from
    the project root."""
    (tmp_path / "outer" / "pkg").mkdir(parents=True)
    (tmp_path / "outer" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "outer" / "pkg" / "mod.py").write_text(TRAIN)
    (tmp_path / "run.py").write_text("import torch\nfrom outer.pkg.mod import train\n\ntorch.compile(train)(torch.randn(2))\n")
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path])
    assert [(os.path.basename(f.path), f.span.start.line + 1) for f in res.findings] == [("mod.py", 5)]
    assert res.unresolved_roots == []

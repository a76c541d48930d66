"""The shape of a tensor the user's script makes decides tests inside a followed library (issue 27,
engine/tests_run.py): `input_ids = torch.randint(3, 100, (2, 32))` ... `compiled(input_ids=input_ids)` and
BigBird's `input_shape = input_ids.size()`, `batch_size, seq_length = input_shape`, `if seq_length <=
max_tokens_to_attend:` with `max_tokens_to_attend` computed from the config's fields.  Dynamo specialises the sizes
into ints in the first compile, so the test is a constant of the run: a branch the shape does not take is not on
the path (no finding), one it takes is a break shown, not a conditional one.  A shape the script does not show
(a tensor made by a function, two calls with different shapes) keeps the test a condition.  Each script's main()
runs under Dynamo, which must break exactly where fullgraph says."""
from __future__ import annotations

import pytest
from test_decided_conditions import _library_breaks, _library_findings, _library_project

MODEL = '''import torch
import torch.nn as nn


class Config:
    def __init__(self, block_size=4, num_blocks=3):
        self.block_size = block_size
        self.num_blocks = num_blocks


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config

    def forward(self, input_ids=None, inputs_embeds=None):
        if input_ids is not None:
            input_shape = input_ids.size()
        elif inputs_embeds is not None:
            input_shape = inputs_embeds.size()[:-1]
        else:
            raise ValueError("no input")
        batch_size, seq_length = input_shape
        limit = (5 + 2 * self.config.num_blocks) * self.config.block_size
        if seq_length <= limit:
            print("short")
        return self.pad(input_ids, inputs_embeds)

    def pad(self, input_ids, inputs_embeds):
        shape = input_ids.shape if input_ids is not None else inputs_embeds.shape
        padding = (self.config.block_size - shape[1] % self.config.block_size) % self.config.block_size
        if padding > 0:
            print("padding")
        if input_ids.size(0) in [1, 3] or input_ids.dim() > 2:
            print("odd batch")
        if not len(input_ids) == 2:
            print("not two")
        return input_ids.float().sum()
'''
SHORT, PADDING, ODD, NOT_TWO = 26, 33, 35, 37  # (1-based lines of the prints in fglib/model.py)
SCRIPT = '''import torch

from fglib.model import Config, Model


def main():
    model = Model(Config(block_size=2, num_blocks=2))
    compiled = torch.compile(model, backend="eager")
    input_ids = {make}
    return compiled(input_ids=input_ids)
'''


@pytest.mark.parametrize("make, lines", [
    ("torch.randint(3, 100, (2, 32))", []),
    ("torch.randint(3, 100, (2, 8))", [SHORT]),
    ("torch.ones(2, 33, dtype=torch.long)", [PADDING]),
    ("torch.zeros((3, 32), dtype=torch.long)", [ODD, NOT_TWO]),
    ("torch.randn(size=(1, 7))", [SHORT, PADDING, ODD, NOT_TWO]),
], ids=["long-even", "short", "odd-length", "batch-of-three", "short-odd-single"])
def test_a_visible_shape_decides_the_library_tests(tmp_path, make, lines):
    root = _library_project(tmp_path, {"model.py": MODEL}, SCRIPT.format(make=make))
    got = _library_findings(root)
    assert [(f[1], f[3]) for f in got if f[0] == "model.py"] == [(line, False) for line in lines]
    assert _library_breaks(root) == {("model.py", line) for line in lines}


UNSEEN = '''import torch

from fglib.model import Config, Model


def make(n):
    return torch.randint(3, 100, (2, n))


def main():
    compiled = torch.compile(Model(Config(block_size=2, num_blocks=2)), backend="eager")
    {calls}
'''


@pytest.mark.parametrize("calls", [
    "return compiled(input_ids=make(8))",
    "compiled(input_ids=torch.randint(3, 100, (2, 8)))\n    return compiled(input_ids=torch.randint(3, 100, (2, 32)))",
], ids=["made-by-a-function", "two-shapes"])
def test_a_shape_the_script_does_not_show_stays_a_condition(tmp_path, calls):
    root = _library_project(tmp_path, {"model.py": MODEL}, UNSEEN.format(calls=calls))
    got = [(f[1], f[3]) for f in _library_findings(root) if f[0] == "model.py"]
    assert (SHORT, True) in got  # conditional: the shape is not known
    assert ("model.py", SHORT) in _library_breaks(root)

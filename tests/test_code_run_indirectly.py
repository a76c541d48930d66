"""Code compiled code runs without a call of it written there: a @property of the class read through `self`
(`x * self.norm` runs the getter; one of a base class is not followed yet), a module or method handed to
`torch.utils.checkpoint.checkpoint` (Dynamo traces it as part of the caller), and the sum of tensors a generator makes
(`sum(v.sum() for v in feats.values())` is a tensor: a test of it is data-dependent).  Each was silent ("No graph
breaks found") while Dynamo broke there.  Each program's main() runs under Dynamo, which must break exactly where
fullgraph says."""
from __future__ import annotations

import pytest
from harness import check_code, dynamo_lines, expected

PROPERTY = '''\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    @property
    def scale(self):
        print("reading the scale")  # expect: FG101
        return 2

    @property
    def norm(self):
        return self.w.norm().item()  # expect: FG303

    def forward(self, x):
        return x * self.norm * self.scale


def main():
    return torch.compile(Net())(torch.ones(2, 4))
'''

CHECKPOINT = '''\
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # expect: FG301
            x = x * 2
        return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def part(self, x):
        print("part")  # expect: FG101
        return x + 1

    def forward(self, x):
        x = checkpoint(self.block, x, use_reentrant=False)
        return checkpoint(self.part, x, use_reentrant=False)


def main():
    return torch.compile(Net())(torch.ones(2, 4, requires_grad=True))
'''

SUMMED = '''\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleDict({"a": nn.Linear(4, 4), "b": nn.Linear(4, 4)})

    def forward(self, x):
        feats = {}
        for name, layer in self.layers.items():
            feats[name] = layer(x).abs() + 1
        total = sum(v.sum() for v in feats.values())
        if total < 0:  # expect: FG301
            print("negative")  # (held: "only when the data makes `total < 0` true"; it never is)
        return total


def main():
    return torch.compile(Net())(torch.ones(2, 4))
'''


@pytest.mark.parametrize("name,code", [("property_read", PROPERTY), ("checkpointed", CHECKPOINT),
                                       ("summed", SUMMED)])
def test_code_run_without_a_call_written_is_followed(tmp_path, name, code):
    findings = check_code(code, tmp_path, name=name)
    assert {(f.span.start.line + 1, f.code) for f in findings if f.condition is None} == expected(code)
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, name) == {line for line, _ in expected(code)}

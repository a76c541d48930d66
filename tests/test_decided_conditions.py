"""Conditions the program decides are not conditions: `torch.jit.is_scripting()`/`is_tracing()` are false
under torch.compile; `isinstance(param, Tensor)` is decided by what the calls pass; an attribute set from an
`__init__` parameter is what the compiled object's own construction passes, through `super().__init__`
calls (left at its default: by default only); a `for` over `items if cond else ()` runs when `cond` picks
the items (in user code an unknown test is taken; inside a followed library it is a condition).  Each script's main() runs under Dynamo, which must break exactly where fullgraph says."""
from __future__ import annotations

import pytest
from harness import check_code, dynamo_lines, expected

DECIDED = '''\
import torch
import torch.nn as nn
from torch import Tensor


class Base(nn.Module):
    def __init__(self, strategy="warn", check=False):
        super().__init__()
        self.strategy = strategy
        self.check = check

    def forward(self, x):
        if self.strategy != "disable":
            if torch.isnan(x).any():  # expect: FG301
                x = torch.nan_to_num(x)
        if self.check:
            print("checking")  # when: `self.check`
        return x


class Mean(Base):
    def __init__(self, strategy="warn", **kwargs):
        super().__init__(strategy=strategy, **kwargs)


def drop_loops(edge_index, mask=None):
    if isinstance(edge_index, Tensor):
        keep = edge_index[0] != edge_index[1]
        return edge_index[:, keep]  # expect: FG304
    print("not a tensor")
    return edge_index


def scripted(x):
    if torch.jit.is_scripting():
        print("scripting")
    if not torch.jit.is_tracing():
        x = x + 1
    return x


def validate(preds, target):
    for t in (target, preds) if not preds.is_floating_point() else ():
        if len(torch.unique(t)) > 3:  # expect: FG304
            raise ValueError("too many classes")
    return preds


@torch.compile
def step(x, edge_index):
    x = scripted(x)
    return drop_loops(edge_index), validate(edge_index, edge_index)


def main():
    torch.compile(Mean())(torch.randn(4))
    torch.compile(Mean(strategy="disable", check=False))(torch.randn(4))
    return step(torch.randn(4), torch.tensor([[0, 1, 2], [0, 2, 1]]))
'''


def test_conditions_the_program_decides(tmp_path):
    findings = check_code(DECIDED, tmp_path, name="decided")
    lines = DECIDED.splitlines()
    assert {(f.span.start.line + 1, f.code) for f in findings if not f.condition} == expected(DECIDED)
    want = {i: ln.split("# when: ")[1] for i, ln in enumerate(lines, 1) if "# when: " in ln}
    assert {f.span.start.line + 1: f.condition for f in findings if f.condition} == want
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "decided") == {line for line, _ in expected(DECIDED)}

"""A name an `if` branch makes a tensor (LayerDrop: `skip = False` / `if self.training and p > 0: skip = torch.rand([])
< p` / `if not skip:`) is a tensor at a later test only when that branch ran: the test's break holds the branch's
condition (engine/branch_made.py), and the walk decides it (eval mode: no break; training: the break).  Each script's
main() runs under Dynamo, which must break exactly where fullgraph shows a break."""
from __future__ import annotations

import pytest
from harness import check_code, dynamo_lines

HEAD = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
{body}
        return x


def main():
    model = Block({args})
    model.{mode}()
    compiled = torch.compile(model)
    return compiled(torch.randn(2, 4))
'''

LAYERDROP = '''        skip = False
        if self.training and self.p > 0.0:
            skip = torch.rand([]) < self.p
        if not skip:
            x = self.lin(x)'''
ELSE_BRANCH = '''        skip = False
        if not self.training:
            x = x + 1
        else:
            skip = torch.rand([]) < self.p
        if not skip:
            x = self.lin(x)'''
NESTED = '''        skip = None
        if self.training:
            if self.p > 0.0:
                skip = torch.rand([]) < self.p
        if skip:
            x = x * 0'''
# a tensor before the branch too: the test breaks on every path
TENSOR_BEFORE = '''        skip = x.sum() > 100
        if self.training and self.p > 0.0:
            skip = torch.rand([]) < self.p
        if not skip:
            x = self.lin(x)'''
# another tensor in the same test: it breaks whether or not the branch ran
OTHER_TENSOR = '''        skip = False
        if self.training and self.p > 0.0:
            skip = torch.rand([]) < self.p
        if not skip and x.sum() > 100:
            x = self.lin(x)'''
# both branches make it a tensor: no condition of either
BOTH = '''        skip = False
        if self.training:
            skip = torch.rand([]) < self.p
        else:
            skip = x.sum() > 100
        if not skip:
            x = self.lin(x)'''


def _test_line(body: str) -> int:
    """The line of the last `if` of `body` in the script (1-based)."""
    head = HEAD.split("{body}")[0].count("\n")
    return head + max(i for i, s in enumerate(body.splitlines()) if s.lstrip().startswith("if ")) + 1


CASES = [  # (forward's body, Block's arguments, mode, the test's break shown)
    (LAYERDROP, "", "eval", False),
    (LAYERDROP, "", "train", True),
    (LAYERDROP, "p=0.0", "train", False),  # the branch's own condition is false for this construction
    (ELSE_BRANCH, "", "eval", False),
    (ELSE_BRANCH, "", "train", True),
    (NESTED, "", "eval", False),
    (NESTED, "", "train", True),
    (TENSOR_BEFORE, "", "eval", True),
    (OTHER_TENSOR, "", "eval", True),
    (BOTH, "", "eval", True),
]


@pytest.mark.parametrize("body,args,mode,shown", CASES)
def test_a_test_on_a_value_a_branch_made_a_tensor_breaks_when_the_branch_ran(tmp_path, body, args, mode, shown):
    code = HEAD.format(body=body, args=args, mode=mode)
    findings = check_code(code, tmp_path, name="made")
    line = _test_line(body)
    assert {(f.span.start.line + 1, f.code) for f in findings if not f.condition} == \
        ({(line, "FG301")} if shown else set())
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "made") == ({line} if shown else set())

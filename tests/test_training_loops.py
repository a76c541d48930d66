"""A training or evaluation loop compiled whole (`train = torch.compile(train); train(model, loader, opt)`),
as pytorch/examples' mnist does: Dynamo breaks at the `for` over the DataLoader (FG210) and runs the rest of
the function uncompiled -- so `optimizer.zero_grad()` and `.item()` in the loop are never seen -- but it
still compiles `Optimizer.step` as a frame of its own and logs its graph_break() (FG502).  fullgraph shows
exactly the breaks Dynamo logs."""
from __future__ import annotations

import os

from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.config import Config

TRAIN = '''\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return F.log_softmax(self.fc(x), dim=1)


def train(model, loader, optimizer):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):  # FG210
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()  # FG502
    return loss


def test(model, loader):
    model.eval()
    total = 0
    with torch.no_grad():
        for data, target in loader:  # FG210
            total += F.nll_loss(model(data), target, reduction="sum").item()
    return total


def main():
    torch.manual_seed(0)
    model = Net()
    data = TensorDataset(torch.randn(8, 4), torch.randint(0, 3, (8,)))
    train_loader = DataLoader(data, batch_size=4)
    test_loader = DataLoader(data, batch_size=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    step = torch.compile(train)
    evaluate = torch.compile(test)
    step(model, train_loader, optimizer)
    evaluate(model, test_loader)
'''


def test_a_compiled_training_loop_over_a_dataloader_and_dynamo_agrees(tmp_path):
    (tmp_path / "loops.py").write_text(TRAIN)
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path / "loops.py"])
    shown = {(f.span.start.line + 1, f.code) for f in res.findings if f.condition is None}
    marked = {(i, line.rsplit("# ", 1)[1]) for i, line in enumerate(TRAIN.splitlines(), 1) if "# FG" in line}
    assert shown == marked
    seen = dynamo_breaks_of_main(tmp_path, "loops")
    mine = os.path.realpath(tmp_path / "loops.py")
    # Dynamo names the innermost frame: `test`'s loop at its line; `train`'s `enumerate(loader)` in its
    # enumerate polyfill; `optimizer.step()` inside Optimizer.step.  Nothing at zero_grad() or .item().
    assert {line for path, line in seen if path == mine} == {30}
    assert any(path.endswith(os.path.join("_dynamo", "polyfills", "builtins.py")) for path, _ in seen)
    assert any(path.endswith(os.path.join("torch", "optim", "optimizer.py")) for path, _ in seen)

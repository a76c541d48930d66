"""Values that travel (issue 29 item 5): what a helper returns (a tensor, a tuple of tensors, a boolean mask, a
sparse tensor) keeps its kind in the caller, through tuple unpacking, the arguments of the calls the analysis
sees, a closure's parameters and an if/else choosing the compiled module -- and Dynamo agrees on the breaks."""
from __future__ import annotations

import os

from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.config import Config

DATA = '''\
import torch


def to_sparse(dense):
    return dense.to_sparse()


def load_data():
    dense = (torch.rand(4, 4) > 0.5).float()
    return dense, to_sparse(dense), torch.randn(4, 3)
'''

LAYERS = '''\
import torch


def num_nodes(edge_index):
    return int(edge_index.max()) + 1


def self_loops_removed(edge_index):
    keep = edge_index[0] != edge_index[1]
    return edge_index[:, keep], keep


class Dense(torch.nn.Module):
    def forward(self, x, adj):
        edge = adj.nonzero().t()
        edge, keep = self_loops_removed(edge)
        return x * num_nodes(edge) + x[keep[:4]].sum()


class Sparse(torch.nn.Module):
    def forward(self, x, adj):
        return torch.spmm(adj, x)
'''

RUN = '''\
import torch

from data import load_data
from layers import Dense, Sparse


def run(sparse, adj, x):
    if sparse:
        model = Sparse()
    else:
        model = Dense()
    model = torch.compile(model)

    def step():
        return model(x, adj)
    return step()


def main():
    dense, adj, x = load_data()
    for sparse in (False, True):
        run(sparse, dense, x)
    propagate = torch.compile(Sparse())
    propagate(x, adj)
'''


def test_kinds_travel_to_the_breaks_and_dynamo_agrees(tmp_path):
    (tmp_path / "data.py").write_text(DATA)
    (tmp_path / "layers.py").write_text(LAYERS)
    (tmp_path / "run.py").write_text(RUN)
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path])
    layers = os.path.realpath(tmp_path / "layers.py")
    got = {(os.path.realpath(f.path), f.span.start.line + 1, f.code) for f in res.findings}
    # 5: int(tensor) in a helper reached with what another helper returned (a tuple, unpacked); 10 and 17: masks
    # (one a helper returned); 15: nonzero on what arrives through run()'s parameter and step()'s closure from
    # data.load_data(); 22: a sparse tensor made by data.to_sparse(), an item of what load_data() returns
    assert got == {(layers, 5, "FG303"), (layers, 10, "FG304"), (layers, 15, "FG304"), (layers, 17, "FG304"),
                   (layers, 22, "FG211")}
    seen = {(p, line) for p, line in dynamo_breaks_of_main(tmp_path, "run") if p == layers}
    assert {(p, line) for p, line, _ in got} == seen

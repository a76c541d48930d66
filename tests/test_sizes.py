"""Tensors where Python needs an int (FG303's sizes, FG313): BigBird's random-attention plan, in small.  A list a
helper builds, summed with NumPy and given to `np.zeros` as a size (what a NumPy call returns is a tensor to
Dynamo); an element of a NumPy array passed to a helper that loops over `range()` of it; and, not reported, the
sizes and folded NumPy numbers Python holds as ints, and a compiled function's parameter whose default is not a
literal (`chunk=1024 * 32`: an int, not the tensor an unannotated required parameter is presumed to be).  Each
project's main() runs under Dynamo, which must break exactly where fullgraph says."""
from __future__ import annotations

import os

import pytest
from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.config import Config

PLAN = '''\
import numpy as np
import torch


def plan_of(n, block):
    lengths, blocks = [], []
    lengths.append(3 * block)
    blocks.append(2)
    lengths.append(n)
    blocks.append(0)
    return lengths, blocks


def row(start, end):
    picked = []
    for i in range(end - start):
        picked.append(start + i)
    return picked


def rand_mask(x, block):
    n = x.shape[-1]
    lengths, blocks = plan_of(n, block)
    upto = lengths.index(n)
    mask = np.zeros((n // block, np.sum(blocks[: upto + 1])), dtype=np.int32)
    ends = np.array(lengths) // block
    return mask, row(ends[0], ends[1])


def batchify(rays, chunk=1024 * 32):
    out = []
    for i in range(0, rays.shape[0], chunk):
        out.append(rays[i:i + chunk] * 2)
    flat = torch.zeros(np.prod(rays.shape[1:]))
    return torch.cat(out, 0) + flat


def main():
    attention = torch.compile(rand_mask)
    attention(torch.ones(2, 16), 2)
    torch.compile(batchify)(torch.ones(8, 3))
'''


def test_sizes_and_ranges_of_tensors_and_dynamo_agrees(tmp_path):
    pytest.importorskip("numpy")
    (tmp_path / "plan.py").write_text(PLAN)
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path])
    plan = os.path.realpath(tmp_path / "plan.py")
    got = {(os.path.realpath(f.path), f.span.start.line + 1, f.code) for f in res.findings}
    # 16: range() of what an element of a NumPy array minus another is; 25: np.sum of a list as a size.  Not 32
    # (`chunk` is an int: its default is `1024 * 32`) nor 34 (np.prod of one size, folded by Dynamo)
    assert got == {(plan, 16, "FG313"), (plan, 25, "FG303")}
    seen = {(p, line) for p, line in dynamo_breaks_of_main(tmp_path, "plan") if p == plan}
    assert {(p, line) for p, line, _ in got} == seen

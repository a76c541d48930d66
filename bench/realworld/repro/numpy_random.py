"""FG108 (`numpy.random.*`): some numpy.random calls do not break on torch 2.13.

runtime (fullgraph=True, torch 2.13): `np.random.seed`, `np.random.rand(n)`, `np.random.shuffle` compile
without a break; `np.random.permutation`, `np.random.get_state`, `np.random.default_rng` raise
"attempted to trace numpy function unsupported by PyTorch"; `randint`/`uniform`/`normal`/`choice`
raise data-dependent guard errors.
static today: FG108 on all of them.
"""
import numpy as np
import torch


@torch.compile(backend="eager", fullgraph=True)
def seeded(x):
    np.random.seed(3)  # FG108 today; Dynamo: no break
    return x + 1


@torch.compile(backend="eager", fullgraph=True)
def permuted(x):
    return x + np.random.permutation(4)[0]  # FG108, and Dynamo breaks: correct


seeded(torch.ones(2))
try:
    permuted(torch.ones(2))
except Exception as e:  # noqa: BLE001
    print(type(e).__name__)

"""Static analysis and Dynamo agree on some breaks, not on others."""
import time

import torch


def emit(*args):
    print(*args)


LOG = emit


@torch.compile(backend="eager")
def step(x, report):
    y = x * 2
    print("step", y.shape)
    if x.shape[0] > 100:
        time.sleep(0.1)
    LOG("via alias")
    report("via argument")
    return y.relu()


def unused(x):
    print("never compiled")
    return x


step(torch.ones(3), print)

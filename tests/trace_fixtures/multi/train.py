"""Graph breaks of several kinds in one run (fullgraph=False and fullgraph=True roots)."""
import sys

import torch

import helpers


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        helpers.log.info("forward")
        return y.relu()


def step(x):
    y = x * 2
    print("step")
    y = helpers.scale(y)
    torch._dynamo.graph_break()
    y = helpers.describe(y)
    if y.sum() > 0:
        y = y + 1
    return y * y.mean().item()


def loop(x):
    for i in range(2):
        x = x + 1
        print("iter", i)
    return x


def strict(x):
    y = x.sin()
    print("strict")
    return y


def guard(x):
    n = x.sum().item()
    if n > 0:
        return x + 1
    return x


# (function, torch.compile kwargs, calls) -- also read by measure_mechanisms.py
CASES = [
    (step, {}, [(torch.ones(3),), (torch.ones(3, 3),)]),
    (loop, {}, [(torch.ones(2),)]),
    (strict, {"fullgraph": True}, [(torch.ones(2),)]),
    (guard, {"fullgraph": True}, [(torch.ones(2),)]),
    (Net(), {}, [(torch.ones(2, 4),)]),
]


def main():
    for fn, kwargs, calls in CASES:
        compiled = torch.compile(fn, backend="eager", **kwargs)
        for args in calls:
            try:
                compiled(*args)
            except (torch._dynamo.exc.Unsupported, torch._dynamo.exc.UserError) as e:
                print(f"caught {type(e).__name__} from {getattr(fn, '__name__', 'Net')}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""The PyTorch guide "Use fullgraph=True to identify and eliminate graph breaks", as one module.

Each compiled function is one of the guide's breaking examples; `fullgraph check` finds them all
at once, before anything runs.
"""
import torch
from torch._dynamo import graph_break


@torch.compile(fullgraph=True)
def sum_two(xs):
    a = next(xs)  # expect: FG403
    b = next(xs)  # expect: FG403
    return a + b


def g(x):
    y = x.sin()
    graph_break()  # expect: FG201
    return y.sin()


@torch.compile(fullgraph=True)
def sin_sin(x):
    w = x.sin()
    return g(w)


@torch.compile(fullgraph=True)
def save_midway(x):
    y = x ** 2 / 2
    torch.save(y, "/dev/null")  # expect: FG106
    z = y ** 3 / 6
    return z


@torch.compile(fullgraph=True)
def save_guarded(x):
    y = x ** 2 / 2
    if not torch.compiler.is_compiling():
        torch.save(y, "/dev/null")
    z = y ** 3 / 6
    return z


def bad_fn(y):
    torch.save(y, "/dev/null")


torch._dynamo.config.ignore_logging_functions.add(bad_fn)


@torch.compile(fullgraph=True)
def save_ignored(x):
    y = x ** 2 / 2
    bad_fn(y)
    return y ** 3 / 6


def main():
    xs = [torch.tensor(1.0), torch.tensor(2.0)]
    try:
        sum_two(iter(xs))
    except Exception as e:  # noqa: BLE001 - the breaking examples raise under fullgraph=True
        print(f"sum_two: {type(e).__name__}")
    for fn in (sin_sin, save_midway, save_guarded, save_ignored):
        try:
            fn(torch.randn(3))
        except Exception as e:  # noqa: BLE001
            print(f"{fn.__name__}: {type(e).__name__}")


if __name__ == "__main__":
    main()

"""Extra oracle inputs: patterns the rules' own examples do not cover, one remedy each.

name -> (module code, call, needed modules).  Each must break under torch.compile(fullgraph=True)
and be fixed by the remedy it names.
"""
CASES = {
    # fstring: a message built with str() and handed back (f-strings of tensors are traced)
    "fstring-return": ('''import torch


@torch.compile(fullgraph=True)
def f(x: torch.Tensor):
    msg = "value: " + str(x)
    return x + 1, msg
''', "f(torch.randn(4))", ()),
    # fstring: %-formatting passed to a reorderable print
    "fstring-percent-print": ('''import torch

torch._dynamo.config.reorderable_logging_functions.add(print)


@torch.compile(fullgraph=True)
def f(x: torch.Tensor):
    print("x is %s" % x)
    return x * 2
''', "f(torch.randn(3))", ()),
    # torch-where/torch-cond: if/else assigning the same name
    "where-if-else": ('''import torch


@torch.compile(fullgraph=True)
def f(x: torch.Tensor):
    y = x * 2
    if y.mean() > 0:
        z = y.sin()
    else:
        z = y.cos()
    return z + 1
''', "f(torch.randn(5))", ()),
    # torch-where on a conditional expression
    "where-ifexp": ('''import torch


@torch.compile(fullgraph=True)
def f(x: torch.Tensor):
    return x * 2 if x.sum() > 0 else x.abs()
''', "f(torch.randn(5))", ()),
    # reorderable-logging: print of a tensor and a constant in the compiled frame
    "reorderable-print": ('''import torch


@torch.compile(fullgraph=True)
def f(x: torch.Tensor):
    y = x * 2
    print("y =", y)
    return y + 1
''', "f(torch.randn(4))", ()),
    # guard on a with-block whose names are not used afterwards
    "guard-with-block": ('''import torch


@torch.compile(fullgraph=True)
def f(x, path="/dev/null"):
    y = x + 1
    with open(path, "w") as fh:
        fh.write("step")
    return y * 2
''', "f(torch.randn(4))", ()),
    # ignore-logging-function on a side-effect-only wrapper (the guide's bad_fn)
    "ignore-wrapper": ('''import torch


def bad_fn(y):
    torch.save(y, "/dev/null")


@torch.compile(fullgraph=True)
def f(x):
    y = x ** 2 / 2
    bad_fn(y)
    return y ** 3 / 6
''', "f(torch.randn(3))", ()),
    # list-argument with a generator and a keyword call site
    "list-argument-generator": ('''import torch


def gen(n):
    for i in range(n):
        yield torch.full((3,), float(i))


@torch.compile(fullgraph=True)
def total(xs, scale=1.0):
    acc = torch.zeros(3)
    for t in xs:
        acc = acc + t * scale
    return acc


out = total(xs=gen(3))
''', "out", ()),
    # split with several live variables in both directions
    "split-live-vars": ('''import torch


@torch.compile(fullgraph=True)
def f(x, w):
    """Docstring stays with the glue."""
    a = x * w
    b = a.sum()
    c = a.relu()  # unused later: not returned
    torch.save(b, "/dev/null")
    d = a + b
    return d * w
''', "f(torch.randn(4), torch.randn(4))", ()),
}

_SQUARE = '''import torch
from torch.utils.cpp_extension import load_inline

cpp_source = """
torch::Tensor square_cpu(torch::Tensor input) {
    torch::Tensor output = torch::empty_like(input);
    float* input_data = input.data_ptr<float>();
    float* output_data = output.data_ptr<float>();
    int64_t numel = input.numel();
    for (int64_t i = 0; i < numel; i++) {
        output_data[i] = input_data[i] * input_data[i];
    }
    return output;
}
"""

square_module = load_inline(name="fg_square_cpu_kernel", cpp_sources=cpp_source, functions=["square_cpu"])
'''

# custom-op: the guide's C++ square kernel (load_inline; built once, cached by torch) called through a
# Python helper (the helper becomes the op) and directly in the compiled function (a new op)
CASES["custom-op-guide-square-helper"] = (_SQUARE + '''

def square(x):
    return square_module.square_cpu(x)


@torch.compile(fullgraph=True)
def f(x):
    return square(x) + 1
''', "f(torch.randn(3, 3))", ("__cpp_extension__",))
CASES["custom-op-guide-square-direct"] = (_SQUARE + '''

@torch.compile(fullgraph=True)
def g(x):
    return square_module.square_cpu(x.contiguous()) * 2
''', "g(torch.randn(2, 5))", ("__cpp_extension__",))

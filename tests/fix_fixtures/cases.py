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
    # split (training step, compiled by a call with options): forward + loss compiled with the same
    # options, zero_grad/backward/step run eagerly; the compile call becomes the function
    "split-train-step-call": ('''import torch
from torch import nn

model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def train_step(x, y):
    optimizer.zero_grad(set_to_none=True)
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    loss.backward()
    optimizer.step()
    return loss.detach()


step = torch.compile(train_step, fullgraph=True)


def run():
    x, y = torch.randn(5, 6), torch.randint(0, 3, (5,))
    losses = [step(x, y) for _ in range(3)]
    return torch.stack(losses), model[0].weight.detach().clone()
''', "run()", ()),
    # split of a closure compiled with `return torch.compile(step)`: the scheduler and its
    # get_last_lr() in the return statement stay eager
    "split-closure-scheduler": ('''import torch
import torch.nn.functional as F


def make_step(model, optimizer, scheduler):
    def step(x, y):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        return loss.detach(), scheduler.get_last_lr()[0]

    return torch.compile(step, fullgraph=True)


def run():
    model = torch.nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    step = make_step(model, optimizer, scheduler)
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    out = [step(x, y) for _ in range(4)]
    return torch.stack([o[0] for o in out]), [o[1] for o in out]
''', "run()", ()),
    # split of a method compiled as `self._fn = torch.compile(self._compute, ...)`: the pieces are
    # methods compiled the same way; the GradScaler and optimizer calls run eagerly
    "split-method-gradscaler": ('''import torch
from torch import nn

model = nn.Linear(5, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)


class Trainer:
    def __init__(self):
        self.scaler = torch.amp.GradScaler("cpu", enabled=False)
        self._step = torch.compile(self._compute, fullgraph=True)

    def _compute(self, x, y):
        out = model(x)
        loss = (out - y).pow(2).mean()
        self.scaler.scale(loss).backward()
        opt.step()
        self.scaler.update()
        opt.zero_grad()
        return loss.detach() * 2

    def fit(self, x, y, steps=3):
        return torch.stack([self._step(x, y) for _ in range(steps)])


def run():
    return Trainer().fit(torch.randn(6, 5), torch.randn(6, 2)), model.weight.detach().clone()
''', "run()", ()),
    # split around a loop header (tqdm): the loop runs eagerly, its body is compiled
    "split-for-tqdm": ('''import torch
from tqdm import tqdm

weight = torch.randn(4, 4)


@torch.no_grad()
def predict_all(batches, show_progress=False):
    preds = []
    for batch in tqdm(batches, disable=not show_progress):
        h = batch @ weight
        preds.append(torch.sigmoid(h))
    return torch.cat(preds)


run = torch.compile(predict_all, fullgraph=True)
''', "run([torch.randn(2, 4) for _ in range(3)])", ("tqdm",)),
    # split around a `with lock:` header: the lock is taken eagerly, the block is compiled
    "split-with-lock": ('''import threading

import torch

lock = threading.Lock()


@torch.compile(fullgraph=True)
def f(x):
    y = x * 2
    with lock:
        z = y.sin() + 1
    return z.sum() + y
''', "f(torch.randn(3))", ()),
    # split when nothing else would be compiled: the function runs uncompiled
    "split-uncompile": ('''import torch

model = torch.nn.Linear(3, 3)
opt = torch.optim.Adam(model.parameters(), lr=0.01)


@torch.compile(fullgraph=True)
def opt_step():
    opt.step()


def run(x):
    for _ in range(2):
        model(x).sum().backward()
        opt_step()
        opt.zero_grad()
    return model.weight.detach().clone()
''', "run(torch.randn(2, 3))", ()),
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

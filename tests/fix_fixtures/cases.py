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
    # hoist-init: hooks installed on the first call move to __init__
    "hoist-lazy-hooks": ('''import torch
import torch.nn as nn


class ActivationStats(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.stats = {}
        self._installed = False

    def _install(self):
        for name, mod in self.model.named_modules():
            if isinstance(mod, nn.Linear):
                mod.register_forward_hook(lambda m, i, o, name=name: self.stats.__setitem__(name, o.norm()))
        self._installed = True

    def forward(self, x):
        if not self._installed:
            self._install()
        return self.model(x) * 2


net = ActivationStats(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)))
compiled = torch.compile(net, fullgraph=True)


def run(x):
    y = compiled(x)
    return y, sorted(net.stats)
''', "run(torch.randn(3, 4))", ()),
    # hoist-init: a parameter whose size __init__ knows, created lazily on the first call
    "hoist-lazy-parameter": ('''import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.scale = None

    def forward(self, x):
        if self.scale is None:
            self.scale = nn.Parameter(torch.full((self.dim,), 0.5))
        return x * self.scale


m = torch.compile(Scale(4), fullgraph=True)
''', "m(torch.randn(2, 4))", ()),
    # split-module: a module compiled as a whole; its private seeded generator stays eager, the rest of
    # forward is compiled as a method, and torch.compile(SpanMasker(), ...) becomes the module
    "split-module-generator": ('''import torch
import torch.nn as nn


class SpanMasker(nn.Module):
    def __init__(self, mask_prob=0.3, mask_id=0, seed=7):
        super().__init__()
        self.mask_prob = mask_prob
        self.mask_id = mask_id
        self.seed = seed

    def forward(self, tokens):
        gen = torch.Generator(device=tokens.device)
        gen.manual_seed(self.seed)
        probs = torch.rand(tokens.shape, generator=gen, device=tokens.device)
        mask = probs < self.mask_prob
        return torch.where(mask, torch.full_like(tokens, self.mask_id), tokens), mask


masker = torch.compile(SpanMasker(), fullgraph=True)
''', "masker(torch.randint(1, 100, (2, 12)))", ()),
    # split-module: a timer context around each block of forward (the with headers stay eager)
    "split-module-timers": ('''import time
from collections import defaultdict

import torch
import torch.nn as nn

TOTALS = defaultdict(int)


class Section:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        TOTALS[self.name] += 1
        return False


class Encoder(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.embed = nn.Linear(d, d)
        self.body = nn.Sequential(nn.Linear(d, d), nn.GELU())

    def forward(self, x):
        with Section("embed"):
            h = self.embed(x)
        h = self.body(h) + h
        return h * 2


enc = torch.compile(Encoder(), fullgraph=True)


def run(x):
    return enc(x), dict(TOTALS)
''', "run(torch.randn(3, 8))", ()),
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

# ---- data-dependent checks, random draws, one_hot, disabled recorders, reseeding (fixes/asserts.py,
# rng.py, onehot.py, disabled.py) ------------------------------------------------------------------------
CASES.update({
    # tensor-assert: `and` of tensor checks and a `not` (value_range_asserts.py's shape)
    "tensor-assert-and-not": ('''import torch


class Calibrator(torch.nn.Module):
    def __init__(self, strict=True):
        super().__init__()
        self.strict = strict

    def forward(self, logits):
        probs = torch.softmax(logits, dim=-1)
        if self.strict:
            assert torch.all(probs >= 0) and torch.all(probs <= 1), "probabilities out of range"
        return probs * 2


m = torch.compile(Calibrator(), fullgraph=True)
''', "m(torch.randn(4, 3))", ()),
    # tensor-assert: `assert not <tensor>` and `torch._assert(torch.allclose(...))` (isclose().all())
    "tensor-assert-not": ('''import torch


@torch.compile(fullgraph=True)
def normalize(x):
    assert not torch.isnan(x).any(), "nan in the input"
    return x / x.norm()
''', "normalize(torch.randn(5))", ()),
    "tensor-assert-allclose": ('''import torch


@torch.compile(fullgraph=True)
def row_entropy(probs):
    torch._assert(torch.allclose(probs.sum(-1), torch.ones(probs.shape[0])), "rows must sum to 1")
    return -(probs * probs.log()).sum(-1)
''', "row_entropy(torch.softmax(torch.randn(3, 4), -1))", ()),
    # assert-async: a Python flag and a tensor test in one condition
    "assert-async-flag-and-tensor": ('''import torch

CHECK_FINITE = True


@torch.compile(fullgraph=True)
def loss_fn(pred, target):
    loss = ((pred - target) ** 2).mean()
    if CHECK_FINITE and not torch.isfinite(loss):
        raise FloatingPointError("non-finite loss")
    return loss
''', "loss_fn(torch.randn(8), torch.randn(8))", ()),
    # random-where: a random horizontal flip (random_flip_augment.py's shape); the draw moves to torch's generator
    "random-where-flip": ('''import random

import torch


class RandomHorizontalFlip(torch.nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        if random.random() < self.p:
            return img.flip(-1)
        return img


flip = torch.compile(RandomHorizontalFlip(0.5), fullgraph=True)
''', "[flip(torch.arange(8.0).view(2, 4)) for _ in range(6)]", ()),
    # random-where: a NumPy integer draw deciding a branch becomes Python's, selected with torch.where
    "random-where-numpy-int": ('''import random

import numpy as np
import torch


@torch.compile(fullgraph=True)
def flip(img):
    if np.random.randint(0, 2) == 0:
        return img.flip(-1)
    return img
''', "flip(torch.randn(2, 3))", ("numpy",)),
    # numpy-random: a NumPy permutation of the batch becomes torch.rand(n).argsort() (another stream)
    "numpy-random-permutation": ('''import numpy as np
import torch


@torch.compile(fullgraph=True)
def shuffle_batch(x):
    idx = np.random.permutation(x.shape[0])
    return x[idx] * 2
''', "shuffle_batch(torch.randn(5, 3))", ("numpy",)),
    # torch-rand: a scalar NumPy float draw becomes torch's (another stream)
    "numpy-random-uniform-scale": ('''import numpy as np
import torch


@torch.compile(fullgraph=True)
def jitter(x, lo=0.9, hi=1.1):
    return x * np.random.uniform(lo, hi)
''', "jitter(torch.randn(4))", ("numpy",)),
    # num-classes: label smoothing with the class count from the logits (label_smoothing_onehot.py)
    "num-classes-local": ('''import torch
import torch.nn.functional as F


class LabelSmoothingCE(torch.nn.Module):
    def __init__(self, smoothing=0.1):
        super().__init__()
        self.smoothing = smoothing

    def forward(self, x, target):
        num_classes = x.size(-1)
        soft = F.one_hot(target).float()
        soft = soft * (1.0 - self.smoothing) + self.smoothing / num_classes
        return torch.sum(-soft * F.log_softmax(x, dim=-1), dim=-1).mean()


loss_fn = torch.compile(LabelSmoothingCE(), fullgraph=True)
''', "loss_fn(torch.randn(6, 4), torch.tensor([0, 1, 2, 3, 3, 1]))", ()),
    # num-classes: the count stored on the module
    "num-classes-attr": ('''import torch
import torch.nn.functional as F


class OneHotHead(torch.nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.n_classes = n_classes

    def forward(self, labels, scores):
        return (F.one_hot(labels) * scores).sum(-1)


head = torch.compile(OneHotHead(), fullgraph=True)
''', "head(torch.tensor([4, 0, 2]), torch.randn(3, 5))", ()),
    # reorderable-disabled: a disabled recorder of activation statistics (disabled_metric_hook.py)
    "reorderable-disabled-recorder": ('''import torch

HISTORY = []


@torch.compiler.disable
def record_stats(name, t):
    HISTORY.append((name, round(float(t.detach().abs().mean()), 5)))


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(6, 6)
        self.l2 = torch.nn.Linear(6, 6)

    def forward(self, x):
        h = torch.relu(self.l1(x))
        record_stats("l1", h)
        return self.l2(h)


enc = torch.compile(Encoder(), fullgraph=True)
''', "(enc(torch.randn(3, 6)), list(HISTORY))", ()),
    # seed-guard: Monte-Carlo dropout reseeded in forward (seeded_eval_dropout.py); compared in shape only
    "seed-guard-mc-dropout": ('''import torch


class MCDropout(torch.nn.Module):
    def __init__(self, seed=1234):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.3))
        self.seed = seed

    def forward(self, x, sample_idx: int):
        torch.manual_seed(self.seed + sample_idx)
        return self.body(x)


model = torch.compile(MCDropout(), fullgraph=True)
''', "torch.stack([model(torch.ones(2, 4), i) for i in range(3)])", ()),
})

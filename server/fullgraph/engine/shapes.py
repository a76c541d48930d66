"""The shapes of tensors as the evaluator (engine/consteval.py) follows them through a model's code: broadcasting,
the methods that keep or set a shape, and torch's layers (issue 27).

BigBird's attention tests the sequence length it reads from its input (`batch_size, seqlen, _ =
hidden_states.size()`), and that input is the script's `input_ids` after an embedding, a sum of embeddings, a
dropout and a layer norm, and after each encoder layer (attention, a linear map, a residual sum).  A shape here is
a tuple of ints, with consteval.UNKNOWN for a size not known (a linear layer's width read from a config the
evaluator does not see): `seqlen` is still 32 when the hidden width is not known.

Only what holds for any tensor of the shape is said: an elementwise sum broadcasts (a known size that is not 1
wins, a size not known beside 1 stays not known); `x += y` keeps x's shape (in place: y broadcasts to it, or the
program raises); `view`/`reshape`/`expand` with int sizes make that shape (-1 the one size not known, computed
when the others and the element count are known); the layers that keep their input's shape (normalisations,
dropouts, activations) keep it, `nn.Linear` and `nn.Embedding` change the last size (or add one).
"""
from __future__ import annotations

from typing import Any

UNKNOWN: Any = object()  # a value not known (consteval.UNKNOWN: one marker for the evaluator and the shapes)
UNKNOWN_DIM = UNKNOWN

# methods of a tensor that return a tensor of the same shape
KEEP_METHODS = frozenset({
    "contiguous", "to", "float", "double", "half", "bfloat16", "int", "long", "bool", "byte", "short", "char",
    "type_as", "clone", "detach", "detach_", "requires_grad_", "cpu", "cuda", "masked_fill", "masked_fill_",
    "fill_", "zero_", "clamp", "clamp_", "clip", "abs", "neg", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh",
    "relu", "pow", "mul", "add", "sub", "div", "add_", "mul_", "sub_", "div_", "softmax", "log_softmax",
    "type", "pin_memory",
})

# torch.nn layers (the public names the analysis resolves them to) whose output has the input's shape
KEEP_LAYERS = frozenset("torch.nn." + n for n in (
    "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
    "InstanceNorm2d", "InstanceNorm3d", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
    "Identity", "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "SELU", "CELU",
    "Softplus", "Softsign", "Hardswish", "Hardsigmoid", "Hardtanh", "Tanhshrink", "Softmax", "LogSoftmax",
    "PReLU", "Softmin",
))


# module-level mappings whose every item is a layer that keeps its input's shape: transformers' activations by name
# (`ACT2FN[config.hidden_act]`: GELU variants, ReLU, SiLU, tanh...; each an elementwise module)
KEEP_TABLES = frozenset({"transformers.activations.ACT2FN"})


def known(dim: Any) -> bool:
    return type(dim) is int


def broadcast(a: tuple, b: tuple) -> tuple | None:
    """The shape of an elementwise operation of tensors of shapes a and b; None when it cannot be told (or would
    raise)."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if known(x) and known(y):
            if x != y and 1 not in (x, y):
                return None  # (the program raises here)
            out.append(y if x == 1 else x)
        elif known(x) and x != 1:
            out.append(x)  # (y is 1 or x, or the program raises)
        elif known(y) and y != 1:
            out.append(y)
        else:
            out.append(UNKNOWN_DIM)
    return tuple(reversed(out))


def sized(args: list) -> tuple | None:
    """The shape `view`/`reshape`/`expand` are given: ints, or one tuple of ints; None otherwise."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = list(args[0])
    if not args or not all(known(a) for a in args):
        return None
    return tuple(args)


def viewed(shape: tuple | None, sizes: tuple) -> tuple | None:
    """`t.view(*sizes)`: the sizes, -1 computed from t's element count when it and the others are known."""
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        return None
    if -1 not in sizes:
        return sizes
    n = numel(shape) if shape is not None else None
    rest = 1
    for s in sizes:
        if s != -1:
            rest *= s
    fill = n // rest if n is not None and rest and n % rest == 0 else UNKNOWN_DIM
    return tuple(fill if s == -1 else s for s in sizes)


def expanded(shape: tuple | None, sizes: tuple) -> tuple | None:
    """`t.expand(*sizes)`: -1 keeps t's size there (not known when t's shape is not)."""
    out = []
    for i, s in enumerate(sizes):
        if s == -1:
            j = i - (len(sizes) - len(shape)) if shape is not None else -1
            out.append(shape[j] if shape is not None and 0 <= j < len(shape) else UNKNOWN_DIM)
        elif s < 0:
            return None
        else:
            out.append(s)
    return tuple(out)


def numel(shape: tuple) -> int | None:
    n = 1
    for d in shape:
        if not known(d):
            return None
        n *= d
    return n


def transposed(shape: tuple, a: Any, b: Any) -> tuple | None:
    if not (known(a) and known(b)):
        return None
    r = len(shape)
    a, b = a + r if a < 0 else a, b + r if b < 0 else b
    if not (0 <= a < r and 0 <= b < r):
        return None
    out = list(shape)
    out[a], out[b] = out[b], out[a]
    return tuple(out)


def layer_output(class_q: str, args: list, kwargs: dict) -> tuple | None:
    """The shape of what calling an instance of the torch layer `class_q` on a tensor of shape args[0] returns:
    the same for a layer that keeps it, the last size replaced by one not known for nn.Linear, one not known added
    for nn.Embedding; None for another layer or call."""
    if len(args) != 1 or kwargs:
        return None
    shape = args[0]
    if class_q in KEEP_LAYERS:
        return shape
    if class_q == "torch.nn.Linear" and shape:
        return shape[:-1] + (UNKNOWN_DIM,)
    if class_q == "torch.nn.Embedding":
        return shape + (UNKNOWN_DIM,)
    return None

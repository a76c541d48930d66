"""A submodule class `__init__` picks by a flag (`if sparse: self.ffn = Routed() else: self.ffn = Dense()`, the
conditional-expression form, a field of a config object): the walk follows `self.ffn(x)` only into the class the
compiled object's visible construction makes (engine/attr_choices.py); left at a default, the other class's breaks
are conditional; a flag the analysis cannot tell keeps both classes walked.  Each script's main() runs under Dynamo,
which must break exactly where fullgraph shows a break."""
from __future__ import annotations

import pytest
from harness import check_code, dynamo_lines

HEAD = '''\
import os

import torch
from torch import nn


class Dense(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


class Routed(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        idx = (x > 0).nonzero()
        return self.lin(x) + idx.sum()


class Cfg:
    def __init__(self, moe=False, hidden=4):
        self.moe = moe
        self.hidden = hidden


'''
NONZERO = 22  # the line of `.nonzero()` in Routed.forward

IF_FLAG = '''class Layer(nn.Module):
    def __init__(self, sparse: bool = False):
        super().__init__()
        if sparse:
            self.ffn = Routed()
        else:
            self.ffn = Dense()

    def forward(self, x):
        return self.ffn(x)
'''
IFEXP_FLAG = '''class Layer(nn.Module):
    def __init__(self, sparse=False):
        super().__init__()
        self.ffn = Routed() if sparse else Dense()

    def forward(self, x):
        return self.ffn(x)
'''
CONFIG_FIELD = '''class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        if config.moe:
            self.ffn = Routed()
        else:
            self.ffn = Dense()

    def forward(self, x):
        return self.ffn(x)
'''
SELF_CONFIG_FIELD = '''class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.ffn = Dense() if not self.config.moe else Routed()

    def forward(self, x):
        return self.ffn(x)
'''
MAIN = '''

def main():
    model = {ctor}
    compiled = torch.compile(model)
    return compiled(torch.randn(2, 4))
'''

CASES = [  # (layer, construction, Routed's break: "shown" | "conditional" | None)
    (IF_FLAG, "Layer(sparse=False)", None),
    (IF_FLAG, "Layer(sparse=True)", "shown"),
    (IF_FLAG, "Layer()", "conditional"),  # the default: the user may pass sparse=True
    (IFEXP_FLAG, "Layer(sparse=False)", None),
    (IFEXP_FLAG, "Layer(sparse=True)", "shown"),  # (a conditional expression of two instances: was not followed)
    (CONFIG_FIELD, "Layer(Cfg(moe=False))", None),
    (CONFIG_FIELD, "Layer(Cfg(moe=True, hidden=4))", "shown"),
    (CONFIG_FIELD, "Layer(Cfg(hidden=4))", "conditional"),
    (SELF_CONFIG_FIELD, "Layer(Cfg(moe=False))", None),
    (SELF_CONFIG_FIELD, "Layer(Cfg(moe=True))", "shown"),
    # a value the analysis cannot tell: both classes walked, as before
    (IF_FLAG, 'Layer(sparse=os.environ.get("FG_SPARSE", "1") == "1")', "shown"),
]


@pytest.mark.parametrize("layer,ctor,routed", CASES)
def test_the_class_init_picks_is_the_one_walked(tmp_path, layer, ctor, routed):
    code = HEAD + layer + MAIN.format(ctor=ctor)
    findings = check_code(code, tmp_path, name="choice")
    shown = {(f.span.start.line + 1, f.code) for f in findings if not f.condition}
    conditional = {(f.span.start.line + 1, f.code) for f in findings if f.condition}
    assert shown == ({(NONZERO, "FG304")} if routed == "shown" else set())
    assert conditional == ({(NONZERO, "FG304")} if routed == "conditional" else set())
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "choice") == {line for line, _ in shown}


def test_an_unconditional_assignment_keeps_its_class(tmp_path):
    """`self.ffn = Routed()` before `if not sparse: self.ffn = Dense()`: Routed is made whatever the flag (and
    then replaced), so the walk keeps it (only a class every assignment of which is under a false test goes)."""
    layer = '''class Layer(nn.Module):
    def __init__(self, sparse=False):
        super().__init__()
        self.ffn = Routed()
        if not sparse:
            self.ffn = Dense()

    def forward(self, x):
        return self.ffn(x)
'''
    findings = check_code(HEAD + layer + MAIN.format(ctor="Layer(sparse=True)"), tmp_path, name="choice")
    assert {(f.span.start.line + 1, f.code) for f in findings if not f.condition} == {(NONZERO, "FG304")}


# ---- in a followed library (transformers' NLLB-MoE: `if is_sparse: self.ffn = SparseMLP(...) else: ...`) -------
# Dense and Routed (whose forward breaks at `.nonzero()`) as a followed library writes them
LIB_BLOCKS = '''class Dense(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.lin = nn.Linear(config.hidden, config.hidden)

    def forward(self, x):
        return self.lin(x)


class Routed(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.lin = nn.Linear(config.hidden, config.hidden)

    def forward(self, x):
        idx = (x > 0).nonzero()
        return self.lin(x) + idx.sum()


'''


LIB_LAYER = '''import torch
from torch import nn


class Config:
    def __init__(self, moe=False, hidden=4):
        self.moe = moe
        self.hidden = hidden


''' + LIB_BLOCKS + '''class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        if config.moe:
            self.ffn = Routed(config)
        else:
            self.ffn = Dense(config)

    def forward(self, x):
        return self.ffn(x)
'''
LIB_NONZERO = LIB_LAYER.splitlines().index("        idx = (x > 0).nonzero()") + 1  # in fglib/layer.py
LIB_SCRIPT = '''import torch

from fglib.layer import Config, Layer


def main():
    model = Layer(Config(moe={moe}))
    return torch.compile(model)(torch.randn(2, 4))
'''


@pytest.mark.parametrize("moe", [False, True])
def test_a_followed_library_class_picked_by_a_config_field(tmp_path, moe):
    _check_library_choice(tmp_path, LIB_LAYER, LIB_SCRIPT.format(moe=moe), LIB_NONZERO, routed=moe)


def _check_library_choice(tmp_path, layer: str, script: str, line: int, routed: bool) -> None:
    """fglib/layer.py's `.nonzero()` at `line` is shown (not conditional) exactly when the script's construction
    picks Routed, and Dynamo breaks there exactly then."""
    from test_decided_conditions import _library_breaks, _library_findings, _library_project
    root = _library_project(tmp_path, {"layer.py": layer}, script)
    got = [f for f in _library_findings(root) if f[:3] == ("layer.py", line, "FG304")]
    assert got == ([("layer.py", line, "FG304", False)] if routed else [])
    assert _library_breaks(root) == ({("layer.py", line)} if routed else set())


# per layer, as NLLB-MoE's encoder decides it: `is_sparse` from the layer's index and the config's sparse step
LIB_STACK = '''import torch
from torch import nn


class Config:
    def __init__(self, layers=2, sparse_step=0, hidden=4):
        self.layers = layers
        self.sparse_step = sparse_step
        self.hidden = hidden


''' + LIB_BLOCKS + '''class Layer(nn.Module):
    def __init__(self, config, is_sparse=False):
        super().__init__()
        self.is_sparse = is_sparse
        if not self.is_sparse:
            self.ffn = Dense(config)
        else:
            self.ffn = Routed(config)

    def forward(self, x):
        return self.ffn(x)


class Stack(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layers = nn.ModuleList()
        for i in range(config.layers):
            is_sparse = (i + 1) % config.sparse_step == 0 if config.sparse_step > 0 else False
            self.layers.append(Layer(config, is_sparse))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
'''
STACK_NONZERO = LIB_STACK.splitlines().index("        idx = (x > 0).nonzero()") + 1  # in fglib/layer.py
STACK_SCRIPT = '''import torch

from fglib.layer import Config, Stack


def main():
    model = Stack(Config(layers=2, sparse_step={step}))
    return torch.compile(model)(torch.randn(2, 4))
'''


@pytest.mark.parametrize("step", [0, 2])
def test_a_followed_library_class_picked_per_layer(tmp_path, step):
    _check_library_choice(tmp_path, LIB_STACK, STACK_SCRIPT.format(step=step), STACK_NONZERO, routed=bool(step))


# a call's own findings (FG202: the class's forward is torch.compiler.disable'd) follow the same choice
DISABLED = '''import torch
from torch import nn


class Dense(nn.Module):
    def forward(self, x):
        return x + 1


class Routed(nn.Module):
    @torch.compiler.disable
    def forward(self, x):
        return x + 2


class Layer(nn.Module):
    def __init__(self, sparse=False):
        super().__init__()
        if sparse:
            self.ffn = Routed()
        else:
            self.ffn = Dense()

    def forward(self, x):
        return self.ffn(x)


def main():
    return torch.compile(Layer(sparse={sparse}))(torch.randn(2, 4))
'''
CALL_LINE = 25


@pytest.mark.parametrize("sparse", [False, True])
def test_a_call_reaching_a_disabled_class_only_when_init_picks_it(tmp_path, sparse):
    findings = check_code(DISABLED.format(sparse=sparse), tmp_path, name="disabled")
    shown = {(f.span.start.line + 1, f.code) for f in findings if not f.condition}
    assert shown == ({(CALL_LINE, "FG202")} if sparse else set())
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "disabled") == {line for line, _ in shown}


# a dataclass config whose script passes a field with a tuple default (transformers 5's `conv_dim: tuple[int, ...] =
# (512, ...)`), and a model whose inner model (made in its `__init__`) picks the encoder by another field, left at
# its default: the tuple field is one the class declares, so the other field's default decides
LIB_NESTED = '''from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Config:
    dims: tuple[int, ...] = (4, 4)
    stable: bool = False
    hidden: int = 4


''' + LIB_BLOCKS + '''class Inner(nn.Module):
    def __init__(self, config):
        super().__init__()
        if config.stable:
            self.enc = Routed(config)
        else:
            self.enc = Dense(config)

    def forward(self, x):
        return self.enc(x)


class Outer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.inner = Inner(config)

    def forward(self, x):
        return self.inner(x)
'''
LIB_NESTED_NONZERO = LIB_NESTED.splitlines().index("        idx = (x > 0).nonzero()") + 1
LIB_NESTED_SCRIPT = '''import torch

from fglib.layer import Config, Outer


def main():
    model = Outer(Config(dims=(4, 4){more}))
    return torch.compile(model)(torch.randn(2, 4))
'''


@pytest.mark.parametrize("stable", [False, True])
def test_a_config_field_with_a_tuple_default_is_declared(tmp_path, stable):
    """Left at its default, Routed's break is conditional (the user may set `stable=True`; it was shown: the
    `dims=` keyword made every field of the config unknown); set, it is shown, and Dynamo breaks there."""
    from test_decided_conditions import _library_breaks, _library_findings, _library_project
    more = ", stable=True" if stable else ""
    root = _library_project(tmp_path, {"layer.py": LIB_NESTED}, LIB_NESTED_SCRIPT.format(more=more))
    got = [f for f in _library_findings(root) if f[:3] == ("layer.py", LIB_NESTED_NONZERO, "FG304")]
    assert got == [("layer.py", LIB_NESTED_NONZERO, "FG304", not stable)]
    assert _library_breaks(root) == ({("layer.py", LIB_NESTED_NONZERO)} if stable else set())

"""Conditions the program decides are not conditions: `torch.jit.is_scripting()`/`is_tracing()` are false
under torch.compile; `isinstance(param, Tensor)` is decided by what the calls pass; an attribute set from an
`__init__` parameter is what the compiled object's own construction passes, through `super().__init__`
calls (left at its default: by default only); a `for` over `items if cond else ()` runs when `cond` picks
the items (in user code an unknown test is taken; inside a followed library it is a condition).  Each script's main() runs under Dynamo, which must break exactly where fullgraph says."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness import check_code, dynamo_breaks_of_run, dynamo_lines, expected

DECIDED = '''\
import torch
import torch.nn as nn
from torch import Tensor


class Base(nn.Module):
    def __init__(self, strategy="warn", check=False):
        super().__init__()
        self.strategy = strategy
        self.check = check

    def forward(self, x):
        if self.strategy != "disable":
            if torch.isnan(x).any():  # expect: FG301
                x = torch.nan_to_num(x)
        if self.check:
            print("checking")  # when: `self.check`
        return x


class Mean(Base):
    def __init__(self, strategy="warn", **kwargs):
        super().__init__(strategy=strategy, **kwargs)


def drop_loops(edge_index, mask=None):
    if isinstance(edge_index, Tensor):
        keep = edge_index[0] != edge_index[1]
        return edge_index[:, keep]  # expect: FG304
    print("not a tensor")
    return edge_index


def scripted(x):
    if torch.jit.is_scripting():
        print("scripting")
    if not torch.jit.is_tracing():
        x = x + 1
    return x


def validate(preds, target):
    for t in (target, preds) if not preds.is_floating_point() else ():
        if len(torch.unique(t)) > 3:  # expect: FG304
            raise ValueError("too many classes")
    return preds


@torch.compile
def step(x, edge_index):
    x = scripted(x)
    return drop_loops(edge_index), validate(edge_index, edge_index)


def main():
    torch.compile(Mean())(torch.randn(4))
    torch.compile(Mean(strategy="disable", check=False))(torch.randn(4))
    return step(torch.randn(4), torch.tensor([[0, 1, 2], [0, 2, 1]]))
'''


def test_conditions_the_program_decides(tmp_path):
    findings = check_code(DECIDED, tmp_path, name="decided")
    lines = DECIDED.splitlines()
    assert {(f.span.start.line + 1, f.code) for f in findings if not f.condition} == expected(DECIDED)
    want = {i: ln.split("# when: ")[1] for i, ln in enumerate(lines, 1) if "# when: " in ln}
    assert {f.span.start.line + 1: f.condition for f in findings if f.condition} == want
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "decided") == {line for line, _ in expected(DECIDED)}


# ---- one function called with different values: each call decides its own branches ----------------------
# A function reached twice is walked with what each call passes (up to engine/walk.ENVS_WALKED sets of values),
# its breaks added up: walked once, with the first call's values, `g(x, False)`'s branch was decided away and its
# break went unreported.  Past that many, once more with each value one of the calls passes (`pick`'s sixth call
# takes the branch none of the first four takes).  `isinstance(pos, int)` is false for the tensor one call passes and true for the other's
# 3 (Dynamo breaks there), in whichever order the calls come.
PER_CALL = '''\
import torch


def g(x, flag):
    if flag:
        print("on")  # expect: FG101
    else:
        print("off")  # expect: FG101
    return x + 1


def embed(dim, pos):
    if isinstance(pos, int):
        print("positions from a count")  # expect: FG101
        pos = torch.arange(pos)
    return torch.outer(pos.float(), torch.ones(dim))


def embed_tensor(dim, pos):
    if isinstance(pos, int):
        print("positions from a count")
        pos = torch.arange(pos)
    return torch.outer(pos.float(), torch.ones(dim))


def pick(x, k):
    if k == 5:
        print("the sixth")  # expect: FG101
    if k == 6:
        print("never")
    return x + k


@torch.compile
def f(x, ids):
    pos = ids.float()
    picked = pick(x, 0) + pick(x, 1) + pick(x, 2) + pick(x, 3) + pick(x, 4) + pick(x, 5)
    return g(x, True) + g(x, False), embed(4, pos[:, 0]) + embed(4, 3).sum(), embed_tensor(4, pos[:, 1]), picked


def main():
    return f(torch.ones(3), torch.ones(3, 2))
'''


@pytest.mark.parametrize("order", ["as-written", "int-first"])
def test_each_call_decides_its_own_branches(tmp_path, order):
    code = PER_CALL if order == "as-written" else \
        PER_CALL.replace("embed(4, pos[:, 0]) + embed(4, 3).sum()", "embed(4, 3).sum() + embed(4, pos[:, 0])")
    _found_where_dynamo_breaks(code, tmp_path, "per_call")


def _found_where_dynamo_breaks(code: str, tmp_path, name: str) -> None:
    """The findings of `code` are its `# expect:` lines, and Dynamo breaks on exactly those lines."""
    findings = check_code(code, tmp_path, name=name)
    assert {(f.span.start.line + 1, f.code) for f in findings} == expected(code)
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, name) == {line for line, _ in expected(code)}


# A base class's method reached for two subclasses: each one's `self` decides its own branches, and the breaks of
# both are reported (the second class's walk replaced the first's: the order of the calls decided what was seen).
PER_CLASS = '''\
import torch
import torch.nn as nn


class Base(nn.Module):
    def forward(self, x):
        if self.verbose:
            print("verbose")  # expect: FG101
        return x + 1


class Loud(Base):
    def __init__(self):
        super().__init__()
        self.verbose = True


class Quiet(Base):
    def __init__(self):
        super().__init__()
        self.verbose = False


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.loud = Loud()
        self.quiet = Quiet()

    def forward(self, x):
        return self.loud(x) + self.quiet(x)


def main():
    return torch.compile(Pair())(torch.ones(2))
'''


@pytest.mark.parametrize("order", ["loud-first", "quiet-first"])
def test_each_class_of_self_decides_its_own_branches(tmp_path, order):
    code = PER_CLASS if order == "loud-first" else \
        PER_CLASS.replace("self.loud(x) + self.quiet(x)", "self.quiet(x) + self.loud(x)")
    _found_where_dynamo_breaks(code, tmp_path, "per_class")


# The index of `for i, layer in enumerate(self.layers)`, or a test of it, passed to each layer: Dynamo unrolls the
# loop over the module list, so the layer's branch on it is traced when one iteration passes a value that takes it
# (`debug=(i == 1)` at the second of two layers), and never when none does (`index > 5`).
PER_ITERATION = '''\
import torch
import torch.nn as nn


class Layer(nn.Module):
    def forward(self, x, debug=False, index=0):
        if debug:
            print("debugging")  # expect: FG101
        if index > 5:
            print("deep")
        return x + 1


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(2)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x, debug=(i == 1), index=i)
        return x


def main():
    return torch.compile(Net())(torch.ones(2))
'''


def test_each_iteration_passes_its_own_index(tmp_path):
    _found_where_dynamo_breaks(PER_ITERATION, tmp_path, "per_iteration")


# An attribute of self made by a function of the project that picks the class (`make_block(kind)` returning
# `Loud()` or `Quiet()`), alone or in a module list of a comprehension: each class it may return is followed (the
# attribute's type was the function's name, and the walk went nowhere, saying nothing).
FACTORY_MADE = '''\
import torch
import torch.nn as nn


def make_block(kind):
    if kind == "loud":
        return Loud()
    return Quiet()


class Quiet(nn.Module):
    def forward(self, x):
        return x + 1


class Loud(nn.Module):
    def forward(self, x):
        print("loud")  # expect: FG101
        return x * 2


class Net(nn.Module):
    def __init__(self, kinds=("quiet", "loud")):
        super().__init__()
        self.blocks = nn.ModuleList([make_block(k) for k in kinds])
        self.last = make_block("loud")

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.last(x)


def main():
    return torch.compile(Net())(torch.ones(2))
'''


@pytest.mark.parametrize("made", ["both", "list-only", "attribute-only"])
def test_a_module_a_project_function_makes_is_followed(tmp_path, made):
    code = FACTORY_MADE
    if made == "list-only":
        code = code.replace("        return self.last(x)", "        return x")
    elif made == "attribute-only":
        code = code.replace("        for b in self.blocks:\n            x = b(x)\n", "")
    _found_where_dynamo_breaks(code, tmp_path, "factory_made")


# Modules appended to a local list in `__init__` and handed to `nn.Sequential(*blocks)` / `nn.ModuleList(blocks)`:
# calling the container calls each (the list's items were not known, and nothing was followed or said).
APPENDED = '''\
import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x):
        print("block")  # expect: FG101
        return x + 1


class Net(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        blocks = []
        for _ in range(depth):
            blocks.append(Block())
        self.seq = nn.Sequential(*blocks)

    def forward(self, x):
        return self.seq(x)


def main():
    return torch.compile(Net())(torch.ones(2))
'''


@pytest.mark.parametrize("container", ["nn.Sequential(*blocks)", "nn.ModuleList(blocks)",
                                       "nn.ModuleList(Block() for _ in range(depth))"])
def test_modules_appended_to_a_list_are_followed(tmp_path, container):
    """(and those a generator expression makes, handed to the container)"""
    code = APPENDED.replace("nn.Sequential(*blocks)", container)
    if container.startswith("nn.ModuleList"):
        code = code.replace("        return self.seq(x)", "        for b in self.seq:\n            x = b(x)\n        return x")
    _found_where_dynamo_breaks(code, tmp_path, "appended")


# ---- a module-level variable of a followed library, read in another of its modules (issue 27) ----------
# torch_geometric's `backend.use_segment_matmul = None`, tested by RGCNConv.forward: nothing assigns it, so
# the heuristic behind `if use_segment_matmul is None:` runs (Dynamo breaks in it); a script that sets the
# variable makes the test undecided again (a condition), and Dynamo then takes the other path.
SITE = Path(".venv") / "lib" / "python3.11" / "site-packages"
BACKEND = '''from typing import Optional

use_fast: Optional[bool] = None
'''
LAYER = '''import torch.nn as nn

import fglib.backend


class Layer(nn.Module):
    def forward(self, x):
        use_fast = fglib.backend.use_fast
        if use_fast is None:
            print("choosing a kernel")
            use_fast = False
        return x * 2 if use_fast else x + 1
'''
PRINT_LINE = 10  # in fglib/layer.py
SCRIPT = '''import torch

import fglib.backend
from fglib.layer import Layer

{setup}

def main():
    return torch.compile(Layer())(torch.randn(4))
'''


def _library_project(root: Path, files: dict[str, str], script: str) -> Path:
    site = root / SITE / "fglib"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    for name, text in files.items():
        (site / name).write_text(text)
    (root / "pyproject.toml").write_text(f'[tool.fullgraph]\nfollow = ["fglib"]\nextra-paths = ["{SITE.as_posix()}"]\n')
    (root / "train.py").write_text(script)
    return root


def _library_findings(root: Path) -> list[tuple[str, int, str, bool]]:
    """(file name, line, code, conditional) of each library site `fullgraph check train.py` reports."""
    env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
    proc = subprocess.run([sys.executable, "-m", "fullgraph", "check", "train.py", "--format", "json"], cwd=root,
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    out = []
    for d in json.loads(proc.stdout)["diagnostics"]:
        for s in d.get("library_sites", ()):
            out.append((os.path.basename(s["path"]), s["range"]["start"]["line"], s["code"],
                        bool(d.get("conditional"))))  # (1-based lines)
    return sorted(out)


def _library_breaks(root: Path) -> set[tuple[str, int]]:
    """(file name, line) of the graph breaks Dynamo logs in the library when train.py's main() runs."""
    pytest.importorskip("torch")
    site = str(root / SITE)
    sys.path[:0] = [str(root), site]
    try:
        got = dynamo_breaks_of_run(lambda: importlib.import_module("train").main())
    finally:
        sys.path.remove(str(root))
        sys.path.remove(site)
        for name in [m for m in sys.modules if m in ("train", "fglib") or m.startswith("fglib.")]:
            sys.modules.pop(name)
    return {(os.path.basename(p), line) for p, line in got if p.startswith(os.path.realpath(site))}


TUNING = '''import fglib.backend


def prefer_fast_kernels():
    fglib.backend.use_fast = True
'''


@pytest.mark.parametrize("setup, shown", [
    ("", True),
    ("fglib.backend.use_fast = True", False),
    ("import fglib.tuning\n\nfglib.tuning.prefer_fast_kernels()", False),
], ids=["never-assigned", "set-by-the-script", "set-by-a-library-function"])
def test_a_module_variable_nothing_assigns_is_its_initial_value(tmp_path, setup, shown):
    # (a function of the package that assigns the variable keeps it undecided, called or not)
    files = {"backend.py": BACKEND, "layer.py": LAYER, **({"tuning.py": TUNING} if "tuning" in setup else {})}
    root = _library_project(tmp_path, files, SCRIPT.format(setup=setup))
    found = _library_findings(root)
    assert [f for f in found if f[:3] == ("layer.py", PRINT_LINE, "FG101")] == \
        [("layer.py", PRINT_LINE, "FG101", not shown)]
    assert _library_breaks(root) == ({("layer.py", PRINT_LINE)} if shown else set())


# ---- `getattr(self.config, "name", default)` for a field the config class lacks (issue 27) --------------
# transformers' Data2VecAudioModel reads `getattr(self.config, "apply_spec_augment", True)`, a field that
# Data2VecAudioConfig never defines: SpecAugment runs, and Dynamo breaks in it.  The config's base stores
# the extra keywords of its constructor with setattr (as PreTrainedConfig does): a script that passes the
# field makes it undecided, and so does a `__getattr__` (which may answer for any name).
CONFIG = '''class BaseConfig:
    def __init__(self, hidden=4, **kwargs):
        self.hidden = hidden
        for key, value in kwargs.items():
            setattr(self, key, value)


class TinyConfig(BaseConfig):
    model_type = "tiny"

    def __init__(self, dropout=0.0, **kwargs):
        self.dropout = dropout
        super().__init__(**kwargs)
{extra}'''
MODEL = '''import torch.nn as nn


class TinyModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        if not getattr(self.config, "use_mask", True):
            return self.lin(x)
        print("masking")
        return self.lin(x)
'''
MASK_LINE = 13  # in fglib/model.py
CONFIG_SCRIPT = '''import torch

from fglib.config import TinyConfig
from fglib.model import TinyModel


def main():
    return torch.compile(TinyModel(TinyConfig({kwargs})))(torch.randn(2, 4))
'''
GETATTR = '''
    def __getattr__(self, name):
        return False
'''


@pytest.mark.parametrize("kwargs, extra, shown", [
    ("hidden=8", "", True),
    ("hidden=8, use_mask=False", "", False),
    ("hidden=8", GETATTR, False),
], ids=["no-such-field", "passed-by-the-script", "getattr-hook"])
def test_a_field_the_config_class_lacks_is_the_getattr_default(tmp_path, kwargs, extra, shown):
    root = _library_project(tmp_path, {"config.py": CONFIG.format(extra=extra), "model.py": MODEL},
                            CONFIG_SCRIPT.format(kwargs=kwargs))
    found = _library_findings(root)
    assert [f for f in found if f[:3] == ("model.py", MASK_LINE, "FG101")] == \
        [("model.py", MASK_LINE, "FG101", not shown)]
    assert _library_breaks(root) == ({("model.py", MASK_LINE)} if shown else set())


# ---- a conditional expression's branches hold under its test, as an `if` statement's do --------------------
# (data2vec_audio's `attention_mask.sum(-1).tolist() if attention_mask is not None else ...`: a script that passes
# no mask takes the other branch, where the break in the first was shown with no condition)
IFEXP = '''\
import torch


def lengths(x, mask=None):
    return mask.sum(-1).tolist() if mask is not None else [x.shape[-1]] * x.shape[0]{mark}


@torch.compile
def step(x):
    return lengths(x{mask})


def main():
    return step(torch.randn(2, 4))
'''


@pytest.mark.parametrize("mask, mark", [("", ""), (", x > 0", "  # expect: FG303")],
                         ids=["no-mask-passed", "mask-passed"])
def test_a_conditional_expression_branch_holds_under_its_test(tmp_path, mask, mark):
    src = IFEXP.format(mask=mask, mark=mark)
    findings = check_code(src, tmp_path, name="ifexp")
    assert {(f.span.start.line + 1, f.code) for f in findings if not f.condition} == expected(src)
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "ifexp") == {line for line, _ in expected(src)}


# ---- a local read from an attribute of self whose every store is seen (issue 27) ---------------------------
# torch_geometric's GCNConv.forward normalises the graph when `cache = self._cached_edge_index` is None (Dynamo
# breaks in it): `__init__` and `reset_parameters` set None, and the only other store is under `if
# self.cached:`, which the construction leaves False.  A layer built with `cached=True` and run once before
# compiling, a script that stores the cache itself, or one that calls a library method storing it, takes the
# other path: the test stays a condition.
CACHED = '''import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, cached=False):
        super().__init__()
        self.cached = cached
        self._cache = None

    def reset(self):
        self._cache = None

    def forward(self, x):
        cache = self._cache
        if cache is None:
            print("normalizing")
            y = x * 2
            if self.cached:
                self._cache = y
        else:
            y = cache
        return y + 1
{extra}'''
NORMALIZE_LINE = 16  # in fglib/layer.py
CACHED_SCRIPT = '''import torch

from fglib.layer import Layer


def main():
    layer = {make}
    x = torch.randn(4)
    {setup}
    return torch.compile(layer)(x)
'''


WARM = '''
    def warm(self, x):
        self._cache = x * 2
'''


@pytest.mark.parametrize("make, setup, extra, shown", [
    ("Layer()", "", "", True),
    ("Layer(cached=True)", "layer(x)", "", False),
    ("Layer()", "layer._cache = x * 2", "", False),
    ("Layer()", "layer.warm(x)", WARM, False),
], ids=["never-cached", "cached-before-compiling", "stored-by-the-script", "stored-by-a-library-method"])
def test_a_local_read_from_an_attribute_every_store_of_which_is_seen(tmp_path, make, setup, extra, shown):
    root = _library_project(tmp_path, {"layer.py": CACHED.format(extra=extra)},
                            CACHED_SCRIPT.format(make=make, setup=setup))
    found = _library_findings(root)
    assert [f for f in found if f[:3] == ("layer.py", NORMALIZE_LINE, "FG101")] == \
        [("layer.py", NORMALIZE_LINE, "FG101", not shown)]
    assert _library_breaks(root) == ({("layer.py", NORMALIZE_LINE)} if shown else set())


# ---- the dtype and device of the tensors a script makes (issue 27) ----------------------------------------
# torchmetrics' `normalize_logits_if_needed` breaks (`if not torch.all(...)`) only for a floating tensor on the
# CPU: a script's `torch.rand(8)`, passed unchanged through `forward(*args, **kwargs)` and reshaped on the way,
# is one (shown); `torch.randint` makes no floating tensor (the path is never taken); a tensor made with
# `device=`, moved with `.to(...)`, or made under a default device the script sets, keeps the test a condition.
METRIC = '''import torch
import torch.nn as nn


def normalize(tensor):
    if tensor.device == torch.device("cpu"):
        if not torch.all((tensor >= 0) * (tensor <= 1)):
            tensor = tensor.sigmoid()
        return tensor
    return torch.where(((tensor < 0) | (tensor > 1)).any(), tensor.sigmoid(), tensor)


def fmt(preds, target):
    preds = preds.flatten()
    if preds.is_floating_point():
        preds = normalize(preds)
    return preds, target


class Metric(nn.Module):
    def forward(self, *args, **kwargs):
        return self._step(*args, **kwargs)

    def _step(self, *args, **kwargs):
        return self.update(*args, **kwargs)

    def update(self, preds, target):
        preds, target = fmt(preds, target)
        return preds.float().mean()
'''
DATA_LINE = 7  # in fglib/metric.py
MADE = '''import torch

from fglib.metric import Metric


def main():
    target = torch.randint(0, 2, (8,))
{make}
    return torch.compile(Metric())(preds, target)
'''


@pytest.mark.parametrize("make, found", [
    ("    preds = torch.rand(8)", [False]),
    ("    preds = torch.randint(0, 2, (8,))", []),
    ("    preds = torch.rand(8, device='meta')", [True]),
    ("    preds = torch.rand(8)\n    preds = preds.to('meta')", [True]),
    ("    with torch.device('meta'):\n        preds = torch.rand(8)", [True]),
], ids=["floating-on-the-cpu", "integers", "made-on-another-device", "moved", "under-a-default-device"])
def test_the_dtype_and_device_of_a_tensor_the_script_makes(tmp_path, make, found):
    root = _library_project(tmp_path, {"metric.py": METRIC}, MADE.format(make=make))
    got = _library_findings(root)
    assert [f[3] for f in got if f[:3] == ("metric.py", DATA_LINE, "FG301")] == found
    assert _library_breaks(root) == ({("metric.py", DATA_LINE)} if found == [False] else set())


# ---- keyword arguments passed on through `**kwargs` (issue 29) -----------------------------------------------
# torch_geometric's `GAT(..., add_self_loops=False)`: `BasicGNN.__init__(..., **kwargs)` calls
# `self.init_conv(in, out, **kwargs)`, and `GAT.init_conv` pops `v2`, `heads` and `concat` before building
# `Conv(..., **kwargs)`: the conv's `if self.add_self_loops:` is the script's False.  A key popped before the
# call leaves the layer's default, and the local it is popped into holds what the script passed (or the pop's
# default); a dict changed otherwise (`kwargs["flag"] = ...`) is not followed: the test stays undecided, and
# its break is reported.
KW_LAYER = '''import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, n, heads=1, flag=True):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.heads = heads
        self.flag = flag

    def forward(self, x):
        y = self.lin(x)
        if self.flag:
            y = y + x[x > 0].sum()
        return y
'''
KW_MASK_LINE = 14  # in fglib/layer.py
KW_OUTER = '''import torch.nn as nn

from fglib import Layer


class Outer(nn.Module):
    def __init__(self, n, num_layers=2, **kwargs):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(num_layers):
            self.layers.append(self.init_layer(n, **kwargs))

    def init_layer(self, n, **kwargs):
        raise NotImplementedError

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return x
'''
KW_INIT_LAYER = {  # the library's one subclass of Outer
    "Model": '''
class Model(Outer):
    def init_layer(self, n, **kwargs):
        wide = kwargs.pop("wide", False)
        heads = kwargs.pop("heads", 1)
        return Layer(n, heads=heads * 2 if wide else heads, **kwargs)
''',
    "Popping": '''
class Popping(Outer):
    def init_layer(self, n, **kwargs):
        kwargs.pop("flag", None)
        return Layer(n, **kwargs)
''',
    "Taking": '''
class Taking(Outer):
    def init_layer(self, n, **kwargs):
        strict = kwargs.pop("strict", True)
        return Layer(n, flag=strict, **kwargs)
''',
    "Setting": '''
class Setting(Outer):
    def init_layer(self, n, **kwargs):
        kwargs["flag"] = kwargs.get("strict", True)
        kwargs.pop("strict", None)
        return Layer(n, **kwargs)
''',
}
KW_SCRIPT = '''import torch

from fglib.models import {cls}


def main():
    return torch.compile({cls}({args}))(torch.randn(3, 4))
'''


@pytest.mark.parametrize("cls, args, reported", [
    ("Model", "4, heads=2, flag=False", None),
    ("Model", "4, heads=2", "shown"),
    ("Model", "4, heads=2, flag=True", "shown"),
    ("Popping", "4, flag=False", "shown"),
    ("Taking", "4, strict=False", None),
    ("Taking", "4", "shown"),
    ("Setting", "4, flag=False", "any"),
], ids=["passed-false", "left-at-default", "passed-true", "popped-before", "popped-into-a-local",
        "popped-into-a-local-default", "set-in-the-dict"])
def test_keywords_passed_on_through_kwargs_decide_the_layer(tmp_path, cls, args, reported):
    root = _library_project(tmp_path, {"layer.py": KW_LAYER, "models.py": KW_OUTER + KW_INIT_LAYER[cls]},
                            KW_SCRIPT.format(cls=cls, args=args))
    (root / SITE / "fglib" / "__init__.py").write_text("from fglib.layer import Layer\n")
    found = [f for f in _library_findings(root) if f[:3] == ("layer.py", KW_MASK_LINE, "FG304")]
    if reported is None:
        assert found == []
    elif reported == "shown":
        assert found == [("layer.py", KW_MASK_LINE, "FG304", False)]
    else:  # not followed: reported, shown or on a condition
        assert [f[:3] for f in found] == [("layer.py", KW_MASK_LINE, "FG304")]
    assert _library_breaks(root) == (set() if reported is None else {("layer.py", KW_MASK_LINE)})


# the same in the user's own code, compiled with fullgraph=True: a break on the path raises
KW_OWN = KW_LAYER.replace("import torch.nn as nn", "import torch\nfrom torch import nn").replace(
    "y = y + x[x > 0].sum()", "if x.sum() > 0:{mark}\n                y = y + 1") + KW_OUTER.split(
    "from fglib import Layer\n", 1)[1] + KW_INIT_LAYER["Model"] + '''

def main():
    m = Model(4, wide=True, heads=2{flag})
    return torch.compile(m, fullgraph=True, backend="eager")(torch.randn(3, 4))
'''


@pytest.mark.parametrize("flag, mark", [(", flag=False", ""), (", flag=True", "  # expect: FG301"),
                                        ("", "  # expect: FG301")],
                         ids=["passed-false", "passed-true", "left-at-default"])
def test_keywords_passed_on_through_kwargs_in_own_code(tmp_path, flag, mark):
    src = KW_OWN.format(flag=flag, mark=mark)
    findings = check_code(src, tmp_path, name="kwfwd")
    assert {(f.span.start.line + 1, f.code, f.severity) for f in findings} == \
        {(line, code, "error") for line, code in expected(src)}
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "kwfwd") == {line for line, _ in expected(src)}


# ---- a library's predicate of a tensor's layout (issue 27) ---------------------------------------------------
# torch_geometric's GCN: `gcn_norm` runs `add_remaining_self_loops` (a boolean mask, a break) when `not
# is_torch_sparse_tensor(edge_index)` and `add_self_loops`.  The predicate's body decides it by the argument's
# type and layout alone, and a tensor the script makes with a torch factory is dense (strided); the layer's
# `add_self_loops` is `normalize` when left None (`if add_loops is None: add_loops = normalize`); and the model's
# forward passes `edge_index` on unchanged unless `sampled` is passed (a store under `if sampled is not None:`,
# which the script's call leaves at None).  A tensor made otherwise, or a predicate that also asks for a class of
# the library's own (`isinstance(src, Sparse)`, not decided), keeps the break a condition.
SPARSE = '''import torch
from torch import Tensor


class Sparse:
    pass


def is_sparse_tensor(src) -> bool:
    """Is src a sparse tensor?"""
    if isinstance(src, Tensor):
        if src.layout == torch.sparse_coo:
            return True
        if src.layout in (torch.sparse_csr, torch.sparse_csc):
            return True
    return False


def is_sparse(src) -> bool:
    return is_sparse_tensor(src) or isinstance(src, Sparse)
'''
OPS = '''import torch.nn as nn

from fglib.sparse import {pred}


def drop_loops(edge_index, add_loops=True):
    if {pred}(edge_index):
        return edge_index
    if add_loops:
        mask = edge_index[0] != edge_index[1]
        edge_index = edge_index[:, mask]
    return edge_index


class Conv(nn.Module):
    def __init__(self, add_loops=None, normalize=True):
        super().__init__()
        if add_loops is None:
            add_loops = normalize
        self.add_loops = add_loops

    def forward(self, x, edge_index):
        edge_index = drop_loops(edge_index, self.add_loops)
        return x * edge_index.size(1)


class Net(nn.Module):
    def __init__(self, layers=2, **kwargs):
        super().__init__()
        self.convs = nn.ModuleList()
        for _ in range(layers):
            self.convs.append(Conv(**kwargs))

    def forward(self, x, edge_index, sampled=None):
        for conv in self.convs:
            if sampled is not None:
                x, edge_index = self.trim(x, edge_index, sampled)
            x = conv(x, edge_index)
        return x

    def trim(self, x, edge_index, n):
        return x[:n], edge_index[:, :n]
'''
OPS_MASK_LINE = 11  # in fglib/ops.py
GRAPH = '''import torch

from fglib.ops import Net


def main():
    x = torch.randn(4, 3)
    edge_index = {make}
    compiled = torch.compile(Net({args}))
    return compiled(x, edge_index)
'''
RANDINT = "torch.randint(0, 4, (2, 8))"


@pytest.mark.parametrize("make, args, pred, reported", [
    (RANDINT, "", "is_sparse_tensor", "shown"),
    (RANDINT, "add_loops=False", "is_sparse_tensor", None),
    (RANDINT, "add_loops=True, normalize=False", "is_sparse_tensor", "shown"),
    (RANDINT, "normalize=False", "is_sparse_tensor", "conditional"),
    ("torch.stack([torch.arange(8) % 4, torch.arange(8) % 3])", "", "is_sparse_tensor", "conditional"),
    (RANDINT, "", "is_sparse", "conditional"),
], ids=["dense-default", "loops-off", "loops-on", "loops-from-normalize", "made-otherwise", "predicate-not-decided"])
def test_a_library_predicate_of_the_layout_of_a_tensor_the_script_makes(tmp_path, make, args, pred, reported):
    root = _library_project(tmp_path, {"sparse.py": SPARSE, "ops.py": OPS.format(pred=pred)},
                            GRAPH.format(make=make, args=args))
    found = [f for f in _library_findings(root) if f[:3] == ("ops.py", OPS_MASK_LINE, "FG304")]
    if reported is None:
        assert found == []
    else:
        assert found == [("ops.py", OPS_MASK_LINE, "FG304", reported == "conditional")]
    # (the conditional ones: Dynamo breaks there for "made-otherwise" and "predicate-not-decided", not for
    # "loops-from-normalize", whose fallback's value holds by default only)
    assert _library_breaks(root) == ({("ops.py", OPS_MASK_LINE)} if reported in ("shown", "conditional") and
                                     "normalize=False" != args else set())


# ---- `hasattr(self, "_x")` on an attribute nothing sets, and the `or` test after it (issue 27) -------------
# transformers' `PreTrainedModel.loss_function` property returns `self._loss_function` when it is set (only its
# setter, which nobody calls, sets it), else looks `self.loss_type` up in LOSS_MAPPING and warns (Dynamo breaks)
# when the name is not there: GPT2LMHeadModel's `loss_type` is None, LlamaForCausalLM's is a key.  A script that
# sets the property makes `hasattr` undecided (and Dynamo takes the early return); a kind that is a key never
# reaches the warning.
LOSSES = '''import torch.nn as nn
import torch.nn.functional as F


def mse(a, b):
    return F.mse_loss(a, b)


LOSSES = {{"mse": mse}}


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.kind = {kind!r}

    @property
    def loss_fn(self):
        if hasattr(self, "_loss_fn"):
            return self._loss_fn
        kind = getattr(self, "kind", None)
        if kind is None or kind not in LOSSES:
            print("unknown loss kind")
            kind = "mse"
        return LOSSES[kind]

    @loss_fn.setter
    def loss_fn(self, value):
        self._loss_fn = value

    def forward(self, x):
        y = self.lin(x)
        return self.loss_fn(y, x)
'''
WARN_LINE = 24  # in fglib/losses.py
LOSS_SCRIPT = '''import torch
import torch.nn.functional as F

from fglib.losses import Base


def main():
    model = Base()
    {setup}
    return torch.compile(model)(torch.randn(2, 4))
'''


@pytest.mark.parametrize("kind, setup, reported", [
    ("other", "", "shown"),
    ("mse", "", None),
    ("other", "model.loss_fn = F.l1_loss", "conditional"),
], ids=["never-set-unknown-kind", "never-set-known-kind", "set-by-the-script"])
def test_hasattr_of_an_attribute_only_an_unused_setter_stores_is_false(tmp_path, kind, setup, reported):
    root = _library_project(tmp_path, {"losses.py": LOSSES.format(kind=kind)}, LOSS_SCRIPT.format(setup=setup))
    found = [f for f in _library_findings(root) if f[:2] == ("losses.py", WARN_LINE)]
    assert [f[3] for f in found] == ([] if reported is None else [reported == "conditional"])
    assert _library_breaks(root) == ({("losses.py", WARN_LINE)} if reported == "shown" else set())


# ---- layers built in a loop, each with its own flag from the loop index (issue 27) ---------------------------
# transformers' NLLB-MoE: `for i in range(config.encoder_layers): is_sparse = (i + 1) % config.encoder_sparse_step
# == 0; self.layers.append(Layer(config, is_sparse))`, and `forward` runs every layer: with the values the
# script's config passes, `if self.is_sparse:` is true for one layer and false for another (both paths run), or
# false for all (the sparse path never runs); a value the analysis cannot compute keeps it a condition.
LOOP_CONFIG = {
    "class": '''
class Config:
    def __init__(self, num_layers=4, sparse_step=4):
        self.num_layers = num_layers
        self.sparse_step = sparse_step
''',
    "dataclass": '''
@dataclass
class Config:
    num_layers: int = 4
    sparse_step: int = 4
''',
}
LOOP_BUILD = {
    "loop": '''        sparse_step = config.sparse_step
        self.layers = nn.ModuleList()
        for i in range(config.num_layers):
            is_sparse = (i + 1) % sparse_step == 0 if sparse_step > 0 else False
            self.layers.append(Layer(config, is_sparse, layer_idx=i))
''',
    "comprehension": '''        self.layers = nn.ModuleList(
            [Layer(config, is_sparse=i % config.sparse_step == 1, layer_idx=i) for i in range(config.num_layers)])
''',
}
LOOP_MODEL = '''from dataclasses import dataclass

import torch
from torch import nn
{config}

class Layer(nn.Module):
    def __init__(self, config, is_sparse=False, layer_idx=0):
        super().__init__()
        self.is_sparse = is_sparse
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        if self.is_sparse:
            print("routing"){mark}
        return self.lin(x)


class Stack(nn.Module):
    def __init__(self, config):
        super().__init__()
{build}
    def forward(self, x):
{run}        return x


def main():
    config = Config(num_layers={layers}, sparse_step={step}){setup}
    model = Stack(config)
    return torch.compile(model, fullgraph=True, backend="eager")(torch.randn(3, 4))
'''
EVERY_LAYER = '''        for layer in self.layers:
            x = layer(x)
'''


@pytest.mark.parametrize("config, build, layers, step, setup, run, reported", [
    ("class", "loop", 2, 2, "", EVERY_LAYER, "shown"),
    ("dataclass", "loop", 2, 2, "", EVERY_LAYER, "shown"),
    ("class", "loop", 2, 3, "", EVERY_LAYER, None),  # no layer sparse (a step past the last layer)
    ("class", "loop", 2, 0, "", EVERY_LAYER, None),  # (step 0: none sparse)
    ("dataclass", "loop", 2, 3, "", EVERY_LAYER, None),
    ("class", "comprehension", 3, 2, "", EVERY_LAYER, "shown"),
    ("class", "comprehension", 1, 2, "", EVERY_LAYER, None),
    # a store in the field before the model is built: not known (a condition), as before
    ("class", "loop", 2, 2, "\n    config.sparse_step = 3", EVERY_LAYER, "conditional"),
    # only the first layer runs: which layers run is not read (a condition)
    ("class", "loop", 2, 2, "", "        x = self.layers[0](x)\n", "conditional"),
], ids=["some-sparse", "dataclass-some-sparse", "none-sparse", "step-zero", "dataclass-none-sparse",
        "comprehension-some-sparse", "comprehension-none-sparse", "field-stored-after", "not-every-layer-runs"])
def test_layers_built_in_a_loop_take_their_own_path(tmp_path, config, build, layers, step, setup, run, reported):
    src = LOOP_MODEL.format(config=LOOP_CONFIG[config], build=LOOP_BUILD[build], layers=layers, step=step,
                            setup=setup, run=run, mark="  # expect: FG101" if reported == "shown" else "")
    findings = check_code(src, tmp_path, name="layers")
    got = [(f.span.start.line + 1, f.code, bool(f.condition)) for f in findings]
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if 'print("routing")' in ln)
    if reported is None:
        assert got == []
    else:
        assert got == [(line, "FG101", reported == "conditional")]
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "layers") == {ln for ln, _ in expected(src)}


# the same inside a followed library, compiled as transformers' models are (fullgraph=False): a site shown
# or not, and Dynamo's breaks in the library
LIB_LAYERS = LOOP_MODEL.split("\n\ndef main():")[0].replace("from dataclasses import dataclass\n\n", "").format(
    config=LOOP_CONFIG["class"], build=LOOP_BUILD["loop"], run=EVERY_LAYER, mark="")
LIB_SCRIPT = '''import torch

from fglib.layers import Config, Stack


def main():
    model = Stack(Config(num_layers=2, sparse_step={step}))
    return torch.compile(model)(torch.randn(3, 4))
'''


@pytest.mark.parametrize("step, shown", [(2, True), (3, False)], ids=["some-sparse", "none-sparse"])
def test_layers_built_in_a_loop_in_a_followed_library(tmp_path, step, shown):
    root = _library_project(tmp_path, {"layers.py": LIB_LAYERS}, LIB_SCRIPT.format(step=step))
    line = next(i for i, ln in enumerate(LIB_LAYERS.splitlines(), 1) if 'print("routing")' in ln)
    found = [f for f in _library_findings(root) if f[:2] == ("layers.py", line)]
    assert found == ([("layers.py", line, "FG101", False)] if shown else [])
    assert _library_breaks(root) == ({("layers.py", line)} if shown else set())


def test_hasattr_decision_follows_the_script_being_edited(tmp_path):
    """In the editor the absence of `_loss_fn` is kept from one keystroke to the next (an edit of the script
    elsewhere does not read the library again), and typing a store of the property undoes it at once."""
    from fullgraph.api import Workspace
    from fullgraph.config import Config

    root = _library_project(tmp_path, {"losses.py": LOSSES.format(kind="other")}, LOSS_SCRIPT.format(setup=""))
    ws = Workspace(Config(project_root=str(root), follow=["fglib"], extra_paths=[SITE.as_posix()]), use_cache=False)
    script = str(root / "train.py")
    text = (root / "train.py").read_text()

    def warn_sites(new_text: str) -> list[bool]:
        """Whether each finding at the library's warning is conditional, as the editor gets them."""
        ws.set_text(script, new_text)
        return [f.condition is not None for f in ws.findings_for([script], fixes=False)
                if f"fglib.losses:{WARN_LINE}:" in f.message]

    shown = warn_sites(text)
    assert shown == [False]
    assert warn_sites(text + "\n# an edit elsewhere\n") == [False]
    assert warn_sites(text.replace("    model = Base()\n", "    model = Base()\n    model.loss_fn = F.l1_loss\n")) \
        == [True]
    assert warn_sites(text) == [False]


# ---- the index of `for i, layer in enumerate(self.layers)` (issue 27) -------------------------------------
# transformers' WavLM encoder: `if self.training and i > 0 and self.config.layerdrop > 0.0:` inside the layer loop.
# Dynamo unrolls the loop over the module list, so a branch on the index is traced when one of the layers' indices
# takes it: with one layer `i > 0` never holds (no break), with two it holds at the second (a break).  The layer
# count is what the construction passes to the range the `__init__` builds the list over.
STACK = '''\
import torch
import torch.nn as nn


class Layer(nn.Module):
    def forward(self, x):
        return x + 1


class Stack(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(depth)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            if i > 0:
                print("layer", i)
            x = layer(x)
        return x
'''
STACK_PRINT = 18
STACK_SCRIPT = '''import torch

from fglib.stack import Stack


def main():
    return torch.compile(Stack({args}))(torch.randn(4))
'''


@pytest.mark.parametrize("args, shown", [("depth=1", False), ("depth=2", True), ("", True)],
                         ids=["one-layer", "two-layers", "default-depth"])
def test_a_test_of_the_loop_index_holds_when_one_layer_index_passes_it(tmp_path, args, shown):
    code = STACK + STACK_SCRIPT.replace("from fglib.stack import Stack\n", "").format(args=args)
    user = tmp_path / "user"
    user.mkdir()
    assert [(f.span.start.line + 1, f.code, f.condition) for f in check_code(code, user, name="stack")] == \
        ([(STACK_PRINT, "FG101", None)] if shown else [])
    root = _library_project(tmp_path / "lib", {"stack.py": STACK}, STACK_SCRIPT.format(args=args))
    assert [f for f in _library_findings(root) if f[:2] == ("stack.py", STACK_PRINT)] == \
        ([("stack.py", STACK_PRINT, "FG101", False)] if shown else [])
    assert _library_breaks(root) == ({("stack.py", STACK_PRINT)} if shown else set())


# Sizes the script's tensors fix: Dynamo specialises them into ints in the first compile, so a test of a size (or of
# a local unpacked from `x.size()` and passed on) is decided by the shape of what the visible call passes.  A tensor
# reshaped before it is passed on (`x.view(-1)`) has another shape: its tests stay undecided (taken, in user code).
SIZES = '''\
import torch
import torch.nn as nn


class Attn(nn.Module):
    def forward(self, hidden_states):
        if hidden_states.size(1) in [1024, 3072]:
            print("old plan")  # at-1024
        batch_size, seqlen, _ = hidden_states.size()
        if seqlen % 2 == 0:
            print("even")  # expect: FG101
        self.flat(hidden_states.view(-1))
        return self.sparse(hidden_states, seqlen)

    def flat(self, y):
        if y.dim() == 1:
            print("flat")  # expect: FG101

    def sparse(self, h, from_seq_len):
        if from_seq_len in [1024, 3072]:
            print("old plan")  # at-1024
        return h * 2


def main():
    x = torch.randn(2, SEQ, 8)
    return torch.compile(Attn())(x)
'''


@pytest.mark.parametrize("seq", [32, 1024])
def test_a_size_the_scripts_tensor_fixes_decides_the_branch(tmp_path, seq):
    code = SIZES.replace("SEQ", str(seq)).replace("# at-1024", "# expect: FG101" if seq == 1024 else "# not at 32")
    _found_where_dynamo_breaks(code, tmp_path, f"sizes_{seq}")


# A tensor the script reshapes in place after making it (`y.unsqueeze_(0)`) has another shape than its factory call
# says: the test of its size is not decided by the factory's sizes (it was: a silent miss).
RESHAPED_IN_PLACE = '''\
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        if x.size(0) == 1:
            print("one")  # expect: FG101
        return x * 2


def main():
    y = torch.randn(4, 16)
    y.unsqueeze_(0)
    return torch.compile(Net())(y)
'''


def test_a_tensor_reshaped_in_place_is_not_of_its_factorys_shape(tmp_path):
    _found_where_dynamo_breaks(RESHAPED_IN_PLACE, tmp_path, "reshaped_in_place")


# The size a test reads deep inside a model is the script's, carried through what the model computes on the way
# (engine/called.py, engine/shapes.py): a helper that returns a tuple, an embedding and a sum of embeddings, a norm
# and a dropout, a method behind a decorator that returns `fn(*args, **kwargs)`, `.view(b, n, -1)`, and a loop whose
# every layer keeps its input's shape (`h = layer(h)`: each iteration's input is the one before's output).  BigBird's
# block-sparse attention tests its sequence length so (`if from_seq_len in [1024, 3072, 4096]`).
THROUGH_LAYERS = '''\
import functools

import torch
import torch.nn as nn


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.words = nn.Embedding(100, 8)
        self.types = nn.Embedding(2, 8)
        self.norm = nn.LayerNorm(8)
        self.drop = nn.Dropout(0.1)

    def forward(self, ids, types):
        h = self.words(ids) + self.types(types)
        h += self.words(ids)
        return self.drop(self.norm(h))


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    @logged
    def forward(self, hidden_states):
        batch_size, seqlen, _ = hidden_states.size()
        out = self.sparse(hidden_states, seqlen)
        return out.contiguous().view(batch_size, seqlen, -1)

    def sparse(self, h, from_seq_len):
        if from_seq_len in [1024, 3072]:
            print("old plan")  # at-1024
        return self.proj(h)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attn()
        self.out = nn.Linear(8, 8)
        self.act = nn.GELU()

    def forward(self, x):
        a = self.attn(x)
        return self.out(self.act(a)) + x


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.embed = Embed()
        self.layers = nn.ModuleList([Layer() for _ in range(n)])

    def _pad(self, ids, block):
        pad = (block - ids.size(1) % block) % block
        if pad > 0:
            ids = nn.functional.pad(ids, (0, pad))
        return pad, ids

    def forward(self, ids):
        pad, ids = self._pad(ids, BLOCK)
        types = torch.zeros(ids.shape, dtype=torch.long)
        h = self.embed(ids, types)
        for layer in self.layers:
            h = layer(h)
        return h


def main():
    ids = torch.randint(0, 100, (2, SEQ))
    return torch.compile(Model(2))(ids)
'''


@pytest.mark.parametrize("loop", ["for layer in self.layers:", "for i, layer in enumerate(self.layers):"],
                         ids=["in", "enumerate"])
@pytest.mark.parametrize("seq", [32, 1024])
def test_a_size_the_model_carries_through_its_layers_decides_the_branch(tmp_path, seq, loop):
    code = THROUGH_LAYERS.replace("SEQ", str(seq)).replace("BLOCK", "8").replace("for layer in self.layers:", loop)
    code = code.replace("# at-1024", "# expect: FG101" if seq == 1024 else "# not at 32")
    _found_where_dynamo_breaks(code, tmp_path, f"through_layers_{seq}")


def test_a_size_a_layer_changes_is_not_the_first_iterations(tmp_path):
    """Each layer one token longer: 1023 tokens in, the second layer's attention sees 1024 and breaks; the loop does
    not keep the shape, so the size is not known past the first iteration (it was taken as the first's: a miss)."""
    code = THROUGH_LAYERS.replace("SEQ", "1023").replace("BLOCK", "1").replace("# at-1024", "# expect: FG101")
    code = code.replace("        return self.out(self.act(a)) + x\n",
                        "        y = self.out(self.act(a)) + x\n        return torch.cat([y, y[:, :1]], dim=1)\n")
    _found_where_dynamo_breaks(code, tmp_path, "through_growing_layers")


# In a followed library, by default: the class `__init__` picks (`Sparse` for the default config) though a method may
# swap it (`set_kind()`, which nothing calls), the config a layer is built with though a class nothing builds passes
# another (`Head`, built only by `ForQuestions`), and the script's ids passed inline.  32 tokens: held as a condition
# (false by default: the program may call set_kind); 1024: a break.
LIB_THROUGH_LAYERS = '''\
import torch
import torch.nn as nn


class Config:
    def __init__(self, kind="sparse", width=8):
        self.kind = kind
        self.width = width


class Sparse(nn.Module):
    def forward(self, h):
        batch, seqlen, _ = h.size()
        if seqlen in [1024, 3072]:
            print("old plan")
        return h * 2


class Full(nn.Module):
    def forward(self, h):
        return torch.softmax(h @ h.transpose(1, 2), -1) @ h


class Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.kind = config.kind
        if config.kind == "full":
            self.inner = Full()
        else:
            self.inner = Sparse()

    def set_kind(self, kind):
        self.kind = kind
        self.inner = Full() if kind == "full" else Sparse()

    def forward(self, x):
        return self.inner(x) + x


class Head(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attn = Attention(config)


class ForQuestions(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.head = Head(config)


class Stack(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Embedding(100, config.width)
        self.layers = nn.ModuleList([Attention(config) for _ in range(2)])

    def forward(self, ids):
        h = self.embed(ids)
        for layer in self.layers:
            h = layer(h)
        return h
'''

LIB_THROUGH_SCRIPT = '''\
import torch
from fglib.model import Config, Stack


def main():
    model = Stack(Config())
    return torch.compile(model)(torch.randint(0, 100, (2, {seq})))
'''


@pytest.mark.parametrize("seq, shown", [(32, False), (1024, True)])
def test_a_size_a_followed_librarys_layers_carry_decides_the_branch(tmp_path, seq, shown):
    root = _library_project(tmp_path, {"model.py": LIB_THROUGH_LAYERS}, LIB_THROUGH_SCRIPT.format(seq=seq))
    line = next(i for i, ln in enumerate(LIB_THROUGH_LAYERS.splitlines(), 1) if 'print("old plan")' in ln)
    assert _library_findings(root) == [("model.py", line, "FG101", not shown)]
    assert _library_breaks(root) == ({("model.py", line)} if shown else set())


# A loop over a sequence the run computes (`range(last + 1)` of a plan a helper builds with `list.append`) runs one
# iteration per item, as Dynamo unrolls it: a branch some iteration takes is traced (BigBird's random-attention plan,
# `if plan_num_rand_blocks[plan_idx] == 0: continue` ... in training), one no iteration takes is not.  Inside a
# followed library a value read from the config's defaults decides by default only (a condition, hidden).
LIB_PLAN = '''\
import torch
import torch.nn as nn


class Config:
    def __init__(self, block=2, rand=2):
        self.block = block
        self.rand = rand


def plan(n, block, rand):
    lengths, counts = [], []
    if (2 * rand + 5) < n // block:
        lengths.append((2 * rand + 5) * block)
        counts.append(rand)
    lengths.append(n)
    counts.append(0)
    return lengths, counts


class Mixer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.block = config.block
        self.rand = config.rand

    def forward(self, x):
        batch, n, _ = x.size()
        lengths, counts = plan(n, self.block, self.rand)
        last = lengths.index(n)
        for i in range(last + 1):
            if counts[i] == 0:
                continue
            if i > 0:
                print("later plan")
            print("first plan")
        return x * 2
'''

LIB_PLAN_SCRIPT = '''\
import torch
from fglib.mixer import Config, Mixer


def main():
    return torch.compile(Mixer(Config({args})))(torch.randn(2, 32, 8))
'''


@pytest.mark.parametrize("args, first, later", [
    ("", "shown", "conditional"),  # (the defaults: the other iterations are not known for certain)
    ("block=2, rand=2", "shown", None),
    ("block=4, rand=2", None, None),  # (one plan length, no random blocks: every iteration continues)
], ids=["defaults", "passed", "no-plan"])
def test_an_iteration_of_a_loop_the_run_unrolls_decides_the_branch(tmp_path, args, first, later):
    root = _library_project(tmp_path, {"mixer.py": LIB_PLAN}, LIB_PLAN_SCRIPT.format(args=args))
    lines = {k: next(i for i, ln in enumerate(LIB_PLAN.splitlines(), 1) if f'print("{k} plan")' in ln)
             for k in ("first", "later")}
    want = sorted(("mixer.py", lines[k], "FG101", how == "conditional")
                  for k, how in (("first", first), ("later", later)) if how is not None)
    assert _library_findings(root) == want
    assert _library_breaks(root) == ({("mixer.py", lines["first"])} if first else set())


def test_a_later_iterations_break_is_hidden_behind_the_first_iterations(tmp_path):
    """The first iteration breaks (unresumably: inside the `for`) at a later line than the second iteration's branch:
    Dynamo runs the rest of the function uncompiled and never traces the second iteration's break, which is held
    "only when the graph break at line N is fixed" (engine/frames.py ordered the breaks by line: it was shown, and
    the one Dynamo meets held behind it)."""
    code = LIB_PLAN.replace("""            if counts[i] == 0:
                continue
            if i > 0:
                print("later plan")
""", """            if i > 0:
                print("later plan")
            if counts[i] == 0:
                continue
""")
    root = _library_project(tmp_path, {"mixer.py": code}, LIB_PLAN_SCRIPT.format(args="block=2, rand=2"))
    lines = {k: next(i for i, ln in enumerate(code.splitlines(), 1) if f'print("{k} plan")' in ln)
             for k in ("first", "later")}
    assert lines["later"] < lines["first"]
    assert _library_findings(root) == sorted([("mixer.py", lines["first"], "FG101", False),
                                              ("mixer.py", lines["later"], "FG101", True)])
    assert _library_breaks(root) == {("mixer.py", lines["first"])}


# A project function that picks the class by a constant it is passed (`make_block("quiet")`): only the classes of the
# `return`s that constant reaches (Loud's break was shown although that call makes a Quiet).
FACTORY_PICKED = '''\
import torch
import torch.nn as nn


def make_block(kind, scale=1):
    if kind == "loud":
        return Loud()
    if scale > 1:
        return Scaled()
    return Quiet()


class Quiet(nn.Module):
    def forward(self, x):
        return x + 1


class Loud(nn.Module):
    def forward(self, x):
        print("loud")  # at-loud
        return x * 2


class Scaled(nn.Module):
    def forward(self, x):
        print("scaled")  # at-scaled
        return x * 3


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = make_block(KIND)

    def forward(self, x):
        return self.block(x)


def main():
    return torch.compile(Net())(torch.ones(2))
'''


@pytest.mark.parametrize("kind", ['"quiet"', '"loud"', '"quiet", scale=2', 'kind="quiet", scale=1'])
def test_a_factory_picks_the_class_of_the_constants_it_is_passed(tmp_path, kind):
    code = FACTORY_PICKED.replace("KIND", kind)
    code = code.replace("# at-loud", "# expect: FG101" if kind == '"loud"' else "# not this one")
    code = code.replace("# at-scaled", "# expect: FG101" if "scale=2" in kind else "# not this one")
    _found_where_dynamo_breaks(code, tmp_path, "factory_picked")


# What the process's environment decides: a plain run has no such environment variable set and torch.distributed not
# initialized, so Dynamo traces neither branch; a launcher or the user's shell may take them: conditions, worded with
# the test.  A variable the program sets itself (`os.environ["FG_PROBE_VERBOSE"] = "1"`) is not held so.
ENVIRONMENT = '''\
import os

import torch
import torch.distributed as dist
import torch.nn as nn

SETS


class Net(nn.Module):
    def forward(self, x):
        if dist.is_available() and dist.is_initialized() and dist.get_rank() == 0:
            print("rank 0")  # when: `dist.is_initialized()`
        if os.environ.get("FG_PROBE_VERBOSE") == "1":
            print("verbose")  # AT_VERBOSE
        if "FG_PROBE_TRACE" in os.environ:
            print("trace")  # when: `"FG_PROBE_TRACE" in os.environ`
        return x + 1


def main():
    return torch.compile(Net())(torch.ones(2))
'''


@pytest.mark.parametrize("sets", [False, True])
def test_what_the_environment_decides_is_a_condition(tmp_path, sets, monkeypatch):
    for k in ("FG_PROBE_VERBOSE", "FG_PROBE_TRACE"):
        monkeypatch.delenv(k, raising=False)
    code = ENVIRONMENT.replace("SETS", 'os.environ["FG_PROBE_VERBOSE"] = "1"' if sets else "")
    code = code.replace("# AT_VERBOSE", "# expect: FG101" if sets else
                        '# when: `os.environ.get("FG_PROBE_VERBOSE") == "1"`')
    findings = check_code(code, tmp_path, name="environment")
    assert {(f.span.start.line + 1, f.code) for f in findings if f.condition is None} == expected(code)
    lines = code.splitlines()
    held = {(f.span.start.line + 1, f.condition) for f in findings if f.condition is not None}
    assert held == {(i, line.split("# when: ", 1)[1]) for i, line in enumerate(lines, 1) if "# when: " in line}
    assert dynamo_lines(tmp_path, "environment") == {line for line, _ in expected(code)}

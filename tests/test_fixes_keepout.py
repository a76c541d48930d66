"""Keep-out-of-the-graph remedies as the user sees them: the offered titles and the fixed text.

`split` (the guide's Strategy 3 and its training-step split) for roots compiled by a decorator or a
call, methods, closures and loop/with headers; `hoist` (object creation moved to `__init__`).
Dynamo's verdict on each remedy is in tests/test_fixes_oracle.py (tests/fix_fixtures/cases.py).
"""
from __future__ import annotations

from harness import check_code, dedent

from fullgraph.fixes.base import TextEdit, apply_edits


def offers(code: str, code_id: str | None = None) -> dict[str, dict[str, str]]:
    """{"FGnnn@line": {fix id: title}} with lines as written in `code` (leading newline = line 1)."""
    shift = 2 if code.startswith("\n") else 1
    out = {}
    for f in check_code(dedent(code)):
        if code_id is None or f.code == code_id:
            out[f"{f.code}@{f.span.start.line + shift}"] = {r.id: r.title for r in f.fixes}
    return out


def fixed(code: str, fix_id: str, key: str) -> str:
    shift = 2 if code.startswith("\n") else 1
    code = dedent(code)
    for f in check_code(code):
        if f"{f.code}@{f.span.start.line + shift}" == key and fix_id in f.data.get("fix_edits", {}):
            return apply_edits(code, [TextEdit.from_data(d) for d in f.data["fix_edits"][fix_id]])
    raise AssertionError(f"{fix_id} not offered for {key}: {offers(code)}")


TRAIN_STEP = """import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(fullgraph=True)
def train_step(x, y):
    optimizer.zero_grad()
    out = model(x)
    # the loss
    loss = (out - y).pow(2).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()
"""


def test_training_step_split_in_one_go():
    o = offers(TRAIN_STEP)
    title = ("Split `train_step`: compile `_train_step_part1`, `_train_step_part2` and run "
             "`optimizer.zero_grad()` (and 2 more statements that break the graph) uncompiled")
    for key in ("FG207@9", "FG501@13", "FG502@14"):
        assert o[key]["split"] == title, o
    new = fixed(TRAIN_STEP, "split", "FG501@13")
    assert new == """import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_step(x, y):
    optimizer.zero_grad()
    loss = _train_step_part1(x, y)
    loss.backward()
    optimizer.step()
    return _train_step_part2(loss)


@torch.compile(fullgraph=True)
def _train_step_part1(x, y):
    out = model(x)
    # the loss
    loss = (out - y).pow(2).mean()
    return loss


@torch.compile(fullgraph=True)
def _train_step_part2(loss):
    return loss.detach()
"""
    assert check_code(new) == []


def test_split_of_a_function_compiled_by_a_call_keeps_its_options():
    code = TRAIN_STEP.replace("@torch.compile(fullgraph=True)\n", "") + \
        "\n\nstep = torch.compile(train_step, fullgraph=True, dynamic=False)\n"
    new = fixed(code, "split", "FG501@12")
    assert "\nstep = train_step\n" in new
    assert new.count("@torch.compile(fullgraph=True, dynamic=False)\ndef _train_step_part") == 2
    assert "\ndef train_step(x, y):\n    optimizer.zero_grad()\n    loss = _train_step_part1(x, y)\n" in new
    assert check_code(new) == []


def test_split_removes_a_rebinding_compile_statement():
    code = TRAIN_STEP.replace("@torch.compile(fullgraph=True)\n", "") + \
        "\n\ntrain_step = torch.compile(train_step)\n\n\ndef main():\n    return train_step\n"
    new = fixed(code, "split", "FG502@13")
    assert "torch.compile(train_step)" not in new
    assert "@torch.compile\ndef _train_step_part1(x, y):" in new
    assert "\n\n\n\n" not in new  # the statement's blank lines went with it
    assert check_code(new) == []


def test_split_of_a_method_compiled_in_init():
    code = """
import torch

opt = None


class Trainer:
    def __init__(self, model):
        self.model = model
        self._step = torch.compile(self._compute)

    def _compute(self, x):
        loss = self.model(x).sum()
        loss.backward()
        return loss.detach()
"""
    o = offers(code, "FG501")
    assert o["FG501@14"]["split"] == ("Split `_compute`: compile `_compute_part1`, `_compute_part2` and run "
                                      "`loss.backward()` uncompiled")
    new = fixed(code, "split", "FG501@14")
    assert "        self._step = self._compute\n" in new
    assert """    def _compute(self, x):
        loss = self._compute_part1(x)
        loss.backward()
        return self._compute_part2(loss)

    @torch.compile
    def _compute_part1(self, x):
        loss = self.model(x).sum()
        return loss

    @torch.compile
    def _compute_part2(self, loss):
        return loss.detach()
""" in new


def test_split_of_a_closure_returned_compiled():
    code = """
import torch


def make_step(model, opt, sched):
    def step(x):
        loss = model(x).sum()
        loss.backward()
        opt.step()
        sched.step()
        return loss.detach(), sched.get_last_lr()[0]

    return torch.compile(step)


def main():
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return make_step(model, opt, torch.optim.lr_scheduler.StepLR(opt, 1))
"""
    new = fixed(code, "split", "FG501@8")
    assert """    def step(x):
        loss = _step_part1(x)
        loss.backward()
        opt.step()
        sched.step()
        return loss.detach(), sched.get_last_lr()[0]

    @torch.compile
    def _step_part1(x):
        loss = model(x).sum()
        return loss

    return step
""" in new


def test_split_keeps_a_loop_header_uncompiled_and_compiles_its_body():
    code = """
import torch
from tqdm import tqdm


@torch.compile(fullgraph=True)
def predict(model, batches):
    preds = []
    for b in tqdm(batches):
        preds.append(model(b).sigmoid())
    return torch.cat(preds)
"""
    o = offers(code, "FG111")
    assert o["FG111@9"]["split"].startswith("Split `predict`: compile `_predict_part1`, `_predict_part2` and run "
                                            "`for b in tqdm(batches)` uncompiled")
    new = fixed(code, "split", "FG111@9")
    assert """def predict(model, batches):
    preds = []
    for b in tqdm(batches):
        _predict_part1(preds, model, b)
    return _predict_part2(preds)


@torch.compile(fullgraph=True)
def _predict_part1(preds, model, b):
    preds.append(model(b).sigmoid())
""" in new


def test_run_uncompiled_when_nothing_else_would_be_compiled():
    code = """
import torch

opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)


@torch.compile(fullgraph=False)
def opt_step():
    opt.step()
"""
    o = offers(code, "FG502")
    assert o["FG502@9"]["split"] == ("Run `opt_step` uncompiled: nothing in it but `opt.step()` would be compiled "
                                     "(remove `@torch.compile(fullgraph=False)`)")
    assert "@torch.compile" not in fixed(code, "split", "FG502@9")


def test_split_module_compiles_the_pieces_of_forward_instead_of_the_module():
    code = """
import json
import torch


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)
        self.config = {"scale": 2.0}

    def forward(self, x):
        key = json.dumps(self.config)
        return self.fc(x) * len(key)


head = torch.compile(Head(), fullgraph=True)
"""
    o = offers(code, "FG106")["FG106@13"]
    assert "split" not in o  # the module, not forward, is what is compiled
    assert o["split-module"] == (
        "Compile the pieces of `forward` (`_forward_part1`) instead of the whole module and run "
        "`key = json.dumps(self.config)` uncompiled (`torch.compile(Head(), fullgraph=True)` becomes the module "
        "itself: no `_orig_mod.` in its state_dict keys)")
    new = fixed(code, "split-module", "FG106@13")
    assert """    def forward(self, x):
        key = json.dumps(self.config)
        return self._forward_part1(x, key)

    @torch.compile(fullgraph=True)
    def _forward_part1(self, x, key):
        return self.fc(x) * len(key)


head = Head()
""" in new
    assert check_code(new) == []


def test_run_uncompiled_by_call_when_every_statement_breaks():
    code = """
import torch


def objective(model, x):
    torch.manual_seed(0)
    return torch.save(model(x), "/dev/null")


def main(model, x):
    return torch.compile(objective)(model, x)
"""
    o = offers(code, "FG204")["FG204@6"]
    assert o["split"] == ("Run `objective` uncompiled: nothing in it but `torch.manual_seed(0)` (and 1 more statement "
                          "that breaks the graph) would be compiled (call it without `torch.compile`)")
    assert "    return objective(model, x)\n" in fixed(code, "split", "FG204@6")


def test_split_gives_up_cleanly():
    # a module compiled as a whole: its forward stays traced whatever the glue does
    assert "split" not in offers("""
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        loss = x.sum()
        loss.backward()
        return loss


net = torch.compile(Net())
""", "FG501")["FG501@8"]
    # options that are not literals cannot move to a decorator
    assert "split" not in offers("""
import torch


def step(x):
    loss = x.sum()
    loss.backward()
    return loss.detach()


def main(mode):
    return torch.compile(step, mode=mode)
""", "FG501")["FG501@7"]
    # a piece would `break` out of the loop
    assert "split" not in offers("""
import torch


@torch.compile
def f(xs):
    total = 0
    for x in xs:
        if x.shape[0] == 0:
            break
        loss = x.sum()
        loss.backward()
        total = total + loss.detach()
    return total
""", "FG501")["FG501@12"]


LAZY = """
import torch
import torch.nn as nn


class Stats(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self._installed = False

    def _install(self):
        for mod in self.model.modules():
            mod.register_forward_hook(lambda m, i, o: None)
        self._installed = True

    def forward(self, x):
        # hooks on the first call
        if not self._installed:
            self._install()
        return self.model(x)


net = torch.compile(Stats(nn.Linear(2, 2)))
"""


def test_hoist_moves_a_lazy_setup_block_to_init():
    o = offers(LAZY, "FG503")
    assert o["FG503@14"]["hoist-init"] == ("Move the lazy set-up `if not self._installed:` from `forward` to the end "
                                           "of `__init__` (it runs once when the object is built, not at the first "
                                           "call)")
    assert "split" not in o["FG503@14"]  # a module compiled as a whole is not split
    new = fixed(LAZY, "hoist-init", "FG503@14")
    assert """        self._installed = False
        # hooks on the first call
        if not self._installed:
            self._install()

    def _install(self):""" in new
    assert """    def forward(self, x):
        return self.model(x)
""" in new
    assert check_code(new) == []


def test_hoist_not_offered_when_the_block_needs_the_call():
    # the size comes from the input: __init__ cannot know it
    assert "hoist-init" not in offers("""
import torch
import torch.nn as nn


class LazyScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = None

    def forward(self, x):
        if self.scale is None:
            self.scale = nn.Parameter(torch.ones(x.shape[-1]))
        return x * self.scale


m = torch.compile(LazyScale())
""", "FG504")["FG504@13"]
    # the first call returns early: moving the block would change what that call does
    assert "hoist-init" not in offers("""
import copy
import torch
import torch.nn as nn


class EMA(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.ema = None

    def forward(self, x):
        if self.ema is None:
            self.ema = copy.deepcopy(self.model)
            return self.model(x)
        return self.model(x) + self.ema(x)


m = torch.compile(EMA(nn.Linear(2, 2)))
""", "FG113")["FG113@15"]

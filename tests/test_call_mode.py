"""The mode a compiled module runs in is the mode at each call, not at the compile line: `model.eval()`
or `model.train()` after `torch.compile(model)` (on the module or on the compiled object) decides which
`if self.training:` paths Dynamo traces; a script that calls in both modes takes both.  Each script's
main() also runs under Dynamo, which must break exactly where fullgraph says."""
from __future__ import annotations

import textwrap

import pytest
from fullgraph.api import Workspace
from fullgraph.config import Config
from harness import check_code, dynamo_lines, expected

NET = '''\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        if self.training:
            print("training")  # train
        else:
            print("evaluating")  # eval
        return self.lin(x)


'''

SCRIPTS = {
    # the mode set after the compile line is the one the call runs in
    "train_after_eval_compile": ('''\
        def main():
            model = Net()
            model.eval()
            compiled = torch.compile(model)
            model.train()
            return compiled(torch.randn(2, 4))
        ''', {"train"}),
    "eval_after_compile": ('''\
        def main():
            model = Net()
            compiled = torch.compile(model)
            model.eval()
            with torch.no_grad():
                return compiled(torch.randn(2, 4))
        ''', {"eval"}),
    # the compiled object's own .eval() puts the module in eval mode
    "compiled_object_eval": ('''\
        def main():
            model = torch.compile(Net())
            model.eval()
            return model(torch.randn(2, 4))
        ''', {"eval"}),
    "compiled_eval_then_module_train": ('''\
        def main():
            model = Net()
            compiled = torch.compile(model)
            compiled.eval()
            compiled(torch.randn(2, 4))
            model.train()
            return compiled(torch.randn(2, 4))
        ''', {"eval", "train"}),
    # a training step and an evaluation step: both paths
    "both_modes_in_steps": ('''\
        def main():
            model = torch.compile(Net())

            def train_step(x):
                model.train()
                return model(x)

            def evaluate(x):
                model.eval()
                with torch.no_grad():
                    return model(x)

            train_step(torch.randn(2, 4))
            return evaluate(torch.randn(2, 4))
        ''', {"eval", "train"}),
    # without any mode change the module trains (nn.Module's default; the other path is only
    # conditional: code the analysis does not see may call `.eval()`)
    "default_mode": ('''\
        def main():
            return torch.compile(Net())(torch.randn(2, 4))
        ''', {"train"}),
}


def _lines(marks: set[str]) -> set[int]:
    return {i for i, line in enumerate(NET.splitlines(), 1) for m in marks if line.endswith(f"# {m}")}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_mode_at_each_call_decides_the_path(name, tmp_path):
    script, marks = SCRIPTS[name]
    (tmp_path / "modes").mkdir()
    (tmp_path / "modes" / "__init__.py").write_text("")
    path = tmp_path / "modes" / f"{name}.py"
    path.write_text(NET + textwrap.dedent(script))
    res = Workspace(Config(project_root=str(tmp_path))).check([path])
    shown = {f.span.start.line + 1 for f in res.findings if f.condition is None}
    assert shown == _lines(marks)
    if name != "default_mode":  # (no mode set anywhere: the eval path is held as conditional)
        assert {f.span.start.line + 1 for f in res.findings} == shown  # nothing held as conditional
    assert dynamo_lines(tmp_path, f"modes.{name}") == shown


VISIBLE_CALLS = '''\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, labels=None):
        out = self.proj(x)
        if labels is not None:
            print("loss")  {expect}
            out = out.sum() + labels.sum()
        return out


def run(fn):
    return fn(torch.randn(2, 4))


def main():
    compiled = torch.compile(Model())
    {call}
'''


@pytest.mark.parametrize("call, shown, conditional", [
    ("return compiled(torch.randn(2, 4))", False, False),  # the only call passes no labels: never traced
    ("return compiled(torch.randn(2, 4), labels=torch.ones(2))", True, False),
    ("return run(compiled)", False, True),  # handed on: other calls may pass labels (by default only)
])
def test_the_visible_calls_decide_the_arguments_they_leave_out(tmp_path, call, shown, conditional):
    """Calls of the compiled object that are all its calls (its name is only called) fix what they do not
    pass to its default: `labels=None`, so the `if labels is not None:` branch is not on the path at all."""
    code = VISIBLE_CALLS.format(call=call, expect="# expect: FG101" if shown else "")
    findings = check_code(code, tmp_path, name="visible")
    assert {(f.span.start.line + 1, f.code) for f in findings if not f.condition} == expected(code)
    assert bool([f for f in findings if f.condition]) == conditional
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "visible") == {line for line, _ in expected(code)}

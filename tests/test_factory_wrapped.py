"""A factory that builds the model from a class it is handed and wraps it only under a flag the call leaves off
(`model = model_cls(**kw)`, then `if features: model = FeatureNet(model)`; timm's `build_model_with_cfg`, which
every timm model entrypoint calls): what the call returns is the handed class's object, which the analysis does not
know, so the compile call is reported as not resolved -- never followed into the wrapper alone, whose breaks
Dynamo never meets (tests/harness.py runs each script's main() under Dynamo)."""
from __future__ import annotations

import os
import textwrap

from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.config import Config

FACTORY = '''\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


class FeatureNet(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        print("features")  # wrapper
        return [self.model(x)]


def build_model(model_cls, features=False, **kwargs):
    model = model_cls(**kwargs)
    if features:
        model = FeatureNet(model)
    return model


def net(**kwargs):
    return build_model(Net, **kwargs)
'''

SCRIPT = '''\
import torch
from proj.factory import net


def main():
    model = net()
    compiled = torch.compile(model)
    compiled(torch.randn(2, 4))
'''


def test_object_wrapped_under_a_flag_is_not_taken_for_the_factory_result(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "__init__.py").write_text("")
    (tmp_path / "proj" / "factory.py").write_text(FACTORY)
    (tmp_path / "proj" / "use.py").write_text(textwrap.dedent(SCRIPT))
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path / "proj" / "use.py",
                                                             tmp_path / "proj" / "factory.py"])
    factory = os.path.realpath(tmp_path / "proj" / "factory.py")
    wrapper_line = FACTORY.splitlines().index('        print("features")  # wrapper') + 1
    # no finding at all (before: FG101 at the wrapper's print, shown); the compile call is said unresolved
    assert [(f.code, f.span.start.line + 1) for f in res.findings] == []
    assert [(os.path.basename(path), why) for _label, path, _span, why in res.unresolved_roots] == [
        ("use.py", "not found")]
    # Dynamo compiles Net.forward: nothing breaks, the wrapper never runs
    seen = dynamo_breaks_of_main(tmp_path, "proj.use")
    assert (factory, wrapper_line) not in seen
    assert seen == set()

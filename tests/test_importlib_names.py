"""Model modules imported by a name: `model = importlib.import_module(name)` then
`torch.compile(model.get_model())`, as PointNet++'s train scripts load theirs (the models/ folder put on sys.path).
A name that is a string literal, a parameter every call passes as a literal (or a name a `for` takes from a literal
tuple), or leaves at its literal default, decides the module: the break inside it is shown, and Dynamo agrees.  A
name the analysis cannot tell is never guessed: the compile call is said to be not followed, naming importlib."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.cli import main as cli_main
from fullgraph.config import Config

BREAKS = '''\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        print("forward", x.shape)
        return x * 2


def get_model():
    return Net()
'''

CLEAN = '''\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return x * 2


def get_model():
    return Net()
'''

HEAD = '''\
import importlib
import os
import sys

import torch

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))

'''

SCRIPTS = {
    "literal": 'def main():\n    model = importlib.import_module("fg_masked")\n'
               '    return torch.compile(model.get_model(), fullgraph=True)(torch.randn(8))\n',
    "default": 'def run(name="fg_masked"):\n    model = importlib.import_module(name)\n'
               '    return torch.compile(model.get_model(), fullgraph=True)(torch.randn(8))\n\n\n'
               'def main():\n    return run()\n',
    "loop": 'def run(name):\n    model = importlib.import_module(name)\n'
            '    return torch.compile(model.get_model(), fullgraph=True)(torch.randn(8))\n\n\n'
            'def main():\n    return [run(n) for n in ("fg_plain", "fg_masked")]\n',
}


def project(tmp_path: Path, script: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "fg_masked.py").write_text(BREAKS)
    (tmp_path / "models" / "fg_plain.py").write_text(CLEAN)
    (tmp_path / "train.py").write_text(HEAD + script)
    return tmp_path


def check(capsys, *args) -> tuple[int, str, str]:
    code = cli_main(["check", *map(str, args), "--no-cache", "--color", "never"])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("form", sorted(SCRIPTS))
def test_a_decided_name_imports_the_module(tmp_path, capsys, form):
    root = project(tmp_path, SCRIPTS[form])
    code, out, err = check(capsys, root, "-v")
    assert code == 1, out + err
    assert "models/fg_masked.py:6:9: error FG101" in out
    assert "fg_plain" not in out and "unresolved root" not in err


def test_only_the_modules_the_calls_name(tmp_path, capsys):
    root = project(tmp_path, SCRIPTS["default"].replace('"fg_masked"', '"fg_plain"'))
    code, out, err = check(capsys, root, "-v")
    assert code == 0 and "No graph breaks found" in out, out + err
    assert "unresolved root" not in err


@pytest.mark.parametrize("call", ["run(sys.argv[1])", "run(os.environ['MODEL'])"])
def test_an_undecided_name_is_not_guessed(tmp_path, capsys, call):
    root = project(tmp_path, SCRIPTS["loop"].replace('[run(n) for n in ("fg_plain", "fg_masked")]', call))
    code, out, err = check(capsys, root, "-v")
    assert code == 0 and "1 compiled target could not be resolved" in out, out + err
    assert "unresolved root: torch.compile(model.get_model(), fullgraph=True) at" in err
    assert "importlib.import_module" in err


def test_the_editor_names_importlib(tmp_path):
    root = project(tmp_path, SCRIPTS["loop"].replace('[run(n) for n in ("fg_plain", "fg_masked")]',
                                                     "run(sys.argv[1])"))
    ws = Workspace(Config(project_root=str(root)), use_cache=False)
    ws.check([root])
    got = [f.message for f in ws.unfollowed([str(root / "train.py")])]
    assert any("importlib.import_module" in m and "could not follow" in m for m in got), got


@pytest.mark.parametrize("form", ["default", "loop"])
def test_dynamo_agrees(tmp_path, form):
    root = project(tmp_path, SCRIPTS[form])
    models = str(root / "models")
    try:
        seen = dynamo_breaks_of_main(root, "train")
    finally:
        for name in ("fg_masked", "fg_plain"):
            sys.modules.pop(name, None)
        sys.path[:] = [p for p in sys.path if os.path.normpath(p) != os.path.normpath(models)]
    assert (os.path.realpath(root / "models" / "fg_masked.py"), 6) in seen
    assert not any(path.endswith("fg_plain.py") for path, _ in seen)


STEP = '''\
def step(x):
    print("step", x.shape)
    return x * 2
'''


@pytest.mark.parametrize("name, shown", [('"fg_steps"', True), ("sys.argv[1]", False)])
def test_a_call_from_compiled_code_into_the_module(tmp_path, capsys, name, shown):
    """`helpers.step(x)` inside the compiled function, `helpers = importlib.import_module(name)`: followed into the
    module the calls name; else said to be not followed."""
    root = project(tmp_path, 'def run(name):\n    helpers = importlib.import_module(name)\n\n'
                             '    def f(x):\n        return helpers.step(x) + 1\n\n'
                             '    return torch.compile(f, fullgraph=True)(torch.randn(3))\n\n\n'
                             f'def main():\n    return run({name})\n')
    (root / "models" / "fg_steps.py").write_text(STEP)
    code, out, err = check(capsys, root, "-v")
    if shown:
        assert code == 1 and "models/fg_steps.py:2:5: error FG101" in out, out + err
    else:
        assert code == 0 and "could not be followed" in out, out + err
        assert "helpers.step at " in err and "importlib.import_module" in err


def test_dynamo_agrees_on_the_call_into_the_module(tmp_path):
    root = project(tmp_path, 'def run(name):\n    helpers = importlib.import_module(name)\n\n'
                             '    def f(x):\n        return helpers.step(x) + 1\n\n'
                             '    return torch.compile(f)(torch.randn(3))\n\n\n'
                             'def main():\n    return run("fg_steps")\n')
    (root / "models" / "fg_steps.py").write_text(STEP)
    models = str(root / "models")
    try:
        seen = dynamo_breaks_of_main(root, "train")
    finally:
        sys.modules.pop("fg_steps", None)
        sys.path[:] = [p for p in sys.path if os.path.normpath(p) != os.path.normpath(models)]
    assert (os.path.realpath(root / "models" / "fg_steps.py"), 2) in seen


def test_after_the_loop_the_name_is_not_decided(tmp_path, capsys):
    """`for n in ("fg_masked", "fg_plain"): pass` then `run(n)`: n is the last item only, not either; not guessed."""
    root = project(tmp_path, SCRIPTS["loop"].replace('return [run(n) for n in ("fg_plain", "fg_masked")]',
                                                     'for n in ("fg_masked", "fg_plain"):\n        pass\n'
                                                     '    return run(n)'))
    code, out, err = check(capsys, root, "-v")
    assert code == 0 and "FG101" not in out, out + err
    assert "importlib.import_module" in err

"""Whole-project analysis: roots in one file, breaks in others, and into installed libraries."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from harness import (check_code, dynamo_breaks_of_main, dynamo_breaks_of_run, dynamo_user_lines, expected,
                     is_dynamo_error, run_example)

from fullgraph.api import Workspace
from fullgraph.config import Config, discover

SHOP = Path(__file__).resolve().parent / "projects" / "shop"


def _markers(root: Path) -> set[tuple[str, int, str]]:
    out = set()
    for p in root.rglob("*.py"):
        for line, code in expected(p.read_text()):
            out.add((os.path.realpath(p), line, code))
    return out


def test_multi_package_findings_in_the_right_files_with_full_paths():
    ws = Workspace(discover(SHOP))
    res = ws.check([SHOP])
    got = {(os.path.realpath(f.path), f.span.start.line + 1, f.code) for f in res.findings}
    assert got == _markers(SHOP)
    pr = [f for f in res.findings if f.code == "FG101"][0]
    assert [s.qualname for s in pr.call_path] == [
        "shopnet.models.net.Net.forward", "shopnet.models.net.ResBlock.forward",
        "shopnet.models.base.BaseBlock.forward", "shopnet.models.base.BaseBlock.transform", "shopnet.utils.logs.trace"]
    assert pr.root.location.path.endswith(os.path.join("scripts", "train.py"))
    # each step names the call site, in the caller's file
    calls = [(Path(s.call.path).name, s.call.span.start.line + 1) for s in pr.call_path[1:]]
    assert calls == [("net.py", 24), ("net.py", 11), ("base.py", 13), ("base.py", 16)]


def test_dynamo_agrees_on_the_project():
    pytest.importorskip("torch")
    sys.path.insert(0, str(SHOP / "src"))
    sys.path.insert(0, str(SHOP / "scripts"))
    try:
        def entry():
            import importlib
            importlib.import_module("train").main()
        seen = dynamo_breaks_of_run(entry)
    finally:
        sys.path.remove(str(SHOP / "src"))
        sys.path.remove(str(SHOP / "scripts"))
        for name in list(sys.modules):
            if name == "train" or name.startswith("shopnet"):
                del sys.modules[name]
    seen = {(p, line) for p, line in seen if p.startswith(os.path.realpath(SHOP))}
    assert seen == {(p, line) for p, line, _ in _markers(SHOP)}


def test_edit_in_a_callee_file_updates_findings(tmp_path):
    import shutil

    proj = tmp_path / "shop"
    shutil.copytree(SHOP, proj)
    ws = Workspace(discover(proj))
    ws.check([proj])
    logs = str((proj / "src" / "shopnet" / "utils" / "logs.py").resolve())
    train = str((proj / "scripts" / "train.py").resolve())
    assert any(f.path == logs for f in ws.findings_for())
    # the editor guards the print: the finding goes, only that file is re-analysed
    before = {p: m for p, m in ws.project.modules.items()}
    text = Path(logs).read_text().replace('    print("trace", x.shape)  # expect: FG101',
                                          '    if not compiling():\n        print("trace", x.shape)')
    ws.set_text(logs, text)
    assert not any(f.path == logs for f in ws.findings_for())
    assert all(ws.project.modules[p] is m for p, m in before.items() if p != logs)
    # a new break in the callee appears at once, reached from the root in another file
    ws.set_text(logs, text + "\n\ndef extra(x):\n    import time\n    return time.time()\n")
    base = str((proj / "src" / "shopnet" / "models" / "base.py").resolve())
    btext = Path(base).read_text().replace("from ..utils.logs import debug, trace",
                                           "from ..utils.logs import debug, extra, trace")
    btext = btext.replace("        trace(x)  # reaches a print", "        trace(x)  # reaches a print\n        extra(x)")
    ws.set_text(base, btext)
    f = [f for f in ws.findings_for() if f.code == "FG107"][0]
    assert f.path == logs and f.root.location.path == train
    assert f.call_path[-1].qualname == "shopnet.utils.logs.extra"


def test_cycles_dynamic_imports_and_unresolved_calls(tmp_path):
    (tmp_path / "a.py").write_text(textwrap.dedent('''
        import importlib
        import torch
        from b import g

        mod = importlib.import_module("somewhere")
        try:
            from fast import kernel
        except ImportError:
            kernel = None


        def f(x):
            return g(x) + mod.thing(x) + kernel(x)


        def h(x):
            print(x)
            return f(x)


        compiled = torch.compile(f, fullgraph=True)
        '''))
    (tmp_path / "b.py").write_text(textwrap.dedent('''
        from a import f, h


        def g(x):
            if x is None:
                return h(x)
            return x * 2
        '''))
    ws = Workspace(Config(project_root=str(tmp_path)))
    res = ws.check([tmp_path])
    # the cycle f -> g -> h -> f is followed once; the print in h is reached through it
    assert [(Path(f.path).name, f.code) for f in res.findings] == [("a.py", "FG101")]
    assert [s.qualname for s in res.findings[0].call_path] == ["a.f", "b.g", "a.h"]
    # dynamic and conditional imports are not guessed: recorded as unresolved, not reported
    assert "kernel" in " ".join(ws.project.unresolved_calls) or "fast.kernel" in ws.project.unresolved_calls


FAKE_LIB = {
    "fakelib/__init__.py": "from .layers import Fancy\n",
    "fakelib/utils.py": textwrap.dedent('''
        import torch


        def is_compiling_now():
            return torch.compiler.is_compiling()


        def report(x):
            if not is_compiling_now():
                print("eager", x)
            return x


        def noisy(x):
            print("noisy", x)
            return x
        '''),
    "fakelib/layers.py": textwrap.dedent('''
        import torch.nn as nn

        from .utils import noisy, report


        class Fancy(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                x = report(self.lin(x))
                return noisy(x)
        '''),
}


@pytest.fixture()
def site(tmp_path):
    site = tmp_path / "site-packages"
    for rel, text in FAKE_LIB.items():
        p = site / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    user = tmp_path / "proj"
    user.mkdir()
    (user / "train.py").write_text(textwrap.dedent('''
        import torch
        from fakelib import Fancy


        def step(model, x):
            return model(x)


        model = torch.compile(Fancy(), fullgraph=True)
        '''))
    sys.path.insert(0, str(site))
    yield site, user
    sys.path.remove(str(site))


def test_follow_installed_package(site):
    site_dir, user = site
    # without follow: the library is opaque, nothing is guessed
    assert Workspace(Config(project_root=str(user))).check([user]).findings == []
    ws = Workspace(Config(project_root=str(user), follow=["fakelib"]))
    res = ws.check([user])
    lib_file = os.path.realpath(site_dir / "fakelib" / "utils.py")
    # the checked paths get the echo at the user's code; the library line is reported too
    assert [(Path(f.path).name, f.span.start.line + 1) for f in res.findings] == [("train.py", 10)]
    every = ws.findings_for()
    got = sorted((os.path.realpath(f.path), f.span.start.line + 1, f.code) for f in every)
    assert got == sorted([(lib_file, 16, "FG101"), (os.path.realpath(user / "train.py"), 10, "FG101")])
    lib_f = [f for f in every if os.path.realpath(f.path) == lib_file][0]
    user_f = [f for f in every if os.path.realpath(f.path) != lib_file][0]
    assert "graph break inside fakelib" in user_f.message and "reached from your code here" in user_f.message
    assert lib_f.fixes == []  # installed libraries are read-only
    assert [s.qualname for s in lib_f.call_path] == ["fakelib.layers.Fancy.forward", "fakelib.utils.noisy"]
    # the guard function inside the library is recognised: report() stays silent


def test_library_roots_in_config(site):
    site_dir, user = site
    (user / "train.py").write_text("x = 1\n")
    ws = Workspace(Config(project_root=str(user), follow=["fakelib"], roots=["fakelib.layers:Fancy.forward"]))
    res = ws.check([user])
    # findings in the library are reported where they are (there is no user call to echo them at),
    # also by `check`, which would otherwise say "No graph breaks found" for the root the user named
    assert [(Path(f.path).name, f.code) for f in ws.findings_for()] == [("utils.py", "FG101")]
    assert [(Path(f.path).name, f.code) for f in res.findings] == [("utils.py", "FG101")]


def test_follow_from_the_cli(site):
    site_dir, user = site
    env = {**os.environ, "PYTHONPATH": str(site_dir)}
    r = subprocess.run([sys.executable, "-m", "fullgraph", "check", str(user), "--follow", "fakelib", "--format", "json"],
                       capture_output=True, text=True, env=env)
    doc = json.loads(r.stdout)
    assert r.returncode == 1
    assert [Path(d["path"]).name for d in doc["diagnostics"]] == ["train.py"]  # findings in checked paths only
    assert "graph break inside fakelib" in doc["diagnostics"][0]["message"]


def test_loop_over_a_sliced_module_list(tmp_path):
    (tmp_path / "m.py").write_text(textwrap.dedent('''
        import torch
        import torch.nn as nn


        class Layer(nn.Module):
            def forward(self, x):
                print("layer")
                return x


        class Net(nn.Module):
            def __init__(self, n: int = 4):
                super().__init__()
                self.layers = nn.ModuleList([Layer() for _ in range(n)])

            def forward(self, x, depth: int = 2):
                for layer in self.layers[:depth]:
                    x = layer(x)
                return x


        m = torch.compile(Net(), fullgraph=True)
        '''))
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path])
    assert [(f.code, f.span.start.line + 1) for f in res.findings] == [("FG101", 8)]
    assert [s.qualname for s in res.findings[0].call_path] == ["m.Net.forward", "m.Layer.forward"]


def _snapshot(findings):
    return sorted((f.path, f.code, f.span, f.severity, f.message,
                   tuple((s.qualname, s.call) for s in f.call_path),
                   f.root.location if f.root else None) for f in findings)


# Facts in modules no compiled code reaches still change findings elsewhere: hooks registered,
# logging functions ignored, a guard function's body, a re-export.
CONFIGURED = {
    "pkg/__init__.py": "from .helpers import log_it, helper\n",
    "pkg/helpers.py": """\
import torch


def log_it(x):
    print("x", x.shape)


def helper(x):
    return x * 2


def compiling():
    return torch.compiler.is_compiling()


def on_forward(module, args, out):
    print("hook")
""",
    "pkg/model.py": """\
import torch.nn as nn

from pkg import helper, log_it
from pkg.helpers import compiling


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        log_it(x)
        if not compiling():
            print("eager")
        return helper(self.lin(x))
""",
    "pkg/setup.py": """\
import torch

from pkg.helpers import log_it
from pkg.model import Model

torch._dynamo.config.ignore_logging_functions.add(log_it)
""",
    "pkg/hooks.py": """\
from pkg.helpers import on_forward
from pkg.model import Model


def build():
    m = Model()
    m.register_forward_hook(on_forward)
    return m
""",
    "train.py": """\
import torch

from pkg.model import Model

model = torch.compile(Model(), fullgraph=True)
""",
}


@pytest.mark.parametrize("tree", ["shop", "nanogpt", "configured"])
def test_incremental_findings_equal_a_fresh_workspace_after_random_edits(tree, tmp_path):
    """The project keeps each root's findings across edits and re-walks only the roots an edit can
    change: after every one of a few hundred random line edits in random files of a multi-file
    project (some break the syntax, some rename, move or remove code other files use), the findings
    equal those of a workspace built from scratch."""
    import random

    if tree == "configured":
        root = tmp_path
        for rel, text in CONFIGURED.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    else:
        root = SHOP if tree == "shop" else Path(__file__).resolve().parent.parent / "examples" / "nanogpt"
    files = sorted(str(p) for p in root.rglob("*.py"))
    texts = {p: Path(p).read_text() for p in files}
    cfg = discover(root)
    ws = Workspace(cfg)
    for p in files:
        ws.set_text(p, texts[p])
    rng = random.Random(1234)
    pool = [line for t in texts.values() for line in t.splitlines() if line.strip()]
    for step in range(300):
        p = rng.choice(files)
        lines = texts[p].splitlines(keepends=True) or ["\n"]
        i = rng.randrange(len(lines))
        op = rng.random()
        if op < 0.25:
            lines.insert(i, "\n")  # shifts every position below
        elif op < 0.45:
            del lines[i]
        elif op < 0.6:
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            lines[i] = indent + "# " + lines[i].lstrip()
        elif op < 0.8:
            lines.insert(i, lines[i][:len(lines[i]) - len(lines[i].lstrip())] + rng.choice(pool).strip() + "\n")
        else:
            lines[i] = lines[i].replace("forward", "fwd").replace("def ", "def _", 1)
        texts[p] = "".join(lines)
        ws.set_text(p, texts[p])
        fresh = Workspace(cfg)
        for q in files:
            fresh.set_text(q, texts[q])
        assert _snapshot(ws.findings_for(None, fixes=False)) == _snapshot(fresh.findings_for(None, fixes=False)), \
            f"step {step}: {op:.2f} at {os.path.basename(p)}:{i + 1}"


DECORATED = '''\
import functools

import torch


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__)  # expect: FG101
        return fn(*args, **kwargs)
    return wrapper


def capture(func=None, *, tag="x"):
    """The optional-argument idiom: `@capture` and `@capture(tag=...)`."""
    def wrapped_fn(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            print("capture", tag)  # expect: FG101
            return func(self, *args, **kwargs)
        return wrapper
    if func is not None:
        return wrapped_fn(func)
    return wrapped_fn


def register(fn):
    print("registered", fn.__name__)  # runs at import, not under compile
    return fn


def factory(label):
    def decorate(fn):
        print("decorating", label)  # runs at import, not under compile
        def inner(x):
            torch._dynamo.graph_break()  # expect: FG201
            return fn(x)
        return inner
    return decorate


class Net(torch.nn.Module):
    @capture
    def forward(self, x):
        return self.helper(x) + scaled(x)

    @capture(tag="y")
    def helper(self, x):
        return x * 2


@traced
def scaled(x):
    return x * 3


@register
def plain(x):
    return x + 1


@factory("f")
def made(x):
    return x - 1


def main():
    net = torch.compile(Net())
    f = torch.compile(lambda x: plain(x) + made(x), fullgraph=True)
    x = torch.randn(3)
    return net(x), f(x)
'''


def test_decorator_wrappers_run_under_compile_and_dynamo_agrees(tmp_path):
    """A decorator that returns a wrapper replaces the function: calling it runs the wrapper, which
    Dynamo traces.  Decorators that return the function itself, and a factory's own body, run at
    import time and are not reported."""
    p = tmp_path / "decorated.py"
    p.write_text(DECORATED)
    ws = Workspace(Config(project_root=str(tmp_path)))
    res = ws.check([p])
    got = {(f.span.start.line + 1, f.code) for f in res.findings}
    assert got == expected(DECORATED)
    wrapper = [f for f in res.findings if f.span.start.line + 1 == 19][0]
    assert [s.qualname for s in wrapper.call_path][-1] == "decorated.capture.<locals>.wrapped_fn.<locals>.wrapper"
    assert wrapper.call_path[-1].call.span.start.line + 1 == DECORATED.splitlines().index("    @capture") + 1
    seen = dynamo_breaks_of_main(tmp_path, "decorated")
    assert {line for path, line in seen if path == os.path.realpath(p)} == {line for line, _ in got}


def test_a_function_is_found_by_the_lookup_that_loads_its_module(site):
    """Followed modules load on demand; the very lookup that loads one finds its functions (it used
    to find only classes, so the first call into a not-yet-loaded module went unresolved)."""
    site_dir, user = site
    ws = Workspace(Config(project_root=str(user), follow=["fakelib"]))
    assert "fakelib.utils" not in {m.name for m in ws.project.modules.values()}
    hit = ws.project.lookup("fakelib.utils.noisy")
    assert hit is not None and hit[0] == "function" and hit[1].qualname == "fakelib.utils.noisy"


IMPORTED_LOGGERS = {
    "proj/__init__.py": "from .common import logger as log\n",
    "proj/common.py": '''\
import logging

import torch

logger = logging.getLogger("proj")
quiet = logging.getLogger("proj.quiet")
torch._dynamo.config.ignore_logging_functions.add(quiet.info)


class Notes:
    def __init__(self):
        self.lines = []

    def info(self, msg):
        return None


notes = Notes()


def get_logger(name=None):
    if name is None:
        name = "proj"
    return logging.getLogger(name)


def make_notes():
    return Notes()
''',
    "proj/model.py": '''\
import torch

from . import common
from .common import get_logger, logger, make_notes, notes, quiet
from proj import log

made = get_logger(__name__)
other = make_notes()


def step(x):
    logger.info("step")  # expect: FG102
    common.logger.debug("debug")  # expect: FG102
    log.warning("re-exported")  # expect: FG102
    made.error("from a function that returns logging.getLogger(...)")  # expect: FG102
    quiet.info("registered in ignore_logging_functions")
    notes.info("a project object with an info method")
    other.info("from a function that returns a project object")
    if not torch.compiler.is_compiling():
        logger.info("eager only")
    return x + 1


def main():
    f = torch.compile(step, fullgraph=True)
    return f(torch.randn(3))
''',
}


def test_loggers_imported_from_another_module_and_dynamo_agrees(tmp_path):
    """`from .utils import logger` and `logger = get_logger(__name__)`: whether the name is a
    logging.Logger is only known from the other module (through re-exports too) or from what the
    function returns; a project object with an `info` method and a logger registered in
    ignore_logging_functions are not breaks."""
    for rel, text in IMPORTED_LOGGERS.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    model = tmp_path / "proj" / "model.py"
    ws = Workspace(Config(project_root=str(tmp_path)))
    res = ws.check([tmp_path / "proj"])
    got = {(f.span.start.line + 1, f.code) for f in res.findings}
    assert got == expected(IMPORTED_LOGGERS["proj/model.py"])
    assert all(f.path == str(model) for f in res.findings)
    seen = dynamo_breaks_of_main(tmp_path, "proj.model")
    assert {line for path, line in seen if path == os.path.realpath(model)} == {line for line, _ in got}
    # the offered registration, as this module names the logger, makes Dynamo skip each call
    from fullgraph.fixes import edits_for
    from fullgraph.fixes.base import apply_edits

    text = IMPORTED_LOGGERS["proj/model.py"]
    regs = []
    for f in sorted(res.findings, key=lambda f: f.span.start.line, reverse=True):
        assert "ignore-logging-function" in [x.id for x in f.fixes], f
        before = text
        text = apply_edits(text, edits_for(ws, f, "ignore-logging-function"))
        regs.append(next(line for line in text.splitlines() if line not in before.splitlines()))
    assert sorted(regs) == ["torch._dynamo.config.ignore_logging_functions.add(common.logger.debug)",
                            "torch._dynamo.config.ignore_logging_functions.add(log.warning)",
                            "torch._dynamo.config.ignore_logging_functions.add(logger.info)",
                            "torch._dynamo.config.ignore_logging_functions.add(made.error)"]
    model.write_text(text)
    assert Workspace(Config(project_root=str(tmp_path))).check([tmp_path / "proj"]).findings == []
    assert dynamo_breaks_of_main(tmp_path, "proj.model") == set()


IMPORTED_OPTIMIZERS_SETUP = '''\
import torch
import torch.nn as nn
import torch.optim as optim

net = nn.Linear(4, 1)
optimizer = optim.Adam(net.parameters(), lr=0.01)


def make_optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=0.1)


class Notes:
    def step(self):
        return 1


notes = Notes()
'''
IMPORTED_OPTIMIZERS_STEP = '''\
import torch

from .setup import make_optimizer, net, notes, optimizer

other = make_optimizer(net)


def step(x):
    y = net(x).sum()
    {call}
    return y.detach()


def main():
    return torch.compile(step)(torch.randn(2, 4))
'''


@pytest.mark.parametrize("call, breaks", [("optimizer.step()", True), ("other.step()", True), ("notes.step()", False)],
                         ids=["bound-in-the-other-module", "made-by-its-function", "a-project-object"])
def test_optimizers_imported_from_another_module_and_dynamo_agrees(tmp_path, call, breaks):
    """pytorch/examples' dcgan: the optimizers are made at the top of main.py, and the training step imports them
    (`from main import optimizerD`): what the name holds only the other module tells (FG502 there as in one file);
    an object of the project with a `step` method is not one."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "__init__.py").write_text("")
    (tmp_path / "proj" / "setup.py").write_text(IMPORTED_OPTIMIZERS_SETUP)
    (tmp_path / "proj" / "train.py").write_text(IMPORTED_OPTIMIZERS_STEP.format(call=call))
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path / "proj"])
    assert [(f.span.start.line + 1, f.code) for f in res.findings] == ([(10, "FG502")] if breaks else [])
    seen = dynamo_breaks_of_main(tmp_path, "proj.train")
    assert any(os.sep + os.path.join("torch", "optim") + os.sep in path for path, _ in seen) == breaks


IMPORTED_MODULE_NETS = '''\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        print("forward")  # expect: FG101
        return self.fc(x)


net = Net()
criterion = nn.MSELoss()
'''
IMPORTED_MODULE_STEP = '''\
import torch

from . import nets
from .nets import criterion, net

other = nets.net


def step(x):
    net.zero_grad()
    return criterion(net(x), x)


def main():
    return torch.compile({compiled})(torch.randn(2, 4))
'''


@pytest.mark.parametrize("compiled", ["other", "step"], ids=["compiled", "called-in-a-compiled-step"])
def test_modules_made_in_another_module_compiled_and_called_and_dynamo_agrees(tmp_path, compiled):
    """pytorch/examples' dcgan: main.py builds the networks and the loss at its top, the script compiles them
    (`netG = torch.compile(dcgan.netG)`) and a training step calls them (`netD(real)`, `netD.zero_grad()`,
    `criterion(...)`): the compile calls resolve, the calls reach the networks' forward, and nothing is left
    "not followed" (zero_grad is nn.Module's, the loss torch's: Dynamo's to judge)."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "__init__.py").write_text("")
    (tmp_path / "proj" / "nets.py").write_text(IMPORTED_MODULE_NETS)
    (tmp_path / "proj" / "train.py").write_text(IMPORTED_MODULE_STEP.format(compiled=compiled))
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path / "proj"])
    nets = tmp_path / "proj" / "nets.py"
    got = {(f.path, f.span.start.line + 1, f.code) for f in res.findings}
    assert got == {(str(nets), line, code) for line, code in expected(IMPORTED_MODULE_NETS)}
    assert {f.root.label for f in res.findings} == {f"torch.compile({compiled})"}
    assert res.unresolved_roots == [] and res.unfollowed_calls == []
    seen = dynamo_breaks_of_main(tmp_path, "proj.train")
    assert {line for path, line in seen if path == os.path.realpath(nets)} == {line for line, _ in expected(IMPORTED_MODULE_NETS)}


LOOPS = '''\
import torch
import torch.nn as nn


class A(nn.Module):
    def forward(self, x):
        print("A")  # expect: FG101
        return x + 1


class B(nn.Module):
    def forward(self, x):
        print("B")  # expect: FG101
        return x * 2


class C(nn.Module):
    def forward(self, x):
        print("C")  # expect: FG101
        return x - 1


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([A(), A()])
        self.extra = nn.ModuleList()
        self.extra.append(B())
        self.tail = nn.ModuleList()
        self.tail.insert(0, C())

    def forward(self, x, scales):
        for i, layer in enumerate(self.layers):
            x = layer(x) + i
        for j, m in enumerate(self.extra[:1]):
            x = m(x)
        for m in self.tail:
            x = m(x)
        for k, s in enumerate(scales):
            x = x * s
        return x


def main():
    return torch.compile(Net())(torch.randn(3), [1.0, 2.0])
'''


def test_modules_reached_through_enumerate_append_and_insert(tmp_path):
    """`for i, layer in enumerate(self.layers)` and containers filled with `.append()`/`.insert()`
    reach each element's forward, as Dynamo does; enumerating a plain argument reaches nothing."""
    p = tmp_path / "loops.py"
    p.write_text(LOOPS)
    res = Workspace(Config(project_root=str(tmp_path))).check([p])
    got = {(f.span.start.line + 1, f.code) for f in res.findings}
    assert got == expected(LOOPS)
    seen = dynamo_breaks_of_main(tmp_path, "loops")
    assert {line for path, line in seen if path == os.path.realpath(p)} == {line for line, _ in got}



HOOK_REGISTRATION = '''\
import torch
import torch.nn as nn


def hook(module, *args):
    return None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        self.lin.{method}(hook)  # expect: FG503
        return self.lin(x)


net = torch.compile(Net(), fullgraph=True)
'''


@pytest.mark.parametrize("method", ["register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                                    "register_full_backward_pre_hook", "register_backward_hook"])
def test_every_module_hook_registration_breaks_and_dynamo_agrees(method, tmp_path):
    """FG503 covers the five nn.Module hook registrations; under fullgraph=True Dynamo raises on each,
    at the registration."""
    from fullgraph.rules.autograd import MODULE_HOOK_METHODS

    assert method in MODULE_HOOK_METHODS
    code = HOOK_REGISTRATION.replace("{method}", method)
    got = {(f.span.start.line + 1, f.code) for f in check_code(code, tmp_path)}
    assert got == expected(code)
    pytest.importorskip("torch")
    out = run_example(code, "net(torch.randn(2, 4))")
    assert out.raised is not None and is_dynamo_error(out.raised), out.raised
    assert dynamo_user_lines(out.raised)[-1] == next(iter(got))[0]


# How to build each layer FG504 lists (smallest arguments), and, for the norms, the keyword that turns their
# parameters off.
LAYER_ARGS = {
    "Linear": "4, 4", "Bilinear": "4, 4, 4", "Conv1d": "4, 4, 1", "Conv2d": "4, 4, 1", "Conv3d": "4, 4, 1",
    "ConvTranspose1d": "4, 4, 1", "ConvTranspose2d": "4, 4, 1", "ConvTranspose3d": "4, 4, 1", "Embedding": "8, 4",
    "EmbeddingBag": "8, 4", "RNN": "4, 4", "LSTM": "4, 4", "GRU": "4, 4", "RNNCell": "4, 4", "LSTMCell": "4, 4",
    "GRUCell": "4, 4", "MultiheadAttention": "4, 1", "PReLU": "", "Transformer": "d_model=4, nhead=1",
    "TransformerEncoderLayer": "4, 1", "TransformerDecoderLayer": "4, 1", "LayerNorm": "4", "GroupNorm": "1, 4",
    "BatchNorm1d": "4", "BatchNorm2d": "4", "BatchNorm3d": "4", "RMSNorm": "4",
}
LAYER_IN_REGION = '''\
import torch
from torch import nn


@torch.compile(fullgraph=True)
def f(x):
    layer = nn.{ctor}{expect}
    return x + 1
'''


@pytest.mark.parametrize("layer", sorted(LAYER_ARGS))
def test_every_layer_fg504_lists_breaks_when_built_in_a_region(layer, tmp_path):
    """Each layer FG504 names breaks when constructed under Dynamo, and with its `affine` keyword off a
    norm is not reported and compiles."""
    from fullgraph.rules.autograd import PARAMETER_LAYERS

    assert set(LAYER_ARGS) == {q.rsplit(".", 1)[1] for q in PARAMETER_LAYERS}
    pytest.importorskip("torch")
    code = LAYER_IN_REGION.format(ctor=f"{layer}({LAYER_ARGS[layer]})", expect="  # expect: FG504")
    assert {(f.span.start.line + 1, f.code) for f in check_code(code, tmp_path)} == expected(code)
    out = run_example(code, "f(torch.randn(4))")
    assert out.raised is not None and is_dynamo_error(out.raised), out.raised
    off = PARAMETER_LAYERS[f"torch.nn.{layer}"]
    if off is not None:
        code = LAYER_IN_REGION.format(ctor=f"{layer}({LAYER_ARGS[layer]}, {off}=False)", expect="")
        assert check_code(code, tmp_path) == []
        assert run_example(code, "f(torch.randn(4))").raised is None

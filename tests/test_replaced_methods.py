"""Methods replaced at run time (GitHub issue 29, item 3): `self.update = self._wrap_update(self.update)` in
`__init__` (torchmetrics' Metric), a wrapper assigned in the class body (`forward = timed(_forward)`),
`types.MethodType(fn, self)` -- and `self.update(...)` written in a base class runs the update of the class of
`self`.  fullgraph follows each to the wrapper and, through the parameter the wrapper captured it in, to the
original; what it cannot follow it names (item 7: never silent).  Each script's main() runs under Dynamo
(tests/harness.py): fullgraph reports the lines Dynamo breaks at, no more."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.config import Config

BASE = '''\
import functools
import types

import torch
import torch.nn as nn


class Metric(nn.Module):
    """Like torchmetrics' Metric: update and compute replaced on the instance by wrappers."""

    def __init__(self):
        super().__init__()
        self.count = 0
        if self.count < 0:
            raise ValueError("bad count")
        self.update = self._wrap_update(self.update)
        self.compute = self._wrap_compute(self.compute)

    def _wrap_update(self, update):
        @functools.wraps(update)
        def wrapped_func(*args, **kwargs):
            self.count += 1
            with torch.set_grad_enabled(False):
                update(*args, **kwargs)

        return wrapped_func

    def _wrap_compute(self, compute):
        @functools.wraps(compute)
        def wrapped_func(*args, **kwargs):
            print("computing")  # compute wrapper
            return compute(*args, **kwargs)

        return wrapped_func

    def forward(self, *args, **kwargs):
        self.update(*args, **kwargs)
        return self.compute()

    def update(self, *args, **kwargs):
        raise NotImplementedError

    def compute(self):
        raise NotImplementedError


def timed(fn):
    @functools.wraps(fn)
    def inner(self, x):
        print("timing")  # class-level wrapper
        return fn(self, x)

    return inner


class Timed(nn.Module):
    def _forward(self, x):
        if x.sum() > 0:  # class-level original
            return x
        return -x

    forward = timed(_forward)


def fast_forward(self, x: torch.Tensor):
    return x.nonzero()  # bound function


class Bound(nn.Module):
    def __init__(self):
        super().__init__()
        self.forward = types.MethodType(fast_forward, self)

    def forward(self, x):
        print("never runs")
        return x + 1


class Plain(nn.Module):
    """A wrapper that only adds work: nothing breaks."""

    def __init__(self):
        super().__init__()
        self.step = self._wrap(self.step)

    def _wrap(self, step):
        def inner(x):
            return step(x) * 2

        return inner

    def step(self, x):
        return x + 1

    def forward(self, x):
        return self.step(x)


class Opaque(nn.Module):
    def __init__(self, hook):
        super().__init__()
        self.step = hook(self.step)

    def step(self, x):
        return x + 1

    def forward(self, x):
        return self.step(x)  # unfollowed
'''

METRICS = '''\
import torch

from .base import Metric


class Total(Metric):
    def __init__(self):
        super().__init__()
        self.total = torch.zeros(())

    def update(self, x: torch.Tensor):
        if x.min() < 0:  # original update
            x = x.abs()
        self.total = self.total + x.sum()

    def compute(self):
        return self.total * 1.0


class Quiet(Metric):
    """Its own _wrap_compute hands compute back: no print."""

    def __init__(self):
        super().__init__()
        self.total = torch.zeros(())

    def _wrap_compute(self, compute):
        return compute

    def update(self, x: torch.Tensor):
        self.total = self.total + x.sum()

    def compute(self):
        return self.total
'''

SCRIPTS = {
    # the wrapper of compute prints; the update of the subclass (reached through the wrapper) branches on data
    "run_total": ('''\
        import torch
        from proj.metrics import Total


        def main():
            m = torch.compile(Total())
            m(torch.randn(4))
        ''', {"base": {"compute wrapper"}, "metrics": {"original update"}}),
    "run_timed": ('''\
        import torch
        from proj.base import Timed


        def main():
            torch.compile(Timed())(torch.randn(4))
        ''', {"base": {"class-level wrapper", "class-level original"}}),
    "run_bound": ('''\
        import torch
        from proj.base import Bound


        def main():
            torch.compile(Bound())(torch.randn(4))
        ''', {"base": {"bound function"}}),
    "run_plain": ('''\
        import torch
        from proj.base import Plain


        def main():
            torch.compile(Plain(), fullgraph=True)(torch.randn(4))
        ''', {}),
    "run_quiet": ('''\
        import torch
        from proj.metrics import Quiet


        def main():
            torch.compile(Quiet(), fullgraph=True)(torch.randn(4))
        ''', {}),
    "run_opaque": ('''\
        import torch
        from proj.base import Opaque


        def main():
            torch.compile(Opaque(lambda f: f), fullgraph=True)(torch.randn(4))
        ''', {}),
}


def _project(tmp_path, name):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "__init__.py").write_text("")
    (tmp_path / "proj" / "base.py").write_text(BASE)
    (tmp_path / "proj" / "metrics.py").write_text(METRICS)
    script = SCRIPTS[name][0]
    (tmp_path / "proj" / f"{name}.py").write_text(textwrap.dedent(script))
    return [tmp_path / "proj" / f"{name}.py", tmp_path / "proj" / "base.py", tmp_path / "proj" / "metrics.py"]


def _marked(text: str, marks: set[str]) -> set[int]:
    return {i for i, line in enumerate(text.splitlines(), 1) for m in marks if line.endswith(f"# {m}")}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_replaced_method_is_followed_and_dynamo_agrees(name, tmp_path):
    files = _project(tmp_path, name)
    res = Workspace(Config(project_root=str(tmp_path))).check(files)
    marks = SCRIPTS[name][1]
    texts = {"base": BASE, "metrics": METRICS}
    want = {(os.path.realpath(tmp_path / "proj" / f"{m}.py"), line)
            for m in texts for line in _marked(texts[m], marks.get(m, set()))}
    shown = {(os.path.realpath(f.path), f.span.start.line + 1) for f in res.findings if f.condition is None}
    assert shown == want
    seen = dynamo_breaks_of_main(tmp_path, f"proj.{name}")
    assert {(p, line) for p, line in seen if "/proj/" in p} == shown


def test_replacement_not_followed_is_named(tmp_path):
    """`self.step = hook(self.step)` with `hook` an argument: fullgraph says it could not follow `self.step`,
    where it was assigned, at the call the compiled code makes (FG003 in the editor; -v and the summary line)."""
    files = _project(tmp_path, "run_opaque")
    ws = Workspace(Config(project_root=str(tmp_path)))
    res = ws.check(files)
    assert [f for f in res.findings if f.condition is None] == []
    base = str(tmp_path / "proj" / "base.py")
    line = _marked(BASE, {"unfollowed"}).pop()
    assert [(label, os.path.realpath(path), span.start.line + 1, why) for label, path, span, why in res.unresolved_roots] \
        == [("self.step", os.path.realpath(base), line, "assigned in `__init__`")]
    [info] = ws.unfollowed([os.path.abspath(base)])
    assert info.code == "FG003" and info.span.start.line + 1 == line
    assert info.message.startswith("fullgraph could not follow `self.step` (assigned in `__init__`")
    cli = subprocess.run([sys.executable, "-m", "fullgraph", "check", "proj", "--no-cache", "-v"], cwd=tmp_path,
                         capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert "No graph breaks found in 4 files checked; 1 replaced method could not be followed; -v lists them" \
        in cli.stdout
    assert f"fullgraph: unfollowed method: self.step called from {os.path.realpath(base)}:{line} (assigned in " \
           "`__init__`; what it holds is not visible to static analysis)" in cli.stderr


def test_followed_replacements_are_not_listed(tmp_path):
    """Replacements fullgraph follows (wrappers, a bound function, a wrapping method handing back what it was
    given) are not in the unfollowed list."""
    for name in ("run_total", "run_timed", "run_bound", "run_plain", "run_quiet"):
        root = tmp_path / name
        root.mkdir()
        res = Workspace(Config(project_root=str(root))).check(_project(root, name))
        assert res.unresolved_roots == [], name

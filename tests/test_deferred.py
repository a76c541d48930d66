"""A bulk load analyses function bodies when a walk first reads them (engine/deferred.py): the summary it
makes first must tell everything a module tells without its bodies exactly as the full analysis does, and
the findings of a check must not change."""
from __future__ import annotations

import dataclasses
import os
import textwrap
from pathlib import Path

import pytest
from fullgraph import api
from fullgraph.api import Workspace, _analyze_file
from fullgraph.config import Config
from fullgraph.engine.summary import BODY_FIELDS, ModuleSummary
from fullgraph.modnames import module_name_for

REPO = Path(__file__).resolve().parent.parent
OWN_FIELDS = [f.name for f in dataclasses.fields(ModuleSummary) if f.name not in BODY_FIELDS]


def differences(path: str) -> list[str]:
    """What the deferred summary of `path` tells differently from its full analysis ([] when the same)."""
    modname, is_pkg = module_name_for(path)
    _, full, _ = _analyze_file((path, modname, is_pkg))
    _, lazy, _ = _analyze_file((path, modname, is_pkg), defer=True)
    if full is None:
        return [] if lazy is None else ["error"]
    out = [f for f in OWN_FIELDS if getattr(full, f) != getattr(lazy, f)]
    out += [f"function {q} not named" for q in set(full.functions) - set(lazy.function_names())]
    if lazy.body_deferred():
        out += [f"body {f}" for f in BODY_FIELDS if getattr(lazy, f) != getattr(full, f)]
    return out


def py_files(root: Path, step: int = 1) -> list[str]:
    return sorted(str(Path(d) / f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".py"))[::step]


@pytest.mark.parametrize("corpus", ["examples", "bench/modules", "bench/repos", "tests/projects"])
def test_the_deferred_summary_tells_what_the_full_analysis_tells(corpus):
    bad = {p: d for p in py_files(REPO / corpus) if (d := differences(p))}
    assert not bad


def test_the_same_on_the_installed_torch():
    torch = pytest.importorskip("torch")
    bad = {p: d for p in py_files(Path(torch.__file__).parent, step=7) if (d := differences(p))}
    assert not bad


# each: a function body that adds to the module's own facts through a name its text spells differently
FACTS = {
    "config alias": """
        import torch._dynamo.config as dc
        def setup():
            dc.capture_scalar_outputs = True
    """,
    "config alias made in the function": """
        import torch
        def setup():
            cfg = torch._dynamo.config
            cfg.capture_scalar_outputs = True
    """,
    "config alias over two lines": """
        import torch
        def setup():
            cfg = (
                torch._dynamo.config
            )
            cfg.capture_scalar_outputs = True
    """,
    "compile alias": """
        import torch
        from torch import compile as jit
        def main(m):
            return jit(m)
    """,
    "compiled method": """
        import torch
        class Net(torch.nn.Module):
            def forward(self, x):
                return x + 1
        def main():
            net = Net()
            net.compile()
    """,
    "device alias": """
        import torch as th
        def setup():
            make = th.device
            with make("cpu"):
                pass
    """,
    "device imported in the function": """
        def setup():
            from torch import device as place
            with place("cpu"):
                pass
    """,
    "logging set alias": """
        import torch
        skip = torch._dynamo.config.ignore_logging_functions
        def log(x): pass
        def setup():
            skip.add(log)
    """,
    "imports in bodies, after a return too": """
        def f():
            import json
            return json
            from os import path
        class A:
            def g(self):
                from . import sibling
    """,
    "lambdas": """
        import torch
        f = lambda x: (lambda y: y)(x)
        class A:
            key = staticmethod(lambda v: v)
            def m(self, k=lambda: 0):
                return sorted([1], key=lambda v: -v)
        def g(xs):
            def inner(fn=lambda z: z):
                return fn
            return [lambda: x for x in xs]
    """,
}


@pytest.mark.parametrize("name", sorted(FACTS))
def test_a_body_that_adds_to_the_module_facts_through_another_name_is_analysed(name, tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(textwrap.dedent(FACTS[name]))
    assert differences(str(path)) == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_check_of_a_large_tree_finds_what_the_full_analysis_finds(jobs, tmp_path, monkeypatch):
    """A tree "large" (thresholds lowered): loaded with its bodies deferred, the walk from the root reads them
    (every module's at once, the call sites of the compiled function: in worker processes with two jobs)."""
    (tmp_path / "helpers.py").write_text(textwrap.dedent("""
        import torch

        def noisy(x):
            print("tracing")
            return x.sin()
    """))
    (tmp_path / "unrelated.py").write_text(textwrap.dedent("""
        def report(x):
            print(x)
    """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import torch
        from helpers import noisy

        @torch.compile(fullgraph=True)
        def step(x):
            return noisy(x) * 2

        def main():
            step(torch.ones(2))
    """))
    monkeypatch.setattr(api, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(api, "DEFER_THRESHOLD", 2)
    ws = Workspace(Config(project_root=str(tmp_path)), use_cache=False)
    files = ws.discover([tmp_path])
    ws.load_files(files, jobs=2)  # (the load itself in worker processes: the materializer's jobs come from it)
    ws._jobs = jobs
    loaded = {Path(m.path).name: m for m in ws.project.modules.values()}
    assert loaded["helpers.py"].body_deferred() and loaded["unrelated.py"].body_deferred()
    assert not loaded["train.py"].body_deferred()  # (a root: analysed whole)
    found = [(Path(f.path).name, f.span.start.line + 1, f.code) for f in ws.findings_for(files)]
    assert found == [("helpers.py", 5, "FG101")]
    assert not loaded["helpers.py"].body_deferred() and loaded["helpers.py"].functions["helpers.noisy"].sites


def test_a_file_changed_since_it_was_loaded_gives_no_body_and_no_crash(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("def f(x):\n    return x\n")
    modname, is_pkg = module_name_for(str(path))
    _, lazy, _ = _analyze_file((str(path), modname, is_pkg), defer=True)
    assert lazy.body_deferred() and "mod.f" in lazy.function_names()
    path.write_text("def g(x):\n    return x\n")
    assert lazy.functions == {} and not lazy.body_deferred()


def test_an_editor_buffer_is_analysed_whole(tmp_path):
    ws = Workspace(Config(project_root=str(tmp_path)), use_cache=False)
    summary = ws.set_text(str(tmp_path / "mod.py"), "def f(x):\n    return x\n")
    assert not summary.body_deferred() and "mod.f" in summary.functions

"""Torch versions: which collected release stands for the user's torch, what the summary, the JSON and the
status item say, which fixes a release gets, and which GB texts hover quotes.

Nothing here installs torch: each release's facts come from server/fullgraph/data/knowledge-<V>.json
(`python -m fullgraph.knowledge collect V`); the catalog's agreement per release is tests/test_catalog.py.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from harness import check_code, dedent

from fullgraph import torchinfo
from fullgraph.config import Config
from fullgraph.output import summary_line
from fullgraph.torchinfo import TorchVersion

ROOT = Path(__file__).resolve().parent.parent
V = TorchVersion.parse
NEWEST = torchinfo.newest_knowledge()


def test_the_installed_version_selects_the_knowledge():
    assert [str(v) for v in torchinfo.knowledge_versions()][-3:] == ["2.13.0", "2.14.1", "2.15.0"]
    assert torchinfo.knowledge_version(V("2.13.0")) == V("2.13.0")
    assert torchinfo.knowledge_version(V("2.14.0")) == V("2.14.1")  # the release of its minor
    assert torchinfo.knowledge_version(V("2.13.4")) == V("2.13.0")
    assert torchinfo.knowledge_version(V("2.10.0")) == torchinfo.knowledge_versions()[0]


def test_a_version_newer_than_any_collected_uses_the_newest_and_says_so(monkeypatch):
    newer = f"{NEWEST.major}.{NEWEST.minor + 1}.0"
    assert torchinfo.knowledge_version(V(newer)) == NEWEST
    line = summary_line([], 1, newer, "installed")
    assert line == (f"No graph breaks found in 1 file checked (torch {newer} installed; Dynamo {NEWEST}'s verdicts, "
                    "the newest collected).")
    # without torch: the newest collected release is assumed, and the line says so
    monkeypatch.setattr("fullgraph.config.installed_torch_version", lambda: None)
    cfg = Config()
    assert cfg.torch() == NEWEST and cfg.knowledge() == NEWEST
    assert summary_line([], 1, str(cfg.torch()), cfg.torch_source()).endswith(
        f"(torch not installed, {NEWEST} assumed; Dynamo {NEWEST}'s verdicts, the newest collected).")


def test_summary_line_and_json_name_both_versions(tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n    return x + 1\n")
    run = [sys.executable, "-m", "fullgraph", "check", str(tmp_path), "--no-cache", "--torch-version", "2.14.1"]
    text = subprocess.run(run, capture_output=True, text=True, cwd=ROOT).stdout
    assert text.strip().endswith("(torch 2.14.1 configured; Dynamo 2.14.1's verdicts).")
    doc = json.loads(subprocess.run(run + ["--format", "json"], capture_output=True, text=True, cwd=ROOT).stdout)
    assert (doc["torch_version"], doc["knowledge_version"]) == ("2.14.1", "2.14.1")


RANDOM = """
    import random
    import torch

    @torch.compile(fullgraph=True)
    def f(x):
        return x * random.random()
    """


@pytest.mark.parametrize("version,reported", [("2.13.0", True), ("2.14.1", False), ("2.15.0", False),
                                              ("2.16.0", False)])
def test_random_random_is_a_break_up_to_2_13_only(version, reported):
    assert any(f.code == "FG108" for f in check_code(dedent(RANDOM), torch_version=version)) == reported


NONSTRICT = """
    import torch

    def g(x):
        torch._dynamo.graph_break()
        return x.sin()

    @torch.compile(fullgraph=True)
    def f(x):
        return g(x) + 1
    """


@pytest.mark.parametrize("version,api", [("2.13.0", "torch._dynamo.nonstrict_trace"),
                                         ("2.14.1", "torch.compiler.nonstrict_trace"),
                                         ("2.15.0", "torch.compiler.nonstrict_trace"),
                                         ("2.16.0", "torch.compiler.nonstrict_trace"),
                                         ("2.10.0", "torch._dynamo.nonstrict_trace")])
def test_nonstrict_trace_takes_the_public_name_where_the_release_has_it(tmp_path, version, api):
    from fullgraph.api import Workspace

    # at the call site, inside the compiled region, the private name on every release (the public one is
    # a skipped function there: GB0007 on 2.15.0, found by `python -m fullgraph.knowledge oracle 2.15.0`)
    (f,) = [f for f in check_code(dedent(NONSTRICT), torch_version=version) if f.code == "FG201"]
    offer = next(o for o in f.fixes if o.id == "nonstrict-trace")
    assert "`torch._dynamo.nonstrict_trace(g)(…)`" in offer.title
    # as a decorator on the definition (the call is in another file): the release's public name
    helpers, main = dedent(NONSTRICT).split("@torch.compile")
    (tmp_path / "helpers.py").write_text(helpers)
    (tmp_path / "main.py").write_text("import torch\nfrom helpers import g\n\n@torch.compile" + main)
    ws = Workspace(Config(project_root=str(tmp_path), torch_version=version))
    (f,) = ws.check([tmp_path]).findings
    offer = next(o for o in f.fixes if o.id == "nonstrict-trace")
    assert offer.title.startswith(f"Decorate `g` with `@{api}`"), offer.title


def test_a_remedy_whose_api_the_release_lacks_is_not_offered(monkeypatch):
    from fullgraph.fixes import FIXES

    real = torchinfo.api_exists
    monkeypatch.setattr("fullgraph.fixes.base.api_exists",
                        lambda name, v: False if name == "torch.library.custom_op" else real(name, v))
    assert not FIXES["custom-op"].supported(V("2.15.0"))
    monkeypatch.setattr("fullgraph.fixes.base.api_exists", real)
    assert FIXES["custom-op"].supported(V("2.15.0"))
    assert FIXES["nonstrict-trace"].supported(V("2.15.0")) and FIXES["nonstrict-trace"].supported(V("2.13.0"))


PRINT_KWARGS = """
    import torch

    @torch.compile(fullgraph=True)
    def f(x):
        print("step", end="\\n", flush=True)
        return x + 1
    """


@pytest.mark.parametrize("version,offered", [("2.13.0", True), ("2.14.1", False), ("2.15.0", False)])
def test_reordered_print_with_keywords_only_where_it_compiles(version, offered):
    (f,) = check_code(dedent(PRINT_KWARGS), torch_version=version)
    assert ("reorderable-logging" in [o.id for o in f.fixes]) == offered


def test_gb_texts_come_from_the_selected_release():
    on_13 = torchinfo.knowledge_registry(V("2.13.0"))
    on_15 = torchinfo.knowledge_registry(V("2.15.0"))
    assert "GB9193" in on_15 and "GB9193" not in on_13  # "Call to a time function", new on 2.15
    assert on_15["GB9193"].gb_type == "Call to a time function"
    assert torchinfo.knowledge_registry(V("2.16.0")) == on_15


def test_reading_the_knowledge_imports_no_torch():
    code = ("import sys; from fullgraph import torchinfo as t; "
            "t.knowledge_registry(t.TorchVersion(2, 15)); t.api_exists('torch.cond', t.TorchVersion(2, 15)); "
            "assert 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT / "server")


def test_hover_quotes_the_registry_of_the_version_checked_against():
    installed = torchinfo.installed_torch_version()
    if installed and V(installed) == V("2.13.0"):  # the installed torch's own file
        assert "GB9193" not in torchinfo.gb_registry(V("2.13.0"))
    assert torchinfo.gb_registry(V("2.15.0"))["GB9193"].gb_type == "Call to a time function"
    assert "GB0060" in torchinfo.gb_registry(V("2.13.0")) and "GB0060" not in torchinfo.gb_registry(V("2.14.1"))

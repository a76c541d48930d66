"""A module handed to `__init__` and called through self (`self.attention = attention` ... `self.attention(x)`,
`self.layers = nn.ModuleList(layers)` ... `for layer in self.layers: layer(x)`) is followed to the classes every
construction passes (tests/test_compile_targets.py).  When a construction passes something the analysis cannot
type -- what a function returns that makes the module by name (`getattr(module, name)()`), a parameter of the
function the construction is in -- the walk stops there, and says so: the call is counted among the calls from
compiled code that could not be followed ("No graph breaks found" is never said alone), `-v` names it with the
construction, and the editor shows FG003 on it.  When every construction passes a module (or None), or what a
function returns whose every `return` is an instance of a module class (`Holder(build_attention(name))`), nothing is
said; a construction in the `__init__` of a followed library's class that the program never makes does not count.
Dynamo breaks behind each call not followed (the print in Attn.forward): the walk was incomplete indeed."""
from __future__ import annotations

import json
import os
import sys
import textwrap

from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.cli import main as cli_main
from fullgraph.config import Config

MODEL = '''\
import torch
import torch.nn as nn


class Attn(nn.Module):
    def forward(self, x):
        print("attention")
        return x * 2


class Plain(nn.Module):
    def forward(self, x):
        return x + 1


class Holder(nn.Module):
    def __init__(self, attention):
        super().__init__()
        self.attention = attention

    def forward(self, x):
        return self.attention(x) + 1


class Optional(nn.Module):
    def __init__(self, attention=None):
        super().__init__()
        self.attention = attention

    def forward(self, x):
        if self.attention is None:
            return x
        return self.attention(x)


class Stack(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
'''

# the line of `self.attention(x)` and of `x = layer(x)` in model.py, and of the print behind them
HOLDER_CALL, STACK_CALL, PRINT = 22, 43, 7

SCRIPTS = {
    # a factory that makes the module by its name: what it returns is not known
    "returned": '''\
        import sys

        import torch

        import model


        def make_attention(name):
            return getattr(model, name)()


        def main():
            name = sys.argv[1] if sys.argv[1:2] == ["Plain"] else "Attn"
            holder = torch.compile(model.Holder(make_attention(name)))
            holder(torch.randn(4))
            stack = torch.compile(model.Stack([make_attention(name) for _ in range(2)]))
            stack(torch.randn(4))
        ''',
    # the module is a parameter of the function that constructs the holder, chosen from the command line
    "param": '''\
        import sys

        import torch

        from model import Attn, Holder, Plain

        ATTENTIONS = {"attn": Attn, "plain": Plain}


        def build(attention):
            return Holder(attention)


        def main():
            name = sys.argv[1] if sys.argv[1:2] == ["plain"] else "attn"
            holder = torch.compile(build(ATTENTIONS[name]()))
            holder(torch.randn(4))
        ''',
    # the module passed through **kwargs built from the command line
    "stars": '''\
        import sys

        import torch

        from model import Attn, Holder, Plain


        def main():
            options = {"attention": Plain() if sys.argv[1:2] == ["plain"] else Attn()}
            holder = torch.compile(Holder(**options))
            holder(torch.randn(4))
        ''',
    # what a function returns, every `return` of it an instance of a module class: followed, nothing is said
    "built": '''\
        import torch

        from model import Attn, Holder


        def build_attention():
            return Attn()


        def main():
            holder = torch.compile(Holder(build_attention()))
            holder(torch.randn(4))
        ''',
    # one of two classes by an if/else (the first branch the one that breaks): both are followed
    "chosen": '''\
        import sys

        import torch

        from model import Attn, Holder, Plain


        def build_attention(name):
            if name == "attn":
                return Attn()
            else:
                return Plain()


        def main():
            name = "plain" if sys.argv[1:2] == ["plain"] else "attn"
            holder = torch.compile(Holder(build_attention(name)))
            holder(torch.randn(4))
        ''',
    # one of a table of classes, through a function whose result the factory returns
    "table": '''\
        import sys

        import torch

        from model import Attn, Holder, Plain

        ATTENTIONS = {"attn": Attn, "plain": Plain}


        def make(name):
            return ATTENTIONS[name]()


        def build_attention(name):
            return make(name)


        def main():
            name = "plain" if sys.argv[1:2] == ["plain"] else "attn"
            holder = torch.compile(Holder(build_attention(name)))
            holder(torch.randn(4))
        ''',
    # one `return` an instance of a class, the other what is made by name: not known, said
    "mixed": '''\
        import sys

        import torch

        import model


        def build_attention(name):
            if name == "attn":
                return model.Attn()
            return getattr(model, name)()


        def main():
            name = sys.argv[1] if sys.argv[1:2] == ["Plain"] else "attn"
            holder = torch.compile(model.Holder(build_attention(name)))
            holder(torch.randn(4))
        ''',
    # every construction passes a module: Attn's break is shown, nothing is said
    "known": '''\
        import torch

        from model import Attn, Holder, Plain


        def main():
            holder = torch.compile(Holder(Attn()))
            holder(torch.randn(4))
            return Holder(Plain())(torch.randn(4))
        ''',
    # one passes a module, the other leaves the default None: the module is followed (the break behind the test
    # of what the compiled object holds), nothing is said
    "optional": '''\
        import torch

        from model import Attn, Optional


        def main():
            compiled = torch.compile(Optional(Attn()))
            compiled(torch.randn(4))
            return Optional()(torch.randn(4))
        ''',
}


def project(tmp_path, form: str):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(textwrap.dedent(SCRIPTS[form]))
    return tmp_path


def check(capsys, *args) -> tuple[int, str, str]:
    code = cli_main(["check", *map(str, args), "--no-cache", "--color", "never"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_module_a_factory_makes_by_name_is_not_followed_and_said(tmp_path, capsys):
    root = project(tmp_path, "returned")
    model = root / "model.py"
    code, out, err = check(capsys, root, "-v")
    assert code == 0, out + err
    assert "No graph breaks found in 2 files checked; 2 calls from compiled code could not be followed; " \
           "-v lists them" in out
    assert f"    self.attention at {model}:{HOLDER_CALL} (`self.attention` holds what `Holder(...)` at train.py:14 " \
           "is given for `attention`: what `make_attention(...)` returns, which is not followed)" in err
    assert f"    layer at {model}:{STACK_CALL} (`self.layers` holds what `Stack(...)` at train.py:16 is given for " \
           "`layers`: what `make_attention(...)` returns, which is not followed)" in err
    doc = json.loads(check(capsys, root, "--format", "json")[1])
    assert [(u["call"], u["range"]["start"]["line"], u["why"]) for u in doc["unfollowed_calls"]] == [
        ("self.attention", HOLDER_CALL, "self.attention holds what Holder(...) at train.py:14 is given for attention: "
                                        "what make_attention(...) returns, which is not followed"),
        ("layer", STACK_CALL, "self.layers holds what Stack(...) at train.py:16 is given for layers: "
                              "what make_attention(...) returns, which is not followed")]


def test_a_parameter_of_the_constructing_function_is_not_followed_and_said(tmp_path, capsys):
    root = project(tmp_path, "param")
    code, out, err = check(capsys, root, "-v")
    assert code == 0, out + err
    assert "No graph breaks found in 2 files checked; 1 call from compiled code could not be followed; " \
           "-v lists them" in out
    assert f"    self.attention at {root / 'model.py'}:{HOLDER_CALL} (`self.attention` holds what `Holder(...)` at " \
           "train.py:11 is given for `attention`: `attention`, a parameter of `build` whose value is not known)" in err


def test_a_module_passed_through_kwargs_is_not_followed_and_said(tmp_path, capsys):
    root = project(tmp_path, "stars")
    code, out, err = check(capsys, root, "-v")
    assert "1 call from compiled code could not be followed" in out, out + err
    assert f"    self.attention at {root / 'model.py'}:{HOLDER_CALL} (`self.attention` holds what `Holder(...)` at " \
           "train.py:10 is given for `attention`: what its `*args`/`**kwargs` hold)" in err


def test_a_module_a_factory_returns_is_followed_silently(tmp_path, capsys):
    """`Holder(build_attention(...))`, every `return` of the factory an instance of a module class (one, one of two
    by an if/else, one of a table of classes through another factory): the break behind is shown, nothing said."""
    for form in ("built", "chosen", "table"):
        (tmp_path / form).mkdir()
        root = project(tmp_path / form, form)
        code, out, err = check(capsys, root, "-v")
        assert code == 1, (form, out + err)
        assert f"model.py:{PRINT}:9: warning FG101" in out, (form, out)
        assert "could not be followed" not in out + err, (form, out + err)
        doc = json.loads(check(capsys, root, "--format", "json")[1])
        assert doc["unfollowed_calls"] == [], form
        assert [(f["code"], f["range"]["start"]["line"]) for f in doc["diagnostics"]] == [("FG101", PRINT)], form


def test_a_factory_with_one_return_not_known_is_not_followed_and_said(tmp_path, capsys):
    root = project(tmp_path, "mixed")
    code, out, err = check(capsys, root, "-v")
    assert code == 0, out + err
    assert "No graph breaks found in 2 files checked; 1 call from compiled code could not be followed; " \
           "-v lists them" in out
    assert f"    self.attention at {root / 'model.py'}:{HOLDER_CALL} (`self.attention` holds what `Holder(...)` at " \
           "train.py:16 is given for `attention`: what `build_attention(...)` returns, which is not followed)" in err


def test_the_editor_shows_fg003_on_the_call(tmp_path):
    root = project(tmp_path, "returned")
    ws = Workspace(Config(project_root=str(root)), use_cache=False)
    ws.check([root])
    got = [(f.code, f.severity, f.span.start.line + 1, f.message) for f in ws.unfollowed([str(root / "model.py")])]
    assert got == [
        ("FG003", "info", HOLDER_CALL,
         "fullgraph could not follow `self.attention` from compiled code (`self.attention` holds what `Holder(...)` "
         "at train.py:14 is given for `attention`: what `make_attention(...)` returns, which is not followed); "
         "the graph breaks behind it are not checked"),
        ("FG003", "info", STACK_CALL,
         "fullgraph could not follow `layer` from compiled code (`self.layers` holds what `Stack(...)` at "
         "train.py:16 is given for `layers`: what `make_attention(...)` returns, which is not followed); "
         "the graph breaks behind it are not checked")]


def test_modules_every_construction_passes_are_followed_silently(tmp_path, capsys):
    root = project(tmp_path, "known")
    code, out, err = check(capsys, root, "-v")
    assert code == 1, out + err
    assert f"model.py:{PRINT}:9: warning FG101" in out
    assert "could not be followed" not in out + err
    doc = json.loads(check(capsys, root, "--format", "json")[1])
    assert doc["unfollowed_calls"] == [] and doc["unresolved_roots"] == []


def test_a_construction_leaving_the_default_none_holds_no_module(tmp_path, capsys):
    """`Optional()` beside `Optional(Attn())`: Attn is what the attribute may hold; the break behind it depends
    on the test of the attribute, which the analysis leaves undecided (a conditional finding)."""
    root = project(tmp_path, "optional")
    code, out, err = check(capsys, root, "-v", "--show-conditional")
    assert f"model.py:{PRINT}:9: info FG101" in out and "(only when `self.attention is not None`)" in out, out
    assert "could not be followed" not in out + err


def test_dynamo_breaks_behind_the_calls_not_followed(tmp_path):
    """What the FG003 warns of is there: Dynamo breaks at the print in Attn.forward in each script (and
    fullgraph shows it where every construction passes a module)."""
    for form in SCRIPTS:
        (tmp_path / form).mkdir()
        root = project(tmp_path / form, form)
        try:
            seen = dynamo_breaks_of_main(root, "train")
        finally:
            sys.modules.pop("model", None)  # (the next script's model.py is its own)
        assert (os.path.realpath(root / "model.py"), PRINT) in seen, (form, seen)


LIBRARY = '''\
import torch.nn as nn


class Wrapper(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x) * 2


class Pair(nn.Module):
    def __init__(self, inner=None):
        super().__init__()
        self.inner = inner or nn.Identity()
        self.outer = Wrapper(self.inner)

    def forward(self, x):
        return self.outer(x)
'''

USER = '''\
import torch
import torch.nn as nn

from fakewrap import Pair, Wrapper


class Noisy(nn.Module):
    def forward(self, x):
        print("noisy")
        return x


def main():
    model = torch.compile(Wrapper(Noisy()))
    return model(torch.randn(4))
'''


def library_project(tmp_path, monkeypatch, user: str):
    site = tmp_path / "site"
    (site / "fakewrap").mkdir(parents=True)
    (site / "fakewrap" / "__init__.py").write_text(LIBRARY)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    (root / "train.py").write_text(user)
    monkeypatch.syspath_prepend(str(site))
    return root


def test_a_construction_in_a_library_class_nothing_makes_does_not_count(tmp_path, monkeypatch, capsys):
    """`Wrapper(self.inner)` in the `__init__` of a library class the program never makes never runs: the
    module the user hands the Wrapper is followed (Dynamo breaks at its print)."""
    root = library_project(tmp_path, monkeypatch, USER)
    code, out, err = check(capsys, root, "--follow", "fakewrap", "-v")
    assert "train.py:9:9: warning FG101" in out, out + err
    assert "could not be followed" not in out + err
    seen = dynamo_breaks_of_main(root, "train")
    assert (os.path.realpath(root / "train.py"), 9) in seen


def test_a_construction_in_a_library_class_the_program_makes_counts(tmp_path, monkeypatch, capsys):
    """Once the program makes a Pair, its `Wrapper(self.inner)` runs, with a module the analysis does not type
    there: `self.net(x)` is not followed, and said."""
    root = library_project(tmp_path, monkeypatch, USER.replace("    return model(torch.randn(4))\n",
                                                                "    return model(torch.randn(4)), Pair()(torch.randn(4))\n"))
    code, out, err = check(capsys, root, "--follow", "fakewrap", "-v")
    assert "FG101" not in out
    assert "1 call from compiled code could not be followed" in out
    assert "(`self.net` holds what `Wrapper(...)` at __init__.py:17 is given for `net`: `self.inner` in " \
           "`Pair.__init__`, whose module is not known)" in err, err
    seen = dynamo_breaks_of_main(root, "train")
    assert (os.path.realpath(root / "train.py"), 9) in seen


CLONED = '''\
import copy

import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x):
        print("block")
        return x + 1


def clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = clones(Block(), 2)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def main():
    return torch.compile(Net())(torch.ones(2))
'''


def test_a_module_a_function_makes_of_its_argument_is_not_followed_and_said(tmp_path, capsys):
    """`self.layers = clones(Block(), 2)` (the annotated Transformer's `clones`, copies of the module it is given):
    the class of what the function returns depends on its argument, which the analysis does not follow; the call
    of the layers is counted and named, and Dynamo does break behind it."""
    (tmp_path / "cloned.py").write_text(CLONED)
    code, out, err = check(capsys, tmp_path / "cloned.py", "-v")
    assert code == 0, out + err
    assert "No graph breaks found in 1 file checked; 1 call from compiled code could not be followed; " \
           "-v lists them" in out
    assert f"    layer at {tmp_path / 'cloned.py'}:24 (`self.layers` holds what `clones(...)` returns, whose class " \
           "the analysis cannot tell)" in err
    assert {line for p, line in dynamo_breaks_of_main(tmp_path, "cloned") if p.endswith("cloned.py")} == {9}


NAMED = '''\
import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x):
        print("block")
        return x + 1


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        for i in range(2):
            setattr(self, f"layer{i}", Block())

    def forward(self, x):
        for i in range(2):
            x = getattr(self, f"layer{i}")(x)
        return x


def main():
    return torch.compile(Net())(torch.ones(2))
'''


def test_an_attribute_named_at_run_time_is_not_followed_and_said(tmp_path, capsys):
    """`getattr(self, f"layer{i}")(x)`: the attribute called is chosen at run time; counted and named."""
    (tmp_path / "named.py").write_text(NAMED)
    code, out, err = check(capsys, tmp_path / "named.py", "-v")
    assert code == 0, out + err
    assert "1 call from compiled code could not be followed" in out
    assert f'    getattr(self, f"layer{{i}}") at {tmp_path / "named.py"}:19 (a value made at run time)' in err
    assert {line for p, line in dynamo_breaks_of_main(tmp_path, "named") if p.endswith("named.py")} == {7}

"""What real code compiles: a submodule held in an attribute of a built model (`torch.compile(model.encoder)`,
`model.decoder = torch.compile(model.decoder)`, also one its `__init__` was given), one item of what a factory
returns (`model, criterion = build(cfg)`), through factories that return another factory's result, and a
factory's module moved or put in a mode (`create_model().float().eval()`), a model chosen by an if/else, a module handed to `__init__` (alone, in a list
for `nn.ModuleList`, or of a class picked by a conditional expression), an autograd.Function's `apply` under another name.  fullgraph follows each to the functions it runs, and reports the breaks
Dynamo logs when the script runs -- no more (tests/harness.py runs each script's main() under Dynamo)."""
from __future__ import annotations

import os
import textwrap

import pytest
from harness import dynamo_breaks_of_main

from fullgraph.api import Workspace
from fullgraph.config import Config

MODEL = '''\
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        print("encoding")  # encoder
        return self.lin(x)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        if x.sum() > 0:  # decoder
            return self.lin(x)
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()

    def forward(self, x):
        return self.decoder(self.encoder(x))


def build(cfg):
    model = Model()
    criterion = nn.MSELoss()
    return model, criterion


def create_model():
    return Model()


def create_model_and_loss():
    model = create_model()
    return model, nn.MSELoss()


class Holder(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)


def build_holder():
    return Holder(Encoder())


class Wrapper(nn.Module):  # (constructed only by the scripts: each passes its own module)
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)


class _Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        n = x.sum().item()  # scale
        return x * n

    @staticmethod
    def backward(ctx, g):
        return g


scale = _Scale.apply


class Builder:
    def __init__(self, kind):
        self.kind = kind
        self.device = torch.device("cpu")
        self.model = self._build_model().to(self.device)

    def _build_model(self):
        raise NotImplementedError


class EncoderBuilder(Builder):
    def _build_model(self):
        return Encoder()


class TableBuilder(Builder):
    def _build_model(self):
        model_dict = {"encoder": Encoder, "decoder": Decoder}
        model = model_dict[self.kind]().float()
        return model


def make(kind):
    return {"encoder": Encoder, "decoder": Decoder}[kind]()


MODELS = {"encoder": Encoder, "decoder": Decoder}


def make_encoder():
    return MODELS["encoder"]()
'''

SCRIPTS = {
    "attr_reassigned": ('''\
        import torch
        from proj.model import Model


        def main():
            model = Model()
            model.decoder = torch.compile(model.decoder)
            model(torch.randn(2, 4))
        ''', {"decoder"}),
    "injected_module": ('''\
        import torch
        import torch.nn as nn
        from proj.model import Decoder, Wrapper


        def main():
            model = torch.compile(Wrapper(Decoder()))
            model(torch.randn(2, 4))
        ''', {"decoder"}),
    "injected_list_and_choice": ('''\
        import torch
        import torch.nn as nn
        from proj.model import Decoder, Encoder, Wrapper


        class Net(nn.Module):
            def __init__(self, deep=True):
                super().__init__()
                Block = Decoder if deep else nn.Identity
                self.layers = nn.ModuleList([Wrapper(Block()) for _ in range(2)])
                self.head = Wrapper(Encoder())

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return self.head(x)


        def main():
            model = torch.compile(Net())
            model(torch.randn(2, 4))
        ''', {"decoder", "encoder"}),
    "injected_torch_module": ('''\
        import torch
        import torch.nn as nn
        from proj.model import Wrapper


        def main():
            model = torch.compile(Wrapper(nn.Linear(4, 4)))
            model(torch.randn(2, 4))
        ''', set()),
    "attr_compiled": ('''\
        import torch
        from proj.model import Model


        def main():
            model = Model()
            enc = torch.compile(model.encoder)
            enc(torch.randn(2, 4))
        ''', {"encoder"}),
    "module_level_attr": ('''\
        import torch
        from proj.model import Model

        model = Model()
        enc = torch.compile(model.encoder)


        def main():
            enc(torch.randn(2, 4))
        ''', {"encoder"}),
    "factory_tuple": ('''\
        import torch
        from proj.model import build


        def main():
            model, criterion = build(None)
            compiled = torch.compile(model)
            out = compiled(torch.randn(2, 4))
            return criterion(out, torch.zeros(2, 4))
        ''', {"encoder", "decoder"}),
    "factory_tuple_method": ('''\
        import torch
        from proj.model import build


        def main():
            model, criterion = build(None)
            model.compile()
            model(torch.randn(2, 4))
        ''', {"encoder", "decoder"}),
    "factory_chain_item": ('''\
        import torch
        from proj.model import create_model_and_loss


        def main():
            model, loss = create_model_and_loss()
            torch.compile(model)(torch.randn(2, 4))
        ''', {"encoder", "decoder"}),
    "factory_moved_and_moded": ('''\
        import torch
        from proj.model import create_model


        def main():
            model = create_model().float().eval()
            compiled = torch.compile(model)
            compiled(torch.randn(2, 4))
        ''', {"encoder", "decoder"}),
    "attr_passed_to_init": ('''\
        import torch
        from proj.model import build_holder


        def main():
            holder = build_holder()
            holder.model = torch.compile(holder.model)
            holder(torch.randn(2, 4))
        ''', {"encoder"}),
    "autograd_apply_alias": ('''\
        import torch
        from proj.model import scale


        def step(x):
            return scale(x) + 1


        def main():
            torch.compile(step)(torch.randn(2, 4))
        ''', {"scale"}),
    "chosen_by_if_else": ('''\
        import torch
        from proj.model import Decoder, Encoder


        def run(encode):
            if encode:
                model = Encoder()
            else:
                model = Decoder()
            model = torch.compile(model)
            model(torch.randn(2, 4))


        def main():
            run(True)
            run(False)
        ''', {"encoder", "decoder"}),
    "chosen_by_if_over_default": ('''\
        import torch
        from proj.model import Decoder, Encoder


        def run(decode):
            model = Encoder()
            if decode:
                model = Decoder()
            torch.compile(model)(torch.randn(2, 4))


        def main():
            run(False)
            run(True)
        ''', {"encoder", "decoder"}),
    "attr_from_method_return": ('''\
        import torch
        from proj.model import EncoderBuilder


        def main():
            b = EncoderBuilder("encoder")
            b.model = torch.compile(b.model)
            b.model(torch.randn(2, 4))
        ''', {"encoder"}),
    "attr_from_table_of_classes": ('''\
        import torch
        from proj.model import TableBuilder


        def main():
            for kind in ("encoder", "decoder"):
                b = TableBuilder(kind)
                b.model = torch.compile(b.model)
                b.model(torch.randn(2, 4))
        ''', {"encoder", "decoder"}),
    "factory_of_table_of_classes": ('''\
        import torch
        from proj.model import make


        def run(kind):
            model = torch.compile(make(kind))
            model(torch.randn(2, 4))


        def main():
            run("encoder")
            run("decoder")
        ''', {"encoder", "decoder"}),
    "table_of_classes_at_a_literal_key": ('''\
        import torch
        from proj.model import make_encoder


        def main():
            model = torch.compile(make_encoder())
            model(torch.randn(2, 4))
        ''', {"encoder"}),
}


def _lines(marks: set[str]) -> set[int]:
    return {i for i, line in enumerate(MODEL.splitlines(), 1) for m in marks if line.endswith(f"# {m}")}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_compiled_target_is_followed_and_dynamo_agrees(name, tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "__init__.py").write_text("")
    (tmp_path / "proj" / "model.py").write_text(MODEL)
    script, marks = SCRIPTS[name]
    (tmp_path / "proj" / f"{name}.py").write_text(textwrap.dedent(script))
    res = Workspace(Config(project_root=str(tmp_path))).check([tmp_path / "proj" / f"{name}.py",
                                                             tmp_path / "proj" / "model.py"])
    model = os.path.realpath(tmp_path / "proj" / "model.py")
    shown = {f.span.start.line + 1 for f in res.findings if f.condition is None}
    assert shown == _lines(marks)
    assert res.unresolved_roots == []
    seen = dynamo_breaks_of_main(tmp_path, f"proj.{name}")
    assert {line for path, line in seen if path == model} == shown

"""Values the program computes from what the analysis knows are not conditions: the loss a model uses
when its base class derives the loss type from the class's name (transformers' `PreTrainedModel`:
`loss_type` is the key of `LOSS_MAPPING` found in `self.__class__.__name__`, and the `loss_function`
property returns `LOSS_MAPPING[loss_type]`).  Only that loss is on the compiled call's path: a
causal-LM model is not reported for the CTC loss's break, a CTC model is.  Each script's main() runs
under Dynamo, which must break exactly where fullgraph says."""
from __future__ import annotations

import pytest
from harness import check_code, dynamo_lines, expected

from fullgraph.engine import consteval as E

MODELS = '''\
import re

import torch
import torch.nn as nn
import torch.nn.functional as F


def causal_lm_loss(logits, labels):
    return F.cross_entropy(logits, labels)


def ctc_like_loss(logits, labels):
    kept = torch.nonzero(labels)  {ctc}
    return logits.sum() + kept.sum()


LOSS_MAPPING = {{"ForCausalLM": causal_lm_loss, "ForCTC": ctc_like_loss}}


class Pretrained(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        loss_type = self.__class__.__name__
        if loss_type not in LOSS_MAPPING:
            loss_groups = f"({{'|'.join(LOSS_MAPPING)}})"
            loss_type = re.findall(loss_groups, self.__class__.__name__)
            loss_type = loss_type[0] if len(loss_type) > 0 else None
        self.loss_type = loss_type

    @property
    def loss_function(self):
        if hasattr(self, "_loss_function"):
            return self._loss_function
        loss_type = getattr(self, "loss_type", None)
        if loss_type is None or loss_type not in LOSS_MAPPING:
            loss_type = "ForCausalLM"
        return LOSS_MAPPING[loss_type]

    def forward(self, x, labels):
        return self.loss_function(self.proj(x), labels)


class TinyForCausalLM(Pretrained):
    pass


class TinyForCTC(Pretrained):
    pass


def main():
    x, labels = torch.randn(4, 8), torch.tensor([1, 0, 3, 2])
    return torch.compile({model}())(x, labels)
'''


@pytest.mark.parametrize("model, ctc", [("TinyForCausalLM", ""), ("TinyForCTC", "# expect: FG304")])
def test_the_loss_the_class_name_selects(tmp_path, model, ctc):
    code = MODELS.format(model=model, ctc=ctc)
    findings = check_code(code, tmp_path, name="models")
    assert {(f.span.start.line + 1, f.code) for f in findings} == expected(code)
    assert not [f for f in findings if f.condition]
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, "models") == {line for line, _ in expected(code)}


def _attrs(src: str, class_name: str, registry: dict) -> dict:
    import ast
    fn = ast.parse(src).body[0]
    glob = {"re": E.Module("re"), "LOSSES": E.Registry(registry), "len": E.BUILTIN, "getattr": E.BUILTIN}
    return E.Evaluator(class_name, lambda a: E.UNKNOWN, lambda n: glob.get(n, E.UNKNOWN)).attrs_after(fn)


INIT = '''\
def __init__(self, config):
    kind = self.__class__.__name__
    if kind not in LOSSES:
        found = re.findall(f"({'|'.join(LOSSES)})", self.__class__.__name__)
        if len(found) > 0:
            kind = found[0]
        else:
            kind = None
    self.kind = kind
    self.size = config.size
    for name in config.names:
        self.last = name
'''


def test_evaluator_knows_only_what_the_code_computes_from_constants():
    losses = {"ForCTC": "m.ctc", "ForCausalLM": "m.causal"}
    assert _attrs(INIT, "Wav2Vec2ForCTC", losses)["kind"] == "ForCTC"
    assert _attrs(INIT, "ForCausalLM", losses)["kind"] == "ForCausalLM"
    assert _attrs(INIT, "GPT2LMHeadModel", losses)["kind"] is None
    attrs = _attrs(INIT, None, losses)  # the class is not known: neither is the key
    assert attrs["kind"] is E.UNKNOWN and attrs["size"] is E.UNKNOWN and attrs["last"] is E.UNKNOWN

"""Ground truth: every rule example under real Dynamo (torch 2.13 CPU, backend="eager").

- a breaking example under a fullgraph=True root must make the call raise a Dynamo error, at the
  line the analyzer reports (when Dynamo names a user frame);
- a breaking example under a plain torch.compile root must graph-break, and — for rules that only
  apply without fullgraph=True — must compile with fullgraph=True;
- a clean example must compile with no graph break;
- every breaking example must run in plain eager Python (so it breaks because of Dynamo, not a bug).
"""
from __future__ import annotations

import importlib.util

import pytest
from harness import check_code, dynamo_user_lines, expected, is_dynamo_error, run_example

from fullgraph.config import Config
from fullgraph.rules import registry
from fullgraph.rules.base import PARTIAL

torch = pytest.importorskip("torch")

# recompilation hazards (FG6xx) break no graph: tests/test_rules_recompile.py counts their recompiles
EXAMPLES = [(r, i, ex) for r in registry.RULES if not r.recompile for i, ex in enumerate(r.examples)]


def _ids():
    return [f"{r.code}-{i}-{'break' if e.breaks else 'clean'}" for r, i, e in EXAMPLES]


@pytest.mark.parametrize("rule,i,ex", EXAMPLES, ids=_ids())
def test_example_matches_dynamo(rule, i, ex, tmp_path):
    for mod in ex.needs:
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"needs {mod}")
    findings = check_code(ex.code, tmp_path)
    exp_lines = {line for line, _ in expected(ex.code)}
    out = run_example(ex.code, ex.call)
    if not ex.breaks:
        assert out.raised is None, f"clean example failed to compile: {out.raised!r}"
        assert out.graph_breaks == 0, "clean example graph-broke"
        return
    own = [f for f in findings if f.code == rule.code]
    assert own, "the analyzer must report the example"
    fullgraph = own[0].root.fullgraph
    if fullgraph:
        assert out.raised is not None, "expected Dynamo to raise under fullgraph=True"
        assert is_dynamo_error(out.raised), f"not a Dynamo error: {out.raised!r}"
        lines = dynamo_user_lines(out.raised)
        if lines:
            assert lines[-1] in exp_lines, f"Dynamo points at line {lines[-1]}, we report {sorted(exp_lines)}"
    else:
        assert out.raised is None, f"plain torch.compile raised: {out.raised!r}"
        assert out.graph_breaks > 0, "expected a graph break under torch.compile without fullgraph=True"
        if rule.modes(Config().torch()) == {PARTIAL}:
            strict = run_example(ex.code, ex.call, force_fullgraph=True)
            assert strict.raised is None, f"rule says fullgraph=True compiles this, Dynamo says {strict.raised!r}"
    if not ex.eager_ok:
        return
    eager = run_example(ex.code, ex.call, eager=True)
    assert eager.raised is None, f"example fails in plain Python: {eager.raised!r}"

"""Every rule example, through the analyzer: findings exactly where `# expect:` says, nowhere else.

The same examples run under real Dynamo in test_rules_dynamo.py, so analyzer and Dynamo cannot
disagree silently.
"""
from __future__ import annotations

import pytest
from harness import check_code, expected, found

from fullgraph.output import rule_docs
from fullgraph.rules import registry

EXAMPLES = [(r.code, i, ex) for r in registry.RULES for i, ex in enumerate(r.examples)]


@pytest.mark.parametrize("code,i,ex", EXAMPLES, ids=[f"{c}-{i}-{'break' if e.breaks else 'clean'}" for c, i, e in EXAMPLES])
def test_example_findings(code, i, ex, tmp_path):
    findings = check_code(ex.code, tmp_path)
    assert found(findings) == expected(ex.code), "\n".join(
        f"{f.span.start.line + 1}: {f.code} {f.message}" for f in findings)
    if ex.breaks:
        assert any(c == code for _, c in expected(ex.code)), "a breaking example must expect its own rule"
    else:
        assert not expected(ex.code)


def test_every_rule_has_docs_and_examples():
    for r in registry.RULES:
        assert r.code.startswith("FG") and len(r.code) == 5, r.code
        assert r.name and r.summary and r.what and r.why and r.instead, r.code
        if r.code.startswith("FG0"):
            continue
        assert any(e.breaks for e in r.examples), f"{r.code} has no breaking example"
        assert r.gb_codes or r.code == "FG302" or r.recompile, f"{r.code} names no Dynamo GB code"
        md = rule_docs(r)
        why = "Why it recompiles" if r.recompile else "Why it breaks the graph"
        for heading in ("What it does", why, "Example", "Use instead"):
            assert f"### {heading}" in md, (r.code, heading)


def test_codes_and_names_unique():
    codes = [r.code for r in registry.RULES]
    names = [r.name for r in registry.RULES]
    assert len(codes) == len(set(codes))
    assert len(names) == len(set(names))


def test_scope_facts_follow_python_scoping():
    """One walk decides a function's locals for the analyzer and what a statement binds for the fixes."""
    import ast

    from fullgraph.engine.scopes import bound_names, scope_facts

    fn = ast.parse(
        "def f(x):\n"
        "    global g\n"
        "    a, (b, *c) = x\n"
        "    import os.path as p, json\n"
        "    @deco(d := 1)\n"
        "    def inner(y=(e := 2)):\n"
        "        hidden = 1\n"
        "        yield hidden\n"
        "    squares = [h := i * i for i in range(3)]\n"
        "    lam = lambda q: (r := q)\n"
        "    try:\n"
        "        pass\n"
        "    except ValueError as err:\n"
        "        del a\n"
        "    g = 1\n"
        "    return (yield)\n").body[0]
    out: set[str] = set()
    declared, generator = scope_facts(fn.body, out)
    assert out == {"a", "b", "c", "p", "json", "d", "inner", "e", "squares", "h", "lam", "err", "g"}
    assert declared == {"g"} and generator is True
    assert bound_names(ast.parse("def helper():\n    x = 1\n").body[0]) == {"helper"}
    assert bound_names(ast.parse("for k, v in d.items():\n    total = k\n")) == {"k", "v", "total"}

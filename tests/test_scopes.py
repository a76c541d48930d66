"""scope_facts' statement-only fast path (modules without `:=` or `yield`) must find exactly what the full
walk finds: the locals of every function decide which names the analyzer resolves as globals."""
from __future__ import annotations

import ast
from pathlib import Path

from fullgraph.engine.scopes import scope_facts

ROOT = Path(__file__).resolve().parent.parent

TRICKY = '''
import os.path as osp, sys
from typing import Any

G = 1


def f(a, *args, k=1, **kw):
    global G
    x: int
    y: Any = 2
    z = w = (u, [v, *rest]) = (1, [2, 3, 4])
    obj.attr = 1
    arr[i] = 2
    n += 1
    del q
    for i, (j, k2) in enumerate(pairs):
        pass
    else:
        fe = 1
    while cond:
        wl = 1
    with open(p) as fh, ctx() as (c1, c2):
        wb = 1
    try:
        import json as js
    except (ValueError, KeyError) as err:
        ex = 1
    else:
        te = 1
    finally:
        tf = 1
    if a:
        from collections import OrderedDict
    match a:
        case {"k": mv, **mrest}:
            mb = 1
        case [first, *others] if first:
            pass
        case Point(x=px) | Other(px) as whole:
            pass
    @decorator(arg)
    def inner(b=default):
        hidden = 1
    class Local(Base):
        cls_attr = 1
    lam = lambda q2: q2 + 1
    comp = [t for t in range(3) if t]
    return x
'''


def _functions(tree: ast.AST):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _both(fn) -> tuple:
    full, fast = set(), set()
    return (scope_facts(fn.body, full), full), (scope_facts(fn.body, fast, plain=True), fast)


def test_fast_path_matches_the_full_walk_on_tricky_code():
    (facts, full), (fast_facts, fast) = _both(_functions(ast.parse(TRICKY))[0])
    assert (facts, full) == (fast_facts, fast)
    assert {"x", "y", "z", "w", "u", "v", "rest", "n", "q", "i", "j", "k2", "fe", "wl", "fh", "c1", "c2", "wb",
            "js", "err", "ex", "te", "tf", "OrderedDict", "mv", "mrest", "mb", "first", "others", "px", "whole",
            "inner", "Local", "lam", "comp"} == full
    assert facts == ({"G"}, False)


def test_fast_path_matches_the_full_walk_on_this_repository():
    checked = 0
    for p in [*ROOT.glob("server/**/*.py"), *ROOT.glob("examples/**/*.py"), *ROOT.glob("bench/*.py")]:
        src = p.read_text(encoding="utf-8")
        if ":=" in src or "yield" in src:
            continue  # the analyzer takes the full walk for these modules
        for fn in _functions(ast.parse(src)):
            full, fast = _both(fn)
            assert full == fast, f"{p}:{fn.lineno}"
            checked += 1
    assert checked > 300

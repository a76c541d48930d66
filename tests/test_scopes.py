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


GENERATORS = '''
def plain_yield(xs):
    for x in xs:
        yield x

def yield_in_expression(xs):
    total = 0
    while True:
        got = yield total
        total += got

def yield_from(xs):
    out = yield from xs
    return out

def yield_in_a_default(xs):
    def inner(a=(yield 1)):
        return a
    return inner

def yield_in_a_decorator():
    @wrap((yield))
    class C:
        pass

def not_a_generator(xs):
    def inner():
        yield 1
    lam = lambda: (yield)
    return inner, lam, [y for y in xs]

def yield_in_the_first_iterable(xs):
    return [y for y in (yield xs)]
'''


def test_the_yield_only_walk_matches_the_full_walk():
    """Without `:=` a function's names are its statements', and only whether it yields needs the walk
    (`walrus=False`): the same facts as the full walk, on generators written every way Python allows."""
    checked = 0
    sources = [GENERATORS, *(p.read_text(encoding="utf-8") for p in ROOT.glob("server/**/*.py")),
               *(p.read_text(encoding="utf-8") for p in ROOT.glob("tests/*.py"))]
    generators = 0
    for src in sources:
        if ":=" in src:
            continue
        for fn in _functions(ast.parse(src)):
            full, yields_only = set(), set()
            facts = scope_facts(fn.body, full)
            assert (facts, full) == (scope_facts(fn.body, yields_only, walrus=False), yields_only), fn.name
            generators += facts[1]
            checked += 1
    assert checked > 1000 and generators > 20
    tree = ast.parse(GENERATORS)
    assert {fn.name: scope_facts(fn.body, set(), walrus=False)[1] for fn in tree.body} == {
        "plain_yield": True, "yield_in_expression": True, "yield_from": True, "yield_in_a_default": True,
        "yield_in_a_decorator": True, "not_a_generator": False, "yield_in_the_first_iterable": True}

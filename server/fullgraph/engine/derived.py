"""Values the project derives by evaluating a function's code (engine/consteval.py) with what it knows:
an attribute `__init__` computes from the class's name, the registry entries a property returns.

Used by Arrivals (`self.<attr>` readers) and the walk (which of a registry's functions a
`self.loss_function(...)` call runs).  Memoised in the contents' per-generation memo.
"""
from __future__ import annotations

import ast
import builtins
from typing import Any, Callable

from . import consteval as E
from .nodes import walk
from .summary import ClassSummary, FunctionSummary, ModuleSummary

_BUILTINS = frozenset(dir(builtins))


def _node(arr, fs: FunctionSummary, mod: ModuleSummary) -> ast.FunctionDef | None:
    """The function's definition in its module's syntax tree (looked up once per generation)."""
    key = ("fn_node", mod.path, mod.text_hash, fs.qualname, fs.span.start.line)
    memo = arr.c.memo
    if key not in memo:
        memo[key] = _find_node(arr, fs, mod)
    return memo[key]


def _find_node(arr, fs: FunctionSummary, mod: ModuleSummary) -> ast.FunctionDef | None:
    if arr.source_of is None:
        return None
    text = arr.source_of(mod.path)
    if text is None:
        return None
    tree = arr.tree_of(mod.path, text) if arr.tree_of is not None else None
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
    return E.function_node(tree, fs.name, fs.span.start.line)


def self_reads(arr, fs: FunctionSummary, mod: ModuleSummary) -> frozenset[str] | None:
    """The attributes a method reads from its instance (`self.k`, `self.k += 1`, `getattr(self, "k")`), in
    nested functions too; empty for a static or class method; None when its syntax tree is not available."""
    key = ("self_reads", mod.path, mod.text_hash, fs.qualname, fs.span.start.line)
    memo = arr.c.memo
    if key not in memo:
        memo[key] = _self_reads(_node(arr, fs, mod), fs)
    return memo[key]


def _self_reads(node, fs: FunctionSummary) -> frozenset[str] | None:
    if node is None:
        return None
    params = node.args.posonlyargs + node.args.args
    if not fs.is_method or not params:
        return frozenset()
    me = params[0].arg
    out = set()
    for n in walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me \
                and isinstance(n.ctx, ast.Load):
            out.add(n.attr)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Attribute) \
                and isinstance(n.target.value, ast.Name) and n.target.value.id == me:
            out.add(n.target.attr)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr" \
                and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id == me \
                and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            out.add(n.args[1].value)
    return frozenset(out)


def global_reader(arr, mod: ModuleSummary) -> Callable[[str], Any]:
    """A module-level name of `mod` as the evaluator sees it: a registry (by its keys), a module imported
    by its own name (`re`), a builtin the module does not rebind; anything else UNKNOWN."""
    def read(name: str) -> Any:
        if name in mod.registry_keys:
            return E.Registry(mod.registry_keys[name])
        b = mod.bindings.get(name)
        if b is None:
            return E.BUILTIN if name in _BUILTINS and not mod.star_imports else E.UNKNOWN
        if b[0] != "ref" or not b[1]:
            return E.UNKNOWN
        q = b[1]
        if arr.c.module(q, mod.path) is None and "." not in q:
            return E.Module(q)  # `import re`: a module outside the project, known by its name
        owner, _, attr = q.rpartition(".")
        omod = arr.c.module(owner, mod.path) if owner else None
        if omod is None and owner and arr.c.module_loader is not None:
            arr.r.lookup(q, mod.path)  # loads a followed library's module
            omod = arr.c.module(owner, mod.path)
        if omod is not None and attr in omod.registry_keys:
            return E.Registry(omod.registry_keys[attr])
        return E.UNKNOWN
    return read


def _plain(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def init_value(arr, cs: ClassSummary, cmod: ModuleSummary, attr: str, self_q: str | None) -> Any:
    """`self.<attr>` as the `__init__` of class `cs` leaves it, for an instance of class `self_q`
    (its name is what `self.__class__.__name__` reads): a constant, or E.UNKNOWN."""
    init = cmod.functions.get(f"{cs.qualname}.__init__")
    if init is None:
        return E.UNKNOWN
    key = ("init_value", cs.qualname, cmod.path, attr, self_q)
    memo = arr.c.memo
    if key not in memo:
        node = _node(arr, init, cmod)
        value = E.UNKNOWN
        if node is not None:
            name = self_q.rpartition(".")[2] if self_q else None
            ev = E.Evaluator(name, lambda a: E.UNKNOWN, global_reader(arr, cmod))
            value = ev.attrs_after(node).get(attr, E.UNKNOWN)
        memo[key] = value if _plain(value) else E.UNKNOWN
    return memo[key]


def test_values(arr, fs: FunctionSummary, mod: ModuleSummary, self_q: str | None,
                attr_of: Callable[[str], tuple | None]) -> dict[tuple[int, int], tuple[bool, bool]]:
    """(line, column) of the test of an `if` statement of the function -> (its truth, certain) when running
    the function on what the object holds (`attr_of`: `self.<attr>` as (value, certainty); the name of its
    class `self_q`) gives it one truth on every path that reaches it; certain when no value read holds only
    by default.  Tests the run does not reach (in a loop, a `try`) are not there."""
    node = _node(arr, fs, mod)
    if node is None:
        return {}
    by_default = []

    def self_attr(a: str) -> Any:
        got = attr_of(a)
        if got is None or not _plain(got[0]):
            return E.UNKNOWN
        if got[1] != "known":
            by_default.append(a)
        return got[0]

    ev = E.Evaluator(self_q.rpartition(".")[2] if self_q else None, self_attr, global_reader(arr, mod))
    ev.run(node)
    certain = not by_default
    return {at: (next(iter(got)), certain) for at, got in ev.tests.items() if len(got) == 1 and None not in got}


def returned_entries(arr, fs: FunctionSummary, mod: ModuleSummary, self_q: str | None,
                     attr_of: Callable[[str], tuple | None]) -> frozenset | None:
    """The registry functions (qualnames) a property like `loss_function` returns for an instance of
    `self_q`, its `self.<attr>` read by `attr_of`; None when which entry is not known."""
    node = _node(arr, fs, mod)
    if node is None:
        return None

    def self_attr(a: str) -> Any:
        got = attr_of(a)
        return got[0] if got is not None and _plain(got[0]) else E.UNKNOWN

    ev = E.Evaluator(self_q.rpartition(".")[2] if self_q else None, self_attr, global_reader(arr, mod))
    ev.run(node)
    if any(v is E.ANY_ENTRY for v in ev.returned):
        return None
    entries = frozenset(v for v in ev.returned if isinstance(v, str))
    return entries or None

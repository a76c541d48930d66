"""An attribute of `self` whose every store the analysis sees: its value is the constant `__init__` sets.

torch_geometric's `GCNConv.forward` reads `cache = self._cached_edge_index` and normalises the graph when
`cache is None` (Dynamo breaks in it).  `__init__` and `reset_parameters` set None; the only other store is
`self._cached_edge_index = (edge_index, edge_weight)` under `if self.cached:`, and the construction leaves
`cached` False: the cache stays None, and the test is decided.

The value of `self.NAME` on an instance of class K is V when:

- every base in K's MRO is a class the project resolves (or nn.Module, object), and no class of it defines
  `__setattr__`, `__getattr__` or `__getattribute__`, touches `self.__dict__` or `vars(...)`, or calls
  `setattr(...)` with a name that is not another literal;
- the first `__init__` of the MRO sets `self.NAME = V` (a literal) in its own body, not nested;
- every other store of `.NAME` in those classes is `self.NAME = ...` in a method's body (not in a nested
  function, a loop's target, `del`, `+=`), of V again, or of anything in the body of an `if self.FLAG:` with
  FLAG known false for this object (`decide`: the walk's reader, a constant, certain or by default);
- every store of `.NAME` in any other file the analysis loaded or of the packages of those classes (`.NAME =`,
  `.NAME += `, found by text, then read) is `self.NAME = ...` in the own body of a method of a top-level class
  whose name is none of the MRO's class names (it runs on other objects), and no file names it in
  `setattr(x, "NAME", ...)`.

Anything else: not known (the test stays a condition).
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from .absent_fields import class_node
from .globals_seen import NOT_KNOWN, store_patterns, texts_naming
from .nodes import children, walk

_OBJECT = ("builtins.object", "object", "torch.nn.Module", "torch.nn.modules.module.Module")
_HOOKS = ("__setattr__", "__getattr__", "__getattribute__")


def seen_init_value(arr, class_q: str, attr: str, near: str,
               decide: Callable[[str], tuple | None]) -> tuple[Any, bool] | Any:
    """(V, certain) for `self.<attr>` of an instance of `class_q`, certain when every guard is known false
    for certain (not only by default); NOT_KNOWN when not every store is seen.  `decide` is the walk's reader
    for this object (its guards are read per object; the stores, once per class and name)."""
    seen = arr.c.memoised("attrs_seen", (class_q, attr, near), lambda: _stores_seen(arr, class_q, attr, near),
                          NOT_KNOWN)
    if seen is NOT_KNOWN:
        return NOT_KNOWN
    first, guards = seen
    certain = True
    for flag in guards:
        got = decide(flag)
        if got is None or not _plain(got[0]) or got[0]:
            return NOT_KNOWN  # a store that may run
        certain = certain and got[1] == "known"
    return first, certain


def _stores_seen(arr, class_q: str, attr: str, near: str) -> tuple[Any, tuple] | Any:
    """(V, the FLAGs of the `if self.FLAG:` that guard the other stores), or NOT_KNOWN."""
    if not attr.isidentifier() or arr.source_of is None:
        return NOT_KNOWN
    c = arr.r.class_(class_q, near)
    if c is None:
        return NOT_KNOWN
    nodes: list[ast.ClassDef] = []
    mine: set[tuple] = set()  # (path, line) of each class of the MRO
    for cs, cmod in arr.r.mro(c[0].qualname, c[1].path):
        if any(b not in _OBJECT and arr.r.class_(b, cmod.path) is None for b in cs.bases):
            return NOT_KNOWN
        text = arr.source_of(cmod.path)
        node = class_node(ast.parse(text), cs) if text is not None else None
        if node is None or _sets_otherwise(node, attr):
            return NOT_KNOWN
        nodes.append(node)
        mine.add((cmod.path, node.lineno))
    init = next((s for n in nodes for s in n.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    first = _init_constant(init, attr) if init is not None else NOT_KNOWN
    if first is NOT_KNOWN:
        return NOT_KNOWN
    guards: list[str] = []
    for node in nodes:
        for store, plain, guard in _stores_in(node, attr):
            if not plain or (guard is None and not (isinstance(store.value, ast.Constant) and
                                                    _same(store.value.value, first))):
                return NOT_KNOWN
            if guard is not None and guard not in guards and not \
                    (isinstance(store.value, ast.Constant) and _same(store.value.value, first)):
                guards.append(guard)  # (a store of V again, `reset_parameters`, needs no guard)
    if _stored_elsewhere(arr, attr, mine, {n.name for n in nodes}, sorted({p for p, _ in mine})):
        return NOT_KNOWN
    return first, tuple(guards)


def _plain(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _init_constant(init: ast.FunctionDef, attr: str) -> Any:
    """The literal the last `self.<attr> = <literal>` of `__init__`'s own body sets (NOT_KNOWN: none)."""
    self_name = init.args.args[0].arg if init.args.args else None
    value = NOT_KNOWN
    for s in init.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and _is_self_attr(s.targets[0], self_name, attr):
            value = s.value.value if isinstance(s.value, ast.Constant) else NOT_KNOWN
    return value


def _is_self_attr(t: ast.AST, self_name: str | None, attr: str) -> bool:
    return isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and \
        self_name is not None and t.value.id == self_name


def _methods(node: ast.ClassDef):
    """(method, name of its `self`) of a class body; `self` None for a static or class method."""
    for s in node.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            static = any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in s.decorator_list)
            yield s, (s.args.args[0].arg if s.args.args and not static else None)


def _stores_in(node: ast.ClassDef, attr: str):
    """Each store of `.<attr>` in a class body: (the Assign, or the store itself; is it a plain
    `self.<attr> = ...` of a method's body; the FLAG of the nearest `if self.FLAG:` whose body holds it)."""
    for method, self_name in _methods(node):
        for d in method.decorator_list + method.args.defaults + method.args.kw_defaults:
            yield from _bad_stores(d, attr) if d is not None else ()
        yield from _walk_stores(method.body, attr, self_name, None)
    for s in node.body:
        if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _bad_stores(s, attr)


def _walk_stores(body: list, attr: str, self_name: str | None, guard: str | None):
    for s in body:
        if isinstance(s, ast.If) and _is_flag(s.test, self_name):
            yield from _walk_stores(s.body, attr, self_name, s.test.attr)
            yield from _walk_stores(s.orelse, attr, self_name, guard)
        elif isinstance(s, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
            for f in ("test", "target", "iter"):  # (the heads: a loop's target, a walrus)
                if getattr(s, f, None) is not None:
                    yield from _bad_stores(getattr(s, f), attr)
            for item in getattr(s, "items", ()):
                yield from _bad_stores(item, attr)
            for f in ("body", "orelse", "finalbody"):
                yield from _walk_stores(getattr(s, f, []), attr, self_name, guard)
            for h in getattr(s, "handlers", ()):
                yield from _bad_stores(h.type, attr) if h.type is not None else ()
                yield from _walk_stores(h.body, attr, self_name, guard)
        elif isinstance(s, ast.Assign) and len(s.targets) == 1 and _is_self_attr(s.targets[0], self_name, attr):
            yield s, True, guard
            yield from _bad_stores(s.value, attr)
        else:
            yield from _bad_stores(s, attr)


def _bad_stores(n: ast.AST, attr: str):
    """Stores of `.<attr>` in `n` (none of them a plain `self.<attr> = ...` of a method's own body)."""
    for x in walk(n):
        if isinstance(x, ast.Attribute) and x.attr == attr and not isinstance(x.ctx, ast.Load):
            yield x, False, None


def _is_flag(test: ast.AST, self_name: str | None) -> bool:
    return isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and self_name is not None and \
        test.value.id == self_name


def _sets_otherwise(node: ast.ClassDef, attr: str) -> bool:
    """Does a class set attributes other than by `x.<name> = ...`: a `__setattr__`/`__getattr__`/
    `__getattribute__`, `self.__dict__`, `vars(...)`, `setattr(x, <not another literal>, ...)`?"""
    if any(s.name in _HOOKS for s, _ in _methods(node)):
        return True
    for method, self_name in _methods(node):
        for n in walk(method):
            if isinstance(n, ast.Attribute) and n.attr == "__dict__" and isinstance(n.value, ast.Name) and \
                    n.value.id == self_name:
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("vars", "setattr"):
                name = n.args[1] if n.func.id == "setattr" and len(n.args) > 1 else None
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value != attr):
                    return True
    return False


def _stored_elsewhere(arr, attr: str, mine: set[tuple], names: set[str], defining: list[str]) -> bool:
    """A store of `.<attr>` outside the MRO's classes (`mine`: their (path, line)) that may run on the object
    (see the module's doc)."""
    store, by_name = store_patterns(attr)
    texts = texts_naming(arr, attr, defining)
    for path, text in texts.items():
        if by_name.search(text):
            return True
        if not store.search(text):
            continue
        tree = ast.parse(text)
        allowed: set[int] = set()
        for n in walk(tree):
            # an MRO class's stores (checked above), or another top-level class's own
            if isinstance(n, ast.ClassDef) and ((path, n.lineno) in mine or n in tree.body and n.name not in names):
                for method, self_name in _methods(n):
                    allowed.update(id(t) for t in _own_nodes(method) if _is_self_attr(t, self_name, attr))
        for n in walk(tree):
            if isinstance(n, ast.Attribute) and n.attr == attr and not isinstance(n.ctx, ast.Load) and \
                    id(n) not in allowed:
                return True
    return False


def _own_nodes(fn: ast.AST):
    """The nodes of a function, not those of the functions, lambdas and classes nested in it."""
    todo = list(children(fn))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(children(n))

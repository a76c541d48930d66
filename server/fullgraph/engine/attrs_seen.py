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

`hasattr(self, "NAME")` is False on an instance of class K (NAME absent) when, likewise (seen_absent):

- the MRO's classes resolve and define no `__setattr__`, `__getattr__` or `__getattribute__`;
- no class of the MRO binds NAME in its body (a class attribute, a method, a property);
- every store of `.NAME` in those classes is `self.NAME = ...` in the body of an `if self.FLAG:` with FLAG
  known false, or in the setter of a property P that nothing sets (no `.P = `, no `setattr(x, "P", ...)` in
  a file the analysis loaded or of the packages of those classes: transformers' `loss_function` setter,
  which alone stores `_loss_function`);
- no store of `.NAME` elsewhere may run on the object (as above);
- no such file holds the text of NAME or of such a P (less leading underscores) other than as an attribute
  (`x.NAME`, `def P`, `@P.setter`) or what a `getattr`/`hasattr` of NAME reads: not in a string
  (`register_buffer("NAME", ...)`, a literal `setattr`, a mapping of names), a keyword or a variable.  A name
  computed at run time (`setattr(self, name, value)`, `self.__dict__[key] = value`, transformers'
  `setattr(self, f"_{plan_name}", ...)` and `tie_weights`' `setattr(parent, name, param)`) is made of the
  program's strings and keywords, none of which is then NAME's (a name read from a file is not ruled out).
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from .absent_fields import class_node, defines
from .globals_seen import NOT_KNOWN, parsed, store_patterns, texts_naming
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
    certain = _guards_false(guards, decide)
    return NOT_KNOWN if certain is NOT_KNOWN else (first, certain)


def seen_absent(arr, class_q: str, attr: str, near: str, decide: Callable[[str], tuple | None]) -> bool | Any:
    """`self.<attr>` is absent from an instance of `class_q` (`hasattr` is False): certain (True) or by
    default only (False, a guard of a store is false by default); NOT_KNOWN when that is not seen (see the
    module's doc)."""
    guards = arr.c.memoised("attrs_absent", (class_q, attr, near), lambda: _absence_kept(arr, class_q, attr, near),
                            NOT_KNOWN)
    return NOT_KNOWN if guards is NOT_KNOWN else _guards_false(guards, decide)


def _absence_kept(arr, class_q: str, attr: str, near: str) -> tuple | Any:
    """_absence_seen, kept across generations (Arrivals.absence_kept) while what it read is as it was: the same
    library modules loaded (installed code does not change while a script is edited), and the same text in the
    user's modules that define a class of the MRO or name NAME or a property storing it.  An edit of the user's
    script elsewhere re-ran it all (a third of a second per keystroke on a transformers training script)."""
    key = (class_q, attr, near)
    kept = arr.absence_kept.get(key)
    if kept is not None and _read_state(arr, *kept[0]) == kept[1]:
        return kept[2]
    read: tuple[set, set] = ({attr.lstrip("_") or attr}, set())
    try:
        got = _absence_seen(arr, class_q, attr, near, read)
    except (OSError, SyntaxError, ValueError, RecursionError):
        got = NOT_KNOWN
    arr.absence_kept[key] = (read, _read_state(arr, *read), got)
    return got


def _read_state(arr, names: set, paths: set) -> frozenset:
    out = set()
    for m in list(arr.c.modules.values()):
        path = getattr(m, "path", None)
        if not path:
            continue
        if getattr(m, "library", False):
            out.add(path)
            continue
        text = arr.source_of(path) if path not in paths else None
        if path in paths or text is None or any(n in text for n in names):
            out.add((path, m.text_hash))
    return frozenset(out)


def _guards_false(guards: tuple, decide: Callable[[str], tuple | None]) -> bool | Any:
    """Is every `if self.FLAG:` guard false for the object: for certain (True), by default (False); NOT_KNOWN
    when one may be true."""
    certain = True
    for flag in guards:
        got = decide(flag)
        if got is None or not _plain(got[0]) or got[0]:
            return NOT_KNOWN  # a store that may run
        certain = certain and got[1] == "known"
    return certain


def _classes(arr, class_q: str, attr: str, near: str, absent: bool) -> tuple[list, set] | Any:
    """The `class` statements of the MRO of `class_q` and their (path, line), when every base resolves and
    none sets attributes otherwise than by `x.<name> = ...` (_sets_otherwise); NOT_KNOWN otherwise."""
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
        node = class_node(parsed(arr, cmod.path, text), cs) if text is not None else None
        if node is None or _sets_otherwise(node, attr, absent):
            return NOT_KNOWN
        nodes.append(node)
        mine.add((cmod.path, node.lineno))
    return nodes, mine


def _absence_seen(arr, class_q: str, attr: str, near: str, read: tuple[set, set]) -> tuple | Any:
    """The FLAGs of the `if self.FLAG:` that guard the stores of `.<attr>` on the object, when NAME is
    otherwise never set on it; NOT_KNOWN otherwise.  `read`: the names looked for in the program's texts and the
    paths of the MRO's modules, as it learns them (_absence_kept)."""
    c = arr.r.class_(class_q, near)
    read[1].update(cmod.path for _, cmod in (arr.r.mro(c[0].qualname, c[1].path) if c is not None else ()))
    got = _classes(arr, class_q, attr, near, absent=True)
    if got is NOT_KNOWN:
        return NOT_KNOWN
    nodes, mine = got
    defining = sorted({p for p, _ in mine})
    guards: list[str] = []
    names = [attr]  # NAME, and the properties whose setters store it
    for node in nodes:
        if defines(node, attr):
            return NOT_KNOWN
        idle = _idle_setters(arr, node, attr, defining)
        for store, plain, guard in _stores_in(node, attr, idle):
            if not plain or guard is None:
                return NOT_KNOWN
            if guard not in guards:
                guards.append(guard)
        names.extend(m.name for m, _ in _methods(node) if id(m) in idle)
    read[0].update(n.lstrip("_") or n for n in names)
    if any(_names_held(arr, core, attr, defining) for core in dict.fromkeys(n.lstrip("_") or n for n in names)):
        return NOT_KNOWN  # `register_buffer("NAME", ...)`, `setattr(x, "NAME", ...)`, a computed name
    if _stored_elsewhere(arr, attr, mine, {n.name for n in nodes}, defining):
        return NOT_KNOWN
    return tuple(guards)


def _idle_setters(arr, node: ast.ClassDef, attr: str, defining: list[str]) -> frozenset[int]:
    """The setters (`@P.setter`, by id) of the class's properties that store `.<attr>` and that nothing sets:
    no `.P = ` nor `setattr(x, "P", ...)` in a file the analysis loaded or of the packages `defining`."""
    out = set()
    for method, self_name in _methods(node):
        if not any(_is_self_attr(t, self_name, attr) for t in walk(method)):
            continue  # (a setter that does not store `attr` is not looked at)
        for d in method.decorator_list:
            if isinstance(d, ast.Attribute) and d.attr == "setter" and isinstance(d.value, ast.Name) and \
                    d.value.id == method.name:
                store, by_name = store_patterns(method.name)
                if not any(store.search(t) or by_name.search(t)
                           for t in texts_naming(arr, method.name, defining).values()):
                    out.add(id(method))
    return frozenset(out)


def _names_held(arr, core: str, attr: str, defining: list[str]) -> bool:
    """Does a file the analysis loaded, or of the packages `defining`, hold the text `core` (a name less its
    leading underscores) otherwise than as an attribute (`x.name`, `def name`, `@name.setter`) or in a
    `getattr`/`hasattr` read of `attr`: in a string, as a keyword or a variable (see the module's doc)?"""
    return arr.c.memoised("attrs_named", (core, attr, tuple(defining)),
                          lambda: _held(arr, core, attr, defining), True)


def _held(arr, core: str, attr: str, defining: list[str]) -> bool:
    for path, text in texts_naming(arr, core, defining).items():
        if not _outside_attributes(text, core):
            continue
        tree = parsed(arr, path, text)
        reads = set()  # the string of a `getattr(x, "attr"...)` / `hasattr(x, "attr")`; `P` of `@P.setter`
        for n in walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                reads.update(id(d.value) for d in n.decorator_list if isinstance(d, ast.Attribute) and
                             d.attr in ("setter", "getter", "deleter") and isinstance(d.value, ast.Name))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr") and \
                    len(n.args) >= 2 and isinstance(n.args[1], ast.Constant) and n.args[1].value == attr:
                reads.add(id(n.args[1]))
        for n in walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and core in n.value and id(n) not in reads:
                return True  # (an f-string's literal parts are constants too)
            name = n.id if isinstance(n, ast.Name) else n.arg if isinstance(n, (ast.keyword, ast.arg)) else \
                n.asname if isinstance(n, ast.alias) else None
            if name is not None and name.lstrip("_") == core and id(n) not in reads:
                return True  # a keyword, a parameter, a variable
    return False


def _outside_attributes(text: str, core: str) -> bool:
    """Does `core` occur in `text` (after its leading underscores, if any) other than right after a dot
    (`self.name`, `self._name`)?  (What is then read in the syntax tree.)"""
    at = text.find(core)
    while at >= 0:
        k = at
        while k > 0 and text[k - 1] == "_":
            k -= 1
        if k == 0 or not (text[k - 1].isalnum() or text[k - 1] in "_."):
            return True
        at = text.find(core, at + 1)
    return False


def _stores_seen(arr, class_q: str, attr: str, near: str) -> tuple[Any, tuple] | Any:
    """(V, the FLAGs of the `if self.FLAG:` that guard the other stores), or NOT_KNOWN."""
    got = _classes(arr, class_q, attr, near, absent=False)
    if got is NOT_KNOWN:
        return NOT_KNOWN
    nodes, mine = got
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


def _stores_in(node: ast.ClassDef, attr: str, idle: frozenset[int] = frozenset()):
    """Each store of `.<attr>` in a class body: (the Assign, or the store itself; is it a plain
    `self.<attr> = ...` of a method's body; the FLAG of the nearest `if self.FLAG:` whose body holds it);
    none of the methods `idle` (by id: the setters nothing calls, _idle_setters)."""
    for method, self_name in _methods(node):
        if id(method) in idle:
            continue
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


def _sets_otherwise(node: ast.ClassDef, attr: str, absent: bool = False) -> bool:
    """Does a class set attributes other than by `x.<name> = ...`: a `__setattr__`/`__getattr__`/
    `__getattribute__`, `self.__dict__`, `vars(...)`, `setattr(x, <not another literal>, ...)`?  With
    `absent`, only the first (a name computed at run time is _names_held's)."""
    if any(s.name in _HOOKS for s, _ in _methods(node)):
        return True
    if absent:
        return False
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
        tree = parsed(arr, path, text)
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

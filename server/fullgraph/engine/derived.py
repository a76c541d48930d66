"""Values the project derives by evaluating a function's code (engine/consteval.py) with what it knows:
an attribute `__init__` computes from the class's name, the registry entries a property returns.

Used by Arrivals (`self.<attr>` readers) and the walk (which of a registry's functions a
`self.loss_function(...)` call runs).  Memoised in the contents' per-generation memo.
"""
from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

from . import consteval as E
from . import shapes as S
from .nodes import leaves_early, walk
from .summary import ClassSummary, FunctionSummary, ModuleSummary

_BUILTINS = frozenset(dir(builtins))


def def_node(arr, fs: FunctionSummary, mod: ModuleSummary) -> ast.FunctionDef | None:
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
    tree = arr.tree(mod.path, text)
    if tree is None:
        return None
    defs = arr.c.memo.setdefault("definitions", {})  # (a walk of the whole tree per function: once per module)
    got = defs.get(mod.path)
    if got is None or got[0] is not tree:
        defs[mod.path] = got = (tree, E.definitions(tree))
    return E.function_node(got[1], fs.name, fs.span.start.line)


def self_reads(arr, fs: FunctionSummary, mod: ModuleSummary) -> frozenset[str] | None:
    """The attributes a method reads from its instance (`self.k`, `self.k += 1`, `getattr(self, "k")`), in
    nested functions too; empty for a static or class method; None when its syntax tree is not available."""
    key = ("self_reads", mod.path, mod.text_hash, fs.qualname, fs.span.start.line)
    memo = arr.c.memo
    if key not in memo:
        memo[key] = _self_reads(def_node(arr, fs, mod), fs)
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
        if q in S.KEEP_TABLES:
            return E.Callee(("table", q))  # `ACT2FN[name]`: a layer that keeps the shape (engine/shapes.py)
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
        node = def_node(arr, init, cmod)
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
    node = def_node(arr, fs, mod)
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
    node = def_node(arr, fs, mod)
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


_ELEMENTS_MAX = 256  # a longer range: not evaluated (the value stays unknown)


def element_values(arr, fs: FunctionSummary, mod: ModuleSummary, line: int, target: str, arg: tuple[int, str],
                   inputs: Callable[[str], Any]) -> tuple[str, list] | None:
    """The values one construction (the call of `target` at 0-based `line` in the method `fs`) passes for its
    argument `arg` (position, keyword), once per element it makes of a list attribute of self, when the program
    fixes them: the construction is appended to `self.<attr>` in a `for <i> in range(...)` loop of the method's own
    body, or is the element of a comprehension over `range(...)` assigned to `self.<attr>` (in a list or
    `nn.ModuleList`), and the range and the argument are computed from the loop index, constants and `inputs` (a
    parameter of the method -> a constant, E.Fields, E.UNKNOWN; asked once the construction is of that form) --
    `is_sparse = (i + 1) % config.sparse_step == 0`.
    Returns (attr, [value per element]); None when that is not so or a value is not known."""
    node = def_node(arr, fs, mod)
    if node is None or not node.args.args:
        return None
    me = node.args.args[0].arg
    calls = [n for n in walk(node) if isinstance(n, ast.Call) and n.lineno - 1 == line and
             _tail(n.func) == target.rpartition(".")[2]]
    if len(calls) != 1:
        return None
    call = calls[0]
    for k, s in enumerate(node.body):
        if any(n is call for n in walk(s)):
            break
    else:
        return None
    shape = _appended_in_range(s, call, me) or _comprehension_over_range(s, call, me)
    if shape is None:
        return None
    attr, index, bounds, before, after, elt = shape
    got = _range_at(arr, mod, node, k, bounds, inputs)
    if got is None:
        return None
    ev, env, indices = got
    if len(indices) > _ELEMENTS_MAX:
        return None
    expr = _argument(elt, arg)
    if expr is None:
        return None
    out = []
    for i in indices:
        env[index] = i
        env = ev.block(before, env)
        if env is None:
            return None
        v = ev.expr(expr, env)
        if not _plain(v):
            return None
        out.append(v)
        env = ev.block(after, env)
        if env is None:
            return None
    return attr, out


def element_count(arr, fs: FunctionSummary, mod: ModuleSummary, attr: str, inputs: Callable[[str], Any],
                  methods: list[tuple[FunctionSummary, ModuleSummary]]) -> int | None:
    """How many elements `self.<attr>` holds once the method `fs` (an `__init__`) has run: a list (or
    `nn.ModuleList`) made by a comprehension over `range(...)` and assigned to it, or appended to once per
    iteration of a `for` over `range(...)` of the method's own body, the range computed from constants and `inputs`
    (as element_values) -- `nn.ModuleList([Layer(config) for _ in range(config.num_hidden_layers)])`.  None when that
    is not so, or when another statement of the method or any of `methods` (the class's) writes `self.<attr>` or
    calls a method of it (`self.layers.append(...)`, `self.layers = ...`)."""
    node = def_node(arr, fs, mod)
    if node is None or not node.args.args:
        return None
    me = node.args.args[0].arg
    made = [(k, shape) for k, s in enumerate(node.body)
            if (shape := _comprehension_over_range(s, None, me) or _appended_in_range(s, None, me)) is not None
            and shape[0] == attr]
    if len(made) != 1:
        return None
    k, (_, _, bounds, _, _, _) = made[0]
    # the method's other statements leave it alone (but for an empty list made before the loop that fills it)
    if any(_writes(t, me, attr) for j, t in enumerate(node.body)
           if j != k and not (j < k and _empty_list(t, me, attr))) or _writes(node.body[k], me, attr) != 1:
        return None
    for m, mmod in methods:
        if m is fs:
            continue
        mnode = def_node(arr, m, mmod)
        if mnode is None or not mnode.args.args or _writes(mnode, mnode.args.args[0].arg, attr):
            return None
    got = _range_at(arr, mod, node, k, bounds, inputs)
    return len(got[2]) if got is not None else None


def _range_at(arr, mod: ModuleSummary, node: ast.FunctionDef, k: int, bounds: list[ast.expr],
              inputs: Callable[[str], Any]) -> tuple | None:
    """The `range(*bounds)` of the method's statement k, computed from constants and `inputs` (its parameters) by
    running the statements before it: (the evaluator, the names after them, the range); None when a bound is not
    an int."""
    ev = E.Evaluator(None, lambda a: E.UNKNOWN, global_reader(arr, mod))
    ev.self_name = node.args.args[0].arg
    env: dict | None = {a.arg: inputs(a.arg) if i else E.UNKNOWN
                        for i, a in enumerate([*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs])}
    env = ev.block(node.body[:k], env)
    if env is None:
        return None
    limits = [ev.expr(b, env) for b in bounds]
    if not all(type(v) is int for v in limits):
        return None
    return ev, env, range(*limits)


def _empty_list(s: ast.stmt, me: str, attr: str) -> bool:
    """`self.<attr> = []` / `nn.ModuleList()`."""
    if not isinstance(s, ast.Assign) or len(s.targets) != 1 or _self_attr(s.targets[0], me) != attr:
        return False
    v = s.value
    return (isinstance(v, ast.List) and not v.elts) or \
        (isinstance(v, ast.Call) and _tail(v.func) in ("ModuleList", "list") and not v.args and not v.keywords)


def _writes(node: ast.AST, me: str, attr: str) -> int:
    """How many times the code stores `self.<attr>` or calls a method of it (`self.layers.append(x)`)."""
    n = 0
    for x in walk(node):
        if isinstance(x, ast.Attribute) and x.attr == attr and isinstance(x.value, ast.Name) and x.value.id == me:
            if not isinstance(x.ctx, ast.Load):
                n += 1
        elif isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and \
                _self_attr(x.func.value, me) == attr and x.func.attr not in ("__len__", "__iter__", "__getitem__"):
            n += 1
        elif isinstance(x, ast.Subscript) and isinstance(x.ctx, ast.Del) and _self_attr(x.value, me) == attr:
            n += 1  # `del self.layers[0]`
    return n


def _tail(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _self_attr(e: ast.expr, me: str) -> str | None:
    """`self.<attr>` -> attr."""
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == me:
        return e.attr
    return None


def _range_of(it: ast.expr) -> list[ast.expr] | None:
    """`range(a[, b[, c]])` (positional arguments) -> its arguments."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and \
            1 <= len(it.args) <= 3 and not it.keywords and not any(isinstance(a, ast.Starred) for a in it.args):
        return list(it.args)
    return None


def _leaves(stmts: list[ast.stmt]) -> bool:
    """Can a statement of these leave the loop early or skip the rest of an iteration?"""
    return any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Try))
               for s in stmts for n in walk(s))


def _appended_in_range(s: ast.stmt, call: ast.Call | None, me: str) -> tuple | None:
    """`for i in range(n): ...; self.<attr>.append(<call>); ...` -> (attr, "i", range's arguments, the loop's
    statements before the append, those after, the call); `call` None: whatever is appended."""
    if not isinstance(s, ast.For) or not isinstance(s.target, ast.Name) or s.orelse or _range_of(s.iter) is None \
            or _leaves(s.body):
        return None
    for j, t in enumerate(s.body):
        v = t.value if isinstance(t, ast.Expr) else None
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "append" and \
                len(v.args) == 1 and (call is None or v.args[0] is call) and not v.keywords and \
                (attr := _self_attr(v.func.value, me)) is not None:
            return attr, s.target.id, _range_of(s.iter), s.body[:j], s.body[j + 1:], v.args[0]
    return None


def _comprehension_over_range(s: ast.stmt, call: ast.Call | None, me: str) -> tuple | None:
    """`self.<attr> = nn.ModuleList([<call> for i in range(n)])` (or the list alone) -> (attr, "i", range's
    arguments, [], [], the call); `call` None: whatever the element is."""
    if not isinstance(s, ast.Assign) or len(s.targets) != 1 or (attr := _self_attr(s.targets[0], me)) is None:
        return None
    v = s.value
    if isinstance(v, ast.Call) and _tail(v.func) in ("ModuleList", "list", "tuple") and len(v.args) == 1 and \
            not v.keywords:  # nn.ModuleList([...])
        v = v.args[0]
    if not isinstance(v, (ast.ListComp, ast.GeneratorExp)) or (call is not None and v.elt is not call) or \
            len(v.generators) != 1:
        return None
    g = v.generators[0]
    if g.ifs or g.is_async or not isinstance(g.target, ast.Name) or _range_of(g.iter) is None:
        return None
    return attr, g.target.id, _range_of(g.iter), [], [], v.elt


def _argument(call: ast.Call, arg: tuple[int, str]) -> ast.expr | None:
    """The expression a call passes for the parameter at position arg[0] (self not counted) or named arg[1]."""
    pos, name = arg
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return None
        if i == pos:
            return a
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


def iterates(arr, fs: FunctionSummary, mod: ModuleSummary, attr: str) -> bool:
    """Does the method run a `for` over every element of `self.<attr>` (`for layer in self.layers`, `for i, layer
    in enumerate(self.layers)`), a loop that leaves no element out by its own code (no `break`, `return` or
    `raise` in it)?"""
    node = def_node(arr, fs, mod)
    if node is None or not node.args.args:
        return False
    me = node.args.args[0].arg
    for n in walk(node):
        if isinstance(n, ast.For) and not leaves_early(n.body):
            it = n.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and \
                    len(it.args) == 1 and not it.keywords:
                it = it.args[0]
            if _self_attr(it, me) == attr:
                return True
    return False



"""What a function does to its `**kwargs` dict before it passes it on in a call (`f(**kwargs)`).

torch_geometric's `GAT.init_conv(self, in_channels, out_channels, **kwargs)` pops `v2`, `heads` and `concat`,
then builds `Conv(..., **kwargs)`: the conv gets every other keyword the caller put in `kwargs`
(`add_self_loops=False`).  The call's Edge.vals say so: ("**fwd", ("param", name, removed, unsure)), with
`removed` the keys taken out for certain before the call and `unsure` those that may be changed
(engine/conditions_recorded.py records it; engine/arrivals.py and engine/conditions_evaluated.py read it).

The dict is followed when every use of its name is `**name` in a call, or `name.pop("key"[, default])`,
`name.get(...)`, `name.setdefault(...)` with a literal string key.  A pop that is a statement of the function's
own body (`x = kwargs.pop("k", d)`, `kwargs.pop("k")`) before the statement holding the call removes the key;
a pop nested in a branch, a loop, a nested function or another expression, and any `setdefault` before the
call or in the same statement, leave the key unsure; edits in later statements do not touch the call.  Any
other use (`kwargs["k"] = v`, `kwargs.update(...)`, `del kwargs[k]`, `f(kwargs)`, a rebinding): not followed
(None), and the call passes what the analysis does not know.

A local assigned once, by `local = kwargs.pop("key", default)` (or `.get`) as a statement of the body, holds what
the callers passed under that key, else the default: a call after it that passes the local passes
("kwarg", key, the default's Edge.vals value) (KwargsEdits.taken_value).
"""
from __future__ import annotations

import ast

from .nodes import walk

_READS = ("pop", "get", "setdefault")  # the dict methods followed (the first and the last change the dict)


class KwargsEdits:
    """The edits of one function's `**kwargs` dict (kwargs_edits), asked per call that passes it on."""

    def __init__(self, fn: ast.AST, edits: list[tuple[int, bool, str, str]], top: dict[int, int],
                 taken: dict[str, tuple]):
        self._fn = fn
        self._edits = edits  # (index of the body statement holding it, the statement itself?, key, method)
        self._top = top  # id(call node) -> index of the body statement holding it
        self._taken = taken  # local -> (index, key, default node or None) of `local = kwargs.pop("key", default)`
        self._binds: dict[str, int] | None = None  # name -> how many times the function binds it (on demand)

    def around(self, call: ast.Call) -> tuple[tuple, tuple] | None:
        """(removed, unsure) keys for `call`, each sorted; None when the call is not in the function's body."""
        at = self._top.get(id(call))
        if at is None:
            return None
        removed, unsure = set(), set()
        for index, direct, key, method in self._edits:
            if method == "get" or index > at:
                continue
            if method == "pop" and direct and index < at:
                removed.add(key)
            else:
                unsure.add(key)
        return tuple(sorted(removed - unsure)), tuple(sorted(unsure))

    def taken_value(self, name: str, call: ast.Call) -> tuple[str, tuple] | None:
        """`heads` in `Conv(..., heads=heads)` after `heads = kwargs.pop("heads", 1)`, a statement of the body
        before the call's, the only binding of `heads` in the function, with no edit of that key before it:
        ("heads", the default's Edge.vals value: ("const", 1), or ("unknown",)); None otherwise."""
        got = self._taken.get(name)
        at = self._top.get(id(call))
        if got is None or at is None:
            return None
        if self._binds is None:
            self._binds = {}
            for n in walk(self._fn):
                for bound in _bound_names(n):
                    self._binds[bound] = self._binds.get(bound, 0) + 1
        index, key, default = got
        if self._binds.get(name) != 1 or index >= at or \
                any(k == key and m != "get" and i <= index for i, _, k, m in self._edits if (i, k) != (index, key)):
            return None
        return key, ("const", default.value) if isinstance(default, ast.Constant) else ("unknown",)


def kwargs_edits(fn: ast.AST, name: str) -> KwargsEdits | None:
    """The edits the function `fn` makes to its `**<name>` dict, or None when it uses the dict otherwise."""
    body = fn.body if isinstance(fn.body, list) else [fn.body]
    edits: list[tuple[int, bool, str, str]] = []
    top: dict[int, int] = {}
    taken: dict[str, tuple] = {}
    for index, stmt in enumerate(body):
        t = type(stmt)
        direct = stmt.value if t is ast.Expr or t is ast.Assign or t is ast.AnnAssign else None
        local = stmt.targets[0].id if t is ast.Assign and len(stmt.targets) == 1 and \
            type(stmt.targets[0]) is ast.Name else None
        uses, followed = 0, 0
        for n in walk(stmt):
            t = type(n)
            if t is ast.Name:
                if n.id == name:
                    uses += 1
            elif t is ast.Call:
                top[id(n)] = index
                f = n.func
                if type(f) is ast.Attribute and type(f.value) is ast.Name and f.value.id == name and \
                        f.attr in _READS and 1 <= len(n.args) <= 2 and not n.keywords and \
                        type(n.args[0]) is ast.Constant and isinstance(n.args[0].value, str):
                    edits.append((index, n is direct, n.args[0].value, f.attr))
                    followed += 1
                    if n is direct and local is not None and f.attr in ("pop", "get"):
                        taken[local] = (index, n.args[0].value, n.args[1] if len(n.args) > 1 else None)
                for kw in n.keywords:
                    if kw.arg is None and type(kw.value) is ast.Name and kw.value.id == name:
                        followed += 1
        if uses != followed:
            return None
    return KwargsEdits(fn, edits, top, taken)


def _bound_names(n: ast.AST) -> tuple[str, ...]:
    """The names the node binds (a store, a `del`, a definition, an import, an `except ... as`, a pattern's
    capture, a `global`/`nonlocal` declaration)."""
    if isinstance(n, ast.Name):
        return (n.id,) if not isinstance(n.ctx, ast.Load) else ()
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (n.name,)
    if isinstance(n, ast.alias):
        return ((n.asname or n.name).partition(".")[0],)
    if isinstance(n, ast.ExceptHandler):
        return (n.name,) if n.name else ()
    if isinstance(n, (ast.Global, ast.Nonlocal)):
        return tuple(n.names)
    if isinstance(n, (ast.MatchAs, ast.MatchStar)):
        return (n.name,) if n.name else ()
    if isinstance(n, ast.MatchMapping):
        return (n.rest,) if n.rest else ()
    return ()

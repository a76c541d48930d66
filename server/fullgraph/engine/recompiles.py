"""Recompilation hazards, read from a module's syntax tree (rules/recompile.py turns them into findings).

A compiled function without a graph break can still be compiled again and again: Dynamo guards on what
it specialised (a Python int, an `nn.Module`'s int attribute, a global, a list's length, a tensor's
shape) and compiles again when a guard fails.  What changes from call to call is visible in the source
around the calls of the compiled object: the loop that calls it, the values it passes, the names and
attributes rebound between calls.  This module records, per module (ModuleSummary.recompiles), plain
tuples the project's walk reads:

- ``("call", root_span, code, span, info)``: at a call of the compiled object of the root whose
  torch.compile call (or decorator) is at `root_span`, an argument (or a rebinding in the loop around the
  call) that changes per call; `code` its rule, `info` a dict (name, type, every, loop line, ...);
- ``("attr", method_qualname, attr, span, type)``: `self.<attr> += ...` in a method, the attribute a
  Python int or float set in `__init__`;
- ``("global", name, span, type)``: a module-level int or float rebound at run time (in a loop, or in a
  function that declares it `global`);
- ``("reads", function_qualname, names)``: the module-level names a function reads.

Facts checked against Dynamo 2.13 (tests/test_rules_recompile.py): a Python int or float argument that
changes recompiles once, then is dynamic (automatic dynamic shapes), and on every call under
dynamic=False; an int attribute of an nn.Module and an int global are guarded by value on every call
(a float one once); a closure variable once; a list's length on every call; a tensor's size once (every
call under dynamic=False).  A new lambda, nn.Module or equal dict per call and a torch.compile call
inside a loop do not recompile (the cache is on the code object).
"""
from __future__ import annotations

import ast
from typing import Callable

from ..positions import Span

# torch factories whose positional arguments are the shape
_SHAPED = {"randn", "rand", "zeros", "ones", "empty", "arange", "randperm", "full", "eye", "linspace"}
_RESHAPE = {"view", "reshape", "expand", "repeat", "narrow", "new_zeros", "new_ones", "new_empty"}
_SCHEDULE = {"get_last_lr", "get_lr"}
_MUTATE_LIST = {"append", "extend", "insert", "pop", "remove", "clear"}

INT, FLOAT, BOOL, TENSOR, LIST = "int", "float", "bool", "tensor", "list"


def scan(tree: ast.Module, roots: list, span: Callable[[ast.AST], Span], modname: str) -> list[tuple]:
    """The module's recompilation facts (see the module's docstring)."""
    out: list[tuple] = []
    root_spans = {r.span for r in roots}
    module_names = _module_assigned(tree.body)
    inits = _init_types(tree, modname)
    glob_types = _const_types(tree.body)
    scopes = list(_scopes(tree, modname))
    outer: dict[str, tuple] = {}
    for qual, node, body, cls in scopes:
        if node is tree:
            outer = _compiled_names(body, root_spans, span)
    for qual, node, body, cls in scopes:
        fn = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if fn is not None:
            reads = _reads(fn, module_names)
            if reads:
                out.append(("reads", qual, frozenset(reads)))
            if cls is not None:
                out.extend(_attr_updates(fn, qual, cls, inits, span))
            out.extend(_global_rebinds(fn, glob_types, span))
        compiled = dict(outer) if fn is not None else {}
        compiled.update(_compiled_names(body, root_spans, span))
        locals_ = _local_names(fn) if fn is not None else set()
        for name in list(compiled):
            if fn is not None and name in locals_ and name not in _compiled_names(body, root_spans, span):
                del compiled[name]  # shadowed
        _Loops(out, compiled, span, glob_types if fn is None else _const_types(body), body,
               defs={s.name: s for s in ast.walk(node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))},
               module_level=fn is None).run()
    return out


# ---- scopes and names ---------------------------------------------------------------------------
def _scopes(tree: ast.Module, modname: str):
    """(qualname, node, body, class qualname) of the module and every function, as the analyzer names them."""
    yield modname, tree, tree.body, None

    def walk(body, prefix, cls, in_function):
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = f"{prefix}.<locals>.{s.name}" if in_function else f"{prefix}.{s.name}"
                yield q, s, s.body, cls
                yield from walk(s.body, q, None, True)
            elif isinstance(s, ast.ClassDef):
                q = f"{prefix}.<locals>.{s.name}" if in_function else f"{prefix}.{s.name}"
                yield from walk(s.body, q, q, False)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    sub = getattr(s, field, None)
                    if isinstance(sub, list) and sub and isinstance(sub[0], (ast.stmt, ast.excepthandler)):
                        yield from walk([x for h in sub for x in (h.body if isinstance(h, ast.excepthandler) else [h])],
                                        prefix, cls, in_function)

    yield from walk(tree.body, modname, None, False)


def _module_assigned(body: list[ast.stmt]) -> set[str]:
    """Names the module's top level assigns a value to (not functions, classes or imports)."""
    out: set[str] = set()
    for s in body:
        for n in ast.walk(s) if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


def _const_types(body: list[ast.stmt]) -> dict[str, str]:
    """name -> "int"/"float" for `name = <number>` among these statements (not inside functions)."""
    out: dict[str, str] = {}
    for s in body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            t = _literal_type(s.value)
            if t in (INT, FLOAT):
                out.setdefault(s.targets[0].id, t)
            elif isinstance(s.value, (ast.List, ast.ListComp)):
                out.setdefault(s.targets[0].id, LIST)
    return out


def _literal_type(e: ast.AST) -> str | None:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        e = e.operand
    if isinstance(e, ast.Constant):
        if isinstance(e.value, bool):
            return BOOL
        if isinstance(e.value, int):
            return INT
        if isinstance(e.value, float):
            return FLOAT
    return None


def _local_names(fn: ast.AST) -> set[str]:
    out = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    glob: set[str] = set()
    for n in _own_nodes(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            glob.update(n.names)
    return out - glob


def _own_nodes(fn: ast.AST):
    """The nodes of a function's body, not of the functions and classes it defines."""
    stack = list(fn.body)
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))


def _reads(fn: ast.AST, module_names: set[str]) -> set[str]:
    local = _local_names(fn)
    return {n.id for n in _own_nodes(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.id in module_names and n.id not in local}


def _compiled_names(body: list[ast.stmt], root_spans: set, span) -> dict[str, tuple]:
    """name -> (root span, dynamic= as written (None: not given), the compiled expression) for
    `name = torch.compile(...)` and `@torch.compile` functions among these statements (any depth, not
    inside functions)."""
    out: dict[str, tuple] = {}
    for s in _stmts(body):
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and len(s.targets) == 1 \
                and isinstance(s.targets[0], ast.Name):
            sp = span(s.value)
            if sp in root_spans:
                out[s.targets[0].id] = (sp, _dynamic(s.value), s.value.args[0] if s.value.args else None)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in s.decorator_list:
                sp = span(d)
                if sp in root_spans:
                    out[s.name] = (sp, _dynamic(d) if isinstance(d, ast.Call) else None, ast.Name(s.name))
    return out


def _dynamic(call: ast.Call):
    for kw in call.keywords:
        if kw.arg == "dynamic" and isinstance(kw.value, ast.Constant):
            return kw.value.value
    return None


def _stmts(body: list[ast.stmt]):
    """Statements, nested blocks included, not inside function or class bodies."""
    for s in body:
        yield s
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(s, field, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                yield from _stmts(sub)
        for h in getattr(s, "handlers", ()) or ():
            yield from _stmts(h.body)


# ---- module attributes and globals --------------------------------------------------------------
def _init_types(tree: ast.Module, modname: str) -> dict[str, dict[str, str]]:
    """class qualname -> {attr: "int"/"float"} for `self.<attr> = <number>` in `__init__`; a class
    also sees its bases' (named in the same module)."""
    out: dict[str, dict[str, str]] = {}
    bases: dict[str, list[str]] = {}
    for q, node, body, cls in _scopes(tree, modname):
        if cls is None or not isinstance(node, ast.FunctionDef) or node.name != "__init__":
            continue
        got = out.setdefault(cls, {})
        for s in _stmts(node.body):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]):
                t = _literal_type(s.value)
                if t in (INT, FLOAT):
                    got.setdefault(s.targets[0].attr, t)
    for c in ast.walk(tree):
        if isinstance(c, ast.ClassDef):
            bases[c.name] = [b.id for b in c.bases if isinstance(b, ast.Name)]
    by_name = {q.rpartition(".")[2]: q for q in out}
    for q in list(out):
        for b in bases.get(q.rpartition(".")[2], ()):
            for k, v in out.get(by_name.get(b, ""), {}).items():
                out[q].setdefault(k, v)
    return out


def _self_attr(e: ast.AST) -> bool:
    return isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self"


def _attr_updates(fn: ast.AST, qual: str, cls: str, inits: dict, span) -> list[tuple]:
    """`self.<attr> += k` / `self.<attr> = self.<attr> + k` of a number attribute set in `__init__`."""
    if fn.name == "__init__":
        return []
    types = inits.get(cls) or {}
    out = []
    for s in _own_nodes(fn):
        if isinstance(s, ast.AugAssign) and _self_attr(s.target) and s.target.attr in types:
            out.append(("attr", qual, s.target.attr, span(s), types[s.target.attr]))
        elif isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]) \
                and s.targets[0].attr in types and isinstance(s.value, ast.BinOp) \
                and any(_self_attr(x) and x.attr == s.targets[0].attr for x in (s.value.left, s.value.right)):
            out.append(("attr", qual, s.targets[0].attr, span(s), types[s.targets[0].attr]))
    return out


def _global_rebinds(fn: ast.AST, glob_types: dict, span) -> list[tuple]:
    """A function that declares `global G` (G a module-level number) and assigns G other than a constant."""
    declared = {n for s in _own_nodes(fn) if isinstance(s, ast.Global) for n in s.names}
    out = []
    for s in _own_nodes(fn):
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id in declared \
                and glob_types.get(s.target.id) in (INT, FLOAT):
            out.append(("global", s.target.id, span(s), glob_types[s.target.id]))
        elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                and s.targets[0].id in declared and glob_types.get(s.targets[0].id) in (INT, FLOAT) \
                and _literal_type(s.value) is None:
            out.append(("global", s.targets[0].id, span(s), glob_types[s.targets[0].id]))
    return out


# ---- the loops around calls of a compiled object ------------------------------------------------
class _Loops:
    """Walks one scope's statements with the loops around them; at a call of a compiled object inside a
    loop, what changes per iteration among what the call passes."""

    def __init__(self, out: list, compiled: dict, span, consts: dict, body: list, defs: dict, module_level: bool):
        self.out = out
        self.compiled = compiled
        self.span = span
        self.consts = consts
        self.body = body
        self.defs = defs
        self.module_level = module_level

    def run(self) -> None:
        if self.module_level:
            self._module_loops()
        if not self.compiled:
            return
        self._block(self.body, [])

    def _module_loops(self) -> None:
        """A module-level number rebound in a loop of the top level (`for i in ...: SCALE = i`)."""
        def loops(body, outer):
            for s in body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                    var = self._varying(s, outer)
                    env = {k: v for _, e in outer for k, v in e.items()} | var
                    for t in _stmts(s.body):
                        if isinstance(t, ast.Assign) and len(t.targets) == 1 and isinstance(t.targets[0], ast.Name) \
                                and self.consts.get(t.targets[0].id) in (INT, FLOAT):
                            k = self._kind(t.value, env)
                            if k is not None and k[1] and k[0] in (INT, FLOAT):
                                self.out.append(("global", t.targets[0].id, self.span(t), self.consts[t.targets[0].id]))
                        elif isinstance(t, ast.AugAssign) and isinstance(t.target, ast.Name) \
                                and self.consts.get(t.target.id) in (INT, FLOAT):
                            self.out.append(("global", t.target.id, self.span(t), self.consts[t.target.id]))
                    loops(s.body, [*outer, (s, var)])
                else:
                    for field in ("body", "orelse", "finalbody"):
                        sub = getattr(s, field, None)
                        if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                            loops(sub, outer)
        loops(self.body, [])

    def _block(self, body: list[ast.stmt], loops: list) -> None:
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                self._block(s.body, [*loops, (s, self._varying(s, loops))])
                self._block(s.orelse, loops)
                continue
            if loops:
                for call in self._calls(s):
                    self._call(call, loops)
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(s, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    self._block(sub, loops)
            for h in getattr(s, "handlers", ()) or ():
                self._block(h.body, loops)

    def _calls(self, s: ast.stmt):
        stack = [v for f, v in ast.iter_fields(s) if f not in ("body", "orelse", "finalbody", "handlers")]
        while stack:
            n = stack.pop()
            if isinstance(n, list):
                stack.extend(n)
                continue
            if not isinstance(n, ast.AST) or isinstance(n, (ast.Lambda, ast.stmt)):
                continue
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in self.compiled:
                yield n
            stack.extend(ast.iter_child_nodes(n))

    # what a loop changes: name -> (type, description of the change)
    def _varying(self, loop: ast.stmt, outer: list) -> dict[str, tuple]:
        env: dict[str, tuple] = {}
        for _, e in outer:
            env.update(e)
        var: dict[str, tuple] = {}
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            it = loop.iter
            line = loop.lineno
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                    and isinstance(loop.target, ast.Name):
                var[loop.target.id] = (INT, f"the loop variable of line {line}")
            elif isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
                    and isinstance(loop.target, ast.Tuple) and loop.target.elts \
                    and isinstance(loop.target.elts[0], ast.Name):
                var[loop.target.elts[0].id] = (INT, f"the loop counter of line {line}")
            elif isinstance(it, (ast.List, ast.Tuple)) and isinstance(loop.target, ast.Name) and it.elts:
                types = {_literal_type(e) for e in it.elts}
                if len(types) == 1 and types <= {INT, FLOAT}:
                    var[loop.target.id] = (types.pop(), f"the loop variable of line {line}")
                elif all(isinstance(e, (ast.List, ast.Tuple)) for e in it.elts) \
                        and len({len(e.elts) for e in it.elts}) > 1:
                    var[loop.target.id] = (LIST, f"the loop variable of line {line}")
        env.update(var)
        for _ in range(2):  # names assigned in the loop from what changes (in order, twice: `lr = lr * g`)
            for s in _stmts(loop.body):
                if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                    t = self.consts.get(s.target.id) or (env.get(s.target.id) or (None,))[0]
                    if t in (INT, FLOAT) and s.target.id not in var:  # `lr *= 0.9`
                        var[s.target.id] = (t, f"updated at line {s.lineno}")
                        env[s.target.id] = var[s.target.id]
                elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                    got = self._kind(s.value, env)
                    name = s.targets[0].id
                    if got is not None and not got[1] and self.consts.get(name) in (INT, FLOAT) \
                            and got[0] in (INT, FLOAT) \
                            and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(s.value)):
                        got = (got[0], True)  # `lr = lr * 0.9`: a new value each iteration
                    if got is not None and got[1] and name not in var:
                        var[name] = (got[0], f"assigned at line {s.lineno}")
                        env[name] = var[name]
                elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
                        and isinstance(s.value.func, ast.Attribute) and s.value.func.attr in _MUTATE_LIST \
                        and isinstance(s.value.func.value, ast.Name) and s.value.func.attr != "clear":
                    name = s.value.func.value.id
                    if name not in var and not self._made_in(name, loop):
                        var[name] = (LIST, f"grown at line {s.lineno}")
                        env[name] = var[name]
        return var

    def _made_in(self, name: str, loop: ast.stmt) -> bool:
        """`name` is assigned afresh inside the loop (a new list each iteration)."""
        return any(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                   for s in _stmts(loop.body))

    def _kind(self, e: ast.AST, env: dict) -> tuple[str, bool] | None:
        """(type, changes per iteration) of an expression, where the loop's names are `env`."""
        t = _literal_type(e)
        if t is not None:
            return t, False
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id][0], True
            if e.id in self.consts:
                return self.consts[e.id], False
            return None
        if isinstance(e, ast.BinOp):
            a, b = self._kind(e.left, env), self._kind(e.right, env)
            if isinstance(e.op, ast.Mult) and a is not None and b is not None and LIST in (a[0], b[0]):
                other = b if a[0] == LIST else a
                return (LIST, other[1]) if other[0] == INT else None
            if a is None or b is None:
                if (a and a[1]) or (b and b[1]):
                    return None
                return None
            if TENSOR in (a[0], b[0]) or LIST in (a[0], b[0]):
                return None
            if FLOAT in (a[0], b[0]) or isinstance(e.op, ast.Div):
                return FLOAT, a[1] or b[1]
            return INT, a[1] or b[1]
        if isinstance(e, ast.UnaryOp) and not isinstance(e.op, ast.Not):
            return self._kind(e.operand, env)
        if isinstance(e, ast.Call):
            f = e.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            args = [self._kind(a, env) for a in e.args]
            changes = any(a is not None and a[1] for a in args)
            if isinstance(f, ast.Name) and name in ("float", "int", "round", "abs", "min", "max", "len"):
                if name == "len":
                    return INT, changes
                if name == "float":
                    return FLOAT, changes
                if name in ("min", "max", "abs") and args and all(a is not None and a[0] in (INT, FLOAT) for a in args):
                    return (FLOAT if FLOAT in {a[0] for a in args} else INT), changes
                return (INT if name in ("int", "round") else None), changes
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "math":
                return FLOAT, changes
            if isinstance(f, ast.Attribute) and _dotted(f.value) == "torch" and name in _SHAPED:
                shape = [a for a in args[: (1 if name == "full" else None)]] if name != "arange" else args
                sizes = [a for a in (args if name != "full" else args[:1])]
                tuple_changes = any(isinstance(a, (ast.Tuple, ast.List)) and
                                    any((k := self._kind(x, env)) is not None and k[1] for x in a.elts)
                                    for a in e.args)
                return TENSOR, any(a is not None and a[1] and a[0] == INT for a in sizes + shape) or tuple_changes
            if isinstance(f, ast.Attribute) and name in _RESHAPE:
                return TENSOR, changes
            return None
        if isinstance(e, ast.Subscript):
            if isinstance(e.value, ast.Call) and isinstance(e.value.func, ast.Attribute) \
                    and e.value.func.attr in _SCHEDULE:
                return FLOAT, True  # `sched.get_last_lr()[0]`
            base = self._kind(e.value, env)
            sl = e.slice
            if isinstance(sl, ast.Slice):
                bounds = [self._kind(b, env) for b in (sl.lower, sl.upper) if b is not None]
                if any(b is not None and b[1] for b in bounds):
                    return (LIST if base is not None and base[0] == LIST else TENSOR), True
            return None
        if isinstance(e, ast.ListComp) and len(e.generators) == 1:
            it = e.generators[0].iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
                return LIST, any((k := self._kind(a, env)) is not None and k[1] for a in it.args)
            return None
        if isinstance(e, ast.List):
            return LIST, False
        return None

    def _call(self, call: ast.Call, loops: list) -> None:
        root_span, dynamic, target = self.compiled[call.func.id]
        env: dict[str, tuple] = {}
        for _, v in loops:
            env.update(v)
        loop_line = loops[-1][0].lineno
        items = [(i, a) for i, a in enumerate(call.args) if not isinstance(a, ast.Starred)]
        items += [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
        for key, a in items:
            k = self._kind(a, env)
            if k is None or not k[1]:
                continue
            typ = k[0]
            text = ast.unparse(a)
            why = self._why(a, env)
            info = {"key": key, "arg": text, "type": typ, "why": why, "loop": loop_line, "call": ast.unparse(call.func),
                    "dynamic": dynamic}
            if dynamic is True and typ in (INT, FLOAT, TENSOR):
                continue  # dynamic=True: numbers and sizes are dynamic from the first compile
            if typ == TENSOR and isinstance(a, ast.Name) and a.id in self._marked():
                continue  # torch._dynamo.mark_dynamic(x, 0)
            if typ in (INT, FLOAT):
                self.out.append(("call", root_span, "FG602", self.span(a), {**info, "every": dynamic is False}))
            elif typ == LIST:
                self.out.append(("call", root_span, "FG604", self.span(a), {**info, "every": True}))
            elif typ == TENSOR:
                code = "FG605" if dynamic is False else "FG606"
                self.out.append(("call", root_span, code, self.span(a), {**info, "every": dynamic is False}))
        self._rebound_in_loop(call, loops, root_span, target)

    def _marked(self) -> set[str]:
        """Names this scope passes to mark_dynamic / maybe_mark_dynamic."""
        if not hasattr(self, "_marked_names"):
            self._marked_names = {n.args[0].id for s in self.body for n in ast.walk(s)
                                  if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name))
                                  and (n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id)
                                  in ("mark_dynamic", "maybe_mark_dynamic", "mark_unbacked")
                                  and n.args and isinstance(n.args[0], ast.Name)}
        return self._marked_names

    def _why(self, a: ast.AST, env: dict) -> str:
        for n in ast.walk(a):
            if isinstance(n, ast.Name) and n.id in env:
                return f"`{n.id}`: {env[n.id][1]}"
        return f"the loop of line {0}"

    def _rebound_in_loop(self, call: ast.Call, loops: list, root_span, target) -> None:
        """In the loops around the call: an attribute of the compiled module set from what changes
        (`model.k = i`), a variable the compiled nested function reads rebound (its closure)."""
        env: dict[str, tuple] = {}
        for _, v in loops:
            env.update(v)
        outer_loop = loops[0][0]
        fn = self.defs.get(target.id) if isinstance(target, ast.Name) else None
        free = set()
        if fn is not None and not self.module_level:
            free = {n.id for n in _own_nodes(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} \
                - _local_names(fn)
        for s in _stmts(outer_loop.body):
            if isinstance(s, ast.Assign) and len(s.targets) == 1:
                t = s.targets[0]
                k = self._kind(s.value, env)
                if k is None or not k[1] or k[0] not in (INT, FLOAT):
                    continue
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and isinstance(target, ast.Name) \
                        and t.value.id == target.id and fn is None:
                    self.out.append(("call", root_span, "FG601", self.span(s),
                                     {"attr": t.attr, "type": k[0], "every": k[0] == INT, "outside": True,
                                      "module": target.id}))
                elif isinstance(t, ast.Name) and t.id in free:
                    self.out.append(("call", root_span, "FG603", self.span(s),
                                     {"name": t.id, "type": k[0], "every": False, "closure": True}))
            elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id in free:
                t = (env.get(s.target.id) or (None,))[0]
                if t in (INT, FLOAT):
                    self.out.append(("call", root_span, "FG603", self.span(s),
                                     {"name": s.target.id, "type": t, "every": False, "closure": True}))
            elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Attribute) \
                    and isinstance(s.target.value, ast.Name) and isinstance(target, ast.Name) \
                    and s.target.value.id == target.id and fn is None:
                pass  # the attribute's type is not known here


def _dotted(e: ast.AST) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        return f"{_dotted(e.value)}.{e.attr}"
    return ""

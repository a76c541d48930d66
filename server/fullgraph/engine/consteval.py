"""Values a function's straight-line code computes from what the analysis knows, evaluated without
running anything: the key a library derives from the class's name, the registry entry a property
returns.

transformers' `PreTrainedModel.__init__` derives `self.loss_type` from `self.__class__.__name__`
(the class name itself when it is a key of `LOSS_MAPPING`, else the first key found in the name by
`re.findall`, else None) and the `loss_function` property returns `LOSS_MAPPING[loss_type]`: with the
compiled object's class known, the loss it uses is known, and the other families' losses are not on
its path.

The evaluation is abstract: each local holds a constant or UNKNOWN.  An `if` whose test is known runs
one branch; an unknown test runs both and keeps what they agree on; a branch that returns or raises
does not flow on.  Loops, `try`, nested definitions and calls the evaluator does not know make what
they assign UNKNOWN; arithmetic (`+ - * // %`) is evaluated on numbers.  Inputs: the class name of `self`,
`self.<attr>` values (a callback), module-level names (a callback: a registry's keys and functions, a module
such as `re`), and what the caller puts in the locals (`Fields`: an object whose fields are read one by one).
"""
from __future__ import annotations

import ast
import re
from typing import Any, Callable

from ..positions import first_line
from .nodes import walk

UNKNOWN = object()
ANY_ENTRY = object()  # `REGISTRY[key]` with the key not known


class Registry(dict):
    """A module-level dict of functions by string key (ModuleSummary.registry_keys): key -> qualname."""


class Module:
    """A module name (`re`), so that `re.findall(...)` is known by the module's imports, not its spelling."""

    def __init__(self, name: str):
        self.name = name


class Tensor:
    """A tensor whose shape is known (a factory call of the user's script with literal sizes, engine/tensors_made.py):
    `t.size()`/`t.shape` are the tuple of ints, `t.size(i)`/`t.shape[i]`, `t.dim()`/`t.ndim`, `t.numel()`, `len(t)`
    ints (Dynamo specialises a static shape into ints in the first compile).  Anything else of it is not known:
    its truth, its equality, an operation on it."""

    def __init__(self, shape: tuple):
        self.shape = tuple(shape)


class Opaque:
    """A value known to be an object (not None: an instance a call passes), nothing else of it."""


OPAQUE = Opaque()


class Fields:
    """An object whose fields the analysis reads one by one (`config.encoder_layers`: a config object every
    construction passes the same way): `read(name)` -> the value or UNKNOWN."""

    def __init__(self, read: Callable[[str], Any]):
        self.read = read


def definitions(tree: ast.Module) -> dict[str, list]:
    """The module's `def` statements by name, in the order of a walk of its tree (for function_node)."""
    out: dict[str, list] = {}
    stack: list = [tree]
    while stack:  # (statements only: a `def` is one; the expressions of the tree are not visited)
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(node.name, []).append(node)
        for f in ("body", "orelse", "finalbody", "handlers", "cases"):
            b = getattr(node, f, None)
            if type(b) is list:
                stack.extend(reversed(b))
    return out


def function_node(defs: dict[str, list], name: str, line: int) -> ast.FunctionDef | None:
    """The `def name` of a module (`defs`: its definitions()) whose definition starts near 0-based `line` (its
    decorators first)."""
    best = None
    for node in defs.get(name, ()):
        first = first_line(node) - 1
        if first <= line <= node.lineno - 1:
            return node
        if best is None or abs(node.lineno - 1 - line) < abs(best.lineno - 1 - line):
            best = node
    return best if best is not None and abs(best.lineno - 1 - line) <= 1 else None


class Evaluator:
    def __init__(self, class_name: str | None, self_attr: Callable[[str], Any],
                 global_value: Callable[[str], Any]):
        self.class_name = class_name
        self.self_attr = self_attr  # attr -> value or UNKNOWN
        self.global_value = global_value  # module-level name -> value (Registry, Module) or UNKNOWN
        self.self_name = "self"
        self.returned: list[Any] = []  # values of the `return`s reached
        # (line, column) of the test of each `if` statement reached -> its truth on the paths reaching it
        # (True, False; None when not known on one of them)
        self.tests: dict[tuple[int, int], set] = {}
        # (line, column, end line, end column) of each `if` test reached and of its `and`/`or`/`not` operands ->
        # their truths on the paths reaching it (as self.tests)
        self.operands: dict[tuple[int, int, int, int], set] = {}
        # ("arg", line, column, end line, end column) of each argument of a call reached -> its values on the paths
        # reaching it (what the call passes: engine/tests_run.py's run_arg)
        self.args: dict[tuple, list] = {}

    # ---- statements: env is a dict (a path that runs on) or None (a path that returned/raised)

    def attrs_after(self, fn: ast.FunctionDef) -> dict[str, Any]:
        """`self.<attr>` as the function leaves them (at its end), for the attributes it assigns."""
        env = self.run(fn) or {}
        return {k[5:]: v for k, v in env.items() if k.startswith("self.")}

    def run(self, fn: ast.FunctionDef) -> dict | None:
        """The locals (and `self.<attr>` as "self.<attr>") at the end of the function, None when every
        path returns or raises; self.returned collects what the returns reached return."""
        if fn.args.args:
            self.self_name = fn.args.args[0].arg
        env: dict[str, Any] = {a.arg: UNKNOWN for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        return self.block(fn.body, env)

    def block(self, body: list[ast.stmt], env: dict | None) -> dict | None:
        for s in body:
            if env is None:
                return None
            env = self.stmt(s, env)
        return env

    def stmt(self, s: ast.stmt, env: dict) -> dict | None:
        if isinstance(s, ast.Assign):
            v = self.expr(s.value, env)
            for t in s.targets:
                self.assign(t, v, env)
            return env
        if isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.expr(s.value, env), env)
            return env
        if isinstance(s, ast.Return):
            self.returned.append(self.expr(s.value, env) if s.value is not None else None)
            return None
        if isinstance(s, ast.Raise):
            return None
        if isinstance(s, ast.If):
            test = self.truth(s.test, env)
            self.tests.setdefault((s.test.lineno, s.test.col_offset), set()).add(test)
            self._operands(s.test, env, test)
            if test is True:
                return self.block(s.body, dict(env))
            if test is False:
                return self.block(s.orelse, dict(env))
            return _join(self.block(s.body, dict(env)), self.block(s.orelse, dict(env)))
        if isinstance(s, (ast.Expr, ast.Pass, ast.Assert, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
            if isinstance(s, ast.Expr):
                if isinstance(s.value, ast.Call):
                    self._passes(s.value, env)
                self._mutates(s.value, env)
            return env
        # a loop, try, with, nested definition...: what it assigns is not known afterwards
        for node in walk(s):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                env[node.id] = UNKNOWN
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and self._is_self(node.value):
                env["self." + node.attr] = UNKNOWN
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                env[node.name] = UNKNOWN
        return env

    def _operands(self, e: ast.expr, env: dict, truth: bool | None) -> None:
        """Record the truth of a test and of its `and`/`or`/`not` operands (each evaluated on its own: they
        have no effect, a walrus aside, which makes what it binds UNKNOWN)."""
        self.operands.setdefault((e.lineno, e.col_offset, e.end_lineno, e.end_col_offset), set()).add(truth)
        if isinstance(e, ast.BoolOp):
            for v in e.values:
                self._operands(v, env, self.truth(v, env))
        elif isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            self._operands(e.operand, env, self.truth(e.operand, env))

    def assign(self, target: ast.expr, v: Any, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(v, (tuple, list)) and \
                len(v) == len(target.elts) and not any(isinstance(t, ast.Starred) for t in target.elts):
            for t, x in zip(target.elts, v):  # `batch_size, seq_length = input_shape`
                self.assign(t, x, env)
        elif isinstance(target, ast.Attribute) and self._is_self(target.value):
            env["self." + target.attr] = v
        else:
            for node in walk(target):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    env[node.id] = UNKNOWN
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                env[target.value.id] = UNKNOWN  # `d[k] = v` changes d

    def _mutates(self, e: ast.expr, env: dict) -> None:
        """`names.append(x)`: a method called on a local may change it."""
        for node in walk(e):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id in env:
                env[node.func.value.id] = UNKNOWN

    def _is_self(self, e: ast.expr) -> bool:
        return isinstance(e, ast.Name) and e.id == self.self_name

    # ---- expressions

    def truth(self, e: ast.expr, env: dict) -> bool | None:
        v = self.expr(e, env)
        if v is UNKNOWN or isinstance(v, (Module, Registry)):
            return None if v is UNKNOWN else True
        if isinstance(v, (Tensor, Opaque)):
            return None  # (a tensor's truth is its data's; an object's, its class's)
        try:
            return bool(v)
        except Exception:  # noqa: BLE001 -- an object whose truth is not plain
            return None

    def expr(self, e: ast.expr, env: dict) -> Any:
        try:
            return self._expr(e, env)
        except Exception:  # noqa: BLE001 -- any operation the constants refuse: not known
            return UNKNOWN

    def _expr(self, e: ast.expr, env: dict) -> Any:
        if isinstance(e, ast.Constant):
            return e.value
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            return self.global_value(e.id)
        if isinstance(e, ast.NamedExpr):  # `(n := ...)`: binds n on this path
            v = self.expr(e.value, env)
            if isinstance(e.target, ast.Name):
                env[e.target.id] = v
            return v
        if isinstance(e, (ast.Tuple, ast.List)) and isinstance(e.ctx, ast.Load):
            items = [self.expr(x, env) for x in e.elts]
            if any(isinstance(x, ast.Starred) for x in e.elts) or not all(_plain(x) for x in items):
                return UNKNOWN
            return tuple(items) if isinstance(e, ast.Tuple) else items
        if isinstance(e, ast.Slice):
            parts = [self.expr(x, env) if x is not None else None for x in (e.lower, e.upper, e.step)]
            return slice(*parts) if all(x is None or type(x) is int for x in parts) else UNKNOWN
        if isinstance(e, ast.Attribute) and e.attr in ("shape", "ndim") and not self._is_self(e.value) and \
                isinstance(base := self.expr(e.value, env), Tensor):
            return base.shape if e.attr == "shape" else len(base.shape)
        if isinstance(e, ast.Attribute):
            if e.attr == "__name__" and self.class_name is not None and self._class_of_self(e.value):
                return self.class_name
            if self._is_self(e.value):
                return env["self." + e.attr] if "self." + e.attr in env else self.self_attr(e.attr)
            if isinstance(e.value, ast.Name) and isinstance(base := env.get(e.value.id), Fields):
                return base.read(e.attr)  # (a local only: a module-level name is not looked up for this)
            if not isinstance(e.value, ast.Name) and isinstance(base := self.expr(e.value, env), Fields):
                return base.read(e.attr)  # `self.config.block_size`
            return UNKNOWN
        if isinstance(e, ast.JoinedStr):
            parts = []
            for p in e.values:
                v = self.expr(p.value, env) if isinstance(p, ast.FormattedValue) else p.value
                if v is UNKNOWN or (isinstance(p, ast.FormattedValue) and (p.conversion != -1 or p.format_spec)):
                    return UNKNOWN
                parts.append(str(v))
            return "".join(parts)
        if isinstance(e, ast.BoolOp):
            last: Any = UNKNOWN
            for operand in e.values:
                t = self.truth(operand, env)
                if t is None:
                    return UNKNOWN
                last = self.expr(operand, env)
                if t is (isinstance(e.op, ast.Or)):
                    return last
            return last
        if isinstance(e, ast.IfExp):
            t = self.truth(e.test, env)
            if t is None:
                a, b = self.expr(e.body, env), self.expr(e.orelse, env)
                return a if _same(a, b) else UNKNOWN
            return self.expr(e.body if t else e.orelse, env)
        if isinstance(e, ast.BinOp) and type(e.op) in _ARITHMETIC:
            left, right = self.expr(e.left, env), self.expr(e.right, env)
            if not (_number(left) and _number(right)):
                return UNKNOWN
            return _ARITHMETIC[type(e.op)](left, right)  # (a division by zero: UNKNOWN, by expr)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and _number(v := self.expr(e.operand, env)):
            return -v
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            t = self.truth(e.operand, env)
            return UNKNOWN if t is None else not t
        if isinstance(e, ast.Compare) and len(e.ops) == 1:
            left, right = self.expr(e.left, env), self.expr(e.comparators[0], env)
            op = e.ops[0]
            if isinstance(op, (ast.Is, ast.IsNot)) and (left is None or right is None):
                if left is UNKNOWN or right is UNKNOWN:
                    return UNKNOWN
                return (left is right) == isinstance(op, ast.Is)
            if left is UNKNOWN or right is UNKNOWN or isinstance(left, (Module, Tensor, Opaque)) or \
                    isinstance(right, (Module, Tensor, Opaque)):
                return UNKNOWN
            if isinstance(op, (ast.In, ast.NotIn)):
                if not _plain(left) or (isinstance(right, (tuple, list)) and not all(_plain(x) for x in right)):
                    return UNKNOWN
                return (left in right) == isinstance(op, ast.In)
            ops = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
                   ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}
            f = ops.get(type(op))
            return f(left, right) if f is not None and _plain(left) and _plain(right) else UNKNOWN
        if isinstance(e, ast.Subscript):
            base, key = self.expr(e.value, env), self.expr(e.slice, env)
            if isinstance(base, Registry) and (key is UNKNOWN or key not in base):
                return ANY_ENTRY  # one of the registry's functions, which one not known
            if base is UNKNOWN or key is UNKNOWN or isinstance(base, (Module, Tensor, Opaque)):
                return UNKNOWN
            if isinstance(base, (tuple, list)) and not isinstance(key, (int, slice)):
                return UNKNOWN
            return base[key]
        if isinstance(e, ast.Call):
            return self._call(e, env)
        return UNKNOWN

    def _class_of_self(self, e: ast.expr) -> bool:
        """`self.__class__` / `type(self)`."""
        if isinstance(e, ast.Attribute) and e.attr == "__class__" and self._is_self(e.value):
            return True
        return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "type" and \
            len(e.args) == 1 and self._is_self(e.args[0]) and self.global_value("type") is _BUILTIN

    def _passes(self, e: ast.Call, env: dict) -> list:
        """Record what the call passes (self.args); the values of its positional arguments."""
        out = []
        for a in [*e.args, *(kw.value for kw in e.keywords)]:
            v = self.expr(a.value if isinstance(a, ast.Starred) else a, env)
            if not isinstance(a, ast.Starred):
                self.args.setdefault(("arg", a.lineno, a.col_offset, a.end_lineno, a.end_col_offset), []).append(v)
            out.append(v)
        return out[:len(e.args)]

    def _call(self, e: ast.Call, env: dict) -> Any:
        passed = self._passes(e, env)
        if e.keywords or any(isinstance(a, ast.Starred) for a in e.args):
            return UNKNOWN
        if isinstance(e.func, ast.Name) and self.global_value(e.func.id) is _BUILTIN:
            name = e.func.id
            if name == "getattr" and len(e.args) in (2, 3) and self._is_self(e.args[0]):
                attr = self.expr(e.args[1], env)
                if not isinstance(attr, str):
                    return UNKNOWN
                # (absent with a default: the reader says UNKNOWN; nothing is guessed)
                return env["self." + attr] if "self." + attr in env else self.self_attr(attr)
            args = passed
            if any(a is UNKNOWN or isinstance(a, Module) for a in args):
                return UNKNOWN
            if name == "len" and len(args) == 1:
                if isinstance(args[0], Tensor):
                    return args[0].shape[0]  # (a 0-d tensor: an IndexError, UNKNOWN)
                if isinstance(args[0], Opaque):
                    return UNKNOWN
                return len(args[0])
            if name in ("str", "int", "bool") and len(args) == 1 and _plain(args[0]):
                return {"str": str, "int": int, "bool": bool}[name](args[0])
            return UNKNOWN
        if isinstance(e.func, ast.Attribute):
            recv = self.expr(e.func.value, env)
            args = passed
            if recv is UNKNOWN or any(a is UNKNOWN for a in args):
                return UNKNOWN
            if isinstance(recv, Tensor):
                return _tensor_method(recv, e.func.attr, args)
            if isinstance(recv, Module) and recv.name == "re" and e.func.attr == "findall" and len(args) == 2 \
                    and all(isinstance(a, str) for a in args):
                return re.findall(args[0], args[1])
            if isinstance(recv, str) and e.func.attr == "join" and len(args) == 1 and \
                    isinstance(args[0], (Registry, list, tuple)) and all(isinstance(x, str) for x in args[0]):
                return recv.join(args[0])
        return UNKNOWN


def _tensor_method(t: Tensor, name: str, args: list) -> Any:
    """`t.size()`, `t.size(i)`, `t.dim()`, `t.ndimension()`, `t.numel()` of a tensor whose shape is known."""
    if name == "size" and not args:
        return t.shape
    if name == "size" and len(args) == 1 and type(args[0]) is int:
        return t.shape[args[0]]  # (out of range: an IndexError, UNKNOWN)
    if name in ("dim", "ndimension") and not args:
        return len(t.shape)
    if name == "numel" and not args:
        n = 1
        for d in t.shape:
            n *= d
        return n
    return UNKNOWN


_BUILTIN = object()  # what global_value answers for a builtin the module does not rebind
BUILTIN = _BUILTIN


def _plain(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _number(v: Any) -> bool:
    return isinstance(v, (int, float))  # (bool included: Python's arithmetic takes it as 0/1)


_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


def _join(a: dict | None, b: dict | None) -> dict | None:
    """Two paths meeting after an `if`: what both agree on."""
    if a is None or b is None:
        return a if b is None else b
    return {k: (a[k] if k in a and k in b and _same(a[k], b[k]) else UNKNOWN) for k in {**a, **b}}


def _same(x: Any, y: Any) -> bool:
    if x is UNKNOWN or y is UNKNOWN:
        return False
    try:
        return x is y or (type(x) is type(y) and bool(x == y))
    except Exception:  # noqa: BLE001
        return False

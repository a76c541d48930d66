"""Values a function's straight-line code computes from what the analysis knows, evaluated without
running anything: the key a library derives from the class's name, the registry entry a property
returns.

transformers' `PreTrainedModel.__init__` derives `self.loss_type` from `self.__class__.__name__`
(the class name itself when it is a key of `LOSS_MAPPING`, else the first key found in the name by
`re.findall`, else None) and the `loss_function` property returns `LOSS_MAPPING[loss_type]`: with the
compiled object's class known, the loss it uses is known, and the other families' losses are not on
its path.

The evaluation is abstract: each local holds a constant, a tuple of values, a tensor of a known shape (`Tensor`:
engine/shapes.py says what operations do to it) or UNKNOWN.  An `if` whose test is known runs one branch; an
unknown test runs both and keeps what they agree on; a branch that returns or raises does not flow on.  `try`,
`while`, nested definitions and calls the evaluator does not know make what they assign UNKNOWN; arithmetic (`+ -
* // %`) is evaluated on numbers.  Inputs: the class name of `self`, `self.<attr>` values (a callback),
module-level names (a callback: a registry's keys and functions, a module such as `re`), and what the caller puts
in the locals (`Fields`: an object whose fields are read one by one).  With `calls` (engine/called.py), a call of a
method, a module or a function of the project returns what running it returns, and a `for` over a sequence the
run knows runs one iteration per item (as Dynamo unrolls it), over anything else its body until what the
iterations leave settles (otherwise a loop makes what it assigns UNKNOWN).  `reached` holds the truths the tests
take on the run's one definite path: the statements every run on these inputs executes (an unknown test forks the
path: neither branch is on it; a loop that may run no iteration is not on it).
"""
from __future__ import annotations

import ast
import re
from typing import Any, Callable

from ..positions import first_line
from . import shapes as S
from .nodes import walk
from .shapes import UNKNOWN
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
    ints (Dynamo specialises a static shape into ints in the first compile); a size may be UNKNOWN (the width of a
    layer's output: engine/shapes.py).  Anything else of it is not known: its truth, its equality, its data."""

    def __init__(self, shape: tuple):
        self.shape = tuple(shape)

    def __eq__(self, other: object) -> bool:  # (two paths giving a tensor of the same shape agree: _same)
        return isinstance(other, Tensor) and self.shape == other.shape

    def __hash__(self) -> int:
        return hash(("Tensor", self.shape))


class Callee:
    """A function or module the run may call (a method of self, a module attribute, a function of the project):
    what calling it returns is the Evaluator's `calls` to tell (engine/called.py); `payload` is its own."""

    def __init__(self, payload: tuple):
        self.payload = payload

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Callee) and self.payload == other.payload

    def __hash__(self) -> int:
        return hash(("Callee", self.payload))


class Array(tuple):
    """A NumPy array of ints the run computes (`np.array(plan_from_length) // from_block_size`): an item by index
    (a Scalar), arithmetic with a number item by item; not a tuple to anything else (its text, its truth, a
    comparison)."""

    def __getitem__(self, key):
        got = tuple.__getitem__(self, key)
        return Array(got) if isinstance(key, slice) else Scalar(got)


class Scalar(int):
    """A NumPy integer (an item of an Array, or what arithmetic makes of one): an int to the run (`range(1,
    plan_block_length[0])`), a tensor to Dynamo, which traces NumPy through torch -- so never passed on to the walk
    as a constant (tests_run.run_arg), and what it computes stays one."""

    def __neg__(self):
        return Scalar(-int(self))


def _scalar_op(name: str):
    def op(self, other):
        got = getattr(int, name)(self, other)
        return Scalar(got) if type(got) is int else got
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__", "__rfloordiv__",
              "__mod__", "__rmod__"):
    setattr(Scalar, _name, _scalar_op(_name))


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
        # what a call of a method, a module or a function of the project returns (engine/called.py); None: not known
        self.calls: Any = None
        # the run's one definite path: the statements every run on these inputs executes (no test not known before
        # them, no loop that may run no iteration); the truths its tests and operands take on it, ((line, column,
        # end line, end column), truth) -- a branch some iteration of an unrolled loop takes is in it
        self.definite = True
        self.reached: dict[tuple, int] = {}  # (-> the order in which the definite path first takes each)
        self._continued: list | None = None  # (the paths a `continue` ends, in the loop being run)
        self._left = 0  # (how many paths a `return` or `continue` has ended)

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
        if isinstance(s, ast.AugAssign) and type(s.op) in _ELEMENTWISE and \
                (isinstance(s.target, ast.Name) or (isinstance(s.target, ast.Attribute) and self._is_self(s.target.value))):
            key = s.target.id if isinstance(s.target, ast.Name) else "self." + s.target.attr
            left = env[key] if key in env else self.expr(s.target, env)
            right = self.expr(s.value, env)
            # `x += y` of a tensor is in place: y broadcasts to x's shape (or the program raises)
            env[key] = left if isinstance(left, Tensor) else _binop(s.op, left, right)
            return env
        if isinstance(s, ast.For) and self.calls is not None and not s.orelse and \
                (got := self._loop(s, env)) is not None:
            return got
        if isinstance(s, ast.Return):
            self.returned.append(self.expr(s.value, env) if s.value is not None else None)
            self._left += 1
            return None
        if isinstance(s, ast.Raise):
            return None
        if isinstance(s, ast.If):
            test = self.truth(s.test, env)
            self.tests.setdefault((s.test.lineno, s.test.col_offset), set()).add(test)
            self._operands(s.test, env, test)
            if self.definite:
                self._decided(s.test, env, test)
            if test is True:
                return self.block(s.body, dict(env))
            if test is False:
                return self.block(s.orelse, dict(env))
            definite, self.definite = self.definite, False  # (either branch may run)
            left = self._left
            a = self.block(s.body, dict(env))
            left_a = self._left
            b = self.block(s.orelse, dict(env))
            # (after it, definite again unless a branch may leave the function or the iteration: one that only
            # raises is not the run's, which the program makes without an exception)
            self.definite = definite and (a is not None or left_a == left) and (b is not None or self._left == left_a)
            return _join(a, b)
        if isinstance(s, ast.Continue) and self._continued is not None:
            self._continued.append(env)  # (the iteration ends here on this path)
            self._left += 1
            return None
        if isinstance(s, (ast.Expr, ast.Pass, ast.Assert, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
            if isinstance(s, ast.Expr):
                if isinstance(s.value, ast.Call):
                    self._passes(s.value, env)
                if (grown := self._grown(s.value, env)) is not None:
                    env[s.value.func.value.id] = grown  # `plan.append(n)` of a list the run knows
                else:
                    self._mutates(s.value, env)
            return env
        # a loop, try, with, nested definition...: what it assigns is not known afterwards, nor whether what follows
        # runs when it may leave the function or the iteration
        if any(isinstance(n, (ast.Return, ast.Continue, ast.Break)) for n in _own_nodes(s)):
            self.definite = False
        for node in walk(s):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                env[node.id] = UNKNOWN
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and self._is_self(node.value):
                env["self." + node.attr] = UNKNOWN
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                env[node.name] = UNKNOWN
        return env

    def _loop(self, s: ast.For, env: dict) -> dict | None:
        """`for x in ...:` run as its iterations run: over a sequence the run knows, one iteration per item
        (_unrolled); else the body again on what the iterations before it leave (joined with the state before the
        loop) until that state no longer changes, so that a value each iteration keeps (`hidden_states =
        layer(hidden_states)`, each layer keeping its input's shape) is known in every one.  A `continue` ends its
        path's iteration.  None (the loop's stores made UNKNOWN, as before) when it does not settle in a few
        iterations, the body may leave the loop (`break`), or a `continue` sits in a statement the evaluator does
        not run (a `with`, a `try`)."""
        if any(isinstance(n, (ast.Break, ast.Yield, ast.YieldFrom)) for n in walk(s)) or _hidden_continue(s.body):
            return None
        items = self.expr(s.iter, env)
        if isinstance(items, (tuple, list)) and len(items) <= _UNROLLED:
            return self._unrolled(s, env, items)
        element = self._element(s.iter, env)
        state = dict(env)
        definite, self.definite = self.definite, False  # (it may run no iteration)
        try:
            for _ in range(4):
                after = _join(state, self._iteration(s, state, element)) or state  # (every path leaving: as before)
                if after.keys() == state.keys() and \
                        all(_same(after[k], state[k]) or (after[k] is UNKNOWN and state[k] is UNKNOWN) for k in state):
                    return after
                state = after
            for node in walk(s):  # (not settled: what the loop stores is not known, in the body too)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    state[node.id] = UNKNOWN
            self._iteration(s, state, UNKNOWN)
            return None
        finally:
            self.definite = definite

    def _unrolled(self, s: ast.For, env: dict, items) -> dict | None:
        """`for x in <a sequence the run knows>:` (`range(max_plan_idx + 1)`, a tuple), one iteration per item, as
        Dynamo unrolls it: the state each leaves is the next one's."""
        state: dict | None = env
        for item in items:
            state = self._iteration(s, state, item)
            if state is None:
                return None  # (every path returned or raised)
        return state

    def _iteration(self, s: ast.For, state: dict, element: Any) -> dict | None:
        """One run of the loop's body with its target bound to `element`: the state it leaves, the paths a
        `continue` ended joined in."""
        inner = dict(state)
        self.assign(s.target, element, inner)
        outer, self._continued = self._continued, []
        try:
            end = self.block(s.body, inner)
            for ended in self._continued:
                end = _join(end, ended)
            return end
        finally:
            self._continued = outer

    def _element(self, iterable: ast.expr, env: dict) -> Any:
        """What each iteration of a `for` over `iterable` (a sequence the run does not know) takes: a module of a
        list of modules (`self.layer`); UNKNOWN otherwise."""
        if isinstance(iterable, ast.Attribute) and self._is_self(iterable.value) and \
                "self." + iterable.attr not in env:
            return self.calls.elements(iterable.attr)
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
                and len(iterable.args) == 1 and not iterable.keywords and self.global_value("enumerate") is _BUILTIN:
            return (UNKNOWN, self._element(iterable.args[0], env))  # `for i, layer in enumerate(self.layers)`
        return UNKNOWN

    def _decided(self, e: ast.expr, env: dict, truth: bool | None) -> None:
        """Record on the definite path the truth a test takes and those of the `and`/`or`/`not` operands Python
        evaluates to reach it (up to the first that decides it)."""
        if truth is None:
            return
        self.reached.setdefault(((e.lineno, e.col_offset, e.end_lineno, e.end_col_offset), truth), len(self.reached))
        if isinstance(e, ast.BoolOp):
            for v in e.values:
                t = self.truth(v, env)
                self._decided(v, env, t)
                if t is None or t is isinstance(e.op, ast.Or):
                    break
        elif isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            self._decided(e.operand, env, not truth)

    def _grown(self, e: ast.expr, env: dict) -> list | None:
        """`names.append(x)` / `names.extend(xs)` of a local list the run knows: the list it becomes (a new one:
        the values a run holds are not changed in place)."""
        if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in ("append", "extend")
                and isinstance(e.func.value, ast.Name) and isinstance(env.get(e.func.value.id), list)
                and len(e.args) == 1 and not e.keywords and not isinstance(e.args[0], ast.Starred)):
            return None
        v = self.expr(e.args[0], env)
        if e.func.attr == "append":
            return [*env[e.func.value.id], v]
        return [*env[e.func.value.id], *v] if isinstance(v, (tuple, list)) else None

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
        if isinstance(v, (Tensor, Opaque, Callee, Array)):
            return None  # (a tensor's truth is its data's; an object's, its class's; an array's, ambiguous)
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
            items = []
            for x in e.elts:  # (items of any value: a function returns `(padding_len, input_ids, ...)`)
                if isinstance(x, ast.Starred):
                    v = self.expr(x.value, env)
                    if not isinstance(v, (tuple, list)):
                        return UNKNOWN
                    items.extend(v)
                else:
                    items.append(self.expr(x, env))
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
                v = env["self." + e.attr] if "self." + e.attr in env else self.self_attr(e.attr)
                if v is UNKNOWN and self.calls is not None and "self." + e.attr not in env:
                    m = self.calls.method(e.attr)  # `self.feed_forward_chunk` passed on: a method of the class
                    return m if m is not None else v
                return v
            if isinstance(e.value, ast.Name) and isinstance(base := env.get(e.value.id), Fields):
                return base.read(e.attr)  # (a local only: a module-level name is not looked up for this)
            if not isinstance(e.value, ast.Name) and isinstance(base := self.expr(e.value, env), Fields):
                return base.read(e.attr)  # `self.config.block_size`
            return UNKNOWN
        if isinstance(e, ast.JoinedStr):
            parts = []
            for p in e.values:
                v = self.expr(p.value, env) if isinstance(p, ast.FormattedValue) else p.value
                if not _concrete(v) or (isinstance(p, ast.FormattedValue) and (p.conversion != -1 or p.format_spec)):
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
                definite, self.definite = self.definite, False  # (either branch may run)
                a, b = self.expr(e.body, env), self.expr(e.orelse, env)
                self.definite = definite
                return a if _same(a, b) else UNKNOWN
            return self.expr(e.body if t else e.orelse, env)
        if isinstance(e, ast.BinOp) and type(e.op) in _ELEMENTWISE:
            return _binop(e.op, self.expr(e.left, env), self.expr(e.right, env))
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
            if isinstance(base, Callee) and base.payload[0] == "table":
                return Callee(("keep",))  # an item of a table of layers that keep the shape (engine/shapes.py)
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

    def _passes(self, e: ast.Call, env: dict) -> tuple[list, dict, str]:
        """Record what the call passes (self.args); the values it passes by position (a starred tuple's items in
        place) and by keyword, and whether it may pass more than those: "pos" (a `*args` not known: by position and
        by keyword), "kw" (a `**kwargs`: by keyword), "" (no more)."""
        args: list = []
        kwargs: dict = {}
        more = ""
        for a in e.args:
            v = self.expr(a.value if isinstance(a, ast.Starred) else a, env)
            if isinstance(a, ast.Starred):
                if isinstance(v, (tuple, list)) and not more:
                    args.extend(v)
                else:
                    more = "pos"  # (and the positions after it are not known)
                continue
            self.args.setdefault(("arg", a.lineno, a.col_offset, a.end_lineno, a.end_col_offset), []).append(v)
            if not more:
                args.append(v)
        for kw in e.keywords:
            v = self.expr(kw.value, env)
            if kw.arg is None:
                more = more or "kw"
                continue
            a = kw.value
            self.args.setdefault(("arg", a.lineno, a.col_offset, a.end_lineno, a.end_col_offset), []).append(v)
            kwargs[kw.arg] = v
        return args, kwargs, more

    def _callee(self, func: ast.expr, env: dict) -> Callee | None:
        """The method, module attribute or project function a call calls, when `calls` knows it."""
        if isinstance(func, ast.Attribute) and self._is_self(func.value):
            v = env.get("self." + func.attr)
            return v if isinstance(v, Callee) else self.calls.member(func.attr) if v is None else None
        if isinstance(func, ast.Name):
            if func.id in env:
                return env[func.id] if isinstance(env[func.id], Callee) else None
            return self.calls.function(func.id)
        return None

    def _call(self, e: ast.Call, env: dict) -> Any:
        args, kwargs, more = self._passes(e, env)
        if self.calls is not None and (callee := self._callee(e.func, env)) is not None:
            return self.calls.call(callee, args, kwargs, more)
        recv = self.expr(e.func.value, env) if isinstance(e.func, ast.Attribute) else None  # (evaluated once)
        if isinstance(e.func, ast.Attribute) and not more:
            if e.func.attr in _FACTORIES and isinstance(recv, Module) and recv.name == "torch":
                sizes = S.sized(args)  # `torch.ones((batch_size, seq_length), device=device)`
                return Tensor(sizes) if sizes is not None else UNKNOWN
            if e.func.attr in _TENSOR_METHODS and \
                    (isinstance(recv, Tensor) or (recv is UNKNOWN and e.func.attr in _SHAPE_MAKERS)):
                return _tensor_method(recv, e.func.attr, args, kwargs)
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
            if name == "range" and 1 <= len(args) <= 3 and all(type(a) in (int, Scalar) for a in args) and \
                    len(r := range(*args)) <= _UNROLLED:
                return tuple(r)  # (its items: a loop over it runs one iteration each)
            if name == "isinstance" and len(args) == 2 and _plain(args[0]) and isinstance(e.args[1], ast.Name) and \
                    e.args[1].id in _PLAIN_TYPES and args[1] is _BUILTIN:
                return isinstance(args[0], _PLAIN_TYPES[e.args[1].id])  # `isinstance(config.hidden_act, str)`
            return UNKNOWN
        if isinstance(e.func, ast.Attribute):
            if recv is UNKNOWN or any(a is UNKNOWN for a in args) or isinstance(recv, Tensor):
                return UNKNOWN
            if isinstance(recv, (tuple, list)) and e.func.attr == "index" and len(args) == 1 and _plain(args[0]):
                return recv.index(args[0])  # `plan_from_length.index(from_seq_length)` (not there: UNKNOWN, by expr)
            if isinstance(recv, Module) and recv.name == "numpy" and e.func.attr == "array" and len(args) == 1 and \
                    isinstance(args[0], (tuple, list)) and all(type(x) in (int, Scalar) for x in args[0]):
                return Array(args[0])  # `np.array(plan_from_length)`
            if isinstance(recv, Module) and recv.name == "re" and e.func.attr == "findall" and len(args) == 2 \
                    and all(isinstance(a, str) for a in args):
                return re.findall(args[0], args[1])
            if isinstance(recv, str) and e.func.attr == "join" and len(args) == 1 and \
                    isinstance(args[0], (Registry, list, tuple)) and all(isinstance(x, str) for x in args[0]):
                return recv.join(args[0])
        return UNKNOWN


_FACTORIES = frozenset({"zeros", "ones", "empty", "rand", "randn"})  # torch.<name>(*sizes) (or one tuple of sizes)
_SHAPE_MAKERS = frozenset({"view", "reshape", "expand"})  # (a tensor of the sizes given, whatever it is called on)
_TENSOR_METHODS = S.KEEP_METHODS | _SHAPE_MAKERS | {"size", "dim", "ndimension", "numel", "transpose"}


def _tensor_method(t: Any, name: str, args: list, kwargs: dict) -> Any:
    """`t.size()`, `t.size(i)`, `t.dim()`, `t.ndimension()`, `t.numel()` of a tensor whose shape is known; the
    tensor a method returns (engine/shapes.py): the same shape (`.to(dtype)`, `.contiguous()`), the sizes given
    (`.view(b, n, -1)`, `.expand(b, n)`: also of a value not known, which these methods tell a tensor), the
    sizes swapped (`.transpose(1, 2)`)."""
    shape = t.shape if isinstance(t, Tensor) else None
    if name in _SHAPE_MAKERS:
        sizes = S.sized(args) if not kwargs else None
        got = None if sizes is None else S.expanded(shape, sizes) if name == "expand" else S.viewed(shape, sizes)
        return Tensor(got) if got is not None else UNKNOWN
    if shape is None:
        return UNKNOWN
    if name in S.KEEP_METHODS:
        return t
    if name == "transpose" and len(args) == 2 and not kwargs:
        got = S.transposed(shape, args[0], args[1])
        return Tensor(got) if got is not None else UNKNOWN
    if kwargs or any(a is UNKNOWN for a in args):
        return UNKNOWN
    if name == "size" and not args:
        return t.shape
    if name == "size" and len(args) == 1 and type(args[0]) is int:
        return t.shape[args[0]]  # (out of range: an IndexError, UNKNOWN)
    if name in ("dim", "ndimension") and not args:
        return len(t.shape)
    if name == "numel" and not args:
        n = S.numel(t.shape)
        return n if n is not None else UNKNOWN
    return UNKNOWN


def _hidden_continue(body: list) -> bool:
    """A `continue` of this loop inside a statement the evaluator does not run (a `with`, a `try`): where the
    iteration ends is not known."""
    for st in body:
        if isinstance(st, ast.If) and (_hidden_continue(st.body) or _hidden_continue(st.orelse)):
            return True
        if isinstance(st, (ast.With, ast.AsyncWith, ast.Try, getattr(ast, "TryStar", ast.Try), ast.Match)) and \
                any(isinstance(n, ast.Continue) for n in _loop_own(st)):
            return True
    return False


def _loop_own(s: ast.stmt):
    """The nodes of a statement outside the loops and functions it holds."""
    stack = [s]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(
            c, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)))


def _own_nodes(s: ast.stmt):
    """The nodes of a statement, not those of the functions and classes it defines."""
    stack = [s]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node)
                     if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)))


_UNROLLED = 64  # a loop over a sequence the run knows is run one iteration per item up to this many items
_PLAIN_TYPES = {"str": str, "int": int, "float": float, "bool": bool}
_BUILTIN = object()  # what global_value answers for a builtin the module does not rebind
BUILTIN = _BUILTIN


def _plain(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _concrete(v: Any) -> bool:
    """A plain value, or a tuple/list of them: one that prints as the program would print it."""
    return _plain(v) or (isinstance(v, (tuple, list)) and not isinstance(v, Array) and all(_concrete(x) for x in v))


def _number(v: Any) -> bool:
    return isinstance(v, (int, float))  # (bool included: Python's arithmetic takes it as 0/1)


_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}
_ELEMENTWISE = {*_ARITHMETIC, ast.Div, ast.Pow}


def _binop(op: ast.operator, left: Any, right: Any) -> Any:
    """`left <op> right`: arithmetic of numbers, tuples joined (`size()[:-2] + (n,)`), and of a tensor the shape of
    the result (broadcast: engine/shapes.py)."""
    if isinstance(left, Array) or isinstance(right, Array):
        if isinstance(left, Array) and isinstance(right, Array) and len(left) == len(right) and \
                type(op) in _ARITHMETIC:
            return _items(op, left, right)
        if isinstance(left, Array) and _number(right) and type(op) in _ARITHMETIC:
            return _items(op, left, [right] * len(left))
        if isinstance(right, Array) and _number(left) and type(op) in _ARITHMETIC:
            return _items(op, [left] * len(right), right)
        return UNKNOWN
    if isinstance(left, Tensor) or isinstance(right, Tensor):
        a = left.shape if isinstance(left, Tensor) else () if _number(left) else None
        b = right.shape if isinstance(right, Tensor) else () if _number(right) else None
        got = S.broadcast(a, b) if a is not None and b is not None else None
        return Tensor(got) if got is not None else UNKNOWN
    if isinstance(op, ast.Add) and isinstance(left, tuple) and isinstance(right, tuple):
        return left + right
    if type(op) not in _ARITHMETIC or not (_number(left) and _number(right)):
        return UNKNOWN
    try:
        return _ARITHMETIC[type(op)](left, right)
    except Exception:  # noqa: BLE001 -- a division by zero: not known
        return UNKNOWN


def _items(op: ast.operator, left, right) -> Any:
    """An Array's items each with a number (a division by zero: UNKNOWN)."""
    try:
        got = [_ARITHMETIC[type(op)](x, y) for x, y in zip(left, right)]
    except Exception:  # noqa: BLE001
        return UNKNOWN
    return Array(int(x) for x in got) if all(isinstance(x, int) for x in got) else UNKNOWN


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

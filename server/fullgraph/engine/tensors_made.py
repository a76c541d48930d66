"""The dtype and device of the tensors a script makes and passes unchanged to a compiled call, and the tests of
a followed library they decide (issue 27).

`preds = torch.rand(16)` ... `compiled(preds, target)`: torchmetrics' `normalize_logits_if_needed` tests
`tensor.device == torch.device("cpu")` (then `if not torch.all(...)`, a graph break) after
`if preds.is_floating_point():`; under torch.compile both are constants of the tensor Dynamo is given.  The
script shows them when the argument is a name whose last store before the call is a torch factory call that
fixes them: no `device=` (the CPU), and for the dtype `torch.rand/randn/zeros/ones/empty` without `dtype=`
(floating: a default dtype is always a floating one), `torch.randint` without it (int64), `torch.tensor` of a
literal list of numbers.  Anything else (an operation on the tensor, a `.to(device)`, a store under a loop, a
`global`) leaves the argument a tensor with nothing known of it.  A script, or any followed module, that may
change the default device (`torch.set_default_device`, `torch.set_default_tensor_type`, a `torch.device(...)`
in the user's code, which `with` may enter) keeps the device unknown for every call.

The facts ride on the call's Edge.vals, ("inst", "torch.Tensor", facts), then on the value the walk gives the
parameter (conditions_evaluated.Instance.facts), passed on through parameters and forwarded `*args`; a test of
a parameter not rebound before it (`tensor.device == torch.device("cpu")`, `tensor.device.type == "cpu"`,
`tensor.is_cuda`, `tensor.is_cpu`, `tensor.is_floating_point()`) is recorded as ("tensor", parameter, fact,
value) (tensor_test) and evaluated on them (conditions_evaluated: `_tensor_holds`).
"""
from __future__ import annotations

import ast

from . import values as V

# torch functions that may change the device factories make tensors on (ModuleSummary.device_calls)
DEVICE_SETTERS = frozenset({"torch.set_default_device", "torch.set_default_tensor_type",
                            "torch.utils._device.DeviceContext"})
DEVICE_CALLS = DEVICE_SETTERS | {"torch.device"}  # (`with torch.device("cuda"):`: in the user's code only)
FLOATING_FACTORIES = frozenset({"torch.rand", "torch.randn", "torch.zeros", "torch.ones", "torch.empty"})
INTEGER_FACTORIES = frozenset({"torch.randint"})


def with_made_facts(an, node: ast.Call, passed: tuple) -> tuple:
    """Edge.vals of the call `node` of a compiled object (analyser `an`), each tensor argument that is a name
    holding what a factory made (made_facts) as ("inst", "torch.Tensor", facts)."""
    args = {i: a for i, a in enumerate(node.args)}
    args.update((kw.arg, kw.value) for kw in node.keywords if kw.arg)
    out = []
    for key, v in passed:
        a = args.get(key)
        if v == ("inst", V.TENSOR_CLASS) and isinstance(a, ast.Name) and an.stmt is not None:
            facts = made_facts(an, a.id, an.stmt)
            if facts:
                v = (*v, facts)
        out.append((key, v))
    return tuple(out)


def made_facts(an, name: str, stmt: ast.stmt) -> frozenset:
    """What is known of the tensor the local `name` holds at `stmt`: the last store of it before `stmt`, in its
    block or an enclosing `if`/`with`/`try` block of the same function, is `name = <torch factory>(...)`
    (factory_facts), and nothing between touches its `.data` or calls its `.set_()`."""
    # a `global`/`nonlocal` of the name in the function (its nested ones included) may rebind it anywhere; at
    # the top level, a `global` of it in any function of the module (an.node: the module as analysed)
    where, declared = _statements(an.node)
    if name in declared:
        return frozenset()
    cur = stmt
    while True:
        got = where.get(id(cur))
        if got is None:
            return frozenset()
        block, j, parent = got
        for st in reversed(block[:j]):
            if _touches(st, name):
                return frozenset()
            if name not in _stores(st):
                continue
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and \
                    isinstance(st.value, ast.Call):
                return factory_facts(an, st.value)
            return frozenset()
        if parent is an.node or not isinstance(parent, (ast.If, ast.With, ast.Try)) or \
                not _crossable(parent, block, name):
            return frozenset()
        cur = parent


def factory_facts(an, call: ast.Call) -> frozenset:
    """("cpu", True) and ("floating", bool) as the torch factory `call` fixes them (see the module's text)."""
    q = an.resolve_dotted_node(call.func)
    if q not in FLOATING_FACTORIES and q not in INTEGER_FACTORIES and q != "torch.tensor":
        return frozenset()
    kws = {kw.arg: kw.value for kw in call.keywords}
    if None in kws or "out" in kws or any(isinstance(a, ast.Starred) for a in call.args):
        return frozenset()
    device = kws.get("device")
    facts = set()
    if device is None or (isinstance(device, ast.Constant) and device.value == "cpu"):
        facts.add(("cpu", True))
    if "dtype" not in kws:
        if q in FLOATING_FACTORIES:
            facts.add(("floating", True))
        elif q in INTEGER_FACTORIES:
            facts.add(("floating", False))
    if q == "torch.tensor":
        numbers = _literal_numbers(call.args[0]) if call.args else None
        if numbers is None:
            return frozenset()  # (`torch.tensor(t)` of a tensor keeps its device)
        if "dtype" not in kws and numbers:
            facts.add(("floating", any(isinstance(x, float) for x in numbers)))
    return frozenset(facts)


def _literal_numbers(node: ast.AST) -> list | None:
    """The numbers of a (nested) list or tuple literal of int, float and bool constants; None otherwise."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return [node.value]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _literal_numbers(node.operand)
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for e in node.elts:
            got = _literal_numbers(e)
            if got is None:
                return None
            out.extend(got)
        return out
    return None


def _statements(root: ast.AST) -> tuple[dict, set[str]]:
    """id(statement) -> (its block, its index there, the statement, handler or function owning the block), of
    every statement under `root`; and the names its `global`/`nonlocal` statements declare.  Only statements
    are visited (no statement is held by an expression), not the expressions of the whole tree."""
    where: dict = {}
    declared: set[str] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        for f in ("body", "orelse", "finalbody"):
            b = getattr(n, f, None)
            if type(b) is list:
                for k, x in enumerate(b):
                    where[id(x)] = (b, k, n)
                    stack.append(x)
                    if type(x) is ast.Global or type(x) is ast.Nonlocal:
                        declared.update(x.names)
        for f in ("handlers", "cases"):  # (except handlers, match cases: their bodies are blocks)
            b = getattr(n, f, None)
            if b:
                stack.extend(b)
    return where, declared


def _stores(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _crossable(parent: ast.stmt, block: list, name: str) -> bool:
    """Does nothing `parent` runs before `block` (one of its blocks) store `name`: the test of an `if`, the
    items of a `with`; a loop or a `try` (whose body ran before its `else`/`finally`) stores it nowhere?"""
    if isinstance(parent, ast.If):
        return name not in _stores(parent.test)
    if isinstance(parent, ast.With):
        return not any(name in _stores(i) for i in parent.items)
    if isinstance(parent, ast.Try) and block is parent.body:
        return True
    return name not in _stores(parent)


def _touches(node: ast.AST, name: str) -> bool:
    """Does `node` store an attribute of `name` (`x.data = ...`) or read `x.data` / `x.set_`?"""
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name and \
                (not isinstance(n.ctx, ast.Load) or n.attr in ("data", "set_")):
            return True
    return False


def device_may_change(modules) -> bool:
    """Does a module call a function that may change the default device (DEVICE_SETTERS; `torch.device` in
    the user's own modules, not a followed library's)?"""
    for m in modules:
        calls = getattr(m, "device_calls", None)
        if calls and (not calls <= {"torch.device"} or not getattr(m, "library", False)):
            return True
    return False


def without_facts(vals: tuple) -> tuple:
    return tuple((k, v[:2] if v[0] == "inst" and len(v) > 2 else v) for k, v in vals)


# ---- inside the library: a local that keeps a parameter's dtype and device --------------------------------
# tensor methods whose result has the dtype and device of the tensor they are called on
KEEPING_METHODS = frozenset({"flatten", "reshape", "reshape_as", "transpose", "permute", "contiguous", "squeeze",
                             "unsqueeze", "clone", "detach", "t", "expand", "expand_as", "flip", "narrow", "select",
                             "unflatten", "movedim", "swapaxes", "view_as", "roll"})
KEEPING_ATTRS = frozenset({"T", "mT"})


def kept_param(params, name: str, stmt: ast.stmt, places: tuple) -> str | None:
    """The parameter `name` is, when every value the local `name` may hold at `stmt` (in the function whose
    `positions` are `places`) is
    that parameter's tensor through operations that keep its dtype and device (`preds = preds.flatten()`, `if
    ...: preds = preds[idx]`, `preds.transpose(0, 1).reshape(n, -1).T`: KEEPING_METHODS, KEEPING_ATTRS,
    indexing); None otherwise (a store of anything else, under a loop, a `global`)."""
    fn, where, declared, stores = places
    if name not in params or name in declared:
        return None
    cur = stmt
    while True:
        got = where.get(id(cur))
        if got is None:
            return None
        block, j, parent = got
        for st in reversed(block[:j]):
            got = stores.get(id(st))
            if got is None:
                got = stores[id(st)] = _stores(st)
            if name in got and not _keeps(st, name):
                return None
        if parent is fn:
            return name
        if not isinstance(parent, (ast.If, ast.With, ast.Try, ast.For, ast.AsyncFor, ast.While)) or \
                not _crossable(parent, block, name):
            return None
        cur = parent


def _keeps(st: ast.stmt, name: str) -> bool:
    """Does every store of `name` in `st` give it a value keeping its dtype and device (`name = name.flatten()`),
    `st` an assignment or an `if` of such (no loop, no other binding)?"""
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        return st.targets[0].id == name and _kept_from(st.value) == name
    if isinstance(st, ast.If) and name not in _stores(st.test):
        return all(name not in _stores(x) or _keeps(x, name) for x in [*st.body, *st.orelse])
    return False


def _kept_from(node: ast.AST) -> str | None:
    """The name whose tensor `node` is, through operations keeping its dtype and device."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute) and node.attr in KEEPING_ATTRS:
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in KEEPING_METHODS:
            node = node.func.value
        else:
            return None


def positions(fn: ast.AST) -> tuple:
    """Of a function (for kept_param): itself, id(statement) -> (its block, its index there, the statement or
    function owning the block), the names a `global`/`nonlocal` in it declares, and a memo of the names each
    statement stores (filled as kept_param asks)."""
    where, declared = _statements(fn)
    return fn, where, declared, {}


# ---- the tests ------------------------------------------------------------------------------------------
def tensor_test(node: ast.AST, resolve, param_of) -> tuple | None:
    """("tensor", parameter, fact, value) for a test that holds exactly when the tensor a parameter holds has
    that fact: `p.is_floating_point()`, `p.device == torch.device("cpu")` (`!=`), `p.device.type == "cpu"`
    (`!=`), `p.is_cpu`, `p.is_cuda` (then ("cpu", False)); None for any other test.  `resolve`: a name's
    qualified name (the analyser's resolve_dotted_node); `param_of`: the parameter whose tensor's dtype and
    device a name holds (itself unchanged, or kept_param), or None."""
    want = True
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        want = isinstance(node.ops[0], ast.Eq)
        left, right = node.left, node.comparators[0]
        if isinstance(left, ast.Attribute) and left.attr == "device" and isinstance(right, ast.Call) and \
                resolve(right.func) == "torch.device" and len(right.args) == 1 and \
                not right.keywords and isinstance(right.args[0], ast.Constant) and right.args[0].value == "cpu":
            subject = left.value
        elif isinstance(left, ast.Attribute) and left.attr == "type" and isinstance(left.value, ast.Attribute) and \
                left.value.attr == "device" and isinstance(right, ast.Constant) and right.value == "cpu":
            subject = left.value.value
        else:
            return None
        fact = "cpu"
    elif isinstance(node, ast.Attribute) and node.attr in ("is_cpu", "is_cuda"):
        subject, fact, want = node.value, "cpu", node.attr == "is_cpu"
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "is_floating_point" and not node.args and not node.keywords:
        subject, fact = node.func.value, "floating"
    else:
        return None
    param = param_of(subject.id) if isinstance(subject, ast.Name) else None
    if param is None:
        return None
    return ("tensor", param, fact, want)

"""The dtype, device and layout of the tensors a script makes and passes unchanged to a compiled call, and the
tests of a followed library they decide (issue 27).

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

The layout (torch_geometric's GCN, `if is_torch_sparse_tensor(edge_index):` in `gcn_norm`): every factory above
makes a dense tensor (("layout", "strided")) unless `layout=` says otherwise.  It decides `p.layout ==
torch.sparse_coo` (`!=`, `is`, `in (...)`), `p.is_sparse`, and a call `f(p)` of a function of one parameter
whose body decides what it returns by its argument's type and layout alone (layout_results, kept in
FunctionSummary.layout_results and read by the walk through Arrivals.layout_results).  `isinstance(p, C)` of any
class but torch.Tensor is not decided (a tensor subclass, an ABC): such a predicate stays a condition.
"""
from __future__ import annotations

import ast

from . import values as V
from .nodes import walk

# torch functions that may change the device factories make tensors on (ModuleSummary.device_calls)
DEVICE_SETTERS = frozenset({"torch.set_default_device", "torch.set_default_tensor_type",
                            "torch.utils._device.DeviceContext"})
DEVICE_CALLS = DEVICE_SETTERS | {"torch.device"}  # (`with torch.device("cuda"):`: in the user's code only)
# torch's tensor layouts (`torch.strided`, ...): the values of the fact ("layout", name)
LAYOUTS = ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged")
FLOATING_FACTORIES = frozenset({"torch.rand", "torch.randn", "torch.zeros", "torch.ones", "torch.empty"})
INTEGER_FACTORIES = frozenset({"torch.randint"})


def with_made_facts(an, node: ast.Call, passed: tuple) -> tuple:
    """Edge.vals of the call `node` of a compiled object (analyser `an`), each tensor argument that is a name
    holding what a factory made (made_facts), or a factory call itself (`compiled(torch.randint(0, 100, (2, 32)))`),
    as ("inst", "torch.Tensor", facts)."""
    args = {i: a for i, a in enumerate(node.args)}
    args.update((kw.arg, kw.value) for kw in node.keywords if kw.arg)
    out = []
    for key, v in passed:
        a = args.get(key)
        if v == ("inst", V.TENSOR_CLASS) and (isinstance(a, ast.Call) or (isinstance(a, ast.Name) and
                                                                        an.stmt is not None)):
            facts = factory_facts(an, a) if isinstance(a, ast.Call) else made_facts(an, a.id, an.stmt)
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
    reshaped = False  # (`x.unsqueeze_(0)`, `torch.cat(..., out=x)` between: its dtype and device stay, not its shape)
    while True:
        got = where.get(id(cur))
        if got is None:
            return frozenset()
        block, j, parent = got
        for st in reversed(block[:j]):
            if _touches(st, name):
                return frozenset()
            reshaped = reshaped or _reshapes(st, name)
            if name not in _stores(st):
                continue
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and \
                    isinstance(st.value, ast.Call):
                facts = factory_facts(an, st.value)
                return frozenset(f for f in facts if f[0] != "shape") if reshaped else facts
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
    if "layout" not in kws:
        facts.add(("layout", "strided"))  # (every factory makes a dense tensor unless told another layout)
    if device is None or (isinstance(device, ast.Constant) and device.value == "cpu"):
        facts.add(("cpu", True))
    if "dtype" not in kws:
        if q in FLOATING_FACTORIES:
            facts.add(("floating", True))
        elif q in INTEGER_FACTORIES:
            facts.add(("floating", False))
    shape = _literal_shape(q, call.args, kws)
    if shape is not None:
        facts.add(("shape", shape))
    if q == "torch.tensor":
        numbers = _literal_numbers(call.args[0]) if call.args else None
        if numbers is None:
            return frozenset()  # (`torch.tensor(t)` of a tensor keeps its device)
        if "dtype" not in kws and numbers:
            facts.add(("floating", any(isinstance(x, float) for x in numbers)))
    return frozenset(facts)


def _literal_shape(q: str, args: list, kws: dict) -> tuple | None:
    """The shape a factory call fixes with literal ints: `torch.randint(lo, hi, (2, 32))` (`randint(hi, size)`,
    `size=`), `torch.ones(2, 32)`, `torch.zeros((2, 32))`, `torch.randn(size=(2, 32))`; None otherwise."""
    if q in INTEGER_FACTORIES:
        size = kws.get("size", args[2] if len(args) >= 3 else args[1] if len(args) == 2 else None)
        return _ints(size) if isinstance(size, (ast.Tuple, ast.List)) else None
    if q not in FLOATING_FACTORIES:
        return None
    if "size" in kws:
        return _ints(kws["size"]) if not args and isinstance(kws["size"], (ast.Tuple, ast.List)) else None
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        return _ints(args[0])
    return _ints(ast.Tuple(elts=list(args))) if args else None


def _ints(node: ast.Tuple | ast.List) -> tuple | None:
    """The non-negative int constants of a tuple or list literal, None when one is anything else."""
    out = []
    for e in node.elts:
        if not isinstance(e, ast.Constant) or type(e.value) is not int or e.value < 0:
            return None
        out.append(e.value)
    return tuple(out)


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
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


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
    for n in walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name and \
                (not isinstance(n.ctx, ast.Load) or n.attr in ("data", "set_")):
            return True
    return False


# in-place methods that may change a tensor's shape
SHAPE_IN_PLACE = frozenset({"unsqueeze_", "squeeze_", "resize_", "resize_as_", "t_", "transpose_", "swapdims_",
                            "swapaxes_", "as_strided_"})


def _reshapes(node: ast.AST, name: str) -> bool:
    """Does `node` change the shape of the tensor `name` holds in place: `x.unsqueeze_(0)`, `x.resize_(...)`, or a
    call writing its result into it (`torch.cat(parts, out=x)`)?"""
    for n in walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == name and \
                    f.attr in SHAPE_IN_PLACE:
                return True
            if any(kw.arg == "out" and isinstance(kw.value, ast.Name) and kw.value.id == name for kw in n.keywords):
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


def kept_param(params, name: str, stmt: ast.stmt, places: tuple, guard=None) -> tuple[str, tuple] | None:
    """(the parameter `name` is, the guards of its other stores) when every value the local `name` may hold at
    `stmt` (in the function whose `positions` are `places`) is
    that parameter's tensor through operations that keep its dtype and device (`preds = preds.flatten()`, `if
    ...: preds = preds[idx]`, `preds.transpose(0, 1).reshape(n, -1).T`: KEEPING_METHODS, KEEPING_ATTRS,
    indexing); None otherwise (a store of anything else, under a loop, a `global`).  With `guard` (a test ->
    the Cond atoms that hold when it is true, or None), a store of anything under `if <test>:` counts only when
    those atoms hold: the guards are a tuple of such conjunctions (BasicGNN.forward's `if
    num_sampled_nodes_per_hop is not None: x, edge_index, value = self._trim(...)`), which the walk evaluates
    on the caller's values (conditions_evaluated.callee_env); a loop around `stmt` whose every store of the
    name so counts is crossed."""
    fn, where, declared, stores = places
    if name not in params or name in declared:
        return None
    guards: list = []
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
            if name in got and not _keeps(st, name, guard, guards):
                return None
        if parent is fn:
            return name, tuple(guards)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and guard is not None and \
                _loop_keeps(parent, name, guard, guards):
            cur = parent
            continue
        if not isinstance(parent, (ast.If, ast.With, ast.Try, ast.For, ast.AsyncFor, ast.While)) or \
                not _crossable(parent, block, name):
            return None
        cur = parent


def _loop_keeps(loop: ast.stmt, name: str, guard, guards: list) -> bool:
    """Does every store of `name` in `loop` (its body runs again after the statement analysed) keep the tensor,
    or count only under a guard (kept_param); none in its target, iterable or test?"""
    head = [loop.target, loop.iter] if isinstance(loop, (ast.For, ast.AsyncFor)) else [loop.test]
    if any(name in _stores(h) for h in head):
        return False
    return all(name not in _stores(x) or _keeps(x, name, guard, guards) for x in [*loop.body, *loop.orelse])


def _keeps(st: ast.stmt, name: str, guard=None, guards: list | None = None) -> bool:
    """Does every store of `name` in `st` give it a value keeping its dtype and device (`name = name.flatten()`),
    `st` an assignment or an `if` of such (no loop, no other binding)?  With `guard`, an `if` without `else`
    whose test gives atoms keeps it too, under those atoms (added to `guards`)."""
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        return st.targets[0].id == name and _kept_from(st.value) == name
    if isinstance(st, ast.If) and name not in _stores(st.test):
        inner: list = []
        if all(name not in _stores(x) or _keeps(x, name, guard, inner) for x in [*st.body, *st.orelse]):
            if guards is not None:
                guards.extend(g for g in inner if g not in guards)
            return True
        atoms = guard(st.test) if guard is not None and not st.orelse else None
        if atoms:
            if atoms not in guards:
                guards.append(atoms)
            return True
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
    (`!=`), `p.is_cpu`, `p.is_cuda` (then ("cpu", False)); its layout one of some (("layout", names)):
    `p.layout == torch.sparse_coo` (`!=`, `is`, `in (...)`), `p.is_sparse` (COO); or ("call", q): what the
    function q returns given the tensor alone, decided by its layout (`is_torch_sparse_tensor(p)`,
    FunctionSummary.layout_results); None for any other test.  `resolve`: a name's qualified name (the
    analyser's resolve_dotted_node); `param_of`: the parameter whose tensor's dtype and device a name holds
    (itself unchanged, or kept_param), or None."""
    want = True
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Attribute) and \
            node.left.attr == "layout" and (names := _layouts_tested(node.ops[0], node.comparators[0], resolve)):
        subject, fact, value = node.left.value, "layout", names[1]
        want = names[0]
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
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
        fact, value = "cpu", True
    elif isinstance(node, ast.Attribute) and node.attr in ("is_cpu", "is_cuda"):
        subject, fact, value, want = node.value, "cpu", True, node.attr == "is_cpu"
    elif isinstance(node, ast.Attribute) and node.attr == "is_sparse":
        subject, fact, value = node.value, "layout", ("sparse_coo",)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "is_floating_point" and not node.args and not node.keywords:
        subject, fact, value = node.func.value, "floating", True
    elif isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and \
            not isinstance(node.args[0], ast.Starred) and (q := resolve(node.func)) and "." in q:
        subject, fact, value = node.args[0], "call", q  # `is_torch_sparse_tensor(edge_index)`
    else:
        return None
    param = param_of(subject.id) if isinstance(subject, ast.Name) else None
    if param is None:
        return None
    if fact in ("cpu", "floating"):  # (a test of a boolean fact: the fact's value the test wants)
        return ("tensor", param, fact, want)
    return ("tensor", param, fact, value) if want else ("tensor", param, fact, value, False)


def _layouts_tested(op: ast.cmpop, right: ast.AST, resolve) -> tuple[bool, tuple] | None:
    """`<x>.layout == torch.sparse_coo` (`is`; `!=`, `is not`: not), `in (torch.sparse_coo, torch.sparse_csr)`
    (`not in`): (whether the test holds when the layout is one of them, their names); None otherwise."""
    if isinstance(op, (ast.Eq, ast.Is, ast.NotEq, ast.IsNot)):
        items, holds = [right], isinstance(op, (ast.Eq, ast.Is))
    elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        items, holds = right.elts, isinstance(op, ast.In)
    else:
        return None
    names = []
    for item in items:
        q = resolve(item) if isinstance(item, (ast.Name, ast.Attribute)) else None
        if q is None or not q.startswith("torch.") or q[6:] not in LAYOUTS:
            return None
        names.append(q[6:])
    return (holds, tuple(names)) if names else None


def fact_holds(facts: frozenset, fact: str, value, predicate=None) -> bool | None:
    """Does a tensor with `facts` (("cpu", bool), ("floating", bool), ("layout", name)) pass a tensor_test's
    (fact, value): a boolean fact that equals `value`, its layout among the names `value`, the function `value`
    returning true for it (`predicate(q)`: its FunctionSummary.layout_results)?  None when not known."""
    have = dict(facts)
    if fact == "layout":
        return have["layout"] in value if "layout" in have else None
    if fact == "call":
        results = dict(predicate(value) or ()) if predicate is not None and "layout" in have else {}
        return results.get(have["layout"]) if results else None
    return have[fact] == value if fact in have else None


# ---- a library's predicate of a tensor's layout -------------------------------------------------------------
_MAX_STATEMENTS = 12


def layout_results(fn: ast.AST, resolve) -> tuple:
    """Of a function of one parameter whose body decides what it returns by that argument's type and layout
    alone (torch_geometric's `is_torch_sparse_tensor`: `if isinstance(src, Tensor): if src.layout ==
    torch.sparse_coo: return True ... return False`): ((layout, returned bool), ...) for a torch.Tensor of each
    layout; () for any other function.  Read: `if`/`return`/`pass` statements, tests `isinstance(p, Tensor)`
    (a tuple naming torch.Tensor too), the layout tests of tensor_test, `and`/`or`/`not`, bool constants.
    `resolve`: a name's qualified name in the function's module."""
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or len(a.posonlyargs) + len(a.args) != 1:
        return ()
    body = fn.body[1:] if fn.body and isinstance(fn.body[0], ast.Expr) and \
        isinstance(fn.body[0].value, ast.Constant) else fn.body
    if not body or len(body) > _MAX_STATEMENTS or not isinstance(body[0], (ast.If, ast.Return)):
        return ()
    p = (a.posonlyargs or a.args)[0].arg
    out = []
    for layout in LAYOUTS:
        got = _run(body, p, layout, resolve, 0)
        if type(got) is not bool:  # (undecided, or the end reached: returns None)
            return ()
        out.append((layout, got))
    return tuple(out)


_ON = object()  # _run: the block ends without returning


def _run(block: list, p: str, layout: str, resolve, depth: int):
    """What `block` returns for a tensor of `layout` in `p`: a bool, _ON (it runs on), None (not known)."""
    if depth > 4:
        return None
    for st in block:
        if isinstance(st, ast.Return):
            return _truth(st.value, p, layout, resolve) if st.value is not None else None
        if isinstance(st, ast.If):
            t = _truth(st.test, p, layout, resolve)
            if t is None:
                return None
            got = _run(st.body if t else st.orelse, p, layout, resolve, depth + 1)
            if got is not _ON:
                return got
        elif not isinstance(st, ast.Pass):
            return None
    return _ON


def _truth(node: ast.AST, p: str, layout: str, resolve) -> bool | None:
    """A test's truth for a tensor of `layout` in `p`; None when not known."""
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        t = _truth(node.operand, p, layout, resolve)
        return None if t is None else not t
    if isinstance(node, ast.BoolOp):
        got = [_truth(v, p, layout, resolve) for v in node.values]
        decisive = isinstance(node.op, ast.Or)  # (`or`: one true decides; `and`: one false)
        if decisive in got:
            return decisive
        return None if None in got else not decisive
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and resolve(node.func) in \
            ("isinstance", "builtins.isinstance") and len(node.args) == 2 and not node.keywords and \
            isinstance(node.args[0], ast.Name) and node.args[0].id == p:
        cls = node.args[1]
        classes = cls.elts if isinstance(cls, ast.Tuple) else [cls]
        if any(isinstance(c, (ast.Name, ast.Attribute)) and resolve(c) == "torch.Tensor" for c in classes):
            return True
        return None  # (another class: a tensor may be an instance of it, for all the analysis knows)
    test = tensor_test(node, resolve, lambda name: name if name == p else None)
    if test is None or test[2] != "layout":
        return None
    holds = layout in test[3]
    return holds if len(test) == 4 else not holds

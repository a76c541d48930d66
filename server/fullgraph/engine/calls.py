"""Calls, as the function analyzer reads them: what is called (a function, a method, a module, a
compiled object, a registry's function, a parameter's value), the edges and call sites the project
follows, the roots `torch.compile(...)` declares, and the value a call returns.

A mixin of FunctionAnalyzer (engine/analyzer.py): it shares the analyzer's state (names, values,
the path conditions in force) and records through it (site, edge, dispatch, hook).
"""
from __future__ import annotations

import ast

from .. import tracetable
from . import imported_names
from . import values as V
from .event import Event
from .summary import CallSite, RootDecl, add_elements
from .tensors_made import DEVICE_CALLS, with_made_facts
from .values import U, Val

# every name some shipped trace table lists (which torch version's list applies is the project's call)
TRACE_TABLE_NAMES = tracetable.all_names()

# Calls whose function arguments Dynamo traces as part of the caller.
HIGHER_ORDER = frozenset({
    "torch.cond", "torch.utils.checkpoint.checkpoint", "torch.func.vmap", "torch.vmap",
    "builtins.map", "builtins.filter", "builtins.sorted", "functools.reduce", "functools.partial",
    "torch._higher_order_ops.while_loop", "torch.func.grad",
})


# the random module's draws of one Python number
PY_RANDOM_NUMBERS = frozenset(f"random.{n}" for n in (
    "random", "randint", "uniform", "gauss", "normalvariate", "randrange", "betavariate", "expovariate",
    "triangular", "lognormvariate", "vonmisesvariate", "gammavariate", "paretovariate", "weibullvariate"))

# methods that change the object they are called on (FunctionSummary.effects)
# (not `add`/`sort`: tensors have methods of those names that return a new tensor)
MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "remove",
                      "discard", "reverse"})


def _const_bool(node: ast.AST | None) -> bool | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def disable_mode(node: ast.AST) -> str:
    """"recursive" or "nonrecursive" for `torch.compiler.disable` as written in `node` (a bare
    decorator, `disable(recursive=False)`, or `disable(fn, recursive=False)`)."""
    if isinstance(node, ast.Call) and any(kw.arg == "recursive" and _const_bool(kw.value) is False
                                          for kw in node.keywords):
        return "nonrecursive"
    return "recursive"


class _Kinds:
    """How a call's arguments may feed next()/for in the callee (CallsMixin._arg_kind), worked out when an
    edge or a call site first records them: most calls are of builtins and torch, which record neither."""

    __slots__ = ("fa", "node", "args", "kwargs", "value")

    def __init__(self, fa, node: ast.Call, args: list, kwargs: dict):
        self.fa, self.node, self.args, self.kwargs, self.value = fa, node, args, kwargs, None

    def get(self) -> tuple[tuple, tuple]:
        """(positional kinds, keyword kinds)."""
        if self.value is None:
            fa, node, kwargs = self.fa, self.node, self.kwargs
            self.value = (tuple(fa._arg_kind(a, v) for a, v in zip(node.args, self.args)),
                          tuple((kw.arg, fa._arg_kind(kw.value, kwargs[kw.arg])) if kw.arg else ("**", "")
                                for kw in node.keywords))
        return self.value


class CallsMixin:
    """Calls inside a function body (FunctionAnalyzer's part that reads them)."""

    def _arg_kind(self, node: ast.AST, v: Val) -> str:
        """How an argument may feed next()/for in the callee: an iterator, or a call's result."""
        if v.kind == V.ITERATOR:
            return "iter"
        if isinstance(node, ast.Call):
            q = self.resolve_dotted_node(node.func)
            if q is None and isinstance(node.func, ast.Name):
                lv = self.lookup(node.func.id)
                q = lv.q if lv.kind == V.LOCALFN else None
            if q and not q.startswith("builtins."):
                return f"call:{q}"
        return ""

    def call(self, node: ast.Call) -> Val:
        func = node.func
        recv: Val | None = None
        method = None
        fval: Val
        if isinstance(func, ast.Attribute):
            recv = self.value(func.value)
            method = func.attr
            fval = self._attr(recv, method)
        else:
            fval = self.value(func)
        sized = V.SIZE_ARGS.get(fval.q) if fval.kind == V.REF else \
            V.TENSOR_SIZE_METHODS.get(method) if recv is not None and recv.kind == V.TENSOR else None
        if sized is None:
            args = [self.value(a.value if isinstance(a, ast.Starred) else a) for a in node.args]
            kwargs = {kw.arg: self.value(kw.value) for kw in node.keywords if kw.arg}
            for kw in node.keywords:
                if kw.arg is None:
                    self.value(kw.value)
        else:
            args, kwargs, items = self._sized_args(node)
            self._size_uses(node, sized, args, kwargs, items)
        if method in ("append", "insert") and isinstance(func.value, ast.Name) and args and args[-1].kind == V.TENSOR:
            self.tensor_holders[func.value.id] = "list"
        elif method in ("append", "insert") and isinstance(func.value, ast.Name) and args and \
                args[-1].kind == V.INSTANCE and args[-1].q and args[-1].attr is None:
            self._module_appended(func.value.id, args[-1].q)
        if method in MUTATORS:
            self._effect(func.value)
        if method == "register_hook" and recv is not None and recv.kind == V.TENSOR and len(args) == 1:
            self._tensor_hook(node, args[0])
        kinds = _Kinds(self, node, args, kwargs)
        saved_vals, self._call_vals = self._call_vals, (node, args, kwargs)
        try:
            return self._call(node, func, recv, method, fval, args, kwargs, kinds)
        finally:
            self._call_vals = saved_vals

    def _module_appended(self, name: str, q: str) -> None:
        """`blocks.append(Block(i))` on a local list (`blocks = []`): it holds instances of those classes, which
        `nn.Sequential(*blocks)` / `nn.ModuleList(blocks)` then call."""
        cur = self.env.get(name)
        if cur is None or not (cur is U or cur.kind == V.INSTANCE and cur.attr == "list" and cur.q):
            return
        classes = {*(cur.q.split("|") if cur is not U else ()), *q.split("|")}
        self.env[name] = Val(V.INSTANCE, "|".join(sorted(classes)), attr="list")

    def _sized_args(self, node: ast.Call) -> tuple[list, dict, dict]:
        """The values of a call's arguments (as `call` evaluates them), and those of the items of each tuple or list
        among them (by position, or the `size=`/`shape=` keyword), for the sizes of a factory (_size_uses)."""
        args, kwargs, items = [], {}, {}
        for i, a in enumerate(node.args):
            e = a.value if isinstance(a, ast.Starred) else a
            args.append(self.value(e))
            if type(e) is ast.Tuple or type(e) is ast.List:
                items[i] = self.tuple_vals
        for kw in node.keywords:
            if kw.arg is None:
                continue
            kwargs[kw.arg] = self.value(kw.value)
            if kw.arg in ("size", "shape") and (type(kw.value) is ast.Tuple or type(kw.value) is ast.List):
                items[kw.arg] = self.tuple_vals
        for kw in node.keywords:
            if kw.arg is None:
                self.value(kw.value)
        return args, kwargs, items

    def _size_uses(self, node: ast.Call, where, args: list, kwargs: dict, items: dict) -> None:
        """The "size" hook on each size a factory is given that is a tensor to Dynamo (`torch.zeros(4, x.sum())`,
        `np.zeros((n, np.sum(plan)))`, `x.new_zeros(n)`): the size needs its value.  `where`: V.SIZE_ARGS's."""
        if "size" in kwargs or "shape" in kwargs:
            where = None  # (`torch.randint(0, n, size=(2, 3))`: the positional arguments are not sizes)
        keys = list(range(len(args))) if where == "all" else [where] if where is not None else []
        keys += ["size", "shape"]
        for key in keys:
            v = kwargs.get(key) if isinstance(key, str) else args[key] if -len(args) <= key < len(args) else None
            if v is None:
                continue
            if isinstance(key, int) and key < 0:
                key = len(args) + key
            seq = items.get(key)
            nodes = (node.args[key] if isinstance(key, int) else
                     next(k.value for k in node.keywords if k.arg == key))
            if seq is not None:
                for e, ev in zip(nodes.elts, seq):
                    if V.size_needs_value(ev):
                        self.hook("size", e, ev)
            elif V.size_needs_value(v) and not isinstance(nodes, ast.Starred):
                self.hook("size", nodes, v)

    def _tensor_hook(self, node: ast.Call, hook: Val) -> None:
        """`t.register_hook(fn)`: Dynamo traces `fn` as a higher-order op while compiling the forward."""
        if hook.kind == V.SELFATTR and hook.q:
            self.edge("tensor_hook", hook.q, hook.attr, node)
        elif hook.kind in (V.LOCALFN, V.REF) and hook.q:
            self.edge("tensor_hook", hook.q, None, node)

    def _call(self, node, func, recv, method, fval, args, kwargs, kinds: _Kinds) -> Val:
        gen = kwargs.get("generator")
        if gen is not None and gen.kind == V.INSTANCE and gen.q == "torch.Generator":
            self.hook("generator_kwarg", node, gen)
        # a nested function handed to another call (checkpoint, cond, map, ...) is traced with it
        for a, v in zip(node.args, args):
            if v.kind == V.LOCALFN and v.q and not isinstance(a, ast.Lambda):
                self.edge("call", v.q, None, a)

        if recv is not None and recv.kind == V.REF and method in ("add", "update") and args and \
                (recv.q in V.IGNORE_LOGGING_SETS or recv.q in V.REORDERABLE_SETS):
            # torch._dynamo.config.ignore_logging_functions.add(fn): calls to fn are skipped
            dest = self.mod.summary.ignored if recv.q in V.IGNORE_LOGGING_SETS else self.mod.summary.reorderable
            dest.update(self._registered(node.args[0], args[0], method))
            return U
        if fval.kind == V.REF and fval.q:
            if recv is not None and recv.kind == V.REF and recv.q and "." in recv.q and \
                    method in self.rules.methods and not recv.q.startswith(("torch.", "builtins.")):
                self._imported_instance_call(node, "bound", recv.q, method, args, kwargs)
            q = fval.q
            return self._call_ref(node, q, args, kwargs, kinds)
        if recv is not None and method is not None:
            return self._call_method(node, recv, method, args, kwargs, kinds)
        k = fval.kind
        if k == V.OPAQUE and fval.attr in V.DISABLE_GB:
            self.site("FG202", node, f"`{self.mod.text_of(node.func)}` is wrapped by torch.compiler.disable; calling "
                                     f"it from compiled code breaks the graph ({V.DISABLE_GB[fval.attr]})",
                      data={"callee": fval.q} if fval.q else None)
            return U
        if k == V.LOCALFN and fval.q:
            self.edge("call", fval.q, None, node, *kinds.get())
            self.mod.summary.call_sites.append(CallSite(fval.q, False, *kinds.get(), self.mod.span(node),
                                                        vals=self._passed(node),
                                                        caller=self.fs.qualname if self.fs else None))
            return self._known_result(node) or U
        if k == V.INSTANCE and fval.q and fval.attr is None:
            self.edge("module_call", fval.q, None, node)
            return V.TENSOR_V if V.is_torch_module_class(fval.q) else U  # a torch layer: a tensor
        if k == V.INSTANCE and fval.q and fval.attr == "choice":  # a module chosen by an if/else
            for q in fval.q.split("|"):
                self.edge("module_call", q, None, node)
            return U
        if k == V.CLASSES and fval.q and fval.attr == "item":
            # `model_dict[args.model](...)`, the key not known here: an instance of any of the table's classes,
            # as for a module chosen by an if/else
            made = [self._call_ref(node, q, args, kwargs, kinds) for q in fval.q.split("|")]
            if all(m.kind == V.INSTANCE and m.q and m.attr is None for m in made):
                classes = sorted({m.q for m in made})
                return Val(V.INSTANCE, classes[0]) if len(classes) == 1 else \
                    Val(V.INSTANCE, "|".join(classes), attr="choice")
            return U
        if k == V.INSTANCE and fval.q and V.factory_item(fval) is not None:
            self.edge("factory_call", fval.q, V.factory_item(fval) or None, node)
            return U
        if k == V.SELFATTR:
            self.edge("attr_call", fval.q, fval.attr, node)
            return U
        if k == V.ITEMOF:
            self.edge("item_call", fval.q, fval.attr, node)
            return U
        if k == V.COMPILED and fval.attr == "decorator":
            return U
        if k == V.COMPILED and fval.q and fval.q.isdigit():
            # compiled(model, x, flag=True): what the user's own call passes, for the root's analysis,
            # and the module's mode at this call (`model.train()` after the compile line decides it)
            decl = self.mod.summary.roots[int(fval.q)]
            passed = with_made_facts(self, node, self._closure_args(node, self._passed(node)))
            if fval.training is not None:
                passed = (*passed, (V.MODE_KEY, ("const", fval.training)))
            decl.calls = (*decl.calls, passed)
            return U
        ref = self._param_ref(func.id) if k == V.UNKNOWN and isinstance(func, ast.Name) else None
        if ref:
            self.edge("param_call", ref, None, node, *kinds.get())  # the caller tells what it is
        elif k == V.UNKNOWN and isinstance(func, ast.Name) and self.fs is not None and \
                func.id in self.env and func.id not in self.fs.params:
            # what it calls is not known
            self.fs.unknown_calls.append((func.id, self.mod.span(node), self.conds, self.dead_if))
        elif k == V.UNKNOWN and self.fs is not None and self._attr_by_name(func):
            # `getattr(self, f"layer{i}")(x)`: an attribute of self named at run time, not followed
            self.fs.unknown_calls.append((self.mod.text_of(func), self.mod.span(node), self.conds, self.dead_if))
        return U

    def _attr_by_name(self, func: ast.AST) -> bool:
        """`getattr(self, name)` with a name that is not a literal (the attribute called is chosen at run time)."""
        return isinstance(func, ast.Call) and len(func.args) >= 2 and not func.keywords and \
            self.resolve_dotted_node(func.func) == "builtins.getattr" and isinstance(func.args[0], ast.Name) and \
            self.lookup(func.args[0].id).kind == V.SELF and not isinstance(func.args[1], ast.Constant)

    def _closure_args(self, node: ast.Call, passed: tuple) -> tuple:
        """Edge.vals of a call of a compiled object, where an argument that is a parameter of an enclosing function
        (`def run(adj): ... def train(): model(features, adj)`) is ("param", "<enclosing qualname>:<name>"): what
        the calls of that function pass (Arrivals.root_calls)."""
        names = {i: a.id for i, a in enumerate(node.args) if isinstance(a, ast.Name)}
        names.update((kw.arg, kw.value.id) for kw in node.keywords if kw.arg and isinstance(kw.value, ast.Name))
        out = []
        for key, v in passed:
            ref = self._param_ref(names[key]) if v == ("unknown",) and key in names else None
            out.append((key, ("param", ref) if ref and ":" in ref else v))
        return tuple(out)

    def _is_param(self, name: str) -> bool:
        """An own parameter still holding what the caller passed (never reassigned)."""
        return self.fs is not None and name in self.fs.params and self._param_untouched(name) and \
            self.env.get(name, U).kind == V.UNKNOWN

    def _param_ref(self, name: str) -> str | None:
        """How a param_call/param_method edge names the parameter `name` reads: an own parameter by
        its name, a parameter of an enclosing function (a closure: `def make_step(model, opt): def
        step(x): ... opt.zero_grad()`) as "<enclosing qualname>:<name>"."""
        if self._is_param(name):
            return name
        if name in self.local_names or name in self.env:
            return None
        p = self.parent
        while p is not None and not p.module_level:
            if name in p.env or name in p.local_names:
                return f"{p.qualname}:{name}" if p._is_param(name) else None
            p = p.parent
        return None

    def _fullgraph_flag(self, node: ast.Call) -> bool | None:
        for kw in node.keywords:
            if kw.arg == "fullgraph":
                return _const_bool(kw.value)
        return False

    def _call_ref(self, node, q, args, kwargs, kinds: _Kinds) -> Val:
        mod = self.mod
        if q == V.COMPILE:
            fg = self._fullgraph_flag(node)
            if not node.args:
                return Val(V.COMPILED, "True" if fg else ("False" if fg is False else "None"), attr="decorator")
            root = self._root_from(node, node.args[0], args[0], fg)
            return Val(V.COMPILED, None if root is None else str(root))
        if q in V.GUARD_FUNCTIONS:
            return Val(V.GUARD)
        if q in DEVICE_CALLS:
            mod.summary.device_calls.add(q)
        if q in ("os.environ.setdefault", "os.putenv", "os.environ.update", "os.environ.__setitem__"):
            key = node.args[0] if node.args and q != "os.environ.update" else None
            mod.summary.env_writes.add(key.value if isinstance(key, ast.Constant) and isinstance(key.value, str)
                                       else "*")  # (conditions_recorded._unset_test)
        if q in V.NONSTRICT_TRACE or q in V.ALLOW_IN_GRAPH:
            if node.args and self.module_level and q in V.ALLOW_IN_GRAPH:
                tq = self._callable_q(node.args[0], args[0])
                if tq:
                    mod.summary.allow_in_graph.add(tq)
            return Val(V.OPAQUE, self._callable_q(node.args[0], args[0]) if node.args else None)
        if q in V.DISABLE and node.args:
            # fast = torch.compiler.disable(fn): calling `fast` from compiled code breaks the graph
            return Val(V.OPAQUE, self._callable_q(node.args[0], args[0]), attr=disable_mode(node))
        if q == "functools.partial" and node.args and args[0].kind in (V.REF, V.LOCALFN) and args[0].q:
            return args[0]  # Dynamo calls through a partial: compiling or calling it runs the function
        if q == "builtins.next" and node.args:
            self._iterate_hook(node.args[0], args[0], "next")
        rules = self.rules.call_rules(q)
        if rules:
            self.dispatch(Event(kind="call", node=node, fn=self, q=q, args=args, kwargs=kwargs), rules)
        elif q in TRACE_TABLE_NAMES:  # Dynamo's own list of what it skips (per torch version: the project checks)
            self.dispatch(Event(kind="skipped_call", node=node, fn=self, q=q, args=args, kwargs=kwargs),
                          self.rules.hooks["skipped_call"])
        if q in HIGHER_ORDER:
            for a, v in zip(node.args, args):
                if v.kind == V.REF and v.q and not v.q.startswith(("builtins.", "torch.")):
                    self.edge("call", v.q, None, a)
                elif v.kind == V.SELFATTR and v.q and v.attr and isinstance(a, ast.Attribute):
                    # `checkpoint(self.block, x)`, `checkpoint(self._part, x)`: the module held, or the method
                    self.edge("method", v.q, v.attr, a)
                elif v.kind == V.INSTANCE and v.q and v.attr is None and not V.is_torch_module_class(v.q):
                    self.edge("module_call", v.q, None, a)  # `checkpoint(block, x)` with a module of the project
        if q.startswith("torch.") and any(a.kind == V.TENSOR and a.attr == "sparse" for a in (*args, *kwargs.values())):
            self.hook("sparse_use", node, V.SPARSE_V)  # `torch.spmm(adj, x)` with a sparse `adj`
        if not q.startswith(("builtins.", "torch.")):
            self.edge("call", q, None, node, *kinds.get())
            mod.summary.call_sites.append(CallSite(q, False, *kinds.get(), mod.span(node), vals=self._passed(node),
                                                        caller=self.fs.qualname if self.fs else None))
        return self._ref_result(q, node, args, kwargs)

    def _ref_result(self, q: str, node: ast.Call, args: list[Val], kwargs: dict) -> Val:
        if q == "importlib.import_module":
            return self._imported_by_name(node)
        if q.startswith("builtins."):
            name = q[9:]
            if name in ("iter", "zip", "map", "filter", "enumerate", "reversed"):
                return Val(V.ITERATOR)
            if name in ("int", "float", "bool") and args and args[0].kind == V.TENSOR:
                return V.DDSCALAR_V
            if name == "sum" and args and args[0].kind == V.ITERATOR and args[0].attr == "tensor":
                return V.TENSOR_V  # the sum of tensors a generator makes: a tensor
            if name in ("int", "float", "abs", "round", "min", "max", "sum") and args and \
                    all(a.kind in (V.DDSCALAR, V.CONST, V.STATIC) for a in args) and \
                    any(a.kind == V.DDSCALAR for a in args):
                return V.DDSCALAR_V
            if name in ("len",):
                return V.STATIC_V
            if name in ("int", "float", "bool", "str", "tuple") and args and \
                    all(a.kind in (V.STATIC, V.CONST) for a in args):
                return V.STATIC_V
            if name == "super":
                return Val(V.SUPER, self.cls)
            return U
        if q.startswith("torch."):
            if q in V.SPARSE_FACTORIES:
                return V.SPARSE_V
            if q in V.MASK_CALLS or (V.torch_call_returns_tensor(q) and any(
                    kw.arg == "dtype" and self.resolve_dotted_node(kw.value) == "torch.bool" for kw in node.keywords)):
                return V.BOOL_TENSOR_V
            if q == "torch.where" and len(node.args) == 1:
                return U
            if q in ("torch.max", "torch.min") and len(node.args) + len(node.keywords) == 1:
                return V.TENSOR_V
            if q == "torch.where" and len(node.args) == 3:
                return V.TENSOR_V
            if q in V.DD_BOOL_CALLS:
                return Val(V.DDSCALAR, q)
            if q == "torch.Generator":
                return Val(V.INSTANCE, q)
            if q in V.EXTENSION_LOADERS:
                return Val(V.INSTANCE, V.EXTENSION_MODULE)
            if V.torch_call_returns_tensor(q):
                return Val(V.TENSOR, float_dtype=q in V.FLOAT_FACTORIES or q.startswith("torch.nn.functional."))
            if q[6:] in V.TORCH_TENSOR_TUPLES and node.args:
                return V.TENSOR_V
            last = q.rsplit(".", 1)[-1]
            if last[:1].isupper():
                if q in V.MODULE_CONTAINERS:
                    return self._container(node, args, kwargs)
                return Val(V.INSTANCE, q)
            return U
        if q == "logging.getLogger":
            return Val(V.INSTANCE, "logging.Logger")
        if q in V.EXTENSION_LOADERS:
            return Val(V.INSTANCE, V.EXTENSION_MODULE)
        last = q.rsplit(".", 1)[-1]
        if last[:1].isupper():
            return Val(V.INSTANCE, q)  # PEP 8 class name: the project checks it really is a class
        if q in PY_RANDOM_NUMBERS:
            return V.STATIC_V  # a Python number (the draw itself breaks the graph up to 2.13: FG108)
        if V.numpy_scalar_draw(q, len(node.args), {k.arg for k in node.keywords}):
            return V.STATIC_V  # the draw breaks the graph; after it, a Python number
        if q in V.NUMPY_FOLDED_ON_NUMBERS and args and all(a.kind in (V.STATIC, V.CONST) for a in args) and \
                not any(isinstance(a, (ast.List, ast.Tuple, ast.Starred)) for a in node.args):
            return V.STATIC_V
        if q.startswith("numpy."):
            # Dynamo traces NumPy calls as tensor code (torch._numpy): their values, even from
            # constants, are data to it (`int(np.sum(...))`, `if k > 2`, `range(np.int64(3))` break)
            if args and all(a.kind in (V.STATIC, V.CONST) for a in args) and not kwargs and \
                    not any(isinstance(a, (ast.List, ast.Tuple, ast.Starred)) for a in node.args):
                return V.NUMPY_STATIC_V  # (`np.prod(x.shape[1:])`: folded when it has one item)
            return V.NUMPY_V
        if q.startswith("math."):
            if any(a.kind == V.DDSCALAR for a in args):
                return V.DDSCALAR_V
            return U
        known = self._known_result(node)
        if known is not None:
            return known
        # a factory function (`make_model()`): the project resolves what it returns
        return Val(V.INSTANCE, q, attr="factory")

    def _imported_by_name(self, node: ast.Call) -> Val:
        """`importlib.import_module(name)`: the module, as `import <name>` binds it, for a string literal; for an own
        parameter never rebound, the module it names (the project reads the calls: engine/imported_names.py); else
        a module the analysis cannot tell.  A relative name (`package=`) is not followed."""
        if len(node.args) != 1 or node.keywords:
            return Val(V.REF, imported_names.UNDECIDED)
        a = node.args[0]
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value and not a.value.startswith("."):
            self.mod.summary.imports.add(a.value)
            return Val(V.REF, V.canonical(a.value))
        if isinstance(a, ast.Name) and self.fs is not None and a.id in self.fs.params and self._param_untouched(a.id):
            return Val(V.REF, imported_names.ref_by_param(self.fs.qualname, a.id))
        return Val(V.REF, imported_names.UNDECIDED)

    def _known_result(self, node: ast.Call) -> Val | None:
        """What the call returns as the project tells it, while a variant of this function is analysed
        (ModuleAnalyzer.results: Arrivals._call_results): a tensor of a kind, or a TUPLE of them."""
        got = self.mod.results.get(self.qualname)
        if not got:
            return None
        sp = self.mod.span(node)
        shape = got.get((sp.start.line, sp.start.col, sp.end.line, sp.end.col))
        if isinstance(shape, tuple):
            return Val(V.TUPLE, attr=",".join(k or "" for k in shape))
        return V.of_tensor_kind(shape)

    def _container(self, node: ast.Call, args: list[Val], kwargs: dict) -> Val:
        classes: set[str] = set()
        for a in args:
            if a.kind == V.INSTANCE and a.q and a.attr in (None, "list") or a.kind == V.ITERATOR and a.q:
                classes.update(a.q.split("|"))
        if classes:
            return Val(V.INSTANCE, "|".join(sorted(classes)), attr="container")
        return Val(V.INSTANCE, "torch.nn.Module", attr="container")

    def _callable_q(self, node: ast.AST, v: Val) -> str | None:
        if v.kind in (V.REF, V.LOCALFN) and v.q:
            return v.q
        return None

    def _root_from(self, call: ast.Call, target: ast.AST, tv: Val, fg: bool | None) -> int | None:
        mod = self.mod
        label = mod.text_of(call)
        span = mod.span(call)
        decl = None
        if tv.kind in (V.REF, V.LOCALFN) and tv.q:
            decl = RootDecl(kind="function", target=tv.q, attr=None, fullgraph=fg, label=label, span=span)
        elif tv.kind == V.INSTANCE and tv.q and tv.attr is None:
            decl = RootDecl(kind="module", target=tv.q, attr=None, fullgraph=fg, label=label, span=span,
                            training=tv.training, ctor=self._construction_of(target, tv))
        elif tv.kind == V.INSTANCE and tv.q and V.factory_item(tv) is not None:
            decl = RootDecl(kind="factory", target=tv.q, attr=V.factory_item(tv) or None, fullgraph=fg, label=label,
                            span=span, training=tv.training)
        elif tv.kind == V.INSTANCE and tv.q and tv.attr in ("container", "choice"):
            # torch.compile(nn.Sequential(A(), B())): calling it calls each of its modules; a model
            # chosen by an if/else: either one's forward runs
            decl = RootDecl(kind="container", target=tv.q, attr=None, fullgraph=fg, label=label, span=span,
                            training=tv.training)
        elif tv.kind == V.INSTANCE and tv.q and (tv.attr or "").startswith("method:"):
            decl = RootDecl(kind="method", target=tv.q, attr=tv.attr[7:], fullgraph=fg, label=label, span=span)
        elif tv.kind == V.SELFATTR:
            decl = RootDecl(kind="attr", target=tv.q, attr=tv.attr, fullgraph=fg, label=label, span=span)
        elif isinstance(target, ast.Attribute):
            base = target.value
            bv = self.lookup(base.id) if isinstance(base, ast.Name) else U
            if bv.kind == V.INSTANCE and bv.q:
                decl = RootDecl(kind="method", target=bv.q, attr=target.attr, fullgraph=fg, label=label, span=span)
            elif bv.kind == V.SELF:
                decl = RootDecl(kind="method", target=bv.q, attr=target.attr, fullgraph=fg, label=label, span=span)
        if decl is not None:
            if isinstance(target, ast.Name):
                decl.source = target.id
            mod.summary.roots.append(decl)
            return len(mod.summary.roots) - 1
        mod.summary.unresolved_roots.append((label, span))
        return None

    def _self_method_call(self, node: ast.AST) -> str | None:
        """The method name of `self.<name>(...)`, else None."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and self.lookup(node.func.value.id).kind == V.SELF:
            return node.func.attr
        return None

    def _construction_of(self, node: ast.AST, v: Val) -> tuple | None:
        """The Edge.vals of the visible construction of the module `node` holds: `torch.compile(Metric(...))`,
        or a name bound to one in this function (`m = Metric(num_classes=3)`)."""
        if isinstance(node, ast.Call):
            return self._passed(node)
        if isinstance(node, ast.Name):
            got = self.constructions.get(node.id)
            if got is not None and got[0] == v.q:
                return got[1]
        return None

    def _imported_instance_call(self, node: ast.Call, how: str, q: str, method: str, args, kwargs) -> None:
        """`logger.info(...)` with `logger` imported from another module (`from .utils import
        logger`, how="bound") or made by a function (`logger = get_logger(__name__)`, how="returns"):
        what it is, only the project knows.  The method's rules see each candidate class, and their
        sites carry the condition, checked when a root reaches them."""
        for cls in V.IMPORTED_INSTANCE_CLASSES:
            self.dispatch(Event(kind="method", node=node, fn=self, method=method, recv=Val(V.INSTANCE, cls),
                                args=args, kwargs=kwargs), self.rules.methods[method], requires=(how, q, cls))

    def _call_method(self, node, recv: Val, method: str, args, kwargs, kinds: _Kinds) -> Val:
        mod = self.mod
        if method in ("eval", "train") and recv.kind == V.COMPILED and (recv.q or "").isdigit() or \
                method in V.MODULE_SELF_METHODS and recv.kind == V.INSTANCE and recv.attr == "choice":
            # `compiled.train()`: its module's mode; `model.float()` on a module chosen by an if/else: the same
            return self._mode_change(node, recv, method, args)
        factory = recv if recv.kind == V.INSTANCE and V.factory_item(recv) is not None else None
        if factory is not None:
            if factory.q and method in self.rules.methods and factory.attr == "factory":
                self._imported_instance_call(node, "returns", factory.q, method, args, kwargs)
            recv = U  # what a function returned: unknown here (a tensor, most often)
        k = recv.kind
        # rules keyed on method names see every receiver; they decide on its kind
        rules = self.rules.methods.get(method)
        if rules:
            self.dispatch(Event(kind="method", node=node, fn=self, method=method, recv=recv, args=args,
                                kwargs=kwargs), rules)
        elif k == V.INSTANCE and recv.q and recv.attr is None and f"{recv.q}.{method}" in TRACE_TABLE_NAMES:
            # `opt.zero_grad()` on a torch.optim optimizer: Dynamo's own list of what it skips
            self.dispatch(Event(kind="skipped_call", node=node, fn=self, q=f"{recv.q}.{method}", args=args,
                                kwargs=kwargs), self.rules.hooks["skipped_call"])
        if k == V.SELF and method in ("register_buffer", "register_parameter") and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            cs = mod.summary.classes.get(recv.q or "")
            if cs is not None:
                cs.tensor_attrs.add(node.args[0].value)
        if method == "data_ptr" and k in (V.TENSOR, V.UNKNOWN) and not args:
            return V.POINTER_V  # a key or a stored value compiles; arithmetic on it does not (FG308)
        if method in ("parameters", "buffers") and k in (V.SELF, V.SELFATTR, V.INSTANCE) and not args:
            return Val(V.INSTANCE, V.TENSOR_CLASS, attr="list")  # iterating gives the module's tensors
        if factory is not None and method in V.MODULE_SELF_METHODS:
            # `build_model(...).float().eval()`: the factory's module, moved or in that mode
            return self._mode_change(node, factory, method, args)
        if method == "compile" and factory is not None:
            mod.summary.roots.append(RootDecl("factory", factory.q, V.factory_item(factory) or None, self._fullgraph_flag(node),
                                              mod.text_of(node), mod.span(node)))
            return U
        if method == "compile" and k in (V.INSTANCE, V.SELFATTR) and recv.q and recv.attr is None:
            fg = self._fullgraph_flag(node)
            label = mod.text_of(node)
            if k == V.INSTANCE:
                mod.summary.roots.append(RootDecl("module", recv.q, None, fg, label, mod.span(node),
                                                  training=recv.training))
            else:
                mod.summary.roots.append(RootDecl("attr", recv.q, recv.attr, fg, label, mod.span(node)))
            return U
        if k == V.SELFATTR and recv.q and recv.q == self.cls and recv.attr and method in ("append", "insert") \
                and args and args[-1].kind == V.INSTANCE and args[-1].q and args[-1].attr is None:
            # self.layers.append(Block()): iterating self.layers calls Block
            cs = mod.summary.classes.get(self.cls)
            if cs is not None:
                add_elements(cs, recv.attr, [args[-1].q])
        elif k == V.SELFATTR and recv.q and recv.q == self.cls and recv.attr and method in ("append", "insert") \
                and node.args and (made := self._self_method_call(node.args[-1])) is not None:
            # self.convs.append(self.init_conv(...)): what the method returns, on the class of the
            # instance (a subclass overrides init_conv), is resolved where the container is iterated
            cs = mod.summary.classes.get(self.cls)
            if cs is not None:
                add_elements(cs, recv.attr, [V.SELF_MADE + made])
        if method in V.HOOK_METHODS and args:
            hv = args[0]
            target = None
            if hv.kind in (V.REF, V.LOCALFN) and hv.q:
                target = ("call", hv.q, None)
            elif hv.kind == V.SELFATTR and hv.q:
                target = ("method", hv.q, hv.attr)
            owner = None
            if k == V.SELF:
                owner = ("class", self.cls, None)
            elif k == V.INSTANCE and recv.q and recv.attr is None:
                owner = ("class", recv.q, None)
            elif k == V.SELFATTR and recv.q:
                owner = ("attr", recv.q, recv.attr)
            if owner and target:
                mod.summary.hooks.append((owner, target))
            return U
        if k == V.SELF:
            self.edge("method", recv.q, method, node, *kinds.get())
            mod.summary.call_sites.append(CallSite(f"{recv.q}.{method}", True, *kinds.get(), mod.span(node)))
            if method in V.MODULE_SELF_METHODS:
                return recv
            cs = mod.summary.classes.get(recv.q or "")
            types = cs.attrs.get(method, ()) if cs is not None and method not in cs.methods else ()
            if types and all(V.is_torch_module_class(t) for t in types):
                return V.TENSOR_V  # `self.norm(x)` with self.norm = nn.LayerNorm(...): a tensor
            return U
        if k == V.SUPER:
            if recv.q:
                self.edge("super", recv.q, method, node, *kinds.get())
            return U
        if k == V.INSTANCE and recv.q:
            if recv.q == V.EXTENSION_MODULE:
                self.hook("extension_call", node, recv)
                return U
            if recv.q == "torch.Generator" and method == "manual_seed":
                return recv  # returns the generator itself
            if recv.attr is None and not recv.q.startswith(("torch.", "logging.", "builtins.")):
                self.edge("method", recv.q, method, node, *kinds.get())
                mod.summary.call_sites.append(CallSite(f"{recv.q}.{method}", True, *kinds.get(),
                                                       mod.span(node), vals=self._passed(node),
                                                       caller=self.fs.qualname if self.fs else None))
                if method in V.MODULE_SELF_METHODS:
                    # `Net().to(device).eval()`: nn.Module methods return the module itself
                    return self._mode_change(node, recv, method, args)
                # what the method returns, as the project can tell (a factory; a registry's function)
                return Val(V.INSTANCE, f"{recv.q}.{method}", attr="factory")
            return U
        if k == V.SELFATTR:
            self.edge("attr_method", recv.q, f"{recv.attr}.{method}", node)
            return U
        ref = self._param_ref(node.func.value.id) if k == V.UNKNOWN and factory is None and \
            isinstance(node.func.value, ast.Name) and method not in V.TENSOR_DISTINCTIVE_METHODS else None
        if ref:
            # `opt.zero_grad()`, `model.encode(x)` on a parameter: the caller's argument tells the class
            self.edge("param_method", ref, method, node, *kinds.get())
        if k == V.TENSOR and recv.attr == "sparse":
            self.hook("sparse_use", node, recv)  # `adj.t()`, `adj.matmul(x)`: reading the sparse tensor
            if method in V.SPARSE_KEEPING_METHODS or method in V.SPARSE_METHODS:
                return V.SPARSE_V
        if k == V.UNKNOWN and method in V.SPARSE_METHODS and factory is None:
            return V.SPARSE_V  # `dense.to_sparse()`: a sparse tensor, whatever `dense` was
        if k == V.TENSOR or (k == V.UNKNOWN and method in V.TENSOR_DISTINCTIVE_METHODS):
            if method in V.SPARSE_METHODS:
                if k == V.TENSOR and recv.attr != "sparse":
                    self.hook("sparse_use", node, V.SPARSE_V)  # `x.to_sparse()`: its result is wrapped
                return V.SPARSE_V
            if method in V.MASK_METHODS or (recv.attr == "bool" and method in V.MASK_KEEPING_METHODS):
                return V.BOOL_TENSOR_V
            if method in ("item",):
                return V.DDSCALAR_V
            if method == "tolist":
                return V.DDSCALAR_V
            if method in ("size", "dim", "numel", "nelement", "element_size", "stride", "ndimension"):
                return V.STATIC_V
            if method in V.TENSOR_STATIC_METHODS:
                return U
            if method in ("split", "chunk", "unbind", "sort", "topk", "max", "min") and \
                    (args or kwargs):
                return V.TENSOR_V  # tensors (values and indices): unpacked or iterated, each is one
            return Val(V.TENSOR, float_dtype=recv.float_dtype or method in V.FLOAT_METHODS)
        if k == V.UNKNOWN and method == "item":
            return V.DDSCALAR_V
        if k == V.STATIC:
            return V.STATIC_V
        return U

    def _mode_change(self, node: ast.Call, recv: Val, method: str, args: list[Val]) -> Val:
        """`.eval()` / `.train(False)` / `.train()` on a module: the same module, in that mode (the name
        it is bound to is rebound, so that `torch.compile(model)` knows the mode: self.training)."""
        if method not in ("eval", "train"):
            return recv
        training = method == "train"
        given = node.args[0] if node.args else next((kw.value for kw in node.keywords if kw.arg == "mode"), None)
        if method == "train" and given is not None:
            flag = _const_bool(given)
            if flag is None:
                return recv  # .train(flag): unknown mode
            training = flag
        moded = Val(recv.kind, recv.q, recv.attr, training=training)
        base = node.func.value if isinstance(node.func, ast.Attribute) else None
        if isinstance(base, ast.Name) and self.lookup(base.id) == recv:
            self.bind(base.id, moded)
            self._mode_of_twin(base.id, recv, training)
        return moded

    def _mode_of_twin(self, name: str, recv: Val, training: bool) -> None:
        """`c = torch.compile(model)`, then `model.train()`: the compiled object runs the same module, in
        that mode (and `c.eval()` puts `model` in eval mode): the other name is rebound in the mode."""
        roots = self.mod.summary.roots
        if recv.kind == V.COMPILED:
            source = roots[int(recv.q)].source if int(recv.q) < len(roots) else None
            twins = [source] if source and source != name else []
        else:
            twins = [n for n, v in self._visible_compiled() if roots[int(v.q)].source == name and n != name]
        for twin in twins:
            v = self.lookup(twin)
            if v.kind in (V.COMPILED, V.INSTANCE) and v.training != training:
                self.bind(twin, Val(v.kind, v.q, v.attr, training=training))

    def _visible_compiled(self) -> list[tuple[str, Val]]:
        """The names this scope sees bound to a compiled object of this module (`torch.compile(m)`)."""
        out: dict[str, Val] = {}
        scope = self
        while scope is not None:
            for n, v in scope.env.items():
                if n not in out and v.kind == V.COMPILED and (v.q or "").isdigit() and \
                        int(v.q) < len(self.mod.summary.roots):
                    out[n] = v
            scope = scope.parent
        return list(out.items())

    def _registered(self, node: ast.AST, v: Val, method: str) -> set[str]:
        """Functions named in ignore_logging_functions.add(x) / .update([...])."""
        out: set[str] = set()
        items = [node]
        if method == "update" and isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = list(node.elts)
        for it in items:
            q = self.resolve_dotted_node(it)
            if q:
                out.add(q)
                continue
            if isinstance(it, ast.Attribute) and isinstance(it.value, ast.Name):
                bv = self.lookup(it.value.id)
                if bv.kind == V.INSTANCE and bv.q:
                    # a bound method of a module-level object, e.g. logger.info
                    out.add(f"{self.mod.modname}.{it.value.id}\x00{it.attr}")
            elif isinstance(it, ast.Name):
                lv = self.lookup(it.id)
                if lv.q:
                    out.add(lv.q)
        return out

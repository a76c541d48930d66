"""Assignments in the walked body: names bound, `self.<attr>` recorded for the class, the state a
function changes outside itself, and objects made before the compiled code ran (a mixin of
FunctionAnalyzer, engine/analyzer.py)."""
from __future__ import annotations

import ast

from . import values as V
from .attr_choices import add_choice, enclosing_tests, test_atoms
from .definitions import NOT_WRAPPERS
from .nodes import holds_line, walk
from .summary import ClassSummary, add_elements, add_replacement, set_value
from .values import U, Val


def _only_called(scope: ast.AST, name: str, lines: list[str]) -> bool:
    """Is `name` read in `scope` (its nested functions included) only as the function of a call, and
    bound only once?  (`lines`: the module's; of a module, only the statements whose lines spell the name are
    walked: a keystroke in a large file analysed it again, and walking the whole module per compiled name took
    longer than parsing it.)"""
    called: set[int] = set()
    loads = stores = 0
    if type(scope) is ast.Module:
        spelled = [i for i, line in enumerate(lines, 1) if name in line]
        parts = [s for s in scope.body if holds_line(s, spelled)]
    else:
        parts = [scope]
    for node in (n for part in parts for n in walk(part)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            called.add(id(node.func))
        elif isinstance(node, ast.Name) and node.id == name and id(node) not in called:
            if isinstance(node.ctx, ast.Load):
                loads += 1
            else:
                stores += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
    return stores == 1 and loads == 0 and bool(called)


class AssignmentsMixin:
    def assign(self, target: ast.AST, v: Val, value_node: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            if v.kind == V.GUARD and self.module_level:
                v = U  # a module constant computed at import time is not a guard (case guard_module_constant)
            self.bind(target.id, v)
            if v.kind == V.COMPILED and v.q and v.q.isdigit() and isinstance(value_node, ast.Call) and \
                    int(v.q) < len(self.mod.summary.roots):
                # `compiled = torch.compile(model)`: are its visible calls all its calls?
                decl = self.mod.summary.roots[int(v.q)]
                decl.calls_complete = _only_called(self.node, target.id, self.mod.lines.lines)
                decl.binding = target.id if self.module_level else None
            if v.kind == V.INSTANCE and v.q and v.attr is None and isinstance(value_node, ast.Call):
                self.constructions[target.id] = (v.q, self._passed(value_node))  # `m = Metric(num_classes=3)`
            else:
                self.constructions.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if v.kind == V.INSTANCE and v.q and v.attr == "factory" and \
                    not any(isinstance(e, ast.Starred) for e in target.elts):
                # `model, criterion = build(cfg)`: each item is what the factory returns at its position
                for i, e in enumerate(target.elts):
                    self.assign(e, Val(V.INSTANCE, v.q, attr=f"factory[{i}]"), None)
                return
            if v.kind == V.TUPLE and not any(isinstance(e, ast.Starred) for e in target.elts):
                for i, e in enumerate(target.elts):  # `x, mask = helper(x)`: each item's kind
                    self.assign(e, V.tuple_item(v, i), None)
                return
            # `_, h, w = x.shape[-3:]`: sizes are static too
            elem = v if v.kind in (V.TENSOR, V.DDSCALAR) else V.STATIC_V if v.kind == V.STATIC else U
            for e in target.elts:
                self.assign(e.value if isinstance(e, ast.Starred) else e, elem, None)
        elif isinstance(target, ast.Attribute):
            base = target.value
            self._effect(base)
            if isinstance(value_node, ast.Constant):
                q = self.resolve_dotted_node(target)
                if q and q.startswith("torch._dynamo.config.") and q.count(".") == 3:
                    # torch._dynamo.config.capture_scalar_outputs = True: process-wide
                    self.mod.summary.dynamo_config.add((q.rsplit(".", 1)[1], value_node.value))
            if isinstance(base, ast.Name) and self.lookup(base.id).kind == V.SELF and self.cls:
                self._self_attr(target.attr, v, value_node)
            elif isinstance(base, ast.Name) and self.fs is not None and self.fs.params and \
                    base.id == self.fs.params[0] and v.kind == V.LOCALFN and v.q:
                # a class decorator: `cls.forward = forward` (a local function) replaces the method
                self.fs.replaces[target.attr] = v.q
            else:
                bv = self.value(base)
                if target.attr == "requires_grad" and bv.kind == V.TENSOR:
                    self.hook("requires_grad_set", target, bv)
        elif isinstance(target, ast.Subscript):
            if self.resolve_dotted_node(target.value) == "os.environ":  # `os.environ["DEBUG"] = "1"`
                key = target.slice
                self.mod.summary.env_writes.add(key.value if isinstance(key, ast.Constant) and
                                                isinstance(key.value, str) else "*")
            self._effect(target.value)
            self.value(target.value)
            self.value(target.slice)
            if isinstance(target.value, ast.Name) and v.kind == V.TENSOR:
                self.tensor_holders.setdefault(target.value.id, "dict")
        elif isinstance(target, ast.Starred):
            self.assign(target.value, U, None)

    def _self_attr(self, attr: str, v: Val, value_node: ast.AST | None) -> None:
        cs = self.mod.summary.classes.get(self.cls)
        if cs is None:
            return
        fs = self.fs
        if v.kind == V.TENSOR or (v.kind == V.INSTANCE and v.q in V.PARAMETER_CLASSES):
            cs.tensor_attrs.add(attr)
        in_init = fs is not None and fs.name == "__init__"
        if isinstance(value_node, ast.Constant):
            value: tuple = ("const", value_node.value)
        elif isinstance(value_node, ast.Name) and in_init and value_node.id in fs.params and \
                self._param_untouched(value_node.id):
            # ("init_param", name, default) or, for a required argument, ("init_param", name)
            value = ("init_param", value_node.id, fs.defaults[value_node.id]) if value_node.id in fs.defaults \
                else ("init_param", value_node.id)
        elif isinstance(value_node, ast.Name) and in_init and value_node.id in fs.params and \
                (other := self._none_fallback(value_node.id)) is not None:
            # `if add_self_loops is None: add_self_loops = normalize` before `self.add_self_loops = add_self_loops`:
            # ("init_param_or", the parameter, the one it falls back to), each as "init_param" reads it
            value = ("init_param_or", *(("init_param", n, fs.defaults[n]) if n in fs.defaults else ("init_param", n)
                                        for n in (value_node.id, other)))
        elif isinstance(value_node, ast.Attribute) and isinstance(value_node.value, ast.Name) and in_init and \
                value_node.value.id in fs.params and self._param_untouched(value_node.value.id):
            # `self.layerdrop = config.encoder_layerdrop`: a field of what the constructions pass
            value = ("init_field", value_node.value.id, value_node.attr)
        elif v.kind == V.INSTANCE and v.q and v.attr is None:
            value = ("object",)
        elif in_init and (held := self._container_of_param(value_node, fs)) is not None:
            value = ("init_elements", held)  # `self.layers = nn.ModuleList(layers)`: the modules passed in
        else:
            value = ("unknown",)
        set_value(cs.values, attr, value)
        if in_init:
            set_value(cs.init_values, attr, value)
        if v.kind == V.INSTANCE and v.q:
            if v.attr in ("container", "list"):
                add_elements(cs, attr, v.q.split("|"))
            else:  # one class, or a choice among several ("A|B")
                # which class goes with which test of `__init__` (engine/attr_choices.py)
                around = self._init_tests() if in_init and self.conds else ()  # (no `if` test of a flag around)
                made = [(q, around + atoms) for q, atoms in self._branch_classes(value_node, v, in_init)]
                if attr in cs.choices or any(atoms for _, atoms in made):
                    if attr not in cs.choices:  # (what earlier assignments made holds under no test known)
                        add_choice(cs.choices, attr, cs.attrs.get(attr, ()), ())
                    for q, atoms in made:
                        add_choice(cs.choices, attr, q.split("|"), atoms)
                cs.attrs[attr] = tuple(sorted(set(cs.attrs.get(attr, ())) | set(v.q.split("|"))))
                if isinstance(value_node, ast.Call) and "|" not in v.q:
                    # what the call passes, when constants only: a project function that picks the class by them
                    passed = self._passed(value_node)
                    vals = passed if all(x[1][0] == "const" for x in passed) else None
                    made = dict(cs.made_with.get(attr, ()))
                    made[v.q] = vals if made.get(v.q, vals) == vals else None
                    cs.made_with[attr] = tuple(made.items())
        elif v.kind in (V.LOCALFN, V.REF) and v.q:
            cs.attrs.setdefault(attr, ())
        elif (made := self._self_method_call(_module_itself(value_node))) is not None:
            # `self.model = self._build_model().to(self.device)`: what the method returns, on the class of the
            # instance (a subclass overrides _build_model), is resolved where the attribute is used
            cs.attrs[attr] = tuple(sorted(set(cs.attrs.get(attr, ())) | {V.SELF_MADE + made}))
        if fs is not None and value_node is not None and v.kind != V.COMPILED:  # compiled: a root of its own
            # unconditional: a statement of `__init__`'s own body (after its `if bad: raise` checks too)
            always = in_init and isinstance(self.node, ast.FunctionDef) and \
                any(st is self.stmt for st in self.node.body)
            rep = self.replacement(value_node, cs, fs.name, always, attr)
            if rep is not None:
                add_replacement(cs, attr, rep)

    def _init_tests(self) -> tuple:
        """The attr_choices atoms of the tests of `__init__`'s `if`s around the statement analysed."""
        if self.stmt is None:
            return ()
        return tuple(a for test, holds in enclosing_tests(self.node, self.stmt)
                     for a in test_atoms(test, holds, self._choice_flag))

    def _branch_classes(self, node: ast.AST | None, v: Val, in_init: bool) -> list[tuple[str, tuple]]:
        """(classes "A|B", atoms) per branch of a conditional expression choosing the instance (`Routed() if sparse
        else Dense()`: the atoms of its test in `__init__`); [(v.q, ())] for any other value."""
        got = self._ifexp_vals.get(id(node)) if isinstance(node, ast.IfExp) else None
        if got is None:
            return [(v.q, ())]
        out = []
        for branch, bv, holds in ((node.body, got[0], True), (node.orelse, got[1], False)):
            atoms = test_atoms(node.test, holds, self._choice_flag) if in_init else ()
            out.extend((q, atoms + more) for q, more in self._branch_classes(branch, bv, in_init))
        return out

    def _choice_flag(self, node: ast.AST) -> tuple | None:
        """An attr_choices flag of `__init__`: a parameter never rebound, a field of one, an attribute of self."""
        params = self.fs.params[1:] if self.fs is not None else ()
        if isinstance(node, ast.Name) and node.id in params and self._param_untouched(node.id):
            return ("init", node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in params and \
                self._param_untouched(node.value.id):
            return ("field", f"{node.value.id}.{node.attr}")
        f = self._flag(node)
        return f if f is not None and f[0] == "self" else None

    def _none_fallback(self, name: str) -> str | None:
        """The parameter `q` when the only store of the parameter `name` in the function analysed is a statement
        of its body before the one analysed, `if name is None: name = q` (q a parameter never rebound)."""
        fn, stmt = self.node, self.stmt
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or stmt is None:
            return None
        stores = [n for n in walk(fn) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]
        if len(stores) != 1:
            return None
        for st in fn.body:
            if st.lineno >= stmt.lineno:
                return None
            if isinstance(st, ast.If) and not st.orelse and len(st.body) == 1 and isinstance(st.body[0], ast.Assign) \
                    and st.body[0].targets[0] is stores[0] and isinstance(st.test, ast.Compare) and \
                    isinstance(st.test.left, ast.Name) and st.test.left.id == name and \
                    isinstance(st.test.ops[0], ast.Is) and isinstance(st.test.comparators[0], ast.Constant) and \
                    st.test.comparators[0].value is None and len(st.test.ops) == 1:
                q = st.body[0].value
                ok = isinstance(q, ast.Name) and q.id != name and q.id in self.fs.params and \
                    self._param_untouched(q.id)
                return q.id if ok else None
        return None

    def _container_of_param(self, node: ast.AST | None, fs) -> str | None:
        """The `__init__` parameter whose modules `nn.ModuleList(param)` / `nn.Sequential(*param)` holds."""
        if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
            return None
        q = self.resolve_dotted_node(node.func)
        arg = node.args[0]
        if q == "torch.nn.ModuleList" and isinstance(arg, ast.Name):
            name = arg.id
        elif q == "torch.nn.Sequential" and isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name):
            name = arg.value.id
        else:
            return None
        return name if name in fs.params and self._param_untouched(name) else None

    def replacement(self, node: ast.AST, cs: ClassSummary, where: str, always: bool,
                    attr: str | None = None) -> tuple | None:
        """What `self.<attr> = <node>` (in a method) or `<attr> = <node>` (in the class body) puts in the
        place of a method, as ClassSummary.replaced records it; None when it is no callable made from one:
        a wrapper (`self._wrap_update(self.update)`, `timed(_forward)`), `types.MethodType(fn, self)`,
        a function or another method (`self.forward = self._forward_impl`, `functools.partial(fn, ...)`),
        or, for a method of the class or a value made from `self.<attr>` itself, something not visible."""
        if isinstance(node, ast.Call):
            fq = self._callable_ref(node.func, cs)
            if fq == "types.MethodType" and node.args:
                g = self._callable_ref(node.args[0], cs)
                return ("bound", where, always, g) if g and not g.startswith("self.") else \
                    ("unknown", where, always, self.mod.text_of(node))
            if fq == "functools.partial" and node.args:
                g = self._callable_ref(node.args[0], cs)
                if g:
                    return ("alias", where, always, _original(g))
            elif fq and not fq.startswith(NOT_WRAPPERS):
                for i, a in enumerate(node.args):
                    g = self._callable_ref(a, cs)
                    if g:
                        return ("wrap", where, always, fq, i, _original(g))
            if fq is None or not fq.startswith(NOT_WRAPPERS):
                reads_self = any(isinstance(a, ast.Attribute) and a.attr == attr and isinstance(a.value, ast.Name)
                                 and self.lookup(a.value.id).kind == V.SELF
                                 for a in [*node.args, *(k.value for k in node.keywords)])
                if reads_self or (where == "" and any(self._callable_ref(a, cs) for a in node.args)):
                    return ("unknown", where, always, self.mod.text_of(node))
            return None
        g = self._callable_ref(node, cs)
        if g:
            return ("alias", where, always, _original(g))
        if attr in cs.methods and isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Lambda)):
            return ("unknown", where, always, self.mod.text_of(node))
        return None

    def _callable_ref(self, node: ast.AST, cs: ClassSummary) -> str | None:
        """A function or method `node` names, without recording events: "self.<name>" for a method of
        `self` (a method's name in the class body too), else the function's qualified name."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                self.lookup(node.value.id).kind == V.SELF:
            return f"self.{node.attr}"
        if isinstance(node, ast.Name):
            lv = self.lookup(node.id)
            if lv.kind in (V.LOCALFN, V.REF) and lv.q and not lv.q.startswith(("builtins.", "torch.")):
                return f"self.{node.id}" if cs.methods.get(node.id) == lv.q else lv.q
            return None
        q = self.resolve_dotted_node(node) if isinstance(node, ast.Attribute) else None
        return q if q and not q.startswith(("builtins.", "torch.")) else None

    def _effect(self, obj: ast.AST) -> None:
        """Record the current statement as a side effect when it changes `obj` (an attribute or item of
        it, a method that mutates it) and `obj` is not an object the function made: a parameter
        (`self`), a global, or something reached from one (summary.FunctionSummary.effects)."""
        if self.fs is None or self.stmt is None:
            return
        base = obj
        while isinstance(base, (ast.Attribute, ast.Subscript)):
            base = base.value
        if not isinstance(base, ast.Name) or (base.id in self.local_names and base.id not in self.fs.params):
            return
        span = self.mod.span(self.stmt)
        if not self.fs.effects or self.fs.effects[-1][0] != span:
            self.fs.effects.append((span, self.mod.text_of(self.stmt).split("\n", 1)[0].strip()))

    def _made_elsewhere(self, node: ast.AST, v: Val) -> tuple[str, str | None] | None:
        """(target, attr) of an `outside_ctx` edge when the object a `with` enters was made before the
        compiled code ran: `self.<attr>` (the class, the attribute), a module-level instance (its class,
        None) or a parameter (its name, "@param"); None for anything made in the function."""
        if isinstance(node, ast.Attribute) and v.kind == V.SELFATTR and v.q:
            return v.q, v.attr
        if isinstance(node, ast.Name) and not self.module_level:
            if node.id in self.params:
                return node.id, "@param"
            local = node.id in self.env or node.id in self.local_names
            if not local and v.kind == V.INSTANCE and v.q and v.attr is None and \
                    not v.q.startswith(("torch.", "builtins.", "logging.", "threading.", "contextlib.")):
                return v.q, None
        return None

    def _enter_value(self, v: Val) -> Val:
        return U


def _module_itself(node: ast.AST | None) -> ast.AST | None:
    """The module `node` holds through the nn.Module methods that return it (`build().to(device).float()`)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr in V.MODULE_SELF_METHODS:
        node = node.func.value
    return node


def _original(ref: str) -> tuple[str, str]:
    """("method", name) for "self.<name>", else ("function", qualname)."""
    return ("method", ref[5:]) if ref.startswith("self.") else ("function", ref)

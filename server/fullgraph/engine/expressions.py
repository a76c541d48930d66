"""What an expression is while Dynamo traces it (a mixin of FunctionAnalyzer, engine/analyzer.py):
`value()` evaluates an expression to an abstract value (engine/values.py), dispatching the rule events
of what it contains (calls, subscripts, conditions) on the way; `cond()` evaluates one Python converts
with bool()."""
from __future__ import annotations

import ast

from . import values as V
from .conditions_recorded import negated
from .nodes import children, walk
from .values import U, Val


class ExpressionsMixin:
    """Needs the FunctionAnalyzer's scope (lookup, assign, env), its summary and its events."""

    def cond(self, node: ast.AST) -> Val:
        """Evaluate an expression Python converts with bool() (if/while tests, `not`, and/or)."""
        if isinstance(node, ast.BoolOp):
            return self._boolop(node, as_cond=True)  # its operands are converted one by one
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return self.value(node)
        v = self.value(node)
        self.hook("condition", node, v)
        return v

    def _boolop(self, node: ast.BoolOp, as_cond: bool) -> Val:
        """`a and b`: every operand but the last is converted with bool(); the last is the value, and
        converted too when the whole expression is a condition (`if a and b:`)."""
        out = []
        want = "F" if isinstance(node.op, ast.And) else "T"
        saved = self.dead_if
        last = node.values[-1]
        # `not is_tracing(t) and <tensor test>`: a call of the project's may be a compile check the
        # analysis cannot read; then the last operand is left alone (no guessing)
        as_cond = as_cond and not any(self._maybe_guard(v) for v in node.values[:-1])
        saved_conds = self.conds
        for operand in node.values:
            out.append(self.cond(operand) if as_cond or operand is not last else self.value(operand))
            tr, atoms = self.truth(operand)
            if tr == want:
                if not atoms:
                    break
                self.dead_if = self._with_dead(atoms)
            # `x.dtype == torch.float16 and torch.isinf(x).any()`: the next operand runs only when this
            # one lets it (a condition, as for an `if`)
            a = self._atom(operand)
            if a is not None and out[-1].kind not in (V.TENSOR, V.DDSCALAR):
                self.conds = self.conds + ((a,) if want == "F" else (negated(a),))
        self.dead_if, self.conds = saved, saved_conds
        if any(x.kind == V.GUARD for x in out):
            return U
        if as_cond:  # `flag and not torch.isfinite(loss)`: the outcome depends on tensor data
            data = next((x for x in out if x.kind in (V.TENSOR, V.DDSCALAR)), None)
            if data is not None:
                return data
        return out[-1] if out and all(x.kind == out[0].kind for x in out) else U

    def _maybe_guard(self, node: ast.AST) -> bool:
        while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            node = node.operand
        if not isinstance(node, ast.Call):
            return False
        q = self.resolve_dotted_node(node.func)
        return q is None or not q.startswith(("torch.", "builtins."))

    def value(self, node: ast.AST | None) -> Val:
        if node is None:
            return U
        t = type(node)
        if t is ast.Name:
            return self.lookup(node.id)
        if t is ast.Constant:
            return V.CONST_V
        if t is ast.Call:
            return self.call(node)
        if t is ast.Attribute:
            base = self.value(node.value)
            if base.kind == V.TENSOR and base.attr == "sparse" and node.attr not in V.TENSOR_ATTRS:
                self.hook("sparse_use", node, base)  # `adj.shape`: reading the sparse tensor
            if base.kind == V.SELF and base.q and self._is_property(base.q, node.attr):
                self.edge("method", base.q, node.attr, node)  # `x * self.norm`: its getter runs
            return self._attr(base, node.attr)
        if t is ast.Compare:
            vals = [self.value(node.left)] + [self.value(c) for c in node.comparators]
            if V.POINTER_V in vals:
                self.hook("pointer_use", node, V.POINTER_V)
                return U
            if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                v = U
            elif any(x.kind == V.TENSOR for x in vals):
                v = V.BOOL_TENSOR_V
            elif any(x.kind == V.DDSCALAR for x in vals):
                v = V.DDSCALAR_V
            elif all(x.kind in (V.STATIC, V.CONST) for x in vals):
                v = V.STATIC_V
            else:
                v = U
            return v
        if t is ast.BoolOp:
            return self._boolop(node, as_cond=False)
        if t is ast.UnaryOp:
            if isinstance(node.op, ast.Not):
                inner = self.cond(node.operand)
                if inner.kind == V.GUARD:
                    return Val(V.GUARD, atoms=inner.atoms, negated=not inner.negated)
                return V.DDSCALAR_V if inner.kind in (V.DDSCALAR, V.TENSOR) else U  # a bool from tensor data
            inner = self.value(node.operand)
            if inner.kind in (V.TENSOR, V.DDSCALAR, V.STATIC, V.CONST):
                return inner if inner.kind != V.CONST else V.CONST_V
            return U
        if t is ast.BinOp:
            left = self.value(node.left)
            right = self.value(node.right)
            if isinstance(node.op, ast.Mod) and isinstance(node.left, (ast.Constant, ast.JoinedStr)) and \
                    isinstance(getattr(node.left, "value", None), str):
                self.hook("percent_format", node, right)
                return U
            if V.POINTER_V in (left, right):
                self.hook("pointer_use", node, V.POINTER_V)  # `t.data_ptr() % 16`: needs real memory
                return U
            if isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and left == right == V.BOOL_TENSOR_V:
                return V.BOOL_TENSOR_V  # `(t >= 0) & (t < n)`: still a mask
            for side in (left, right):
                if side.kind == V.TENSOR and side.attr == "sparse":
                    self.hook("sparse_use", node, side)
                    return V.SPARSE_V
            return self._binop(left, right)
        if t is ast.IfExp:
            tr, atoms = self.truth(node.test)
            test_val = self.cond(node.test)
            saved, saved_conds = self.dead_if, self.conds
            # what each branch holds under when a call decides it (a parameter, an attribute of self: `mask if
            # mask is not None else ...`); a test on anything else (`if index.numel() > 0`, tensor data) is no
            # condition of a branch this small, as before
            body_conds, else_conds = ((), ()) if test_val.kind in (V.TENSOR, V.DDSCALAR) else \
                self._branch_conds(node.test)
            body_conds = tuple(a for a in body_conds if a[0] in ("param", "self"))
            else_conds = tuple(a for a in else_conds if a[0] in ("param", "self"))
            vb = vo = U
            if not (tr == "F" and not atoms):
                self.dead_if = self._with_dead(atoms) if tr == "F" else saved
                self.conds = saved_conds + body_conds
                vb = self.value(node.body)
            self.dead_if, self.conds = saved, saved_conds
            if not (tr == "T" and not atoms):
                self.dead_if = self._with_dead(atoms) if tr == "T" else saved
                self.conds = saved_conds + else_conds
                vo = self.value(node.orelse)
            self.dead_if, self.conds = saved, saved_conds
            if tr == "T" and not atoms:
                return vb
            if tr == "F" and not atoms:
                return vo
            if vb != vo and _made_instance(vb) and _made_instance(vo):
                # `Routed() if sparse else Dense()`: an instance of one of them (a module chosen by an if/else);
                # each branch's value kept for the attribute it is stored in (engine/attr_choices.py)
                self._ifexp_vals[id(node)] = (vb, vo)
                return Val(V.INSTANCE, "|".join(sorted(set(vb.q.split("|")) | set(vo.q.split("|")))), attr="choice")
            if vb != vo and _class_ref(vb) and _class_ref(vo):
                # `Attn = ProbAttention if attn == "prob" else FullAttention`: either class (calling it makes an
                # instance of one of them, as a module chosen by an if/else)
                return Val(V.CLASSES, "|".join(sorted({vb.q, vo.q})), attr="item")
            return vb if vb == vo else U
        if t is ast.Subscript:
            base = self.value(node.value)
            idx = self.value(node.slice)
            if isinstance(node.slice, ast.Tuple) and V.BOOL_TENSOR_V in self.tuple_vals[:len(node.slice.elts)]:
                idx = V.BOOL_TENSOR_V  # `x[:, mask]`: a mask among the indices
            if base.kind == V.TENSOR:
                if base.attr == "sparse":
                    self.hook("sparse_use", node, base)
                self.hook("subscript", node, idx)
                return V.BOOL_TENSOR_V if base.attr == "bool" and idx.kind != V.TENSOR else V.TENSOR_V
            if base.kind == V.TUPLE and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
                return V.tuple_item(base, node.slice.value)
            if base.kind == V.INSTANCE and base.attr == "factory" and isinstance(node.slice, ast.Constant) and \
                    type(node.slice.value) is int and node.slice.value >= 0:
                return Val(V.INSTANCE, base.q, attr=f"factory[{node.slice.value}]")  # `helper(x)[0]`
            if base.kind == V.STATIC:
                return V.STATIC_V
            if base.kind == V.DDSCALAR:
                return V.DDSCALAR_V
            if base.kind == V.CLASSES and base.attr is None:
                if isinstance(node.slice, ast.Constant) and base.atoms:  # `model_dict["informer"]`: that class
                    hit = [q for k, q in base.atoms if k == node.slice.value]
                    return V.ref(hit[0]) if hit else U
                return Val(V.CLASSES, base.q, attr="item")  # `model_dict[args.model]`: any of its classes
            if base.kind == V.SELFATTR:
                if isinstance(node.slice, ast.Slice):
                    return base  # self.layers[:n]: still the container; iterating it gives its modules
                return Val(V.ITEMOF, base.q, base.attr)
            return U
        if t is ast.JoinedStr:
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    self.value(part.value)
                    if part.format_spec is not None:
                        self.value(part.format_spec)
            return Val(V.FSTRING)
        if t is ast.FormattedValue:
            self.value(node.value)
            return U
        if t in (ast.List, ast.Tuple, ast.Set):
            vals = [self.value(e.value if isinstance(e, ast.Starred) else e) for e in node.elts]
            if t is not ast.Set:  # the items' values, for `return model, criterion` and a factory's sizes
                self.tuple_vals = vals  # (`torch.zeros((n, m))`): the outermost sequence last
            if vals and all(x.kind == V.INSTANCE and x.attr != "container" for x in vals):
                return Val(V.INSTANCE, "|".join(sorted({x.q for x in vals})), attr="list")
            return U
        if t is ast.Dict:
            vals = []
            for k, val in zip(node.keys, node.values):
                if k is not None:
                    self.value(k)
                vals.append(self.value(val))
            if vals and all(x.kind == V.INSTANCE and x.attr != "container" for x in vals):
                return Val(V.INSTANCE, "|".join(sorted({x.q for x in vals})), attr="list")
            if vals and all(_class_ref(x) for x in vals):  # {"informer": Informer, ...}: a table of classes
                keyed = all(isinstance(k, ast.Constant) for k in node.keys)
                return Val(V.CLASSES, "|".join(sorted({x.q for x in vals})),
                           atoms=frozenset({k.value: x.q for k, x in zip(node.keys, vals)}.items()) if keyed else
                           frozenset())
            return U
        if t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            return self._comprehension(node)
        if t is ast.Lambda:
            self._lambda_count += 1
            qual = f"{self.qualname}.<lambda:{node.lineno}:{node.col_offset}>"
            self.mod._pending.append((node, qual, None, self))
            # a lambda made in traced code is (almost always) called by it: map, sorted, cond, ...
            self.edge("call", qual, None, node)
            return Val(V.LOCALFN, qual)
        if t is ast.NamedExpr:
            v = self.value(node.value)
            self.assign(node.target, v, node.value)
            return v
        if t is ast.Starred:
            return self.value(node.value)
        if t is ast.Await:
            self.value(node.value)
            self.hook("await", node, U)
            return U
        if t in (ast.Yield, ast.YieldFrom):
            self.value(node.value)
            return U
        if t is ast.Slice:
            vals = [self.value(x) for x in (node.lower, node.upper, node.step) if x is not None]
            return V.STATIC_V if all(x.kind in (V.STATIC, V.CONST) for x in vals) else U
        for child in children(node):
            if isinstance(child, ast.expr):
                self.value(child)
        return U

    def _comprehension(self, node) -> Val:
        if self.fs is not None and not isinstance(node, ast.GeneratorExp) and _iterates_sequence(node):
            bound = {n.id for g in node.generators for n in walk(g.target) if isinstance(n, ast.Name)}
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            parts += [c for g in node.generators for c in g.ifs] + [g.iter for g in node.generators[1:]]
            read = frozenset(n.id for p in parts for n in walk(p)
                             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound)
            self.fs.comprehensions.append((self.mod.span(node), read))
        saved_env = dict(self.env)
        elem_vals: list[Val] = []
        for gen in node.generators:
            it = self.value(gen.iter)
            wrapper = self.resolve_dotted_node(gen.iter.func) if isinstance(gen.iter, ast.Call) else None
            self.assign_loop_target(gen.target, gen.iter, it, wrapper)
            for cond in gen.ifs:
                self.cond(cond)
        if isinstance(node, ast.DictComp):
            self.value(node.key)
            elem_vals.append(self.value(node.value))
        else:
            elem_vals.append(self.value(node.elt))
        self.env = saved_env
        if self.literal_items:  # the comprehension's names are its own
            for gen in node.generators:
                if isinstance(gen.target, ast.Name):
                    self.literal_items.pop(gen.target.id, None)
        if isinstance(node, ast.GeneratorExp):  # (the class of the modules it makes, for `nn.ModuleList(B() for ...)`)
            made = elem_vals and elem_vals[0].kind == V.INSTANCE and elem_vals[0].attr is None
            if elem_vals and elem_vals[0].kind == V.TENSOR:
                return Val(V.ITERATOR, attr="tensor")  # (what `sum(p.sum() for p in parts)` adds up: tensors)
            return Val(V.ITERATOR, elem_vals[0].q) if made else Val(V.ITERATOR)
        if elem_vals and elem_vals[0].kind == V.INSTANCE and elem_vals[0].attr != "container":
            return Val(V.INSTANCE, elem_vals[0].q, attr="list")
        return U

    def _binop(self, left: Val, right: Val) -> Val:
        kinds = (left.kind, right.kind)
        if V.TENSOR in kinds:
            if V.NUMPY_STATIC_V in (left, right) and all(k in (V.STATIC, V.CONST) or v == V.NUMPY_STATIC_V
                                                       for k, v in zip(kinds, (left, right))):
                return V.NUMPY_STATIC_V  # (`np.prod(x.shape[1:]) * 2`)
            return Val(V.TENSOR, float_dtype=left.float_dtype or right.float_dtype)
        if V.DDSCALAR in kinds:
            return V.DDSCALAR_V
        if all(k in (V.STATIC, V.CONST) for k in kinds):
            return V.STATIC_V
        return U

    def _is_property(self, class_q: str, attr: str) -> bool:
        """Is `attr` a @property getter of the class `class_q` itself (read through `self.<attr>`, it runs)?  (One of
        a base class is not seen here: the analysis of a statement reads its own class only, which an edit of the
        class analyses again; engine/incremental.py.)"""
        cs = self.mod.summary.classes.get(class_q)
        return cs is not None and attr in cs.properties

    def _attr(self, base: Val, attr: str) -> Val:
        k = base.kind
        if k == V.REF and base.q:
            return V.ref(V.canonical(f"{base.q}.{attr}"))
        if k == V.SELF:
            cs = self.mod.summary.classes.get(base.q or "")
            if cs is not None and attr in cs.tensor_attrs and \
                    all(t in V.PARAMETER_CLASSES for t in cs.attrs.get(attr, ())):
                return V.TENSOR_V  # assigned a tensor in this class (`self.scale = nn.Parameter(...)`)
            return Val(V.SELFATTR, base.q, attr)
        if k == V.TENSOR:
            if attr in V.TENSOR_STATIC_ATTRS:
                return V.STATIC_V
            if attr in V.TENSOR_ATTRS:
                return Val(V.TENSOR, float_dtype=base.float_dtype)
            return U
        if k == V.STATIC:
            return V.STATIC_V
        if k == V.INSTANCE and base.q and base.attr is None and \
                not base.q.startswith(("torch.", "builtins.", "logging.")):
            return Val(V.INSTANCE, base.q, attr="method:" + attr)  # `obj.method` (bound): a root's target
        return U

    def _element_of(self, it: Val, node: ast.AST) -> Val:
        if it.kind == V.SELFATTR:
            return Val(V.ITEMOF, it.q, it.attr)
        if it.kind == V.TENSOR:
            return Val(V.TENSOR, float_dtype=it.float_dtype)  # a row keeps the dtype
        if it.kind == V.INSTANCE and it.attr == "list":
            return V.PARAM_TENSOR_V if it.q == V.TENSOR_CLASS else Val(V.INSTANCE, it.q)
        if it.kind == V.STATIC:
            return V.STATIC_V
        return U

    def _container_of(self, node: ast.AST) -> Val:
        """The value of `name`, `self.attr` or a slice of one, read without recording anything (the
        expression was already evaluated as part of an enclosing call)."""
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            return self._container_of(node.value)
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            base = self.lookup(node.value.id)
            if base.kind == V.SELF:
                return Val(V.SELFATTR, base.q, node.attr)
        return U

def _iterates_sequence(node) -> bool:
    """Does the comprehension's first `for` take its items from a list or mapping iterator (which
    Dynamo cannot step when the comprehension is a frame of its own), not `range()` or a literal?"""
    it = node.generators[0].iter
    if isinstance(it, (ast.Tuple, ast.Constant, ast.JoinedStr)):
        return False
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("range", "enumerate", "zip"):
        return False  # range iterators are stepped; enumerate/zip objects: not verified, not assumed
    return True


def _made_instance(v: Val) -> bool:
    """An instance of a class (or of one of a choice of classes), as an if/else statement's branches merge them
    (FunctionAnalyzer._join_module_choice)."""
    return v.kind == V.INSTANCE and bool(v.q) and v.attr in (None, "choice")


def _class_ref(v: Val) -> bool:
    """A reference to a class, as far as the module tells: a PEP 8 class name (the project checks it is one)."""
    return v.kind == V.REF and bool(v.q) and not v.q.startswith("builtins.") and v.q.rsplit(".", 1)[-1][:1].isupper()

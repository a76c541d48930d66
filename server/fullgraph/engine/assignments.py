"""Assignments in the walked body: names bound, `self.<attr>` recorded for the class, the state a
function changes outside itself, and objects made before the compiled code ran (a mixin of
FunctionAnalyzer, engine/analyzer.py)."""
from __future__ import annotations

import ast

from . import values as V
from .summary import add_elements, set_value
from .values import U, Val


class AssignmentsMixin:
    def assign(self, target: ast.AST, v: Val, value_node: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            if v.kind == V.GUARD and self.module_level:
                v = U  # a module constant computed at import time is not a guard (case guard_module_constant)
            self.bind(target.id, v)
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
        elif isinstance(value_node, ast.Attribute) and isinstance(value_node.value, ast.Name) and in_init and \
                value_node.value.id in fs.params and self._param_untouched(value_node.value.id):
            # `self.layerdrop = config.encoder_layerdrop`: a field of what the constructions pass
            value = ("init_field", value_node.value.id, value_node.attr)
        elif v.kind == V.INSTANCE and v.q and v.attr is None:
            value = ("object",)
        else:
            value = ("unknown",)
        set_value(cs.values, attr, value)
        if in_init:
            set_value(cs.init_values, attr, value)
        if v.kind == V.INSTANCE and v.q:
            if v.attr in ("container", "list"):
                add_elements(cs, attr, v.q.split("|"))
            else:  # one class, or a choice among several ("A|B")
                cs.attrs[attr] = tuple(sorted(set(cs.attrs.get(attr, ())) | set(v.q.split("|"))))
        elif v.kind in (V.LOCALFN, V.REF) and v.q:
            cs.attrs.setdefault(attr, ())

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

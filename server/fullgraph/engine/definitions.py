"""A `def` or `class` statement in the walked body: the function's decorations (compiled, disabled,
opaque, wrapped), the class's bases, methods and attributes (a mixin of FunctionAnalyzer,
engine/analyzer.py)."""
from __future__ import annotations

import ast

from ..positions import Span
from . import values as V
from .calls import disable_mode
from .summary import ClassSummary, RootDecl, add_replacement, set_value
from .values import Val

# Decorators that never wrap a function in Python code Dynamo would trace (or that fullgraph
# models otherwise): the standard library's and torch's own.
NOT_WRAPPERS = ("builtins.", "functools.", "typing.", "abc.", "dataclasses.", "contextlib.", "torch.",
                "enum.", "atexit.", "unittest.", "pytest.")

_NOT_LITERAL = object()


def _literal(node: ast.expr):
    """The value of a literal of constants that can be compared and hashed (a tuple, a negative number), else
    _NOT_LITERAL."""
    try:
        v = ast.literal_eval(node)
        hash(v)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL
    return v


class DefinitionsMixin:
    def _def(self, s: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.cls is not None and self.node is not None and isinstance(self.node, ast.ClassDef):
            qual = f"{self.qualname}.{s.name}"
        elif self.module_level:
            qual = f"{self.qualname}.{s.name}"
        else:
            qual = f"{self.qualname}.<locals>.{s.name}"
        deco_vals = [(d, self.value(d)) for d in s.decorator_list]
        val = Val(V.LOCALFN, qual) if not self.module_level else Val(V.REF, qual)
        compiled = None
        is_compiled = False
        disabled = None
        opaque = None
        wrapped_by: list[tuple[str, bool, Span]] = []
        for d, dv in deco_vals:
            q = self._decorator_q(d)
            if (dv.kind == V.COMPILED and dv.attr == "decorator") or (dv.kind == V.REF and dv.q == V.COMPILE):
                is_compiled = True
                compiled = (dv.q == "True" if dv.q in ("True", "False") else None) if dv.kind == V.COMPILED else False
                self.mod.summary.roots.append(RootDecl(
                    kind="function", target=qual, attr=None, fullgraph=compiled,
                    label="@" + self.mod.text_of(d), span=self.mod.span(d)))
            elif q in V.DISABLE or (isinstance(d, ast.Call) and self._decorator_q(d) in V.DISABLE):
                disabled = disable_mode(d)
            elif q in V.NONSTRICT_TRACE:
                opaque = "nonstrict_trace"
            elif q in V.CUSTOM_OP or (isinstance(d, ast.Call) and q in V.CUSTOM_OP):
                opaque = "custom_op"
            elif q in V.TRITON_OP:
                opaque = "triton_op"
            elif q in V.ALLOW_IN_GRAPH:
                opaque = "allow_in_graph"
            elif q and not q.startswith(NOT_WRAPPERS) and dv.kind != V.LOCALFN:
                # maybe a decorator that replaces the function by a wrapper (the project decides)
                wrapped_by.append((q, isinstance(d, ast.Call), self.mod.span(d)))
        if opaque:
            val = Val(V.OPAQUE, qual)
        self.bind(s.name, val)
        # class bodies: methods are resolved through the class, not the environment
        self.mod._pending.append((s, qual, self.cls if isinstance(self.node, ast.ClassDef) else None,
                                  None if self.module_level or isinstance(self.node, ast.ClassDef) else self))
        self.mod.decorations[qual] = (compiled, is_compiled, disabled, opaque, wrapped_by)

    def _class(self, s: ast.ClassDef) -> None:
        if not (self.module_level or isinstance(self.node, ast.ClassDef)):
            qual = f"{self.qualname}.<locals>.{s.name}"
        else:
            qual = f"{self.qualname}.{s.name}"
        decorators = []
        for d in s.decorator_list:
            self.value(d)
            dq = self._decorator_q(d)
            if dq and not dq.startswith(("builtins.", "dataclasses.", "functools.", "typing.", "torch.", "abc.")):
                decorators.append((dq, isinstance(d, ast.Call)))
        bases = []
        for b in s.bases:
            self.value(b)
            q = self.resolve_dotted_node(b)
            bases.append(V.canonical(q) if q else "")
        line = self.mod.lines.line(s.lineno - 1)
        col = line.find(s.name, line.find("class") + 5 if "class" in line else 0)
        cs = ClassSummary(qualname=qual, name=s.name, span=self.mod.span(s),
                          name_span=Span.of(s.lineno - 1, max(col, 0), s.lineno - 1, max(col, 0) + len(s.name)),
                          bases=bases)
        cs.decorators = decorators
        self.mod.summary.classes[qual] = cs
        if self.mod._written_classes is not None:
            self.mod._written_classes.append(qual)
        self.bind(s.name, Val(V.REF, qual))
        body_an = type(self)(self.mod, self, s, qualname=qual, cls=qual)  # a FunctionAnalyzer
        for st in s.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") for d in st.decorator_list):
                    continue  # a property's setter: runs on assignment, and would shadow the getter
                cs.methods[st.name] = f"{qual}.{st.name}"
                if any(body_an._decorator_q(d) in ("builtins.property", "functools.cached_property")
                       for d in st.decorator_list):
                    cs.properties.add(st.name)
                body_an._def(st)
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                if isinstance(st.value, ast.Constant):  # a dataclass field's default: `debug: bool = True`
                    set_value(cs.values, st.target.id, ("const", st.value.value))
                elif st.value is not None and (lit := _literal(st.value)) is not _NOT_LITERAL:
                    # `conv_dim: tuple[int, ...] = (512, 512)`, `eps: float = -1.0`: a field the class declares,
                    # which a construction may pass by keyword (Arrivals._fields_passed)
                    set_value(cs.values, st.target.id, ("const", lit))
                q = body_an.resolve_dotted_node(st.annotation)
                if q and not q.startswith(("builtins.", "typing.")):
                    cs.attrs.setdefault(st.target.id, (q,))
            elif isinstance(st, ast.Assign) and isinstance(st.value, ast.Dict) and st.value.values:
                fns = [body_an.resolve_dotted_node(v) for v in st.value.values]
                if all(fns):
                    for tg in st.targets:
                        if isinstance(tg, ast.Name):
                            cs.registries[tg.id] = tuple(dict.fromkeys(fns))
            elif isinstance(st, ast.Assign) and isinstance(st.value, ast.Constant):
                for tg in st.targets:
                    if isinstance(tg, ast.Name):
                        set_value(cs.values, tg.id, ("const", st.value.value))
            elif isinstance(st, ast.Assign):
                # class-level aliases such as `forward = _forward_impl`
                if isinstance(st.value, ast.Name) and st.value.id in cs.methods:
                    for tg in st.targets:
                        if isinstance(tg, ast.Name):
                            cs.methods[tg.id] = cs.methods[st.value.id]
                elif isinstance(st.value, ast.Call):
                    # `forward = timed(_forward)`: a wrapper of a method, made when the class body runs
                    rep = body_an.replacement(st.value, cs, "", True)
                    for tg in st.targets:
                        if isinstance(tg, ast.Name) and rep is not None:
                            add_replacement(cs, tg.id, rep)

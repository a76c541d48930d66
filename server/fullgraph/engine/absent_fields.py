"""A field a config class does not have: `getattr(self.config, "apply_spec_augment", True)` is its default.

transformers' `Data2VecAudioModel._mask_hidden_states` returns early unless `getattr(self.config,
"apply_spec_augment", True)`; `Data2VecAudioConfig` and its bases never define that field, so SpecAugment
runs (and breaks the graph).  The field is known absent from an instance of class K (the object every
construction passes for `config`, seen by the analysis) when:

- every base of every class in K's MRO is a class the project resolves (an unresolved base may define it);
- no class of the MRO defines it (class body, `self.<field> = ...` in a method, a method or property), nor
  defines `__getattr__`; a `__getattribute__` only renames the name before the ordinary lookup
  (`if key in <mapping>: key = <mapping>[key]` then `return super().__getattribute__(key)`, transformers'
  `attribute_map`);
- the name is no string literal in the modules of those classes (a mapping of names, a literal `setattr`),
  except as what a `getattr`/`hasattr` reads;
- no construction of K in the project passes it by keyword or passes `**kwargs` (transformers' config
  `__post_init__` sets every extra keyword with `setattr`);
- no module the analysis loaded nor file of the packages of those classes stores it (`.<field> =`,
  `.<field> += `, `setattr(x, "<field>", ...)`), and no loaded module names it as a string outside a
  `getattr`/`hasattr` read while it uses `setattr`, `__dict__` or `vars(`.

Anything else: not known (the test stays a condition).
"""
from __future__ import annotations

import ast
import re

from ..positions import first_line
from .globals_seen import stored_anywhere
from .nodes import walk


def field_absent(arr, class_q: str, field: str, near: str) -> bool:
    """Does an instance of `class_q`, as the project constructs it, lack `field` (memoised)?"""
    return arr.c.memoised("absent_fields", (class_q, field, near), lambda: _absent(arr, class_q, field, near), False)


_OBJECT = ("builtins.object", "object")


def _absent(arr, class_q: str, field: str, near: str) -> bool:
    if not field.isidentifier() or arr.source_of is None:
        return False
    c = arr.r.class_(class_q, near)
    if c is None:
        return False
    quoted = re.compile(r"""["']""" + re.escape(field) + r"""["']""")
    read = re.compile(r"""\b(?:getattr|hasattr)\([^,\n()]+,\s*["']""" + re.escape(field) + r"""["']""")
    classes = arr.r.mro(c[0].qualname, c[1].path)
    for cs, cmod in classes:
        if any(b not in _OBJECT and arr.r.class_(b, cmod.path) is None for b in cs.bases):
            return False
        if field in cs.values or field in cs.init_values or field in cs.methods or field in cs.properties or \
                field in cs.attrs or field in cs.containers or "__getattr__" in cs.methods:
            return False
        text = arr.source_of(cmod.path)
        if text is None or len(quoted.findall(text)) != len(read.findall(text)):
            return False
        node = class_node(ast.parse(text), cs)
        if node is None or defines(node, field):
            return False
        if "__getattribute__" in cs.methods and not _renames_only(node):
            return False
    for site in arr._constructions().get(c[0].qualname, ()):
        if any(k in (field, "**") for k, _ in site.kwargs):
            return False
    if stored_anywhere(arr, field, sorted({cmod.path for _, cmod in classes})):
        return False  # `.field = ...`, `setattr(x, "field", ...)`
    for mod in list(arr.c.modules.values()):
        path = getattr(mod, "path", None)
        text = arr.source_of(path) if path else None
        if text is None or field not in text:
            continue
        if len(quoted.findall(text)) != len(read.findall(text)) and \
                ("setattr(" in text or "__dict__" in text or "vars(" in text):
            return False
    return True


def class_node(tree: ast.Module, cs) -> ast.ClassDef | None:
    """The `class` statement of `cs` (by name, at its line)."""
    line = cs.span.start.line + 1
    for n in walk(tree):
        if isinstance(n, ast.ClassDef) and n.name == cs.name and \
                first_line(n) <= line <= n.lineno:
            return n
    return None


def defines(node: ast.ClassDef, field: str) -> bool:
    """The class body binds `field` (an assignment, an annotation, a definition)."""
    for s in node.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and s.name == field:
            return True
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if any(isinstance(n, ast.Name) and n.id == field for t in targets for n in walk(t)):
                return True
    return False


def _renames_only(node: ast.ClassDef) -> bool:
    """The class's `__getattribute__(self, key)` looks the name up as usual: it ends in `return
    super().__getattribute__(key)`, every `return` of it returns that, and `key` is only renamed through
    a mapping (`key = <mapping>[key]`, transformers' `attribute_map`); what it logs or raises on the way does
    not give the field a value."""
    fn = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__getattribute__"), None)
    if fn is None or len(fn.args.args) != 2 or fn.decorator_list or not fn.body or \
            not isinstance(fn.body[-1], ast.Return):
        return False
    key = fn.args.args[1].arg
    renames = set()  # the targets of `key = <mapping>[key]`
    for n in walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                n.targets[0].id == key and isinstance(n.value, ast.Subscript) and \
                isinstance(n.value.slice, ast.Name) and n.value.slice.id == key:
            renames.add(id(n.targets[0]))
    for n in walk(fn):
        if n is not fn and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                                          ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(n, ast.Return) and not _super_lookup(n.value, key):
            return False
        if isinstance(n, ast.Name) and n.id == key and not isinstance(n.ctx, ast.Load) and id(n) not in renames:
            return False
        if isinstance(n, ast.ExceptHandler) and n.name == key:
            return False
    return True


def _super_lookup(v: ast.AST | None, key: str) -> bool:
    """`super().__getattribute__(key)`."""
    return isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "__getattribute__" \
        and isinstance(v.func.value, ast.Call) and isinstance(v.func.value.func, ast.Name) and \
        v.func.value.func.id == "super" and not v.func.value.args and not v.keywords and \
        len(v.args) == 1 and isinstance(v.args[0], ast.Name) and v.args[0].id == key

"""Whether the program may change a field of the config objects it constructs before it builds its modules.

`NllbMoeEncoder.__init__` builds its layers from `config.encoder_layers` and `config.encoder_sparse_step`: what
the script's `NllbMoeConfig(encoder_layers=2, encoder_sparse_step=2)` passes, unless code stores another value in
the field first.  The stores that may do so, in the modules the analysis loaded (the script and the library
modules on the way, where the model's construction runs; Arrivals.field_value then does not read the field):

- in the user's code, `x.<field> = ...` (or `+=`, ...) on anything but the `self` of a method (`config.num_layers
  = 4` before `Model(config)`);
- in a followed library, the same inside an `__init__` or `__post_init__` (what runs while the model is built:
  `decoder_config.num_layers = config.num_decoder_layers`); a library's other functions run on a model that
  exists (transformers' generation utilities set `config.num_hidden_layers` for an early exit), after its layers
  are built;
- `self.<field> = ...` in a method of a class of the config's MRO other than the class whose class body gives the
  field its value (that class's own stores are in its summary: the field is then not a constant there);
- `setattr(x, "<field>", ...)`;

and the same for the names the classes' `attribute_map` (a literal dict) maps to the field (transformers'
`__setattr__` renames them).  An `attribute_map` that is no literal dict: any name may land in the field (stored).
`self.<field> = ...` in other classes (a module's own `self.num_layers`) does not touch a config object.
"""
from __future__ import annotations

import ast

from .absent_fields import class_node
from .globals_seen import parsed, store_patterns
from .nodes import children


def field_stored(arr, classes: list[tuple], owner: tuple, field: str) -> bool:
    """May the program store `field` of an object whose class's MRO is `classes` ((ClassSummary, ModuleSummary),
    of each class constructed), after its construction?  `owner`: the (ClassSummary, ModuleSummary) whose class
    body (or `__init__`) gives the field its value.  Memoised; True when a file cannot be read."""
    key = (field, tuple(sorted({(m.path, c.qualname) for c, m in classes})), owner[0].qualname)
    return arr.c.memoised("fields_stored", key, lambda: _stored(arr, classes, owner, field), True)


def _stored(arr, classes: list[tuple], owner: tuple, field: str) -> bool:
    names = {field}
    for cs, cmod in classes:
        text = arr.source_of(cmod.path) if arr.source_of is not None else None
        node = class_node(parsed(arr, cmod.path, text), cs) if text is not None else None
        if node is None:
            return True
        aliases = _aliases(node, field)
        if aliases is None:
            return True
        names |= aliases
    mine = {(cmod.path, cs.name) for cs, cmod in classes}
    own = (owner[1].path, owner[0].name)
    for name in sorted(names):
        store, by_name = store_patterns(name)
        for mod in list(arr.c.modules.values()):
            text = arr.source_of(mod.path) if getattr(mod, "path", None) else None
            if text is None or name not in text:
                continue
            if by_name.search(text):
                return True
            library = getattr(mod, "library", False)
            if store.search(text) and (not library or _in_building(mod, text, store, mine)) and \
                    _stores(parsed(arr, mod.path, text), name, mod.path, mine, own, library):
                return True
    return False


def _in_building(mod, text: str, store, mine: set) -> bool:
    """Is a match of `store` in a followed library's module inside a function where a store may count (an
    `__init__`/`__post_init__`, a method of a class of `mine`), by the spans of its summary's functions?  Else
    the module is not parsed again (transformers' modeling_utils.py stores config fields in its generation and
    loading helpers: parsing it again was a third of a second per check)."""
    lines = {text.count("\n", 0, m.start()) for m in store.finditer(text)}
    for fs in mod.functions.values():
        if fs.name in ("__init__", "__post_init__") or \
                (fs.class_qualname and (mod.path, fs.class_qualname.rpartition(".")[2]) in mine):
            a, b = fs.span.start.line, fs.span.end.line
            if any(a <= line <= b for line in lines):
                return True
    return False


def _aliases(node: ast.ClassDef, field: str) -> set[str] | None:
    """The keys of the class body's `attribute_map` that map to `field`; None when it is no literal dict."""
    out: set[str] = set()
    for s in node.body:
        targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []
        if not any(isinstance(t, ast.Name) and t.id == "attribute_map" for t in targets):
            continue
        if not isinstance(s.value, ast.Dict) or not all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Constant)
                for k, v in zip(s.value.keys, s.value.values)):
            return None
        out |= {k.value for k, v in zip(s.value.keys, s.value.values) if v.value == field}
    return out


def _stores(tree: ast.Module, name: str, path: str, mine: set, own: tuple, library: bool) -> bool:
    """Does the module store `.name` on an object that may be the config, where that may change the modules built
    (see the module's docstring)?"""
    def visit(node: ast.AST, cls: str | None, me: str | None, in_class: bool, building: bool) -> bool:
        if isinstance(node, ast.ClassDef):
            return any(visit(c, node.name, None, True, building) for c in children(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args
            if in_class:  # a method: its first parameter is the instance
                me = args[0].arg if args else None
            building = building or node.name in ("__init__", "__post_init__")
            return any(visit(c, cls, me, False, building) for c in children(node))
        if isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.ctx, ast.Store):
            on_self = me is not None and isinstance(node.value, ast.Name) and node.value.id == me
            if on_self and (path, cls) in mine and (path, cls) != own:
                return True  # (a method of the config's class)
            if not on_self and (building or not library):
                return True
        return any(visit(c, cls, me, in_class and not isinstance(node, ast.Lambda), building) for c in children(node))
    return visit(tree, None, None, False, False)

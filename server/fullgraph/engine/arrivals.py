"""What arrives at a function: the values its callers pass, what constructions give `__init__`, the
defaults of config fields, and which parameters hold tensors.

The walk from a compiled root (engine/walk.py) evaluates path conditions with these values
(engine/conditions_evaluated.py): a flag the user's call leaves at its default, a constructor argument every
construction passes as the same constant, a config field no construction sets.  A function that its
callers pass tensors is analysed again with those parameters read as tensors (`with_tensor_params`).
"""
from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

from . import conditions_evaluated as C
from . import consteval as E
from . import garbage
from . import values as V
from .absent_fields import field_absent
from .attrs_seen import seen_absent, seen_init_value
from .consteval import UNKNOWN
from .derived import element_count, element_values, init_value, iterates, test_values
from .tests_run import position as tests_position
from .tests_run import run_arg, run_reached, run_tests
from .fields_stored import field_stored
from .globals_seen import NOT_KNOWN, module_value
from .incremental import moved_function
from .module import ModuleAnalyzer
from .resolve import Resolver
from .summary import CallSite, ClassSummary, Edge, FunctionSummary, ModuleSummary
from .tensors_made import device_may_change, without_facts

if TYPE_CHECKING:  # pragma: no cover - types only: engine/roots.py and engine/walk.py import this module
    from .roots import RootRecord
    from .walk import Reached

_NO_VALUE = object()  # a config field without a default the analysis can rely on
_ABSENT = ("absent",)  # a keyword a call leaves out of the `**kwargs` it passes on (_kwarg_passed)
# what arrives at a parameter -> the tensor kind it is analysed as (values.tensor_kind)
_KINDS = {C.TENSOR: "tensor", C.Instance(V.MASK_CLASS): "mask", C.Instance(V.SPARSE_CLASS): "sparse"}
_CLASS_OF_KIND = {"tensor": V.TENSOR_CLASS, "mask": V.MASK_CLASS, "sparse": V.SPARSE_CLASS}
_STARS = ("**", ("star",))  # what a construction passes through *args/**kwargs (_passed_for)


def _combine(kinds: list) -> str | None:
    """One tensor kind for values that may be any of `kinds`: theirs when they agree, "tensor" when all are
    tensors of different kinds, None when one is not known to be a tensor."""
    if not kinds or not all(kinds):
        return None
    return kinds[0] if all(k == kinds[0] for k in kinds) else "tensor"


# library modules whose syntax trees Arrivals.tree keeps (a transformers model's check reads some forty)
TREES_KEPT = 64

class Arrivals:
    """Reads the project through its resolver (engine/resolve.py), and memoises in the contents'
    per-generation memo."""

    def __init__(self, resolver: Resolver):
        self.r = resolver
        self.c = resolver.c
        # path -> the text a module was analysed from (set by the workspace): functions are analysed
        # again with what their callers pass (with_tensor_params)
        self.source_of = None
        # (path, text) -> the syntax tree of that text, parsed once for all such analyses (set by the workspace)
        self.tree_of = None
        self.variants: dict[tuple, tuple] = {}
        self._bases: dict[str, tuple] = {}  # path -> (text hash, ModuleAnalyzer): see _base_analysis
        self._trees: dict[str, tuple] = {}  # path -> (text, syntax tree or None): see tree
        # (name, packages) -> {path: text} of the packages' files that hold the name (globals_seen.texts_naming)
        self.package_texts: dict[tuple, dict[str, str]] = {}
        # (class, attribute, near) -> (what was read, its state, whether `hasattr` is False): attrs_seen's
        self.absence_kept: dict[tuple, tuple] = {}

    def callers_index(self):
        """Function qualname -> [(call site, module)] of calls passing arguments (memoised)."""
        memo = self.c.memo
        if "callers" not in memo:
            memo["callers"] = self._callers_index()
        return memo["callers"]

    def _callers_index(self):
        idx: dict[str, list[tuple]] = {}
        self.c.all_bodies()
        for mod in list(self.c.modules.values()):
            for cs in mod.call_sites:
                if not any(cs.args) and not any(k for _, k in cs.kwargs):
                    continue
                if cs.is_method_call:
                    cls, _, meth = cs.target.rpartition(".")
                    hit = self.r.find_method(cls, meth, mod.path)
                else:
                    hit = self.r.function(cs.target, mod.path)
                    if hit is None:
                        c = self.r.class_(cs.target, mod.path)
                        hit = self.r.module_call(c[0].qualname, mod.path)[0] if c and \
                            self.r.module_call(c[0].qualname, mod.path) else None
                if hit is not None:
                    idx.setdefault(hit[0].qualname, []).append((cs, mod))
        return idx

    def iterator_passed(self, fs: FunctionSummary, use, callers) -> str | None:
        for cs, mod in callers.get(fs.qualname, ()):
            kinds = []
            if use.index < len(cs.args):
                kinds.append(cs.args[use.index])
            kinds.extend(k for name, k in cs.kwargs if name == use.param)
            for k in kinds:
                if k == "iter" or (k.startswith("call:") and self.is_generator_fn(k[5:], mod.path)):
                    return f"{os.path.basename(mod.path)}:{cs.span.start.line + 1}"
        return None

    def is_generator_fn(self, q: str, near: str) -> bool:
        hit = self.r.function(q, near)
        return hit is not None and hit[0].is_generator

    def with_tensor_params(self, fs: FunctionSummary, mod: ModuleSummary, env: dict,
                           _depth: int = 0) -> FunctionSummary:
        """`fs` as analysed with the parameters its caller passes tensors to read as tensors (of their kind: a
        mask, a sparse tensor; an annotation that says a tensor, or nothing the analysis reads, gives way), and
        with what its calls return when the project can tell (_call_results): `def update(self, target, pred):
        k = (target >= 0) ...` called with tensors has the breaks of tensor code.  The module is analysed again for that function
        (memoised by function and parameters): that function only, on one analysis of the module's top
        level per text (_base_analysis); without its text, `fs` as it is.  The memo holds for the analysis
        that made `fs` (its `origin`, else `fs` itself): a new text's analysis makes new summaries, except
        for the functions an editor buffer's re-analysis took unchanged from the last, or moved down with
        the lines above them (engine/incremental.py: same statement, same module names, same class), whose
        variants are then the same, moved as far."""
        tensors = frozenset((p, _KINDS[got]) for p in fs.params
                            if isinstance(got := env.get(p, (None,))[0], C.Instance) and got in _KINDS)
        if self.source_of is None:
            return fs
        v = self._variant(fs, mod, tensors, frozenset())
        results: frozenset = frozenset()
        for _ in range(3):  # what a call returns may make the next call's arguments tensors
            got = self._call_results(v, mod, env, _depth)
            if got == results:
                break
            results = got
            v = self._variant(fs, mod, tensors, results)
        return v

    def _variant(self, fs: FunctionSummary, mod: ModuleSummary, tensors: frozenset, results: frozenset):
        if not tensors and not results:
            return fs
        key = (mod.path, fs.qualname, tensors, results)
        made_by = fs if fs.origin is None else fs.origin
        hit = self.variants.get(key)
        if hit is not None and hit[0] is made_by:
            if hit[2] is hit[1]:  # the parameters' tensors change nothing in it: `fs` itself, wherever it is now
                if hit[1] is not fs:
                    self.variants[key] = (made_by, fs, fs)
                return fs
            if hit[1].span == fs.span:
                return hit[2]
            moved = moved_function(hit[2], fs.span.start.line - hit[1].span.start.line)
            # (the variant it moved: freed with this generation's memo, once the results are out)
            self.c.memo.setdefault("moved_variants", []).append(hit)
            self.variants[key] = (made_by, fs, moved)
            return moved
        base = self._base_analysis(mod)
        variant = (base.variant(fs.qualname, tensors, mod.classes, results) if base is not None else None) or fs
        if variant == fs:
            # (two thirds of the functions of bench/lsp_latency.py's model: kept as `fs`, nothing of it to move
            # when an Enter above moves `fs`)
            variant = fs
        if len(self.variants) > 4096:
            self.variants.clear()
        self.variants[key] = (made_by, fs, variant)
        return variant

    def _call_results(self, fs: FunctionSummary, mod: ModuleSummary, env: dict, depth: int) -> frozenset:
        """What the calls of `fs` to functions of the project return, when it is a tensor (of a kind,
        values.tensor_kind) or a tuple holding some: ((call position), kind or (kind | None, ...)) pairs, each
        callee analysed with what the call passes it (with_tensor_params: `edge_index =
        remove_self_loops(edge_index)`, `mask = keep(x)`); a chain of calls is followed three deep."""
        if depth >= 3:
            return frozenset()
        out = []
        busy = self.c.memo.setdefault("results_busy", set())
        for e in fs.edges:
            if e.kind != "call":
                continue
            targets = self.r.resolve_edge(e, mod)
            if len(targets) != 1:
                continue
            tfs, tmod = targets[0]
            if tfs.is_generator or tfs.is_async or not tfs.returns_shapes or tfs.qualname in busy:
                continue
            cenv = C.callee_env(self.resolve_fields(e.vals, mod.path), env, tfs.params, tfs.is_method, tfs.defaults)
            busy.add(tfs.qualname)
            try:
                tv = self.with_tensor_params(tfs, tmod, cenv, depth + 1)
            finally:
                busy.discard(tfs.qualname)
            shape = self._returned(tv, tmod)
            if shape is not None:
                sp = e.span
                out.append(((sp.start.line, sp.start.col, sp.end.line, sp.end.col), shape))
        return frozenset(out)

    def _returned(self, fs: FunctionSummary, mod: ModuleSummary):
        """The tensor kind every `return` of `fs` agrees on, or for tuples of one length the kind of each item
        (None where not known); None when nothing is known."""
        shapes = fs.returns_shapes
        if not shapes:
            return None

        def kind(d):
            return self.return_kind(d[4:], mod.path) if d and d.startswith("ret:") else d

        if all(isinstance(s, tuple) for s in shapes) and len({len(s) for s in shapes}) == 1:
            items = tuple(_combine([kind(s[i]) for s in shapes]) for i in range(len(shapes[0])))
            return items if any(items) else None
        if any(isinstance(s, tuple) for s in shapes):
            return None
        return _combine([kind(s) for s in shapes])

    def tree(self, path: str, text: str) -> ast.Module | None:
        """The syntax tree of `text` (the module at `path`), parsed once for the readers of library sources
        (attrs_seen, fields_stored, derived): a followed library's while its text stays the same, across
        generations (an edit of the user's script does not change transformers' files; the last TREES_KEPT), any
        other module's for the generation.  The workspace keeps only the last few: a check of a transformers model
        read transformers' configuration_utils.py's 23 times (a third of the check).  None when it does not parse."""
        mod = self.c.modules.get(path)
        if not getattr(mod, "library", False):  # (a buffer's tree: the next edit's reparse moves its statements in
            trees = self.c.memo.setdefault("trees", {})  # place, so it is kept for this generation only)
            got = trees.get(path)
            if got is None or got[0] != text:
                got = trees[path] = (text, self._parse(path, text))
            return got[1]
        trees = self._trees
        got = trees.pop(path, None)
        if got is None or got[0] != text:
            got = (text, self._parse(path, text))
        trees[path] = got  # (last: the least recently read go first)
        while len(trees) > TREES_KEPT:
            trees.pop(next(iter(trees)))
        return got[1]

    def _parse(self, path: str, text: str) -> ast.Module | None:
        tree = self.tree_of(path, text) if self.tree_of is not None else None
        if tree is None:
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
        return tree

    def forget_base(self, path: str) -> None:
        self._bases.pop(path, None)

    def set_base(self, path: str, text_hash: str, an) -> None:
        """An editor buffer's analysis left its top-level-only state (ModuleAnalyzer.base): the base of its
        functions' variants, for that text."""
        garbage.later(self._bases.pop(path, None))  # (its analysis: freed once the results are out)
        self._bases[path] = (text_hash, an)
        while len(self._bases) > 8:
            self._bases.pop(next(iter(self._bases)))

    def _base_analysis(self, mod: ModuleSummary):
        """The module analysed again from its text (the syntax tree the workspace keeps, when it does) for
        its functions' variants; the last few modules' are kept.  None without the text it was analysed from."""
        cached = self._bases.get(mod.path)
        if cached is not None and cached[0] == mod.text_hash:
            return cached[1]
        text = self.source_of(mod.path)
        if text is None:
            return None
        tree = self.tree_of(mod.path, text) if self.tree_of is not None else None
        an = ModuleAnalyzer(mod.path, text, mod.name, os.path.basename(mod.path) == "__init__.py",
                            recover=mod.syntax_error is not None, tree=tree, bodies=False, rules=self.r.rules,
                            library=getattr(mod, "library", False))
        if an.run().text_hash != mod.text_hash:
            return None
        self._bases.pop(mod.path, None)
        self._bases[mod.path] = (mod.text_hash, an)
        while len(self._bases) > 8:
            self._bases.pop(next(iter(self._bases)))
        return an

    def param_type(self, e: Edge, r: Reached) -> str | None:
        """The class of the parameter a param_call/param_method edge calls (what the caller passed)."""
        got = r.env.get(e.target)
        return got[0].q if got is not None and isinstance(got[0], C.Instance) else None

    def closure_env(self, fs: FunctionSummary) -> dict:
        """A compiled closure's free parameters: `def make_step(model, opt): def step(x): ...;
        return torch.compile(step)` -- what the calls of make_step pass, as "<make_step>:<name>"."""
        outer_q = fs.qualname.rpartition(".<locals>.")[0]
        if not outer_q:
            return {}
        hit = self.r.function(outer_q)
        if hit is None:
            return {}
        outer = hit[0]
        calls = self._calls_of(outer)
        if not calls:
            return {}
        env = C.entry_env(outer.defaults, calls, outer.params, outer.is_method, outer.positional, outer.annotated)
        return {f"{outer_q}:{name}": v for name, v in env.items() if name != C.TRAINING}

    def root_calls(self, root: RootRecord, fs: FunctionSummary) -> list[tuple]:
        """What the user's visible calls pass to the root (their Edge.vals): calls of the compiled
        object (`compiled(model, x)`), or of a function compiled by its decorator."""
        if root.decl.kind == "method" and not root.decl.calls:
            return self._method_calls_of(fs)
        if root.decl.calls or root.decl.kind != "function" or fs.compiled is None:
            calls = [self._enclosing_params(self.resolve_fields(c, root.mod.path)) for c in root.decl.calls]
            if any(len(v) > 2 and v[0] == "inst" for c in calls for _, v in c) and self._device_may_change():
                calls = [without_facts(c) for c in calls]  # the tensors made may be on another device
            return calls
        return self._calls_of(fs)

    def _device_may_change(self) -> bool:
        """May the project change the device torch's factories make tensors on (engine/tensors_made.py)?"""
        memo = self.c.memo
        if "device_may_change" not in memo:
            memo["device_may_change"] = device_may_change(list(self.c.modules.values()))
        return memo["device_may_change"]

    def calls_complete(self, root: RootRecord) -> bool:
        """Are the root's visible calls all the calls of the compiled object?  Its name is only called
        where it is bound (RootDecl.calls_complete), and when that name is module-level, no other module
        imports the module (and may call it from there)."""
        d = root.decl
        if not d.calls or not d.calls_complete:
            return False
        if d.binding is None:
            return True
        name = root.mod.name
        return not any(m is not root.mod and (name in m.imports or any(i.startswith(name + ".") for i in m.imports))
                       for m in list(self.c.modules.values()))

    def _enclosing_params(self, vals: tuple) -> tuple:
        """Edge.vals with ("param", "<function>:<name>") (a parameter of the function around the call:
        CallsMixin._closure_args) read as what every call of that function passes it: a constant, an instance
        (a tensor); unknown otherwise."""
        if not any(v[0] == "param" and ":" in v[1] for _, v in vals):
            return vals
        out = []
        for key, v in vals:
            if v[0] == "param" and ":" in v[1]:
                outer_q, _, name = v[1].rpartition(":")
                hit = self.r.function(outer_q)
                v = ("unknown",)
                if hit is not None:
                    outer = hit[0]
                    calls = self._calls_of(outer)
                    got = C.entry_env(outer.defaults, calls, outer.params, outer.is_method, outer.positional,
                                      outer.annotated).get(name) if calls else None
                    if got is not None and got[1] == C.KNOWN and isinstance(got[0], C.Instance) and got[0].q and \
                            got[0] not in (C.ANY, C.UNKNOWN):
                        v = ("inst", got[0].q)
            out.append((key, v))
        return tuple(out)

    def _method_calls_of(self, fs: FunctionSummary) -> list[tuple]:
        """What the project's calls `obj.<method>(...)` of the method `fs` pass (a compiled method rebound on
        its instance, `q.act = torch.compile(q.act)`, is called that way)."""
        out = []
        self.c.all_bodies()
        for mod in list(self.c.modules.values()):
            for cs in mod.call_sites:
                if not cs.is_method_call or cs.caller is None or cs.target.rpartition(".")[2] != fs.name:
                    continue
                hit = self.r.find_method(cs.target.rpartition(".")[0], fs.name, mod.path)
                if hit is not None and hit[0] is fs:
                    out.append(self.resolve_fields(cs.vals, mod.path))
        return out

    def _calls_of(self, fs: FunctionSummary) -> list[tuple]:
        """What each call of the function `fs` in the project passes (Edge.vals, config fields read)."""
        out = []
        self.c.all_bodies()
        for mod in list(self.c.modules.values()):
            for cs in mod.call_sites:
                if cs.is_method_call or cs.target.rpartition(".")[2] != fs.name:
                    continue
                hit = self.r.function(cs.target, mod.path)
                if hit is not None and hit[0] is fs:
                    out.append(self.resolve_fields(cs.vals, mod.path))
        return out

    def resolve_fields(self, vals: tuple, near: str) -> tuple:
        """Edge.vals with `cfg.debug` (a field of a config object) read as its class's default when
        no construction of the class passes that field: ("dconst", value); else unknown."""
        if not vals or not any(v[0] in ("field", "ret") for _, v in vals):
            return vals
        out = []
        for key, v in vals:
            if v[0] == "field":
                got = self._field_default(v[1], v[2], near)
                v = ("dconst", got) if got is not _NO_VALUE else ("unknown",)
            elif v[0] == "ret":
                kind = self.return_kind(v[1], near)
                v = ("inst", _CLASS_OF_KIND[kind]) if kind is not None else ("unknown",)
            out.append((key, v))
        return tuple(out)

    def return_kind(self, desc: str, near: str, _depth: int = 0) -> str | None:
        """The tensor kind ("tensor", "mask", "sparse"; values.tensor_kind) of what the function `desc` names
        returns ("<q>"), or of item i of the tuple it returns ("<q>:<i>"), when every `return` of it agrees
        (a tensor of different kinds: "tensor"); None when not known (memoised)."""
        memo = self.c.memo.setdefault("return_kind", {})
        key = (desc, near)
        if key in memo:
            return memo[key]
        memo[key] = None  # (a recursion through the same function: not known)
        q, _, item = desc.partition(":")
        hit = self.r.function(q, near) if _depth < 16 else None
        kinds = []
        if hit is not None and not hit[0].is_generator and not hit[0].is_async and hit[0].returns_shapes:
            for shape in hit[0].returns_shapes:
                if item:
                    d = shape[int(item)] if isinstance(shape, tuple) and int(item) < len(shape) else None
                elif isinstance(shape, tuple):
                    d = None
                else:
                    d = shape
                k = self.return_kind(d[4:], hit[1].path, _depth + 1) if d and d.startswith("ret:") else d
                kinds.append(k)
                if k is None:
                    break
        got = _combine(kinds)
        self.c.memo.setdefault("return_kind", {})[key] = got
        return got

    def _field_default(self, class_q: str, field: str, near: str):
        c = self.r.class_(class_q, near)
        if c is None:
            return _NO_VALUE
        for cs, cmod in self.r.mro(c[0].qualname, c[1].path):
            value = cs.values.get(field)
            if value is None:
                continue
            if value[0] != "const":
                return _NO_VALUE
            for site in self._constructions().get(c[0].qualname, ()):
                if site.args or any(k in (field, "**") for k, _ in site.kwargs):
                    return _NO_VALUE  # some construction sets it (or passes fields by position)
            return value[1]
        return _NO_VALUE

    def self_attr_reader(self, fs: FunctionSummary, mod: ModuleSummary, self_q: str | None = None,
                         ctor: tuple | None = None) -> "SelfAttrs":
        """`self.<attr>` -> (value, certainty) or None, for the class of `self` (`self_q`, the walk's: a
        subclass's class attribute wins over its base's) or else the class that defines `fs` (its MRO).
        `ctor` (class, Edge.vals, path): the visible construction of this very object (the compiled
        module): an `__init__` parameter it passes, or leaves at its default, decides the attribute."""
        return SelfAttrs(self, fs, mod, self_q, ctor)

    def layout_results(self, q: str, near: str) -> tuple:
        """FunctionSummary.layout_results of the function `q` (engine/tensors_made.py), () when not known."""
        hit = self.r.function(q, near)
        return hit[0].layout_results if hit is not None else ()

    def _config_field(self, cs: ClassSummary, mod: ModuleSummary, param: str, field: str) -> tuple | None:
        """`self.x = config.field` in `__init__`: the field of the object every construction passes for `config`,
        as the constructions of its class give it (field_value: `BigBirdConfig(num_attention_heads=4)`, for
        certain), else its default in that class (a `LlamaConfig(...)` that leaves the field alone), by default
        only; None when that is not known."""
        passed = self._ctor_passes(cs, mod, param)
        if passed is None or not isinstance(passed[0], C.Instance) or not passed[0].q or passed[1] != C.KNOWN:
            return None
        got = self._field_default(passed[0].q, field, mod.path)
        if got is not _NO_VALUE:
            return got, C.DEFAULT
        return self.field_value(passed[0].q, field, mod.path)  # (a construction passes it)

    def attr_classes(self, class_q: str, attr: str, near: str) -> list[str]:
        """The classes `<instance of class_q>.<attr>` may hold: what the class assigns to it, or the instance
        every construction passes for the `__init__` parameter it is set from (`self.model = model`)."""
        types = self.r.attr_types(class_q, attr, near)
        if types:
            return types
        for cs, cmod in self.r.mro(class_q, near):
            value = cs.values.get(attr)
            if value is not None and value[0] == "init_param":
                got = self._ctor_passes(cs, cmod, value[1])
                if got is not None and isinstance(got[0], C.Instance) and got[0].q and got[1] == C.KNOWN:
                    return [got[0].q]
                return []
        return []

    def passed_classes(self, class_q: str, attr: str, near: str) -> list[str]:
        """The module classes `self.<attr>` of an instance of class_q holds, or holds in a list (`self.attention =
        attention`, `self.layers = nn.ModuleList(layers)`), when it is set in `__init__` from a parameter and
        every construction of the class passes modules: one (`Holder(Inner())`), one of several classes
        (`Holder(Attn())`, Attn chosen by an if/else), or a list of them (`Stack([Layer() for ...])`) -- the
        classes all the constructions pass, those that pass None (or leave a None default) holding none; [] when
        one passes anything else or nothing is known."""
        handed = self._handed(class_q, attr, near)
        if handed is None:
            return []
        cmod, _, elements, passed = handed
        got: set[str] = set()
        for site, path, v in passed:
            if v is not None and v[0] in ("const", "dconst") and v[1] is None:
                continue  # `Holder()`, `Holder(None)`: this instance holds no module (`if self.attention is not None:`)
            if v is not None and v[0] == "ret":
                # `Holder(build_attention(cfg))`, every `return` of build_attention an instance of a module class
                # (one of several by an if/else or from a table of classes): one of them
                made = self.r.every_returned_class(v[1], path)
                if not made or elements or not all(self.r.is_nn_module(q, cmod.path) for q in made):
                    return []
                got |= set(made)
                continue
            if v is None or v[0] not in ("inst", "insts") or not v[1] or self._untyped(site, v, path):
                return []  # (`[make_attention(name) for ...]`: what a function returns, not known)
            if v[0] == "inst" and (elements or not self.r.is_nn_module(v[1], cmod.path)):
                return []  # (a module passed where a list is expected, or no module at all)
            # constructions that pass different modules (`AttentionLayer(ProbAttention(...))` for the
            # encoder, `AttentionLayer(FullAttention(...))` for the decoder): this instance holds one of them,
            # as a module chosen by an if/else
            got |= set(v[1].split("|"))
        return sorted(got)

    def handed_unknown(self, class_q: str, attr: str, near: str) -> tuple | None:
        """When `self.<attr>` is set in `__init__` from a parameter (as passed_classes reads it) and a construction
        of the class passes for it a value the analysis cannot type, so what the attribute holds is not known:
        (the construction's CallSite, its path, the parameter, what it passes): ("value",) a value made at run
        time, ("returned", function) what a function returns, ("param", name, function) a parameter of the
        function the construction is in, ("selfattr", name, function) an attribute of self there (`self.decoder`),
        ("stars",) what its *args/**kwargs hold; the first such construction by place.  None when every
        construction passes a module, a list of them, or what is no module (a constant, a tensor, the default)."""
        handed = self._handed(class_q, attr, near)
        if handed is None:
            return None
        _, param, _, passed = handed
        found = []
        for site, path, v in passed:
            what = self._untyped(site, v, path)
            if what is not None:
                found.append((path, site.span, site, what))
        if not found:
            return None
        path, _, site, what = min(found, key=lambda f: (f[0], f[1]))
        return site, path, param, what

    def _handed(self, class_q: str, attr: str, near: str) -> tuple | None:
        """For `self.<attr>` set in `__init__` from a parameter, alone or in a list (`self.layers =
        nn.ModuleList(layers)`), of class_q or a base: (the module of the class that sets it, the parameter,
        whether it is a list, [(construction, its path, what it passes: _passed_for, a default left as ("dconst",
        value))] for each construction of that class that may run); None when it is set otherwise."""
        for cs, cmod in self.r.mro(class_q, near):
            value = cs.values.get(attr)
            if value is None:
                continue
            if value[0] not in ("init_param", "init_elements"):
                return None
            init = self.r.function(cs.methods.get("__init__", ""), cmod.path)
            if init is None:
                return None
            param, defaults = value[1], init[0].defaults
            index, made = self._construction_index()
            passed = []
            for site in index.get(cs.qualname, ()):
                if self._never_runs(site.caller, made[id(site)][1]):
                    continue  # (`AutoregressiveWrapper(self.decoder)` in a library class the program never makes)
                v = _passed_for(site, init[0], param)
                if v is None and "**fwd" in dict(site.vals):
                    v = _STARS  # (a function's `**kwargs` passed on: a module may come in it; not followed here)
                passed.append((site, made[id(site)][1], ("dconst", defaults[param]) if v is None and param in defaults
                               else v))
            return cmod, param, value[0] == "init_elements", passed
        return None

    def _untyped(self, site: CallSite, v: tuple | None, near: str) -> tuple | None:
        """What a construction passes that the analysis cannot type (handed_unknown), else None."""
        if v is None or v[0] in ("const", "dconst", "one_of", "like"):
            return None  # (the default, a constant, a tensor)
        if v == _STARS:
            return ("stars",)
        if v[0] in ("inst", "insts"):
            # `[make_attention(name) for ...]`: a list of what a function returns (not a class)
            made = next((q for q in v[1].split("|") if self.r.class_(q, near) is None and
                         self.r.function(q, near) is not None), None)
            return ("returned", made) if made is not None else None
        if v[0] == "ret":
            q = v[1].partition(":")[0]
            if self.return_kind(v[1], near) is not None or self.r.every_returned_class(v[1], near) is not None:
                return None  # (a tensor: no module; instances of classes: passed_classes)
            return ("returned", q)
        if v[0] in ("param", "selfattr"):
            return (v[0], v[1], self._function_name(site.caller, near))
        if v[0] == "field" and self.resolve_fields((("", v),), near)[0][1][0] == "dconst":
            return None  # a config field's default
        return ("value",)  # ("unknown",), a config field set by a construction

    def _function_name(self, q: str | None, near: str) -> str:
        """A function as the user names it: `build`, `XTransformer.__init__`."""
        hit = self.r.function(q or "", near)
        if hit is None:
            return (q or "").rpartition(".")[2]
        cls = hit[0].class_qualname
        return f"{cls.rpartition('.')[2]}.{hit[0].name}" if cls else hit[0].name

    def attr_holds_module(self, fs: FunctionSummary, mod: ModuleSummary, attr: str) -> bool:
        """Does `self.<attr>` hold an nn.Module: a module class assigned to it, or an `__init__`
        argument that every construction passes a module to."""
        cls = fs.class_qualname
        if cls is None:
            return False
        if any(self.r.is_nn_module(t, mod.path) or V.is_torch_module_class(t) for t in self.r.attr_types(cls, attr, mod.path)):
            return True
        for cs, cmod in self.r.mro(cls, mod.path):
            value = cs.values.get(attr)
            if value is not None and value[0] == "init_param":
                got = self._ctor_passes(cs, cmod, value[1])
                return got is not None and isinstance(got[0], C.Instance) and bool(got[0].q) and \
                    (V.is_torch_module_class(got[0].q) or self.r.is_nn_module(got[0].q, cmod.path))
        return False

    def _init_param_passed(self, init_q: str | None, param: str, near: str, depth: int) -> tuple | None:
        """The value an `__init__` parameter has, as its class's constructions pass it: ("const", v),
        ("dconst", v) for its default, or ("unknown",); None for a followed library's class that nothing
        constructs (its `__init__` never runs, so what it passes on does not count)."""
        hit = self.r.function(init_q or "", near)
        if hit is None or hit[0].name != "__init__" or hit[0].class_qualname is None:
            return ("unknown",)
        owner = self.r.class_(hit[0].class_qualname, hit[1].path)
        if owner is None:
            return ("unknown",)
        if self._never_runs(init_q, near):
            return None
        got = self._ctor_passes(owner[0], owner[1], param, depth + 1)
        if got is None:
            return ("dconst", hit[0].defaults[param]) if param in hit[0].defaults else ("unknown",)
        value, how = got
        if value is C.UNKNOWN:
            return ("unknown",)
        return ("const", value) if how == C.KNOWN else ("dconst", value)

    def _held_init_param(self, caller: str | None, attr: str, near: str) -> tuple[str, str] | None:
        """(the `__init__`, its parameter) that `self.<attr>` holds in the method `caller`: the attribute the first
        class of the MRO that binds it sets from an `__init__` parameter and nothing else stores
        (ClassSummary.values ("init_param", p)); None otherwise."""
        hit = self.r.function(caller or "", near)
        if hit is None or hit[0].class_qualname is None:
            return None
        for cs, cmod in self.r.mro(hit[0].class_qualname, hit[1].path):
            if attr in cs.values:
                value = cs.values[attr]
                init = cs.methods.get("__init__")
                return (init, value[1]) if value[0] == "init_param" and init else None
        return None

    def _never_runs(self, caller: str | None, near: str, _depth: int = 0) -> bool:
        """`caller` is the `__init__` of a followed library's class that nothing constructs
        (`Wav2Vec2ForPreTraining`), or that only such `__init__`s construct (BigBird's question-answering head, made
        by `BigBirdForQuestionAnswering.__init__` alone): it never runs, so what it passes on, or constructs, does
        not count."""
        hit = self.r.function(caller or "", near)
        if hit is None or hit[0].name != "__init__" or hit[0].class_qualname is None or \
                not getattr(hit[1], "library", False):
            return False
        owner = self.r.class_(hit[0].class_qualname, hit[1].path)
        if owner is None:
            return False
        sites = self._constructions().get(owner[0].qualname)
        return not sites or (_depth < 4 and all(self._never_runs(s.caller, near, _depth + 1) for s in sites))

    def _constructed_with(self, ctor: tuple, cs: ClassSummary, cmod: ModuleSummary, param: str) -> tuple | None:
        """What one visible construction (class, Edge.vals, path) gives `param` of `cs.__init__`: passed, or
        left at its default, by the construction itself when it runs that `__init__`, else through the
        `super().__init__(...)` calls of the `__init__`s it runs (`MeanMetric(...)` -> `BaseAggregator`):
        (value, KNOWN) when passed, (default, DEFAULT) when left alone, or None when not known."""
        cls, vals, near = ctor
        want = cs.methods.get("__init__")
        init = self.r.find_method(cls, "__init__", near)
        if init is None or want is None:
            return None
        fs, fmod = init
        values, extra = _bind(fs, dict(self.resolve_fields(vals, near)), {}, {})
        for _ in range(8):
            if fs.qualname == want:
                return values.get(param)
            step = next(((e, t[0]) for e in fs.edges if e.kind == "super" and e.attr == "__init__"
                         for t in [self.r.resolve_edge(e, fmod)] if len(t) == 1), None)
            if step is None:
                return None
            e, (fs, fmod) = step
            values, extra = _bind(fs, dict(self.resolve_fields(e.vals, fmod.path)), values, extra)
        return None

    def _ctor_passes(self, cs: ClassSummary, mod: ModuleSummary, param: str, _depth: int = 0) -> tuple | None:
        """What the project's constructions of `cs` (or a subclass) pass for `__init__`'s `param`:
        None when none passes it (the default holds), (value, KNOWN) when all that do pass one
        constant, else an unknown flag."""
        init = self.r.function(cs.methods.get("__init__", ""), mod.path)
        if init is None:
            return C.UNKNOWN, C.DEFAULT
        found = []
        left = ("dconst", init[0].defaults[param]) if param in init[0].defaults else ("unknown",)
        for site in self._constructions().get(cs.qualname, ()):
            v = _passed_for(site, init[0], param)
            if v == _STARS:
                return C.UNKNOWN, C.DEFAULT
            if v == ("unknown",) and (each := self._elements_passed(site, init[0], param, _depth)) is not None:
                found.extend(each)  # `for i in range(n): self.layers.append(Layer(config, is_sparse))`: one per layer
                continue
            if v is not None:
                v = self.resolve_fields(((param, v),), mod.path)[0][1]
            if v is not None and v[0] == "like":
                v = v[2]  # (a parameter's tensor reshaped: a tensor, as far as a construction goes)
            if v is not None and v[0] == "param" and _depth < 8:
                # `CausalSelfAttention(n, debug=debug)` in Block.__init__: what Block's constructions pass
                v = self._init_param_passed(site.caller, v[1], mod.path, _depth)
                if v is None:
                    continue  # made in an __init__ that never runs
            elif v is not None and v[0] == "selfattr" and _depth < 8 and \
                    (held := self._held_init_param(site.caller, v[1], mod.path)) is not None:
                # `BigBirdBlockSparseAttention(self.config, self.seed)` in a method: the object's own `__init__`
                # parameter, as its class's constructions pass it
                v = self._init_param_passed(held[0], held[1], mod.path, _depth)
                if v is None:
                    continue  # (a method of a class nothing constructs)
            if v is not None and v[0] == "kwarg":
                # `Conv(..., heads=heads)` after `heads = kwargs.pop("heads", 1)`: what the callers put in `kwargs`
                got = self._kwarg_passed(site.caller, v[1], mod.path, _depth + 1, ())
                if got is None:
                    continue  # made in a library function nothing calls
                found.extend(v[2] if g == _ABSENT else g for g in got)
            elif v is None and "**fwd" in (fwd := dict(site.vals)):
                # `Conv(..., **kwargs)` in `init_conv(self, ..., **kwargs)`: what its callers put in `kwargs`
                got = self._forwarded_kwarg(site.caller, fwd["**fwd"], param, mod.path, _depth + 1, ())
                if got is None:
                    continue  # made in a library function nothing calls
                found.extend(left if g == _ABSENT else g for g in got)
            elif v is not None:
                found.append(v)
            else:  # this construction leaves the default: it holds for that instance
                found.append(left)
        if not found or all(v[0] == "dconst" and param in init[0].defaults and v[1] == init[0].defaults[param]
                            for v in found):
            return None
        if all(v == found[0] for v in found) and found[0][0] in ("const", "dconst"):
            return found[0][1], (C.KNOWN if found[0][0] == "const" else C.DEFAULT)
        if all(v == found[0] for v in found) and found[0][0] == "inst":
            return C.Instance(found[0][1]), C.KNOWN
        if all(v[0] in ("const", "dconst") for v in found):
            # `nn.Sequential(Block(), Block(log=False))`: each instance takes its own path
            options: list = []
            for v in found:
                o = (v[1], C.KNOWN if v[0] == "const" else C.DEFAULT)
                if o not in options:
                    options.append(o)
            return C.Choices(tuple(options)), C.KNOWN
        return C.UNKNOWN, C.DEFAULT

    def _elements_passed(self, site: CallSite, init: FunctionSummary, param: str, depth: int) -> list[tuple] | None:
        """What a construction in an `__init__` passes for `param` once per element of the list of self it fills
        (derived.element_values: `for i in range(config.encoder_layers): is_sparse = (i + 1) %
        config.encoder_sparse_step == 0; self.layers.append(Layer(config, is_sparse))`), read with what the
        constructions of that class pass (a config object: field_value), when a method of the class runs every
        element (derived.iterates: `for layer in self.layers`): [("const", value), ...] per element, ("dconst",
        value) when a value read is a default only; None when not known (memoised)."""
        near = self._construction_index()[1].get(id(site), ("", ""))[1]
        key = (site.caller, site.span, param, near)
        return self.c.memoised("elements_passed", key, lambda: self._elements(site, init, param, near, depth), None)

    def _elements(self, site: CallSite, init: FunctionSummary, param: str, near: str, depth: int) -> list[tuple] | None:
        hit = self.r.function(site.caller or "", near)
        if depth >= 8 or hit is None or hit[0].name != "__init__" or hit[0].class_qualname is None or \
                param not in init.params[1:]:
            return None
        fs, fmod = hit
        owner = self.r.class_(fs.class_qualname, fmod.path)
        if owner is None:
            return None
        inputs = self._init_inputs(fs, fmod, owner, depth)

        def run(certain: bool):
            """The values per element, read with what is known for certain only, or with the defaults too."""
            return element_values(self, fs, fmod, site.span.start.line, site.target,
                                  (init.params[1:].index(param), param), inputs(certain))
        kind, got = "const", run(True)
        if got is None:  # (a value that holds by default only: the user may change the default)
            kind, got = "dconst", run(False)
        if got is None or not any(
                (m := self.r.function(q, cmod.path)) is not None and m[0].name != "__init__" and iterates(self, *m, got[0])
                for cs, cmod in self.r.mro(owner[0].qualname, owner[1].path) for q in cs.methods.values()):
            return None
        return [(kind, v) for v in got[1]]

    def _init_inputs(self, fs: FunctionSummary, fmod: ModuleSummary, owner: tuple, depth: int):
        """What an `__init__` (of the class `owner`: ClassSummary, ModuleSummary) is given, as derived.element_values
        and element_count read its parameters: `inputs(certain)(p)` is a constant, a config object's fields
        (E.Fields: field_value, one by one) or E.UNKNOWN, with what the constructions of the class pass for certain
        only, or with the defaults too."""
        passed: dict = {}

        def given(p: str):
            """What the constructions of the class pass for the parameter: a config object's class, or (value,
            certainty); None when not known."""
            if p not in passed:
                got = self._ctor_passes(owner[0], owner[1], p, depth + 1)
                if got is None and p in fs.defaults:
                    got = fs.defaults[p], C.DEFAULT
                if got is not None and isinstance(got[0], C.Instance) and got[0].q not in ("", "?") and \
                        got[1] == C.KNOWN and self.r.class_(got[0].q, fmod.path) is not None:
                    passed[p] = got[0].q
                else:
                    passed[p] = got if got is not None and _plain(got[0]) else None
            return passed[p]

        def inputs(certain: bool):
            def fields(q: str):
                def read(name: str):
                    got = self.field_value(q, name, fmod.path, depth + 1)
                    return UNKNOWN if got is None or (certain and got[1] != C.KNOWN) else got[0]
                return E.Fields(read)

            def value(p: str):
                v = given(p) if p in fs.params[1:] else None
                if v is None:
                    return UNKNOWN
                if isinstance(v, str):
                    return fields(v)
                return v[0] if v[1] == C.KNOWN or not certain else UNKNOWN
            return value
        return inputs

    def element_count(self, class_q: str, attr: str, near: str) -> tuple[int, str] | None:
        """How many elements `self.<attr>` of an instance of class_q holds (derived.element_count: a list or
        nn.ModuleList the first `__init__` of the MRO that sets it makes over a `range(...)` of what the constructions
        pass, and no method of the class changes): (count, C.KNOWN or C.DEFAULT when it holds by default only);
        None when not known (memoised)."""
        return self.c.memoised("element_count", (class_q, attr, near), lambda: self._element_count(class_q, attr, near),
                               None)

    def _element_count(self, class_q: str, attr: str, near: str) -> tuple[int, str] | None:
        mro = self.r.mro(class_q, near)
        if not mro:
            return None
        methods = [m for cs, cmod in mro for q in cs.methods.values() if (m := self.r.function(q, cmod.path)) is not None]
        for cs, cmod in mro:
            init = self.r.find_method(cs.qualname, "__init__", cmod.path)
            if init is None or init[0].class_qualname != cs.qualname:
                continue
            owner = self.r.class_(cs.qualname, cmod.path)
            if owner is None:
                return None
            inputs = self._init_inputs(init[0], init[1], owner, 0)
            for certain, how in ((True, C.KNOWN), (False, C.DEFAULT)):
                n = element_count(self, init[0], init[1], attr, inputs(certain), methods)
                if n is not None:
                    return n, how
            return None  # (the first `__init__` of the MRO: the others run only when it calls them)
        return None

    def field_value(self, class_q: str, field: str, near: str, _depth: int = 0) -> tuple | None:
        """`<obj>.<field>` of the instances of class_q the program constructs (a config object): (value, KNOWN) when
        every construction passes the field the same constant, (its default, DEFAULT) when they leave it; None when
        not known: a construction passes it otherwise, by position, through `**kwargs` or with a keyword the class
        does not declare (an alias, maybe), or code may store the field after (engine/fields_stored.py).
        (Memoised per generation for the outermost reads: every attribute a layer sets from its config asks.)"""
        if _depth == 0:
            return self.c.memoised("field_value", (class_q, field, near),
                                   lambda: self._field_value(class_q, field, near, 0), None)
        return self._field_value(class_q, field, near, _depth)

    def _field_value(self, class_q: str, field: str, near: str, _depth: int) -> tuple | None:
        c = self.r.class_(class_q, near)
        if c is None or _depth >= 8:
            return None
        mro = self.r.mro(c[0].qualname, c[1].path)
        owner = next(((cs, cmod) for cs, cmod in mro if field in cs.values), None)
        if owner is None:
            return None
        value = owner[0].values[field]
        index, made = self._construction_index()
        sites = [s for s in index.get(c[0].qualname, ()) if not self._never_runs(s.caller, made[id(s)][1])]
        classes = {cs.qualname: (cs, cmod) for s in sites for cs, cmod in self.r.mro(*made[id(s)])}
        classes.update((cs.qualname, (cs, cmod)) for cs, cmod in mro)
        if value[0] == "init_param":  # `def __init__(self, num_layers=2): self.num_layers = num_layers`
            got = self._ctor_passes(owner[0], owner[1], value[1], _depth + 1)
            if got is None and len(value) > 2:
                got = value[2], C.DEFAULT
        elif value[0] == "const":  # a dataclass field (`encoder_layers: int = 12`)
            got = self._fields_passed(sites, made, field) if sites else (value[1], C.DEFAULT)
        else:
            return None
        if got is None or not _plain(got[0]) or field_stored(self, list(classes.values()), owner, field):
            return None
        return got

    def _fields_passed(self, sites: list, made: dict, field: str) -> tuple | None:
        """What the constructions `sites` of a class whose body declares `field` pass for it by keyword, as
        field_value says."""
        found = []
        for s in sites:
            cls, path = made[id(s)]
            mro = self.r.mro(cls, path)
            vals = dict(self.resolve_fields(s.vals, path))
            if s.args or any(not isinstance(k, str) or k.startswith("*") or not any(k in cs.values for cs, _ in mro)
                             for k in vals):
                return None  # (by position, through `**kwargs`, or a name the class does not declare)
            v = vals.get(field)
            if v is None:
                d = next((cs.values[field] for cs, _ in mro if field in cs.values), None)
                if d is None or d[0] != "const":
                    return None
                v = ("dconst", d[1])
            if v[0] not in ("const", "dconst"):
                return None
            found.append(v)
        if any(v != found[0] for v in found):
            return None
        return found[0][1], (C.KNOWN if found[0][0] == "const" else C.DEFAULT)

    def _forwarded_kwarg(self, fn_q: str | None, spec: tuple, key: str, near: str, depth: int,
                         through: tuple) -> list[tuple] | None:
        """What a call passing on the `**kwargs` of the function `fn_q` (its Edge.vals "**fwd" value `spec`: the keys it
        popped before, and those it may have changed; engine/kwargs_edits.py) passes under `key`: Edge.vals
        values, _ABSENT where a call leaves it out; None when no call reaches a library function."""
        removed, unsure = (spec[2], spec[3]) if len(spec) > 3 else ((), ())
        if key in removed:
            return [_ABSENT]
        if key in unsure:
            return [("unknown",)]
        return self._kwarg_passed(fn_q, key, near, depth, through)

    def _kwarg_passed(self, fn_q: str | None, key: str, near: str, depth: int, through: tuple) -> list[tuple] | None:
        """What the calls reaching the function `fn_q` put in its `**kwargs` under `key` (each call's Edge.vals value:
        a constant, the default an `__init__` leaves, ..., _ABSENT when not passed); None when no call reaches a
        library function (it never runs); [("unknown",)] when a call passes what the analysis does not follow.
        `through`: ((method, qualname), ...), the methods the object runs on the way (`self.init_conv` reaches
        `GAT.init_conv` on a GAT only)."""
        hit = self.r.function(fn_q or "", near)
        if hit is None or depth >= 8 or hit[0].kwarg is None:
            return [("unknown",)]
        fs, fmod = hit
        if key in fs.params:
            return [_ABSENT]  # a parameter of its own takes it: not in its `**kwargs`
        calls = self._calls_reaching(fs, fmod, through)
        if calls is None:
            return [("unknown",)]
        if not calls:
            return None if getattr(fmod, "library", False) else [("unknown",)]
        out: list[tuple] = []
        for vals, caller_q, cnear, th in calls:
            v = vals.get(key)
            if v is not None and v[0] == "like":
                v = v[2]
            if v is not None and v[0] == "param":
                v = self._init_param_passed(caller_q, v[1], cnear, depth)
                if v is None:
                    continue
            if v is not None and v[0] == "kwarg":
                got = self._kwarg_passed(caller_q, v[1], cnear, depth + 1, th)
                if got is not None:
                    out.extend(v[2] if g == _ABSENT else g for g in got)
            elif v is not None:
                out.append(v)
            elif "**fwd" in vals:
                got = self._forwarded_kwarg(caller_q, vals["**fwd"], key, cnear, depth + 1, th)
                if got is not None:
                    out.extend(got)
            elif "**" in vals:
                out.append(("unknown",))
            else:
                out.append(_ABSENT)
        return out

    def _calls_reaching(self, fs: FunctionSummary, fmod: ModuleSummary, through: tuple) -> list[tuple] | None:
        """The calls the project makes of the method `fs` (class A): `self.<name>(...)` in A, a base (where the
        object is an A) or a subclass that does not override it, `super().<name>(...)`, `A.<name>(self, ...)`,
        and for `__init__` the constructions of A and of its subclasses that do not override it -- whose class
        runs the methods in `through` -- each as (Edge.vals dict, calling function, its module's path,
        `through` for that function); None for a plain function (its callers are not listed here)."""
        cls, name = fs.class_qualname, fs.name
        if cls is None:
            return None
        near = fmod.path

        def runs(class_q: str, path: str) -> bool:
            return all((got := self.r.find_method(class_q, m, path)) is not None and got[0].qualname == q
                       for m, q in through)

        out = []
        bases = self.r.bases_closure(cls, near) - {cls}
        for e, gfs, gmod in self._edges_named().get(name, ()):
            th = through
            if e.kind == "method":
                got = self.r.find_method(e.target, name, gmod.path)
                if not ((got is not None and got[0] is fs) or e.target in bases):
                    continue
                if gfs.class_qualname == e.target:  # on self: the object's class runs `fs`
                    th = (*through, (name, fs.qualname))
            elif not any(t[0] is fs for t in self.r.resolve_edge(e, gmod)):
                continue
            out.append((dict(self.resolve_fields(e.vals, gmod.path)), gfs.qualname, gmod.path, th))
        if name == "__init__":
            index, where = self._construction_index()
            for site in index.get(cls, ()):
                made = where.get(id(site))
                if made is None:
                    return None
                got = self.r.find_method(made[0], "__init__", made[1])
                if got is None or got[0] is not fs or not runs(made[0], made[1]):
                    continue  # (another `__init__` runs: it reaches this one through its `super().__init__`)
                out.append((dict(self.resolve_fields(site.vals, made[1])), site.caller, made[1], ()))
        return out

    def _edges_named(self) -> dict[str, list[tuple]]:
        """Method name -> the calls that may run a method of that name: (Edge, calling function, its module) of
        `obj.<name>(...)`, `super().<name>(...)` and `<dotted>.<name>(...)` calls (memoised)."""
        memo = self.c.memo
        if "edges_named" not in memo:
            idx: dict[str, list[tuple]] = {}
            self.c.all_bodies()
            for mod in list(self.c.modules.values()):
                for gfs in mod.functions.values():
                    for e in gfs.edges:
                        if e.kind in ("method", "super"):
                            name = e.attr
                        elif e.kind == "call":
                            name = e.target.rpartition(".")[2]
                        else:
                            continue
                        if name:
                            idx.setdefault(name, []).append((e, gfs, mod))
            memo["edges_named"] = idx
        return memo["edges_named"]

    def _loaded_class(self, q: str, near: str) -> tuple[ClassSummary, ModuleSummary] | None:
        """The class `q` names among the modules loaded, through a few re-exports (`torch_geometric.nn.conv.GATConv`,
        imported in the package's `__init__` from `gat_conv`); None when one is not loaded."""
        for _ in range(4):
            mname, _, name = q.rpartition(".")
            owner = self.c.module(mname, near)
            if owner is None:
                return None
            cs = owner.classes.get(q) or owner.classes.get(f"{owner.name}.{name}")
            if cs is not None:
                return cs, owner
            b = owner.bindings.get(name)
            if b is None or b[0] != "ref" or not b[1] or b[1] == q:
                return None
            q, near = b[1], owner.path
        return None

    def _constructions(self) -> dict[str, list]:
        """Class qualname -> the calls constructing it or a subclass (CallSites; memoised)."""
        return self._construction_index()[0]

    def _construction_index(self) -> tuple[dict[str, list], dict[int, tuple[str, str]]]:
        """_constructions, and the id of each construction -> (the class it makes, the path of its module)."""
        memo = self.c.memo  # (a library loaded on the way replaces the memo: the index is returned, not read again)
        if "constructions" not in memo:
            idx: dict[str, list] = {}
            made: dict[int, tuple[str, str]] = {}
            self.c.all_bodies()
            for mod in list(self.c.modules.values()):
                library = getattr(mod, "library", False)
                for site in mod.call_sites:
                    if site.is_method_call or not site.target.rpartition(".")[2][:1].isupper():
                        continue
                    if library:  # resolved among the loaded modules only: no library load for an index
                        c = self._loaded_class(site.target, mod.path)
                    else:
                        c = self.r.class_(site.target, mod.path)
                    if c is None:
                        continue
                    made[id(site)] = (c[0].qualname, mod.path)
                    for base in self.r.bases_closure(c[0].qualname, mod.path) | {c[0].qualname}:
                        idx.setdefault(base, []).append(site)
            memo["constructions"] = idx, made
        return memo["constructions"]


def _plain(v) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _passed_for(site: CallSite, init: FunctionSummary, param: str) -> tuple | None:
    """What one construction (a CallSite of the class) passes for `init`'s `param`: the value as Edge.vals holds it
    (not resolved: Arrivals.resolve_fields), None when it leaves the default, _STARS when its `*args`/`**kwargs`
    may pass it (what it passes is then not known, whatever else it passes)."""
    vals = dict(site.vals)
    if "**" in vals and ("**fwd" not in vals or "*fwd" in vals):
        return _STARS  # (a function's own `**kwargs` passed on alone: what its callers put there, _forwarded_kwarg)
    names = init.params[1:]
    pos = names.index(param) if param in names else len(names)
    return vals.get(pos, vals.get(param)) if len(site.args) > pos or param in vals else None


def _bind(init: FunctionSummary, passed: dict, caller: dict, extra_in: dict) -> tuple[dict, dict]:
    """An `__init__`'s parameters as one call binds them: name -> (value, certainty) or None (not known), with
    `caller` the calling `__init__`'s own (for what it passes on by name); and the keyword arguments its
    **kwargs takes, for a `super().__init__(..., **kwargs)` that passes them on."""
    def value(v: tuple) -> tuple | None:
        if v[0] == "param":
            return caller.get(v[1])
        return C.known(v)

    names = init.params[1:]
    forwarded = "**" in passed
    values: dict = {}
    for i, name in enumerate(names):
        v = passed.get(name, passed.get(i))
        if v is None and forwarded and name in extra_in:
            values[name] = extra_in[name]
        elif v is None:
            # left at its default: by default only (code the analysis does not follow may set it later)
            values[name] = None if forwarded else (init.defaults[name], C.DEFAULT) if name in init.defaults else None
        else:
            values[name] = value(v)
    extra = {k: value(v) for k, v in passed.items() if isinstance(k, str) and k != "**" and k not in names}
    if forwarded:
        extra.update((k, v) for k, v in extra_in.items() if k not in names)
    return values, extra


class SelfAttrs:
    """The reader of `self.<attr>` in a reached function (Arrivals.self_attr_reader): called with the attribute's
    name, and with the ways the conditions read more (engine/conditions_evaluated.py asks for each by name).  An
    object rather than closures: a closure that calls itself is a reference cycle, and the walk makes a reader per
    reached function on every keystroke, which the collector then had to find."""

    __slots__ = ("arr", "fs", "mod", "self_q", "ctor", "cls", "lib", "_tests", "_runs")

    def __init__(self, arr: Arrivals, fs: FunctionSummary, mod: ModuleSummary, self_q: str | None, ctor: tuple | None):
        self.arr, self.fs, self.mod, self.self_q, self.ctor = arr, fs, mod, self_q, ctor
        self.cls = self_q or fs.class_qualname
        self.lib = getattr(mod, "library", False)
        self._tests: dict | None = None  # (once per reader: the run of the function, engine/derived.py)
        self._runs: dict = {}  # (the runs of the function on its parameters' values, by those values: engine/tests_run.py)

    def __call__(self, attr: str):
        if self.cls is None:
            return None
        arr, mod = self.arr, self.mod
        if "." in attr:  # `self.config.use_cache`: the field's default in the class of `self.config`
            base, _, field = attr.partition(".")
            got = self(base)
            if got is None or not isinstance(got[0], C.Instance) or not got[0].q or got[1] != C.KNOWN:
                return None
            value = arr._field_default(got[0].q, field, mod.path)
            return None if value is _NO_VALUE else (value, C.DEFAULT)
        for cs, cmod in arr.r.mro(self.cls, mod.path):
            if attr in cs.values:
                value = cs.values[attr]
                if value == ("unknown",) and self.self_q is not None and \
                        (derived := init_value(arr, cs, cmod, attr, self.self_q)) is not UNKNOWN:
                    # computed in `__init__` from what is known there: the class's name
                    # (`loss_type` from `self.__class__.__name__`), until the user sets another
                    return derived, C.DEFAULT
                if value == ("unknown",) and self.lib and cs.init_values.get(attr, value) != value:
                    # a library's attribute that a method changes (`_freeze_parameters()`): what
                    # `__init__` sets holds until the user calls it
                    got = self.init_value(cs, cmod, cs.init_values[attr])
                    return (got[0], C.DEFAULT) if got is not None else None
                return self.init_value(cs, cmod, value)
        return None

    def init_value(self, cs: ClassSummary, cmod: ModuleSummary, value: tuple):
        """What an `__init__` parameter of a class of the MRO holds for this object, its ClassSummary.values
        description given ("init_param", name[, default]): engine/attr_choices.py."""
        arr = self.arr
        if value[0] == "init_param_or":  # `p` in __init__, or `q` when it is None
            return C.or_fallback(self.init_value(cs, cmod, value[1]), lambda: self.init_value(cs, cmod, value[2]))
        if value[0] == "init_param" and self.ctor is not None:
            got = arr._constructed_with(self.ctor, cs, cmod, value[1])
            if got is not None:
                return got
        if value[0] == "init_param":
            passed = arr._ctor_passes(cs, cmod, value[1])
            if passed is not None:  # what the constructions pass instead of the default
                return passed
        if value[0] == "init_field":
            return arr._config_field(cs, cmod, value[1], value[2])
        return C.attr_value(value)

    def module_value(self, q: str):
        return module_value(self.arr, q, self.mod.path)

    def predicate(self, q: str) -> tuple:
        """`is_torch_sparse_tensor(edge_index)`: what the function returns for a tensor of each layout."""
        return self.arr.layout_results(q, self.mod.path)

    def seen_value(self, attr: str):
        """`cache = self._cached_edge_index`: what `__init__` sets, when every store is seen (engine/attrs_seen.py);
        only for the object's own class (a subclass's methods may store it too)."""
        return seen_init_value(self.arr, self.self_q, attr, self.mod.path, self) if self.self_q else NOT_KNOWN

    def seen_absent(self, attr: str):
        """`hasattr(self, "_loss_function")`: nothing sets it on the object (engine/attrs_seen.py)."""
        return seen_absent(self.arr, self.self_q, attr, self.mod.path, self) if self.self_q else NOT_KNOWN

    def test_value(self, line: int, col: int) -> tuple[bool, bool] | None:
        """The truth of the `if` test at (line, col), the line counted from the function's `def` line, as
        running the function computes it, and whether certain."""
        if self._tests is None:
            self._tests = test_values(self.arr, self.fs, self.mod, self.self_q, self) \
                if self.self_q and self.lib else {}
        return self._tests.get((self.fs.name_span.start.line + 1 + line, col))

    def run_test(self, at: tuple, env: dict) -> tuple[bool, bool] | None:
        """The truth of the "run" test at `at` (conditions_recorded._run_test) when the function runs on the
        values `env` gives its parameters, and whether certain; None when not decided."""
        got = run_tests(self.arr, self.fs, self.mod, self.self_q, self, env, self._runs)
        return got.get(tests_position(self.fs, at)) if got else None

    def run_reached(self, wanted: list, env: dict) -> tuple | None:
        """Does the function, run on the values `env` gives its parameters, take each "run" test of `wanted`
        ((position as conditions_recorded records it, truth)) its truth on its one definite path (tests_run.run_reached)?"""
        return run_reached(self.arr, self.fs, self.mod, self.self_q, self, env, self._runs,
                           [(tests_position(self.fs, at), want) for at, want in wanted])

    def env_written(self, key: str) -> bool:
        """Does a module of the project set the environment variable `key` (ModuleSummary.env_writes)?"""
        memo = self.arr.c.memo.setdefault("env_writes", {})
        if "all" not in memo:
            memo["all"] = set().union(*(getattr(m, "env_writes", ()) or () for m in self.arr.c.modules.values()))
        return key in memo["all"] or "*" in memo["all"]

    def run_arg(self, at: tuple, env: dict) -> tuple | None:
        """What the argument at `at` (conditions_recorded's "runarg" position) of a call in the function passes when
        the function runs on the values `env` gives its parameters: (value, certainty) as an env holds it, or None."""
        return run_arg(self.arr, self.fs, self.mod, self.self_q, self, env, self._runs, tests_position(self.fs, at))

    def element_count(self, attr: str) -> tuple[int, str] | None:
        """`for i, x in enumerate(self.<attr>)`: how many elements the object's `self.<attr>` holds, and how certain
        (Arrivals.element_count)."""
        return self.arr.element_count(self.cls, attr, self.mod.path) if self.cls else None

    def field_absent(self, attr: str) -> bool:
        """`self.config.<field>`: the class of the object held lacks the field (engine/absent_fields.py)."""
        base, _, field = attr.partition(".")
        got = self(base) if field and "." not in field else None
        return got is not None and isinstance(got[0], C.Instance) and bool(got[0].q) and got[1] == C.KNOWN \
            and field_absent(self.arr, got[0].q, field, self.mod.path)

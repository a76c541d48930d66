"""Name resolution across the project's modules: a qualified name to the function, class or module it
names (imports, re-exports, star imports, a followed library's modules loaded on demand), class
hierarchies and attributes, and what a call edge of a module may run (a function, a method along
the MRO, an nn.Module's forward and hooks, a registry's functions, a decorator's wrapper).

It reads the project's contents (engine/contents.py) and memoises per generation in their memo.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from typing import Iterable

from ..positions import Span
from . import conditions_evaluated as C
from . import imported_names
from . import values as V
from .contents import Contents
from .ruleset import RuleSet
from .summary import ClassSummary, Edge, FunctionSummary, ModuleSummary


_DYNAMO_OWN = frozenset(sys.stdlib_module_names) | {"numpy", "einops", "torch", "triton"}


class Resolver:
    def __init__(self, contents: Contents, rules: RuleSet):
        self.c = contents
        self.rules = rules
        # callee name -> how often a reached call named it and nothing in the project defines it
        self.unresolved_calls: dict[str, int] = {}

    # ---- name resolution -----------------------------------------------------------------------
    def lookup(self, q: str, near: str | None = None, _depth: int = 0):
        """q -> ("function", fs, mod) | ("class", cs, mod) | ("module", mod) | None."""
        if _depth:
            return self._lookup(q, near, _depth)
        key = ("lookup", q, near)
        memo = self.c.memo
        if key in memo:
            return memo[key]
        r = self._lookup(q, near, 0)
        memo[key] = r  # (into the dict current at the start: a lazy library load may replace it)
        return r

    def _lookup(self, q: str, near: str | None, _depth: int):
        if not q or _depth > 12:
            return None
        hit = self.c.function(q)
        if hit is not None:
            return ("function", hit[0], hit[1])
        parts = q.split(".")
        for i in range(len(parts), 0, -1):
            mname = ".".join(parts[:i])
            mod = self.c.module(mname, near)
            if mod is None and self.c.module_loader is not None and mname not in self.c.load_attempted:
                self.c.load_attempted.add(mname)
                if self.c.module_loader(mname):
                    # start over: the new module's functions are found through the function index
                    return self._lookup(q, near, _depth + 1)
            if mod is None:
                continue
            rest = parts[i:]
            if not rest:
                return ("module", mod)
            cq = f"{mod.name}.{rest[0]}"
            if len(rest) == 1 and cq in mod.functions:  # a module imported by another name than its own
                return ("function", mod.functions[cq], mod)
            if cq in mod.classes:
                cs = mod.classes[cq]
                if len(rest) == 1:
                    return ("class", cs, mod)
                fq = self.find_method(cs.qualname, rest[1])
                if fq is None and rest[1:] == ["apply"] and self.is_autograd_function(cs.qualname, mod.path):
                    fq = self.find_method(cs.qualname, "forward")  # `pscan = PScan.apply`: runs its forward
                if fq is not None and len(rest) == 2:
                    return ("function", fq[0], fq[1])
                return None
            b = mod.bindings.get(rest[0])
            if b is not None and b[0] == "ref" and b[1] and b[1] != q:
                target = ".".join([b[1], *rest[1:]])
                if target != q:
                    return self.lookup(target, mod.path, _depth + 1)
            for star in mod.star_imports:
                if self.c.may_define is not None and self.c.module(star, mod.path) is None and \
                        not self.c.may_define(star, rest[0]):
                    continue
                r = self.lookup(".".join([star, *rest]), mod.path, _depth + 1)
                if r is not None:
                    return r
            return None
        return None

    def instance_binding(self, q: str, near: str | None = None, _depth: int = 0) -> tuple[str, str] | None:
        """("module.name", class) if q is a module-level name of a project module bound to an
        instance of class (following imports and re-exports), else None."""
        key = ("instance", q, near)
        memo = self.c.memo
        if key in memo:
            return memo[key]
        r = None
        parts = q.split(".")
        for i in range(len(parts) - 1, 0, -1):
            mod = self.c.module(".".join(parts[:i]), near)
            if mod is None:
                continue
            if i == len(parts) - 1 and _depth < 12:
                name = parts[-1]
                b = mod.bindings.get(name)
                if b is not None and b[0] == "instance" and b[1]:
                    r = (f"{mod.name}.{name}", b[1])
                elif b is not None and b[0] == "ref" and b[1] and b[1] != q:
                    r = self.instance_binding(b[1], mod.path, _depth + 1)
                elif b is None:
                    for star in mod.star_imports:
                        r = self.instance_binding(f"{star}.{name}", mod.path, _depth + 1)
                        if r is not None:
                            break
            break
        memo[key] = r
        return r

    def function(self, q: str, near: str | None = None) -> tuple[FunctionSummary, ModuleSummary] | None:
        r = self.lookup(q, near)
        if r is not None and r[0] == "function":
            return r[1], r[2]
        return None

    def class_(self, q: str, near: str | None = None) -> tuple[ClassSummary, ModuleSummary] | None:
        r = self.lookup(q, near)
        if r is not None and r[0] == "class":
            return r[1], r[2]
        return None

    def same_class(self, a: str, b: str, near: str | None = None) -> bool:
        """`a` and `b` name one class (a re-export and its definition)."""
        if a == b:
            return True
        ca, cb = self.class_(a, near), self.class_(b, near)
        return ca is not None and cb is not None and ca[0] is cb[0]

    def mro(self, class_q: str, near: str | None = None) -> list[tuple[ClassSummary, ModuleSummary]]:
        """The class and its bases (project classes only), nearest first.  Shared: do not mutate."""
        key = ("mro", class_q, near)
        memo = self.c.memo
        if key not in memo:
            memo[key] = self._mro(class_q, near)
        return memo[key]

    def _mro(self, class_q: str, near: str | None) -> list[tuple[ClassSummary, ModuleSummary]]:
        # depth first, bases in order (an explicit stack: a nested function calling itself would be a reference
        # cycle per class per keystroke, left for the collector)
        out: list[tuple[ClassSummary, ModuleSummary]] = []
        seen: set[str] = set()
        stack: list[tuple[str, str | None, int]] = [(class_q, near, 0)]
        while stack:
            q, near_, depth = stack.pop()
            if depth > 32 or q in seen:
                continue
            c = self.class_(q, near_)
            if c is None:
                continue
            seen.add(c[0].qualname)
            out.append(c)
            stack.extend((b, c[1].path, depth + 1) for b in reversed(c[0].bases))
        return out

    def bases_closure(self, class_q: str, near: str | None = None) -> set[str]:
        """Every base named anywhere in the hierarchy (external ones included)."""
        out: set[str] = set()
        for cs, _ in self.mro(class_q, near):
            out.update(b for b in cs.bases if b)
        return out

    def is_nn_module(self, class_q: str, near: str | None = None) -> bool:
        """nn.Module or a subclass, also through torch's own layers (`class Safe(nn.BatchNorm1d)`)."""
        return any(V.is_torch_module_class(b) for b in self.bases_closure(class_q, near))

    def is_autograd_function(self, class_q: str, near: str | None = None) -> bool:
        return bool(V.AUTOGRAD_FUNCTION & self.bases_closure(class_q, near))

    def find_method(self, class_q: str, name: str, near: str | None = None, skip_first: bool = False):
        chain = self.mro(class_q, near)
        if skip_first:
            chain = chain[1:]
        for cs, mod in chain:
            fq = cs.methods.get(name)
            if fq and fq in mod.functions:
                replaced = self._replaced_by_decorator(cs, mod, name) if cs.decorators else None
                return replaced or (mod.functions[fq], mod)
        return None

    def _replaced_by_decorator(self, cs: ClassSummary, mod: ModuleSummary, name: str):
        """A class decorator that sets `cls.<name> = <its local function>` (transformers'
        @use_experts_implementation replaces `forward` by a dispatcher): that function."""
        for q, called in cs.decorators:
            hit = self.function(q, mod.path)
            todo, seen = ([hit] if hit is not None else []), set()
            while todo:  # the decorator, and what it returns (`@deco(...)`, the optional-argument idiom)
                fs, fmod = todo.pop()
                if fs.qualname in seen or len(seen) > 8:
                    continue
                seen.add(fs.qualname)
                if name in fs.replaces:
                    return self._local_fn(fs.replaces[name], fmod)
                todo.extend(x for x in (self._local_fn(g, fmod) for _, g in fs.returns_fns) if x is not None)
        return None

    # ---- methods replaced on the instance (`self.update = self._wrap_update(self.update)`) or in the class body
    def replaced(self, class_q: str, name: str, near: str | None = None) -> tuple[tuple, ModuleSummary] | None:
        """The replacements of the method `name` an instance of class_q holds (ClassSummary.replaced) and the
        module of the class that makes them: the nearest class in the MRO that does -- an instance's own
        attribute wins over every class's method, a class-level wrapper only over the methods of its bases."""
        shadowed = False
        for cs, mod in self.mro(class_q, near):
            reps = tuple(r for r in cs.replaced.get(name, ()) if r[1] or not shadowed)
            if reps:
                return reps, mod
            shadowed = shadowed or name in cs.methods
        return None

    def replacement_targets(self, class_q: str, name: str, near: str | None = None):
        """What a call of `self.<name>` runs on an instance of class_q whose method `name` is replaced: the
        wrappers (their call of the parameter the original was passed in runs it: captured()), the bound
        or aliased functions, and the original method too where the replacement may not have happened (or
        cannot be followed); with where the replacements that cannot be followed are made (the method
        that assigns them, "" for the class body): ([(fs, mod)], [where]).  None: not replaced.  Shared: do
        not mutate."""
        key = ("replaced", class_q, name, near)
        memo = self.c.memo
        if key not in memo:
            memo[key] = self._replacement_targets(class_q, name, near)
        return memo[key]

    def _replacement_targets(self, class_q: str, name: str, near: str | None):
        got = self.replaced(class_q, name, near)
        if got is None:
            return None
        reps, cmod = got
        out: list = []
        lost: list = []
        original = self.find_method(class_q, name, near)
        for rep in reps:
            kind, where, always = rep[:3]
            found: list = []
            if kind == "wrap":
                dec = self._wrapping_fn(rep[3], class_q, cmod)
                if dec is not None:
                    # what the wrapping function returns: its local function, else (it hands back what it
                    # was given, `return compute`) the original
                    found = list(self._applied(dec, 0)) or self._original_of(rep[5], class_q, cmod)
            elif kind == "bound":
                hit = self.function(rep[3], cmod.path)
                found = [hit] if hit is not None else []
            elif kind == "alias":
                found = self._original_of(rep[3], class_q, cmod)
            if not found:
                lost.append(where)
                always = False  # what runs instead is not known: the method as the class defines it
            out.extend(f for f in found if f not in out)
            if not always and original is not None and original not in out:
                out.append(original)
        # a replaced attribute that is no method of the class is not known to be called as one
        return out, [w for w in lost if original is not None or not w]

    def captured(self, class_q: str, ref: str, near: str | None = None) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """What a wrapper's call of the parameter `ref` ("<wrapping function>:<parameter>", a closure's
        free parameter) runs on an instance of class_q: the original method or function the class's
        replacements pass the wrapping function in that parameter (`self._wrap_update(self.update)`)."""
        outer_q, _, param = ref.rpartition(":")
        out: list = []
        for cs, mod in self.mro(class_q, near):
            for reps in cs.replaced.values():
                for rep in reps:
                    if rep[0] != "wrap":
                        continue
                    dec = self._wrapping_fn(rep[3], class_q, mod)
                    if dec is None or dec[0].qualname != outer_q:
                        continue
                    i = rep[4] + (1 if dec[0].is_method else 0)
                    if i < len(dec[0].params) and dec[0].params[i] == param:
                        out.extend(f for f in self._original_of(rep[5], class_q, mod) if f not in out)
        return out

    def _wrapping_fn(self, ref: str, class_q: str, mod: ModuleSummary):
        if ref.startswith("self."):
            return self.find_method(class_q, ref[5:], mod.path)
        return self.function(ref, mod.path)

    def _original_of(self, original: tuple[str, str], class_q: str, mod: ModuleSummary) -> list:
        kind, q = original
        hit = self.find_method(class_q, q, mod.path) if kind == "method" else self.function(q, mod.path)
        return [hit] if hit is not None else []

    def attr_types(self, class_q: str, attr: str, near: str | None = None, containers: bool = False) -> list[str]:
        """The classes `self.<attr>` of an instance of class_q holds (its elements' with `containers`): those
        assigned to it, and those a method of the instance's class returns (`self.model =
        self._build_model()`, V.SELF_MADE: the subclass's override wins).  (Memoised per generation: a walk asks
        for the same attributes at every edge, a fifth of a keystroke's re-walk.)"""
        memo = self.c.memo.setdefault("attr_types", {})
        key = (class_q, attr, near, containers)
        got = memo.get(key)
        if got is None:
            got = memo[key] = self._attr_types(class_q, attr, near, containers)
        return list(got)

    def _attr_types(self, class_q: str, attr: str, near: str | None, containers: bool) -> list[str]:
        out: list[str] = []
        for cs, _ in self.mro(class_q, near):
            src = cs.containers if containers else cs.attrs
            passed = dict(cs.made_with.get(attr, ())) if not containers else {}
            for t in src.get(attr, ()):
                made = self._self_made(class_q, t[len(V.SELF_MADE):], near) if t.startswith(V.SELF_MADE) else \
                    self._factory_made(t, near, passed.get(t))
                out.extend(x for x in made if x not in out)
        if not out and not containers and not any(attr in cs.values or attr in cs.methods or attr in cs.tensor_attrs
                                                  for cs, _ in self.mro(class_q, near)):
            for b in self.bases_closure(class_q, near):
                t = V.TORCH_MODULE_ATTRS.get(b, {}).get(attr)
                if t is not None and t not in out:
                    out.append(t)  # made by a torch base class's own __init__ (V.TORCH_MODULE_ATTRS)
        return out

    def _factory_made(self, q: str, near: str | None, vals: tuple | None = None) -> list[str]:
        """An attribute's type as the analysis recorded it: a class, or a function of the project that makes the
        object (`self.block = make_block(kind)`): the classes it returns (several when it picks one), else the name
        as it is.  `vals`: the constants the call passes (ClassSummary.made_with): only the classes of the `return`s
        whose path conditions they do not make false (`make_block("quiet")`: not the `if kind == "loud":` one)."""
        if self.class_(q, near) is not None:
            return [q]
        hit = self.function(q, near)
        names = self._returned_names(hit)
        if vals is not None and names and len(names) > 1:
            picked = self._picked_classes(hit, vals)
            if picked is not None:
                return [n for n in names if n in picked] or names
        return names or [q]

    def _picked_classes(self, hit: tuple[FunctionSummary, ModuleSummary], vals: tuple) -> set[str] | None:
        """The classes of the `return`s of the factory `hit` that a call passing the constants `vals` may reach (its
        parameters' other values: their defaults), or None when a `return` is not an instance of classes named."""
        fs, mod = hit
        if fs.is_generator or fs.is_async or len(fs.returns_conds) != len(fs.returns_made):
            return None
        env = C.callee_env(vals, {}, fs.params, fs.is_method, fs.defaults)
        out: set[str] = set()
        for made, conds in zip(fs.returns_made, fs.returns_conds):
            if made is not None and (not isinstance(made, str) or not made.startswith("class:")):
                return None  # (what another function returns, a tuple: not picked here)
            if made is None or C.check(conds, env, lambda _attr: None) is None:
                continue
            for q in made[len("class:"):].split("|"):
                c = self.class_(q, mod.path)
                out.add(c[0].qualname if c is not None else q)
        return out

    def _self_made(self, class_q: str, method: str, near: str | None) -> list[str]:
        """The classes the method of an instance of class_q returns (their qualnames)."""
        return self._returned_names(self.find_method(class_q, method, near))

    def _returned_names(self, hit: tuple[FunctionSummary, ModuleSummary] | None) -> list[str]:
        """The qualnames of the classes the function `hit` returns (returned_classes), each once."""
        out: list[str] = []
        for q, qnear in (self.returned_classes(hit[0], hit[1], None) if hit is not None else ()):
            c = self.class_(q, qnear)
            name = c[0].qualname if c is not None else q
            if name not in out:
                out.append(name)
        return out

    def is_guard(self, q: str, _stack: frozenset = frozenset()) -> bool:
        if q in V.GUARD_FUNCTIONS:
            return True
        if q in self.c.guard_memo:
            return self.c.guard_memo[q]
        if q in _stack:
            return False
        res = False
        hit = self.function(q)
        if hit is not None and hit[0].guard_atoms is not None:
            res = all(self.is_guard(a, _stack | {q}) for a in hit[0].guard_atoms)
        self.c.guard_memo[q] = res
        return res

    def dead(self, dead_if) -> bool:
        return any(all(self.is_guard(a) for a in conj) for conj in dead_if)

    def returned_classes(self, fs: FunctionSummary, mod: ModuleSummary, item: str | None,
                         _depth: int = 0) -> list[tuple[str, str]]:
        """[(class qualname, the module path to resolve it from)] of what the factory `fs` returns: the whole
        value (`item` None) or one item of the tuple it returns (`item` its position), through the factories
        it returns the result of (`return create_model(...)`); several for a module chosen by an if/else or
        from a table of classes."""
        if item is None:
            if fs.returns_instance:
                return [(q, mod.path) for q in fs.returns_instance.split("|")]
            made = ("factory", fs.returns_factory) if fs.returns_factory else None
        else:
            i = int(item)
            made = fs.returns_items[i] if i < len(fs.returns_items) else None
        if made is None:
            return []
        if made[0] == "class":
            return [(made[1], mod.path)]
        hit = self.function(made[1], mod.path) if _depth < 4 else None
        return self.returned_classes(hit[0], hit[1], None, _depth + 1) if hit is not None else []

    def every_returned_class(self, desc: str, near: str, _depth: int = 0) -> list[str] | None:
        """The classes (their qualnames) of what the function `desc` names returns ("<q>"), or item i of the tuple
        it returns ("<q>:<i>"), when every `return` of it returns an instance of a class (`return Attn()`; one of
        several by an if/else or from a table of classes: the union), through the functions whose result it returns;
        None when one does not (what it returns is then not known; memoised)."""
        memo = self.c.memo.setdefault("every_returned_class", {})
        key = (desc, near)
        if key in memo:
            return memo[key]
        memo[key] = None  # (a recursion through the same function: not known)
        q, _, item = desc.partition(":")
        hit = self.function(q, near) if _depth < 8 else None
        got: list[str] | None = None
        if hit is not None and not hit[0].is_generator and not hit[0].is_async and hit[0].returns_made:
            got = []
            for made in hit[0].returns_made:
                if item:
                    made = made[int(item)] if isinstance(made, tuple) and int(item) < len(made) else None
                elif isinstance(made, tuple):
                    made = None
                classes = self._made_classes(made, hit[1].path, _depth) if made else None
                if classes is None:
                    got = None
                    break
                got.extend(c for c in classes if c not in got)
        self.c.memo.setdefault("every_returned_class", {})[key] = got
        return got

    def _made_classes(self, made: str, near: str, depth: int) -> list[str] | None:
        """The classes one `return` gives an instance of (FunctionSummary.returns_made's `made`), None when not
        known: a class the project resolves (or a library's: not a project function, which would be a call's
        result not known), or those a function returns."""
        if made.startswith("ret:"):
            return self.every_returned_class(made[4:], near, depth + 1)
        out = []
        for q in made[len("class:"):].split("|"):
            c = self.class_(q, near)
            if c is None and self.function(q, near) is not None:
                return None
            out.append(c[0].qualname if c is not None else q)
        return out

    # ---- what calls run ---------------------------------------------------------------------------------
    def module_call(self, class_q: str, near: str | None):
        """Calling an instance of class_q: nn.Module -> forward (+ hooks); otherwise __call__.
        Shared: do not mutate."""
        key = ("module_call", class_q, near)
        memo = self.c.memo
        if key not in memo:
            memo[key] = self._module_call(class_q, near)
        return memo[key]

    def _module_call(self, class_q: str, near: str | None):
        if self.class_(class_q, near) is None:
            return []
        out = []
        name = "forward" if self.is_nn_module(class_q, near) else "__call__"
        rep = self.replacement_targets(class_q, name, near)
        if rep is not None:  # `self.forward = types.MethodType(fast_forward, self)`
            out.extend(rep[0])
        else:
            m = self.find_method(class_q, name, near)
            if m is not None:
                out.append(m)
        out.extend(self.hooks_of(class_q, near))
        return out

    def hooks_of(self, class_q: str, near: str | None):
        out = []
        names = {cs.qualname for cs, _ in self.mro(class_q, near)}
        self.c.all_bodies()
        for mod in list(self.c.modules.values()):
            for owner, target in mod.hooks:
                okind, oq, oattr = owner
                owners = [oq] if okind == "class" else self.attr_types(oq, oattr, mod.path)
                if not names.intersection(self._class_qualnames(owners, mod.path)):
                    continue
                tkind, tq, tattr = target
                if tkind == "call":
                    hit = self.function(tq, mod.path)
                else:
                    hit = self.find_method(tq, tattr, mod.path)
                if hit is not None:
                    out.append(hit)
        return out

    def _class_qualnames(self, qs: Iterable[str], near: str | None) -> set[str]:
        out = set()
        for q in qs:
            c = self.class_(q, near)
            if c is not None:
                out.add(c[0].qualname)
        return out

    def resolve_edge(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """The functions a call edge of `mod` may run.  Shared: do not mutate."""
        key = ("edge", e.kind, e.target, e.attr, mod.path)
        memo = self.c.memo
        if key not in memo:
            memo[key] = self._resolve_edge(e, mod)
        return memo[key]

    def unfollowed(self, e: Edge, mod: ModuleSummary) -> bool:
        """A call in the user's code whose target is not in the analysed code (a package not followed, a
        module not found), so what it runs is not checked; not the standard library, NumPy or einops
        (Dynamo's to judge), nor a call a rule knows."""
        if e.kind != "call" or getattr(mod, "library", False) or self.resolve_edge(e, mod):
            return False
        return self.lookup(e.target, mod.path) is None and self._unknown_callee(e.target) and \
            not e.target.endswith(".apply") and not self._torch_method_of_bound(e.target, mod.path)

    def bound_call(self, q: str, near: str | None) -> list[tuple[FunctionSummary, ModuleSummary]] | None:
        """Calling `q`, a module-level instance of another module (`netD` after `from main import netD`, or
        `netD = dcgan.netD`; `torch.compile(netD)`): its class's forward (or __call__); None when `q` is no such
        instance."""
        bound = self.instance_binding(q, near)
        return None if bound is None else list(self.module_call(bound[1], near))

    def _torch_method_of_bound(self, q: str, near: str) -> bool:
        """`main.criterion(...)`, `main.netD.zero_grad()`, `main.optimizerD.step()`: a call of (or a method of) another
        module's module-level instance of a torch class, or a method a project nn.Module inherits from torch's: torch's
        code, Dynamo's to judge (the rules see it where they know it), not code the analysis failed to follow."""
        bound = self.instance_binding(q, near)
        if bound is not None:
            return bound[1].startswith("torch.")
        parent, _, name = q.rpartition(".")
        bound = self.instance_binding(parent, near) if parent else None
        if bound is None:
            return False
        cls = bound[1]
        if cls.startswith("torch."):
            return True
        return self.class_(cls, near) is not None and self.find_method(cls, name, near) is None and \
            self.is_nn_module(cls, near)

    def _unknown_callee(self, q: str) -> bool:
        """A call target nobody judges: no rule knows it, and it is not the standard library's, NumPy's or
        einops' (Dynamo's to judge: trace tables, torch._numpy, its einops support)."""
        if imported_names.is_imported_by_name(q):
            return True  # `model.step(x)`, `model = importlib.import_module(name)`: a module the analysis cannot tell
        return self.rules.call_rules(q) is None and q.partition(".")[0] not in _DYNAMO_OWN

    def _resolve_edge(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        near = mod.path
        k = e.kind
        if imported_names.is_imported_by_name(e.target):  # in each module the calls name (engine/imported_names.py)
            out: list[tuple[FunctionSummary, ModuleSummary]] = []
            for t in imported_names.targets(self, e.target, near) or ():
                out.extend(x for x in self.resolve_edge(replace(e, target=t), mod) if x not in out)
            return out
        if k == "call":
            r = self.lookup(e.target, near)
            if r is None and (bound := self.bound_call(e.target, near)) is not None:
                return bound
            if r is None:
                parent, _, last = e.target.rpartition(".")
                if last == "apply" and parent and self.class_(parent, near) and \
                        self.is_autograd_function(parent, near):
                    m = self.find_method(parent, "forward", near)
                    return [m] if m else []
                if self._unknown_callee(e.target):  # (a known break is reported, not "unresolved")
                    self.unresolved_calls[e.target] = self.unresolved_calls.get(e.target, 0) + 1
                return []
            if r[0] == "function":
                return [(r[1], r[2])]
            if r[0] == "class":
                m = self.find_method(r[1].qualname, "__init__", r[2].path)
                return [m] if m else []
            return []
        if k == "method":
            rep = self.replacement_targets(e.target, e.attr or "", near)
            if rep is not None and rep[0]:  # replaced on the instance, or by a wrapper in the class body
                return list(rep[0])
            if e.attr == "apply" and self.is_autograd_function(e.target, near):
                m = self.find_method(e.target, "forward", near)
            else:
                m = self.find_method(e.target, e.attr or "", near)
            if m is not None:
                # `self.loss_function(...)`, a @property: its getter runs, then what it returns is called
                return [m, *self.property_results(e, mod)]
            # self.sub(x) where self.sub = Sub(...): calling a module held in an attribute; calling an
            # nn.Sequential (a container attribute) calls each of its modules
            out = []
            types = self.attr_types(e.target, e.attr or "", near)
            types += [t for t in self.attr_types(e.target, e.attr or "", near, containers=True) if t not in types]
            for t in types:
                out.extend(self.module_call(t, near))
            return out
        if k == "super":
            m = self.find_method(e.target, e.attr or "", near, skip_first=True)
            return [m] if m else []
        if k == "module_call":
            return self.module_call(e.target, near)
        if k == "factory_call":
            hit = self.function(e.target, near)
            made = self.returned_classes(hit[0], hit[1], e.attr) if hit is not None else []
            if made:
                out = []
                for q, qnear in made:
                    out.extend(x for x in self.module_call(q, qnear) if x not in out)
                return out
            return self.registry_targets(e, mod) if e.attr is None else []
        if k == "registry_call":
            return self.registry_targets(e, mod)
        if k in ("attr_call", "item_call"):
            out = []
            types = self.attr_types(e.target, e.attr or "", near, containers=(k == "item_call"))
            if k == "item_call":
                types += [t for t in self.attr_types(e.target, e.attr or "", near) if t not in types]
            for t in types:
                out.extend(self.module_call(t, near))
            if k == "attr_call" and not types:
                # self.fn = some_function; self.fn(x)
                pass
            return out
        if k == "attr_method":
            attr, _, meth = (e.attr or "").partition(".")
            out = []
            for t in self.attr_types(e.target, attr, near):
                m = self.find_method(t, meth, near)
                if m:
                    out.append(m)
            return out
        return []

    def registry_targets(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """Calling what a registry's lookup returned: `fn = ATTENTION.get_interface(key, default); fn(...)`
        (a method of a class holding a class-level dict of functions) or `ATTENTION[key](...)`: any of
        the functions in the class's dicts."""
        if e.kind == "factory_call":
            hit = self.function(e.target, mod.path)
            cls = hit[0].class_qualname if hit is not None else None
            near = hit[1].path if hit is not None else mod.path
            if hit is None:  # `ATTENTION.get_interface` with ATTENTION a module-level instance
                bound = self.instance_binding(e.target.rpartition(".")[0], mod.path)
                cls = bound[1] if bound is not None else None
        else:
            cls, near = e.target, mod.path
        if not cls:
            return []
        out = []
        for cs, cmod in self.mro(cls, near):
            for fns in cs.registries.values():
                for q in fns:
                    f = self.function(q, cmod.path)
                    if f is not None and f not in out:
                        out.append(f)
        return out

    def property_results(self, e: Edge, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary]]:
        """The functions a @property getter returns, when a call `self.name(...)` calls its value: those
        of the module-level dicts it returns an entry of (`return LOSS_MAPPING[key]`)."""
        if e.kind != "method" or not any(e.attr in cs.properties for cs, _ in self.mro(e.target, mod.path)):
            return []
        m = self.find_method(e.target, e.attr or "", mod.path)
        out: list = []
        for reg in (m[0].returns_registry if m is not None else ()):
            owner = self.c.module(reg.rpartition(".")[0], m[1].path)
            if owner is None and self.c.module_loader is not None:
                self.lookup(reg, m[1].path)  # loads a followed library's module
                owner = self.c.module(reg.rpartition(".")[0], m[1].path)
            for q in (owner.registries.get(reg.rpartition(".")[2], ()) if owner is not None else ()):
                f = self.function(q, owner.path)
                if f is not None and f not in out:
                    out.append(f)
        return out

    def wrappers(self, fs: FunctionSummary, mod: ModuleSummary) -> list[tuple[FunctionSummary, ModuleSummary,
                                                                             Span]]:
        """The wrapper functions fs's decorators replace it by (they run first when it is called, and
        Dynamo traces them): `def deco(f): def wrapper(...): ...; return wrapper`, decorator factories
        (`@deco(arg)`), and the optional-argument idiom `def deco(f=None, *, opt=1)` (memoised)."""
        if not fs.wrapped_by:
            return []
        key = ("wrappers", fs.qualname, mod.path)
        memo = self.c.memo
        if key not in memo:
            out = []
            for q, called, span in fs.wrapped_by:
                hit = self.function(q, mod.path)
                if hit is None:
                    continue
                # `@d(...)`: d(...) returns the decorator (its local functions); `@d`: d is the decorator
                decorators = [self._local_fn(g, hit[1]) for k, g in hit[0].returns_fns if k == "local"] \
                    if called else [hit]
                for dec in decorators:
                    if dec is not None:
                        out.extend((w, wmod, span) for w, wmod in self._applied(dec, 0))
            memo[key] = out
        return memo[key]

    def _local_fn(self, q: str, mod: ModuleSummary) -> tuple[FunctionSummary, ModuleSummary] | None:
        fs = mod.functions.get(q)
        return (fs, mod) if fs is not None else None

    def _applied(self, dec: tuple[FunctionSummary, ModuleSummary], depth: int):
        """What decorator `dec` returns when applied to a function: its local function (the wrapper),
        or, for `return inner(f)`, what inner returns -- preferring that form, which is how the
        optional-argument idiom handles a bare `@d`."""
        dfs, dmod = dec
        calls = [g for k, g in dfs.returns_fns if k == "call"]
        if calls and depth < 4:
            for g in calls:
                inner = self._local_fn(g, dmod)
                if inner is not None:
                    yield from self._applied(inner, depth + 1)
            return
        for k, g in dfs.returns_fns:
            w = self._local_fn(g, dmod) if k == "local" else None
            if w is not None:
                yield w

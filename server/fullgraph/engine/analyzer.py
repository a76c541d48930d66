"""One function body (or a module's top level) walked in statement order: names resolved through
imports, values tracked, rule events dispatched, and what the project needs recorded in the module's
summary.  engine/module.py runs it over a module (ModuleAnalyzer).

The analyzer never imports or runs the code it reads.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
from typing import TYPE_CHECKING

from ..positions import Span
from . import values as V
from .assignments import AssignmentsMixin
from .branch_made import made_in_branches, test_conds
from .calls import CallsMixin
from .conditions_recorded import PathCondsMixin
from .definitions import DefinitionsMixin
from .event import Event, Report
from .expressions import ExpressionsMixin
from .nodes import leaves_early, walk
from .scopes import scope_facts
from .summary import Edge, FunctionSummary, IterUse, Site
from .tensors_made import layout_results
from .values import U, Val

if TYPE_CHECKING:
    from .module import ModuleAnalyzer

__all__ = ["Event", "FunctionAnalyzer"]

_BUILTINS = frozenset(dir(builtins))
_BUILTIN_VALS = {name: V.ref("builtins." + name) for name in _BUILTINS}


_TERMINATORS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _count_edge_case(test: ast.AST) -> bool:
    """`n == 0`, `len(spans) < 1`: a comparison of a value with a number."""
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and \
        isinstance(test.comparators[0], ast.Constant) and type(test.comparators[0].value) in (int, float)


def _empty_branch(it: ast.AST) -> bool | None:
    """`X if cond else ()` (False: the else branch is the empty literal) / `() if cond else X` (True); None
    for any other iterable."""
    if not isinstance(it, ast.IfExp):
        return None
    def empty(n: ast.AST) -> bool:
        return isinstance(n, (ast.Tuple, ast.List, ast.Set)) and not n.elts or \
            isinstance(n, ast.Dict) and not n.keys
    if empty(it.orelse) and not empty(it.body):
        return False
    if empty(it.body) and not empty(it.orelse):
        return True
    return None


def _ends_with(stmts: list[ast.stmt], kinds) -> bool:
    return bool(stmts) and isinstance(stmts[-1], kinds)


class FunctionAnalyzer(ExpressionsMixin, CallsMixin, PathCondsMixin, DefinitionsMixin, AssignmentsMixin):
    """Walks one function body (or the module body) in statement order."""

    def __init__(self, mod: ModuleAnalyzer, parent: "FunctionAnalyzer | None", node: ast.AST, qualname: str,
                 cls: str | None, module_level: bool = False):
        self.mod = mod
        self.rules = mod.rules
        self.parent = parent
        self.node = node
        self.qualname = qualname
        self.cls = cls
        self.module_level = module_level
        self.env: dict[str, Val] = {}
        self.local_names: set[str] = set()
        self.params: dict[str, int] = {}  # param name -> position among call arguments
        self.dead_if: tuple = ()
        self.conds: tuple = ()  # path condition: Cond atoms of the enclosing `if`s (summary.Cond)
        self._call_vals: tuple | None = None  # (call node, argument values, keyword values) being analysed
        self.stmt: ast.stmt | None = None
        self.loop_block: int | None = None  # first line of the outermost enclosing `for` / `try`
        self.fs: FunctionSummary | None = None
        self._returns: list[ast.AST | None] = []
        self._lambda_count = 0
        self.tuple_vals: list = []  # the items of the last tuple expression evaluated (engine/expressions.py)
        # local containers given a tensor: name -> "dict" (`out[k] = t`) or "list" (`xs.append(t)`)
        self._reassigned: frozenset = frozenset()  # names the function's body binds (analyze_function)
        self._rebound: set[str] = set()  # names bound so far in statement order (loops: their whole body)
        self._loops_counted: set[int] = set()  # loops whose names _rebound has (inside a loop counted before)
        self.tensor_holders: dict[str, str] = {}
        self._testing: ast.If | None = None  # the `if` whose test _branch_conds reads (conditions_recorded)
        self._global_facts: tuple | None = None  # conditions_recorded._local_facts, once per function
        self._kwargs_use: tuple | None = None  # conditions_recorded._kwargs_edits, once per function
        self._made_positions: tuple | None = None  # conditions_recorded._tensor_param: tensors_made.positions, once
        self._with_item: ast.AST | None = None  # the context expression of the `with` being entered
        # name -> (class, Edge.vals) of the construction it holds (`m = Metric(num_classes=3)`)
        self.constructions: dict[str, tuple[str, tuple]] = {}
        # name -> the strings a `for` over a literal tuple or list of them gives it (`for name in ("a", "b")`)
        self.literal_items: dict[str, tuple] = {}
        # name -> (attr, the body may leave early): the index of the enclosing `for name, x in enumerate(self.<attr>)`,
        # in its body (not rebound there): a test of it holds on some iteration when one of the element indices passes
        # it (conditions_recorded)
        self.loop_index: dict[str, tuple[str, bool]] = {}
        # id of a conditional expression choosing between instances -> the values of its two branches
        # (`Routed() if sparse else Dense()`: engine/attr_choices.py)
        self._ifexp_vals: dict[int, tuple] = {}
        # name -> the path condition under which an `if` branch made it a tensor (engine/branch_made.py)
        self.made: dict[str, tuple] = {}
        self._bound: list[str] = []  # the names bound, in order (which branch of an `if` bound a name)

    # ---- set-up --------------------------------------------------------------------------------
    def analyze_module(self, body: list[ast.stmt]) -> None:
        self.block(body)

    def analyze_function(self) -> None:
        node = self.node
        mod = self.mod
        is_lambda = isinstance(node, ast.Lambda)
        name = "<lambda>" if is_lambda else node.name
        span = mod.span(node)
        if is_lambda:
            name_span = span
        else:
            # the name: after "def "/"async def " on the def line
            line = mod.lines.line(node.lineno - 1)
            col = line.find(node.name, line.find("def") + 3 if "def" in line else 0)
            name_span = Span.of(node.lineno - 1, max(col, 0), node.lineno - 1, max(col, 0) + len(node.name))
        fs = FunctionSummary(qualname=self.qualname, name=name, span=span, name_span=name_span,
                             class_qualname=self.cls, is_async=isinstance(node, ast.AsyncFunctionDef))
        deco = mod.decorations.get(self.qualname)
        if deco is not None:
            fg, is_compiled, fs.disabled, fs.opaque, fs.wrapped_by = deco
            fs.compiled = fg if is_compiled else None
        self.fs = fs
        mod.summary.functions[self.qualname] = fs
        args = node.args
        all_params = [*args.posonlyargs, *args.args]
        decorators = [] if is_lambda else node.decorator_list
        is_static = bool(decorators) and any(self._decorator_q(d) == "builtins.staticmethod" for d in decorators)
        is_classmethod = bool(decorators) and any(self._decorator_q(d) == "builtins.classmethod" for d in decorators)
        first_is_self = self.cls is not None and not is_static and bool(all_params)
        fs.is_method = first_is_self and not is_classmethod
        for i, a in enumerate(all_params):
            fs.params.append(a.arg)
            if i == 0 and first_is_self:
                self.env[a.arg] = Val(V.REF, self.cls) if is_classmethod else Val(V.SELF, self.cls)
                continue
            self.params[a.arg] = i - (1 if first_is_self else 0)
            self.env[a.arg] = self._annotation_val(a.annotation)
            if self.env[a.arg].kind in (V.TENSOR, V.UNKNOWN):
                arrives = V.of_tensor_kind(mod.tensors.get(self.qualname, {}).get(a.arg))
                if arrives is not None:  # what the callers pass (Arrivals.with_tensor_params)
                    self.env[a.arg] = arrives
        fs.positional = len(fs.params)
        fs.required = fs.positional - len(args.defaults)
        fs.annotated = frozenset(a.arg for a in [*all_params, *args.kwonlyargs] if a.annotation is not None)
        for a in [args.vararg, *args.kwonlyargs, args.kwarg]:
            if a is not None:
                fs.params.append(a.arg)
                self.env[a.arg] = U
        fs.vararg = args.vararg.arg if args.vararg is not None else None
        fs.kwarg = args.kwarg.arg if args.kwarg is not None else None
        if not is_lambda:
            for a, d in [*zip(all_params[len(all_params) - len(args.defaults):], args.defaults),
                         *zip(args.kwonlyargs, args.kw_defaults)]:
                if isinstance(d, ast.Constant):
                    fs.defaults[a.arg] = d.value
        body = [node.body] if is_lambda else node.body
        generator = False
        if not is_lambda:
            mod = self.mod
            plain = mod.plain_exprs or mod.plain_in(node)
            declared, generator = scope_facts(body, self.local_names, plain=plain,
                                              walrus=not plain and mod.walrus_in(node))
            self.local_names -= declared
            self._reassigned = frozenset(self.local_names)  # what the body binds, parameters not yet added
        self.local_names.update(fs.params)
        fs.decorator_lines = [d.lineno - 1 for d in decorators]
        if is_lambda:
            v = self.value(node.body)
            self._returns.append(node.body)
            del v
        else:
            fs.is_generator = generator
            if not self.block(node.body) and fs.returns_shapes:
                fs.returns_shapes.append(None)  # the end is reached: returns None
                fs.returns_made.append(None)
                fs.returns_conds.append(())
        self._finish_guard()
        if not is_lambda and len(fs.params) == 1 and fs.returns_value and not fs.is_method:
            fs.layout_results = layout_results(node, self.resolve_dotted_node)

    def _annotation_val(self, ann: ast.AST | None) -> Val:
        if ann is None:
            return U
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):  # "torch.Tensor", "Optional[Tensor]"
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return U
        # Optional[T], Union[T, None], T | None: what the function sees when an argument is passed
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return self._optional_of([ann.left, ann.right])
        if isinstance(ann, ast.Subscript):
            q = self.resolve_dotted_node(ann.value)
            if q in ("typing.Optional", "typing_extensions.Optional"):
                return self._annotation_val(ann.slice)
            if q in ("typing.Union", "typing_extensions.Union"):
                return self._optional_of(list(ann.slice.elts) if isinstance(ann.slice, ast.Tuple) else [ann.slice])
            return U
        q = self.resolve_dotted_node(ann)
        if q in V.TENSOR_TYPES:
            return V.TENSOR_V
        if q and not q.startswith(("builtins.", "typing.", "torch.", "collections.")) and \
                q.rsplit(".", 1)[-1][:1].isupper():
            return Val(V.INSTANCE, q)  # `attn: Attention`: the project checks it is a class
        return U

    def _optional_of(self, parts: list[ast.AST]) -> Val:
        """`T | None` / `Union[T, None]`: T's value when every other member is None."""
        real = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is None)]
        return self._annotation_val(real[0]) if len(real) == 1 else U

    def _decorator_q(self, d: ast.AST) -> str | None:
        target = d.func if isinstance(d, ast.Call) else d
        return self.resolve_dotted_node(target)

    def _finish_guard(self) -> None:
        fs = self.fs
        if fs is None or not self._returns:
            return
        guard_atoms = None
        for r in self._returns:
            if r is None or (isinstance(r, ast.Constant) and r.value in (False, None)):
                continue
            t, atoms = self.truth(r)
            if t == "T":
                guard_atoms = (guard_atoms or frozenset()) | atoms
            else:
                return
        fs.guard_atoms = guard_atoms

    # ---- names ---------------------------------------------------------------------------------
    def lookup(self, name: str) -> Val:
        v = self.env.get(name)  # (a Val is never None)
        if v is not None:
            return v
        if name in self.local_names and not self.module_level:
            return U
        p = self.parent
        while p is not None:
            v = p.env.get(name)
            if v is not None:
                return v
            if name in p.local_names and not p.module_level:
                return U
            p = p.parent
        b = self.mod.bindings.get(name) if not self.module_level else None
        if b is not None:
            return b
        v = _BUILTIN_VALS.get(name)
        return U if v is None else v

    def resolve_dotted(self, dotted: str) -> str | None:
        head, _, rest = dotted.partition(".")
        v = self.lookup(head)
        if v.kind != V.REF:
            return None
        return V.canonical(f"{v.q}.{rest}" if rest else v.q)

    def resolve_dotted_node(self, node: ast.AST) -> str | None:
        """Qualified name of a Name/Attribute chain, without recording events."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        v = self.lookup(node.id)
        if v.kind != V.REF:
            return None
        parts.append(v.q)
        return V.canonical(".".join(reversed(parts)))

    def bind(self, name: str, v: Val) -> None:
        self.env[name] = v
        self._rebound.add(name)
        self._bound.append(name)
        if self.made:
            self.made.pop(name, None)
        if self.literal_items:
            self.literal_items.pop(name, None)

    def _loop_rebinds(self, loop: ast.stmt) -> None:
        """A loop's tests see what its body assigns on the previous iteration: count it as rebound
        before walking the body.  (The loops inside it: their names are counted with it.)  Only the
        parameters matter (_param_untouched): a body that rebinds none has nothing to count."""
        if id(loop) in self._loops_counted or self.fs is None or self._reassigned.isdisjoint(self.fs.params):
            return
        rebound = self._rebound
        for n in walk(loop):
            t = type(n)
            if t is ast.Name:
                if type(n.ctx) is ast.Store:
                    rebound.add(n.id)
            elif t is ast.For or t is ast.While or t is ast.AsyncFor:
                self._loops_counted.add(id(n))

    # ---- recording -----------------------------------------------------------------------------
    def site(self, code: str, node: ast.AST, message: str, callee: str | None = None,
             data: dict | None = None, requires: tuple[str, str, str] | None = None) -> None:
        if self.fs is None:
            return
        stmt = self.stmt if self.stmt is not None else node
        self.fs.sites.append(Site(code=code, span=self.mod.span(node), message=message,
                                  stmt=self.mod.span(stmt), dead_if=self.dead_if, callee=callee,
                                  data=data or {}, requires=requires, conds=self.conds, block=self.loop_block))

    def edge(self, kind: str, target: str, attr: str | None, node: ast.AST, args=(), kwargs=()) -> None:
        if self.fs is None or not target:
            return
        self.fs.edges.append(Edge(kind=kind, target=target, attr=attr, span=self.mod.span(node),
                                  text=self.mod.text_of(node.func if isinstance(node, ast.Call) else node),
                                  dead_if=self.dead_if, args=args, kwargs=kwargs, conds=self.conds,
                                  vals=self._passed(node, run=True) if isinstance(node, ast.Call) else (),
                                  block=self.loop_block, with_item=node is self._with_item))

    # ---- path conditions -----------------------------------------------------------------------

    def dispatch(self, ev: Event, rules, requires: tuple[str, str, str] | None = None) -> None:
        """Run `rules` on `ev`; their sites carry `requires` (Site.requires) when given."""
        for rule in rules:
            try:
                res = rule.check(ev)
            except Exception:  # a rule bug must not take the analysis down
                res = None
            if not res:
                continue
            if isinstance(res, str):
                res = Report(res)
            data = dict(res.data)
            callee = ev.q
            if ev.kind == "method" and ev.recv is not None and ev.recv.kind == V.INSTANCE:
                callee = f"{ev.recv.q}.{ev.method}"
                base = ev.node.func.value if isinstance(ev.node, ast.Call) and \
                    isinstance(ev.node.func, ast.Attribute) else None
                if isinstance(base, ast.Name) and base.id not in self.local_names and \
                        base.id in self.mod.bindings and (requires is None or requires[0] == "returns"):
                    # a module-level object: ignore_logging_functions.add(logger.info) names it so
                    data.setdefault("receiver", f"{self.mod.modname}.{base.id}\x00{ev.method}")
            self.site(rule.code, res.node or ev.node, res.message, callee=callee, data=data, requires=requires)

    # ---- guards --------------------------------------------------------------------------------
    def truth(self, node: ast.AST) -> tuple[str, frozenset]:
        """Truth value of `node` under torch.compile: "T", "F" or "U", assuming `atoms` are guards."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            t, a = self.truth(node.operand)
            return {"T": "F", "F": "T"}.get(t, "U"), a
        if isinstance(node, ast.BoolOp):
            parts = [self.truth(v) for v in node.values]
            want = "F" if isinstance(node.op, ast.And) else "T"
            for t, a in parts:
                if t == want:
                    return want, a
            if all(t != "U" for t, _ in parts):
                return ("T" if want == "F" else "F"), frozenset().union(*(a for _, a in parts))
            return "U", frozenset()
        if isinstance(node, ast.Name):
            v = self.lookup(node.id)
            if v.kind == V.GUARD:
                return ("F" if v.negated else "T"), v.atoms
            return "U", frozenset()
        if isinstance(node, ast.Call) and not node.args and not node.keywords:
            q = self.resolve_dotted_node(node.func)
            if q is None and isinstance(node.func, ast.Name):
                lv = self.lookup(node.func.id)
                if lv.kind == V.LOCALFN:
                    q = lv.q
            if q is None:
                return "U", frozenset()
            if q in V.GUARD_FUNCTIONS:
                return "T", frozenset()
            if q in V.FALSE_UNDER_COMPILE:
                return "F", frozenset()
            if q.startswith(("torch.", "builtins.")):
                return "U", frozenset()
            return "T", frozenset({q})  # true under compile if q is a guard function
        return "U", frozenset()

    def _with_dead(self, atoms: frozenset):
        return self.dead_if + (atoms,)

    @contextlib.contextmanager
    def _unresumable(self, s: ast.stmt):
        """Inside the body of `s` (a `for` or `try`) or a `with`'s context expression: Site/Edge.block is the
        outermost such statement (engine/frames.py: a break there is not resumed from)."""
        outer = self.loop_block
        if outer is None:
            self.loop_block = s.lineno - 1  # 0-based, as positions
        try:
            yield
        finally:
            self.loop_block = outer

    # ---- statements ----------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> bool:
        saved, saved_conds = self.dead_if, self.conds
        try:
            for s in stmts:
                if self.stmt_(s):
                    return True
            return False
        finally:
            self.dead_if, self.conds = saved, saved_conds

    def stmt_(self, s: ast.stmt) -> bool:
        """Analyse one statement; True when the rest of the block cannot run (under compile)."""
        prev = self.stmt
        if type(s) not in _COMPOUND:
            self.stmt = s
        try:
            return self._stmt(s)
        finally:
            self.stmt = prev

    def _stmt(self, s: ast.stmt) -> bool:
        t = type(s)
        if t is ast.Expr:
            self.value(s.value)
            return False
        if t is ast.Assign:
            v = self.value(s.value)
            for target in s.targets:
                self.assign(target, v, s.value)
            if self.module_level and isinstance(s.value, ast.Dict) and s.value.values:
                fns = [self.resolve_dotted_node(x) for x in s.value.values]
                if all(fns):  # LOSS_MAPPING = {"ForCausalLM": ForCausalLMLoss, ...}
                    keyed = all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in s.value.keys)
                    for target in s.targets:
                        if isinstance(target, ast.Name):
                            self.mod.summary.registries[target.id] = tuple(dict.fromkeys(fns))
                            if keyed:
                                self.mod.summary.registry_keys[target.id] = tuple(
                                    (k.value, f) for k, f in zip(s.value.keys, fns))
            return False
        if t is ast.AnnAssign:
            v = self.value(s.value) if s.value is not None else U
            if v.kind == V.UNKNOWN and isinstance(s.target, (ast.Name, ast.Attribute)):
                v = self._annotation_val(s.annotation)  # `self.attn: Attention = make(...)`
            self.assign(s.target, v, s.value)
            return False
        if t is ast.AugAssign:
            if isinstance(s.target, (ast.Attribute, ast.Subscript)):
                self._effect(s.target.value)
            rhs = self.value(s.value)
            cur = self.value(s.target) if not isinstance(s.target, ast.Name) else self.lookup(s.target.id)
            if isinstance(s.target, ast.Name):
                self.bind(s.target.id, self._binop(cur, rhs))
            return False
        if t is ast.Return:
            if s.value is not None:
                rv = self.value(s.value)
                reg = self._registry_read(s.value)
                if reg and self.fs is not None:
                    self.fs.returns_registry = (*self.fs.returns_registry, reg)
                if rv.kind == V.INSTANCE and rv.q and rv.attr in (None, "choice") and self.fs is not None:
                    # (a choice: "A|B"; several returns, `if kind == "loud": return Loud()` ... `return Quiet()`: each)
                    old = self.fs.returns_instance
                    self.fs.returns_instance = rv.q if not old or old == rv.q else \
                        "|".join(sorted({*old.split("|"), *rv.q.split("|")}))
                if rv.kind == V.INSTANCE and rv.q and rv.attr == "factory" and self.fs is not None:
                    self.fs.returns_factory = rv.q
                if isinstance(s.value, ast.Tuple) and self.fs is not None:
                    items = tuple(_made(v) for v in self.tuple_vals)
                    if any(items):
                        self.fs.returns_items = items
                if self.fs is not None:
                    if rv.kind == V.LOCALFN and rv.q:
                        self.fs.returns_fns.append(("local", rv.q))
                    elif isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name):
                        fv = self.lookup(s.value.func.id)
                        if fv.kind == V.LOCALFN and fv.q:
                            self.fs.returns_fns.append(("call", fv.q))
                if not (isinstance(s.value, ast.Constant) and s.value.value is None) and self.fs is not None:
                    self.fs.returns_value = True
                if self.fs is not None:
                    self.fs.returns_shapes.append(tuple(V.return_desc(v) for v in self.tuple_vals)
                                                  if isinstance(s.value, ast.Tuple) else V.return_desc(rv))
                    self.fs.returns_made.append(tuple(V.made_desc(v) for v in self.tuple_vals)
                                                if isinstance(s.value, ast.Tuple) else V.made_desc(rv))
                    self.fs.returns_conds.append(tuple(self.conds))
            elif self.fs is not None:
                self.fs.returns_shapes.append(None)
                self.fs.returns_made.append(None)
                self.fs.returns_conds.append(tuple(self.conds))
            self._returns.append(s.value)
            return True
        if t is ast.If:
            return self._if(s)
        if t in (ast.For, ast.AsyncFor):
            self._loop_rebinds(s)
            it = self.value(s.iter)
            self._iterate_hook(s.iter, it, "for")
            wrapper = self.resolve_dotted_node(s.iter.func) if isinstance(s.iter, ast.Call) else None
            if wrapper in ("builtins.enumerate", "builtins.zip"):
                # `for i, (x, y) in enumerate(loader)`: the loop steps what enumerate/zip wrap
                how = s.iter.func.id if isinstance(s.iter.func, ast.Name) else "for"
                for a in s.iter.args:
                    if isinstance(a, ast.Name):
                        self._iterate_hook(a, self.lookup(a.id), how)
            self.assign_loop_target(s.target, s.iter, it, wrapper)
            saved_conds = self.conds
            empty = _empty_branch(s.iter)
            if empty is not None:
                # `for t in (a, b) if cond else ():` the body runs only when `cond` picks the items
                body_conds, else_conds = self._branch_conds(s.iter.test)
                self.conds = saved_conds + (else_conds if empty else body_conds)
            index = self._enumerate_index(s)
            saved_index = self.loop_index.get(index[0]) if index else None
            if index:
                self.loop_index[index[0]] = index[1]
            with self._unresumable(s):
                self.block(s.body)
                if index:  # after the loop: the last index only
                    self.loop_index.pop(index[0], None)
                    if saved_index is not None:
                        self.loop_index[index[0]] = saved_index
                if self.literal_items and isinstance(s.target, ast.Name):
                    self.literal_items.pop(s.target.id, None)  # after the loop: its last item only
                self.conds = saved_conds
                self.block(s.orelse)
            return False
        if t is ast.While:
            self._loop_rebinds(s)
            self.cond(s.test)
            tr, atoms = self.truth(s.test)
            if not (tr == "F" and not atoms):
                self.block(s.body)
            self.block(s.orelse)
            return False
        if t in (ast.With, ast.AsyncWith):
            for item in s.items:
                ce = item.context_expr
                saved, self._with_item = self._with_item, ce
                # a break making the context manager cannot be resumed from: Dynamo runs the rest of the
                # function uncompiled (engine/frames.py; `with torch.backends.cudnn.flags(enabled=False):`)
                with self._unresumable(s):
                    try:
                        v = self.value(ce)
                    finally:
                        self._with_item = saved
                    self.hook("with", ce, v)
                made_elsewhere = self._made_elsewhere(ce, v)
                if made_elsewhere is not None:
                    # an object Dynamo did not create while tracing (a module global, an attribute, a
                    # parameter): it cannot enter it if its class is the project's (project.py, FG408);
                    # its __enter__ is then not traced
                    self.edge("outside_ctx", *made_elsewhere, ce)
                # a context manager of the project's: entering it runs its __enter__ (its __exit__ too, but
                # Dynamo reports a break there only when __enter__ did not break: not followed)
                elif v.kind == V.INSTANCE and v.q and v.attr is None and \
                        not v.q.startswith(("torch.", "builtins.", "logging.", "threading.", "contextlib.")):
                    self.edge("method", v.q, "__enter__", ce)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, self._enter_value(v), None)
            return self.block(s.body)
        if t is ast.Try or (hasattr(ast, "TryStar") and t is getattr(ast, "TryStar")):
            # Handlers run only when the body raised: error paths, not traced in the normal case.
            with self._unresumable(s):
                stop = self.block(s.body)
            if not stop:
                self.block(s.orelse)
            self.block(s.finalbody)
            return stop and not s.handlers
        if t is ast.Raise:
            return True
        if t is ast.Assert:
            # `assert tensor_cond` compiles on 2.13 (case assert_tensor_cond); the message only
            # runs on failure.
            self.value(s.test)
            return False
        if t in (ast.FunctionDef, ast.AsyncFunctionDef):
            self._def(s)
            return False
        if t is ast.ClassDef:
            if not self.module_level and self.fs is not None:
                # executed when the function runs; underlined: `class Name`
                head = ast.Name(id=s.name, lineno=s.lineno, col_offset=s.col_offset, end_lineno=s.lineno,
                                end_col_offset=s.col_offset + len(f"class {s.name}".encode()))  # ast: bytes
                self.hook("class_def", head, U)
            self._class(s)
            return False
        if t is ast.Import:
            for a in s.names:
                if a.asname:
                    self.bind(a.asname, Val(V.REF, V.canonical(a.name)))
                else:
                    head = a.name.split(".")[0]
                    self.bind(head, Val(V.REF, head))
                self.mod.summary.imports.add(a.name)
            return False
        if t is ast.ImportFrom:
            base = self.mod.absolute(s.module, s.level)
            if base:
                self.mod.summary.imports.add(base)
            for a in s.names:
                if a.name == "*":
                    if self.module_level:
                        self.mod.summary.star_imports.append(base)
                    continue
                q = V.canonical(f"{base}.{a.name}" if base else a.name)
                self.bind(a.asname or a.name, Val(V.REF, q))
                if base:
                    self.mod.summary.imports.add(f"{base}.{a.name}")
            return False
        if t in (ast.Break, ast.Continue):
            return True
        if _is_match(s):
            self.value(s.subject)
            for case in s.cases:
                if case.guard is not None:
                    self.cond(case.guard)
                self.block(case.body)
            return False
        if t is ast.Delete:
            for target in s.targets:
                if isinstance(target, ast.Name):
                    self.env.pop(target.id, None)
            return False
        return False

    def _if(self, s: ast.If) -> bool:
        tr, atoms = self.truth(s.test)
        made = test_conds(s.test, self.env, self.made) if self.made else None
        if made is not None:  # a test on names an earlier branch made tensors: a break only when it ran
            outer = self.conds
            self.conds = made if made[:len(outer)] == outer else outer + tuple(a for a in made if a not in outer)
            try:
                test_val = self.cond(s.test)
            finally:
                self.conds = outer
        else:
            test_val = self.cond(s.test)
        body_dead = tr == "F"
        else_dead = tr == "T"
        # `if cond: raise ...` is an error path: not traced in the normal case.
        body_err = _ends_with(s.body, ast.Raise)
        else_err = _ends_with(s.orelse, ast.Raise)
        saved, saved_conds = self.dead_if, self.conds
        self._testing = s
        body_conds, else_conds = self._branch_conds(s.test)
        self._testing = None
        if test_val.kind in (V.TENSOR, V.DDSCALAR):
            # a branch on tensor data (itself a break, FG301/FG302): what it guards runs only when the
            # data says so
            text = self._test_text(s.test)
            body_conds, else_conds = (("data", text, "truth", True),), (("data", text, "truth", False),)
        stop_body = stop_else = False
        before = dict(self.env)
        body_ran = not (body_dead and not atoms) and not body_err
        start = len(self._bound)
        if body_ran:
            self.dead_if = self._with_dead(atoms) if body_dead else saved
            self.conds = saved_conds + body_conds
            stop_body = self.block(s.body)
        self.dead_if, self.conds = saved, saved_conds
        after_body = dict(self.env)
        mid = len(self._bound)
        else_ran = not (else_dead and not atoms) and not else_err
        if else_ran:
            self.dead_if = self._with_dead(atoms) if else_dead else saved
            self.conds = saved_conds + else_conds
            stop_else = self.block(s.orelse)
        self.dead_if, self.conds = saved, saved_conds
        if len(self._bound) != start:  # (something bound in a branch)
            made_in_branches(self.made, before, self.env, self._bound, (start, mid, len(self._bound)),
                             saved_conds + body_conds, saved_conds + else_conds)
        body_stops = stop_body or body_err
        else_stops = stop_else or else_err
        if body_ran and else_ran and not body_stops and not else_stops and not (body_dead or else_dead):
            self._join_module_choice(before, after_body)
        if body_stops and not else_stops:
            if body_err or _ends_with(s.body, ast.Return) and _count_edge_case(s.test):
                # `if bad_input: raise ...` validates, `if n == 0: return mask` leaves early on an edge
                # case of a count: no feature switch for what follows (`if hasattr(self, "_x"): return`
                # is one: it stays a condition)
                else_conds = tuple(a for a in else_conds if a[0] != "expr")
            # after `if <tensor test>: return`, the rest is the usual path, not a data condition
            else_conds = tuple(a for a in else_conds if a[0] != "data")
            self.conds = saved_conds + else_conds  # `if not flag: return`: the rest runs when flag holds
        elif else_stops and not body_stops and s.orelse:
            self.conds = saved_conds + tuple(a for a in body_conds if a[0] != "data")
        if else_dead and _ends_with(s.body, _TERMINATORS):
            # `if is_compiling(): return ...`: what follows runs only when not compiling
            if not atoms:
                return True
            self.dead_if = self._with_dead(atoms)
            return False
        if body_dead and s.orelse and _ends_with(s.orelse, _TERMINATORS):
            if not atoms:
                return True
            self.dead_if = self._with_dead(atoms)
            return False
        return body_stops and else_stops and bool(s.orelse)

    def _enumerate_index(self, s: ast.For) -> tuple[str, tuple[str, bool]] | None:
        """`for i, layer in enumerate(self.layers):` whose body never binds `i` -> ("i", ("layers", whether the body
        may leave the loop early: `break`, `return`, `raise`))."""
        it, target = s.iter, s.target
        if not (isinstance(it, ast.Call) and len(it.args) == 1 and not it.keywords and isinstance(target, ast.Tuple)
                and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                and self.resolve_dotted_node(it.func) == "builtins.enumerate"):
            return None
        a = it.args[0]
        if not (isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and self.lookup(a.value.id).kind == V.SELF):
            return None
        name = target.elts[0].id
        if any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for b in s.body
               for n in walk(b)):
            return None
        return name, (a.attr, leaves_early(s.body))

    def assign_loop_target(self, target: ast.expr, iter_node: ast.expr, it: Val, wrapper: str | None) -> None:
        """The names a `for` (statement or comprehension) binds, from what it iterates (`it`, the value of
        `iter_node`; `wrapper` the enumerate/zip it is called through)."""
        args = iter_node.args if isinstance(iter_node, ast.Call) else []
        inner = args[0] if wrapper == "builtins.enumerate" and len(args) == 1 else None
        if isinstance(inner, ast.Call) and self.resolve_dotted_node(inner.func) == "builtins.zip" and \
                isinstance(target, ast.Tuple) and len(target.elts) == 2 and \
                isinstance(target.elts[1], ast.Tuple) and not inner.keywords and \
                len(target.elts[1].elts) == len(inner.args):
            # for i, (conv, norm) in enumerate(zip(self.convs, self.norms)): each an element of its own
            self.assign(target.elts[0], U, None)
            self._assign_elements(target.elts[1].elts, inner.args)
        elif wrapper == "builtins.enumerate" and len(args) == 1 and isinstance(target, ast.Tuple) and \
                len(target.elts) == 2:
            # for i, layer in enumerate(self.layers): the second name is an element of the container
            self.assign(target.elts[0], U, None)
            self.assign(target.elts[1], self._element_of(self._container_of(args[0]), args[0]), None)
        elif wrapper == "builtins.zip" and isinstance(target, ast.Tuple) and not iter_node.keywords and \
                len(args) == len(target.elts):
            # for b, s in zip(boxes, scores): each name is an element of its sequence
            self._assign_elements(target.elts, args)
        else:
            self.assign(target, self._element_of(it, iter_node), None)
            if isinstance(target, ast.Name) and isinstance(iter_node, (ast.Tuple, ast.List)) and iter_node.elts and \
                    all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in iter_node.elts):
                self.literal_items[target.id] = tuple(e.value for e in iter_node.elts)

    def _assign_elements(self, targets: list[ast.expr], seqs: list[ast.expr]) -> None:
        """`for (a, b) in zip(xs, ys)`: each target is an element of its sequence."""
        for t_, a in zip(targets, seqs):
            self.assign(t_, self._element_of(self._container_of(a), a), None)

    def _join_module_choice(self, before: dict, after_body: dict) -> None:
        """`if sparse: model = SpGAT(...) else: model = GAT(...)`: after the `if`, `model` is either
        class (the walk takes both, as for a container of them).  Only objects of known classes are
        joined; an object one path makes while the other leaves a value the analysis does not know the
        making of (`model = cls(**kw)` with `cls` a parameter, then `if features: model =
        Wrapper(model)`) is not known after the `if` (the branch's object alone would walk a class the
        call may never make); any other value keeps the last branch's (the analysis walks the branches
        in turn)."""
        for name, in_else in list(self.env.items()):
            old = before.get(name)
            in_body = after_body.get(name, old)
            if in_body is old and in_else is old:
                continue  # neither branch assigned it
            if in_else is after_body.get(name):  # the else branch did not assign it
                in_else = old
            if in_body is None or in_else is None or in_body == in_else:
                continue
            classes: set[str] = set()
            for v in (in_body, in_else):
                if v.kind != V.INSTANCE or not v.q or v.attr not in (None, "choice"):
                    if _made_object(in_body) != _made_object(in_else):
                        self.env[name] = U
                    break
                classes.update(v.q.split("|"))
            else:
                if len(classes) > 1:
                    self.env[name] = Val(V.INSTANCE, "|".join(sorted(classes)), attr="choice")

    def hook(self, name: str, node: ast.AST, v: Val) -> None:
        rules = self.rules.hooks.get(name)
        if rules:
            self.dispatch(Event(kind=name, node=node, fn=self, value=v), rules)

    def _iterate_hook(self, node: ast.AST, v: Val, how: str) -> None:
        if isinstance(node, ast.Name) and node.id in self.params and self.fs is not None \
                and self.env.get(node.id, U).kind == V.UNKNOWN and self._param_untouched(node.id):
            self.fs.iter_uses.append(IterUse(param=node.id, index=self.params[node.id],
                                             span=self.mod.span(node), how=how, dead_if=self.dead_if))

    def _param_untouched(self, name: str) -> bool:
        """The parameter `name` is never rebound in the function's own scope."""
        return name not in self._reassigned


def _made_object(v: Val) -> bool:
    """An object the analysis knows the making of: an instance of a class (or of one of a choice of
    classes), or what a factory returns."""
    return v.kind == V.INSTANCE and bool(v.q) and (v.attr in (None, "choice") or
                                                  (v.attr or "").startswith("factory"))


def _made(v: Val) -> tuple[str, str] | None:
    """What a returned value is made by: ("class", q) an instance of q, ("factory", q) the factory q's result."""
    if v.kind == V.INSTANCE and v.q and v.attr is None:
        return ("class", v.q)
    if v.kind == V.INSTANCE and v.q and v.attr == "factory":
        return ("factory", v.q)
    return None


# statements holding other statements: a site's statement is the innermost simple one around it
_COMPOUND = frozenset(getattr(ast, n) for n in ("If", "For", "AsyncFor", "While", "With", "AsyncWith", "Try",
                                                "FunctionDef", "AsyncFunctionDef", "ClassDef", "Match")
                      if hasattr(ast, n))


def _is_match(s: ast.AST) -> bool:
    return type(s).__name__ == "Match"

"""Path conditions, recorded: the flag tests of the `if`s around a
statement (summary.Cond atoms), and what a call passes (Edge.vals) for the project to evaluate them
with (engine/conditions_evaluated.py).

A mixin of FunctionAnalyzer (engine/analyzer.py).
"""
from __future__ import annotations

import ast

from . import values as V
from .kwargs_edits import KwargsEdits, kwargs_edits
from .nodes import walk
from .tensors_made import kept_param, positions, tensor_test


# a flag compared with a constant: the Cond atom's test ("cmp", operator, constant)
COMPARISONS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def _stores(node: ast.AST) -> set[str]:
    """The names a statement or expression binds (nested ones included)."""
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _inside(node: ast.AST, outer: ast.expr) -> bool:
    """Is `node` (of the same tree) `outer` or a node of it?  (Spans of a tree nest: by its position.)"""
    start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    if start is None or end is None:
        return False
    return (outer.lineno, outer.col_offset) <= (start, node.col_offset) and \
        (end, node.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def _how(node: ast.AST) -> tuple[tuple, ast.AST] | None:
    """How a test reads the value it tests, and that value's node: ("none", is None?) for `x is None` / `x is not
    None`, ("cmp", operator, constant) for `x == 3`, else ("truth",) and the test itself; None for another
    comparison with a constant."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.comparators[0], ast.Constant):
        op, right = node.ops[0], node.comparators[0].value
        if isinstance(op, (ast.Is, ast.IsNot)) and right is None:
            return ("none", isinstance(op, ast.Is)), node.left
        if type(op) in COMPARISONS and isinstance(right, (int, float, str, bool)):
            return ("cmp", COMPARISONS[type(op)], right), node.left
        return None
    return ("truth",), node


def negated(atom: tuple) -> tuple:
    """The Cond atom that holds exactly when `atom` does not."""
    return atom[:3] + (not atom[3],)


class PathCondsMixin:
    """Atoms of path conditions and the values calls pass (FunctionAnalyzer's part that reads them)."""

    def _passed(self, node: ast.Call, run: bool = False) -> tuple:
        """Edge.vals: the constants, own parameters and instances of project or torch classes a call
        passes; ("**", ("star",)) when *args/**kwargs may pass more, and ("*fwd", ("param", name, k)) /
        ("kwarg", key, default) for a local taken from the function's `**kwargs` (`heads = kwargs.pop("heads", 1)`);
        ("**fwd", ("param", name[, removed, unsure])) when those stars are the function's own `*args` (the last
        positional argument, at position k) and `**kwargs`, passed on unchanged or less the keys popped before
        the call (removed; unsure: the keys it may have changed) (_forwarding).  With `run` (a call the walk
        follows), an argument with a value the analysis does not know is ("runarg", line, column, end line, end
        column), lines counted from the function's `def` line: the walk runs the function on its parameters' values
        for it (engine/tests_run.py's run_arg)."""
        if not node.args and not node.keywords:
            return ()
        out = list(self._forwarding(node))
        items = [*enumerate(node.args), *((kw.arg, kw.value) for kw in node.keywords)]
        vals = self._call_vals if self._call_vals is not None and self._call_vals[0] is node else None
        positional = True
        for key, a in items:
            if key is None or isinstance(a, ast.Starred):
                # `f(x, *args, **kwargs)`: what is passed by name or before the star still counts; the
                # rest is unknown ("**"), and positions after a *args are not known any more
                positional = positional and not isinstance(a, ast.Starred)
                if ("**", ("star",)) not in out:
                    out.append(("**", ("star",)))
                continue
            if isinstance(key, int) and not positional:
                continue
            v = None
            if vals is not None:
                v = vals[1][key] if isinstance(key, int) and key < len(vals[1]) else vals[2].get(key)
            if isinstance(a, ast.Constant):
                out.append((key, ("const", a.value)))
            elif isinstance(a, ast.Name) and a.id in self.literal_items:
                out.append((key, ("one_of", self.literal_items[a.id])))  # `for name in ("a", "b"): f(name)`
            elif isinstance(a, ast.Name) and self._is_flag_param(a.id):
                out.append((key, ("param", a.id)))
            elif v is not None and v.kind == V.INSTANCE and v.q and v.attr is None:
                out.append((key, ("inst", v.q)))
            elif v is not None and v.kind == V.INSTANCE and v.attr == "container":
                out.append((key, ("inst", V.NN_MODULE)))  # nn.Sequential(...) / nn.ModuleList(...)
            elif v is not None and v.kind == V.INSTANCE and v.q and v.attr in ("choice", "list"):
                # `Holder(Attn())` with Attn one of two classes, `Stack([Layer() for _ in range(n)])`: an instance
                # of one of them, or a list of such (read only by Arrivals.passed_classes; unknown to the rest)
                out.append((key, ("insts", v.q)))
            elif v is not None and v.kind == V.TENSOR:
                kind = V.tensor_kind(v)
                out.append((key, ("inst", V.SPARSE_CLASS if kind == "sparse" else V.MASK_CLASS if kind == "mask"
                                  else V.TENSOR_CLASS)))
            elif v is not None and (desc := V.return_desc(v)) is not None:
                out.append((key, ("ret", desc[4:])))  # what a function returns: the project tells (Arrivals)
            elif v is not None and v.kind == V.INSTANCE and v.q and (v.attr or "").startswith("method:"):
                out.append((key, ("field", v.q, v.attr[7:])))  # `cfg.debug`: the class's default, maybe
            elif (flag := self._flag(a)) is not None and flag[0] == "self":
                out.append((key, ("selfattr", flag[1])))  # `f(x, self.average)`: what the object holds
            elif isinstance(a, ast.Name) and (taken := self._taken_from_kwargs(a.id, node)) is not None:
                out.append((key, ("kwarg", *taken)))  # `heads = kwargs.pop("heads", 1)`: what the callers pass
            elif (index := self._index_passed(a)) is not None:
                out.append((key, index))  # `layer(x, is_last=(i == n - 1))` in `for i, layer in enumerate(...)`
            else:
                out.append((key, ("unknown",)))  # passed, with a value the analysis does not know
            if isinstance(a, ast.Name) and out[-1][1] in (("inst", V.TENSOR_CLASS), ("unknown",)) and \
                    (kept := self._tensor_param(a.id, guarded=True)) is not None:
                # `preds = preds.flatten()` ... `f(preds)`: the parameter's tensor, reshaped (engine/tensors_made.py);
                # with the guards of the other stores, which the walk finds false on the caller's values
                out[-1] = (key, ("like", kept[0], out[-1][1], kept[1]) if kept[1] else ("like", kept[0], out[-1][1]))
            if run and out[-1][1] in (("unknown",), ("inst", V.TENSOR_CLASS)) and not self.module_level and \
                    (def_line := getattr(self.node, "lineno", None)) is not None:
                # (a tensor: its shape, when the run computes it -- `hidden_states = layer(hidden_states)` in the
                # encoder's loop -- else the tensor as before)
                out[-1] = (key, ("runarg", a.lineno - def_line, a.col_offset, a.end_lineno - def_line,
                                 a.end_col_offset, *((out[-1][1],) if out[-1][1][0] == "inst" else ())))
        return tuple(out)

    def _index_passed(self, a: ast.AST) -> tuple | None:
        """Edge.vals ("loopidx", attribute, whether the loop may be left early, how, whether the index itself is
        passed) for the index of an enclosing `for i, x in enumerate(self.<attr>)` or a test of it (`i == 1`,
        `i > 0`) passed to a call: the walk reads the values of the iterations Dynamo unrolls (callee_env)."""
        if not self.loop_index or not isinstance(a, (ast.Name, ast.Compare)):
            return None
        if isinstance(a, ast.Name):
            got = self.loop_index.get(a.id)
            return ("loopidx", *got, ("truth",), True) if got is not None else None
        read = self._read_test(a)
        return (*read, False) if read is not None and read[0] == "loopidx" and read[3][0] == "cmp" else None

    def _forwarding(self, node: ast.Call) -> tuple:
        """The "*fwd"/"**fwd" Edge.vals of a call whose every star passes on the function's own `*args` / `**kwargs`
        (not rebound; `**kwargs` changed only by pops and setdefaults of literal keys, which "**fwd" lists:
        engine/kwargs_edits.py)."""
        fs = self.fs
        if fs is None or (fs.vararg is None and fs.kwarg is None):
            return ()
        stars = [a for a in node.args if isinstance(a, ast.Starred)]
        dstars = [kw.value for kw in node.keywords if kw.arg is None]
        if not stars and not dstars:
            return ()
        out = []
        if stars:
            a = stars[0].value
            if len(stars) > 1 or node.args[-1] is not stars[0] or not isinstance(a, ast.Name) or \
                    a.id != fs.vararg or not self._is_flag_param(a.id):
                return ()
            out.append(("*fwd", ("param", a.id, len(node.args) - 1)))
        if dstars:
            a = dstars[0]
            if len(dstars) > 1 or not isinstance(a, ast.Name) or a.id != fs.kwarg or not self._is_flag_param(a.id):
                return ()
            edits = self._kwargs_edits()
            got = edits.around(node) if edits is not None else None
            if got is None:
                return ()
            # the keys popped before the call, and those it may have changed (engine/kwargs_edits.py)
            out.append(("**fwd", ("param", a.id, *got) if any(got) else ("param", a.id)))
        return tuple(out)

    def _tensor_param(self, name: str, guarded: bool = False):
        """The parameter whose tensor (its dtype and device) the local `name` holds at the statement analysed:
        itself unchanged, or through reshaping and indexing (tensors_made.kept_param); None otherwise.
        `guarded`: (the parameter, the guards of the stores that count only under them, kept_param's), or None."""
        if self._is_flag_param(name):
            return (name, ()) if guarded else name
        if self.fs is None or self.module_level or name not in self.fs.params:
            return None
        stmt = self._testing if self._testing is not None else self.stmt
        if stmt is None:
            return None
        if self._made_positions is None:
            self._made_positions = positions(self.node)
        got = kept_param(self.fs.params, name, stmt, self._made_positions, self._param_guard if guarded else None)
        if guarded or got is None:
            return got
        return got[0] if not got[1] else None

    def _param_guard(self, test: ast.AST) -> tuple | None:
        """The Cond atoms on the function's own parameters that hold when `test` is true (kept_param's guard), or
        None (`not torch.jit.is_scripting() and num_sampled_nodes_per_hop is not None`: the second)."""
        atoms = tuple(a for a in self._branch_conds(test)[0] if a[0] == "param")
        return atoms or None

    def _taken_from_kwargs(self, name: str, call: ast.Call) -> tuple[str, tuple] | None:
        """(key, default) when the local `name` holds `kwargs.pop(key, default)` at `call` (KwargsEdits.taken_value)."""
        if self.fs is None or self.fs.kwarg is None or self.module_level or name in self.fs.params or \
                not self._is_flag_param(self.fs.kwarg):
            return None
        edits = self._kwargs_edits()
        return edits.taken_value(name, call) if edits is not None else None

    def _kwargs_edits(self) -> KwargsEdits | None:
        """What the function does to its `**kwargs` before passing it on (once per function; None: not followed)."""
        if self._kwargs_use is None:
            self._kwargs_use = (kwargs_edits(self.node, self.fs.kwarg),)
        return self._kwargs_use[0]

    def _is_flag_param(self, name: str) -> bool:
        """A parameter whose value at a test is the value passed in: not rebound before the test
        (`if encoder_outputs is None: encoder_outputs = self.encoder(...)` tests what the caller passed)."""
        return self.fs is not None and name in self.fs.params and name not in self._rebound and \
            name in self.env and self.env[name].kind not in (V.SELF, V.REF)

    def _flag(self, node: ast.AST) -> tuple | None:
        """(kind, name) of a flag the analysis can evaluate per call: a parameter or `self.attr`."""
        if isinstance(node, ast.Name) and self._is_flag_param(node.id):
            return ("param", node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                self.lookup(node.value.id).kind == V.SELF:
            return ("self", node.attr)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and \
                isinstance(node.value.value, ast.Name) and self.lookup(node.value.value.id).kind == V.SELF:
            return ("self", f"{node.value.attr}.{node.attr}")  # `self.config.use_cache`: a field of it
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and \
                self.lookup("getattr").kind == V.REF and len(node.args) in (2, 3) and \
                isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            obj = self._flag(node.args[0]) if isinstance(node.args[0], ast.Attribute) else None
            if isinstance(node.args[0], ast.Name) and self.lookup(node.args[0].id).kind == V.SELF:
                return ("self", node.args[1].value)  # getattr(self, "name", default)
            if obj is not None and obj[0] == "self" and "." not in obj[1]:
                return ("self", f"{obj[1]}.{node.args[1].value}")  # getattr(self.config, "name", default)
        return None

    def _atom(self, node: ast.AST) -> tuple | None:
        """The Cond atom `node` is true exactly when, or None for a compile guard.  A test that is no
        flag is kept as its text ("expr": the project decides what an unknown test means)."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            a = self._atom(node.operand)
            return negated(a) if a else None
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            f = self._flag(node.left)
            if f:
                return (*f, self._or_default(node.left, f, "none"), isinstance(node.ops[0], ast.Is))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARISONS and \
                isinstance(node.comparators[0], ast.Constant):
            f = self._flag(node.left)
            if f:  # `self.layerdrop > 0.0`, `mode == "train"`
                return (*f, self._or_default(node.left, f, ("cmp", COMPARISONS[type(node.ops[0])],
                                                            node.comparators[0].value)), True)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" and \
                len(node.args) == 2 and not node.keywords and self.lookup("isinstance").kind == V.REF:
            f = self._flag(node.args[0])
            cls = self.resolve_dotted_node(node.args[1])
            if f and f[0] == "param" and cls:  # `isinstance(edge_index, Tensor)`: what the call passes decides
                return (*f, ("isinstance", cls), True)
        f = self._flag(node)
        if f:
            return (*f, self._or_default(node, f, "truth"), True)
        if self.truth(node)[0] != "U":
            return None  # a compile guard: dead_if's business
        return ("expr", self._test_text(node), self._read_test(node) or self._run_test(node) or "truth", True)

    def _run_test(self, node: ast.AST) -> tuple | None:
        """("run", line, column, end line, end column) of a test, or an operand of the test, of the `if` being
        analysed (lines counted from the function's `def` line, as "either"'s): the project evaluates it by running
        the function on the values the walk gives its parameters (engine/tests_run.py: `seq_length <=
        max_tokens_to_attend` with `input_ids` a tensor of the script's visible shape, in a library or in the user's
        code); None elsewhere."""
        s = self._testing
        if s is None or self.module_level or not isinstance(s, ast.If) or not _inside(node, s.test):
            return None
        def_line = getattr(self.node, "lineno", None)
        if def_line is None:
            return None
        return ("run", node.lineno - def_line, node.col_offset, node.end_lineno - def_line, node.end_col_offset)

    def _read_test(self, node: ast.AST) -> tuple | None:
        """A test of a module-level name (`backend.use_segment_matmul is None`, or a local read from it
        once: `flag = backend.flag` ... `if flag:`): ("global", qualified name, how); or of a local read once
        from an attribute of self (`cache = self._cached_edge_index` ... `if cache is None:`): ("selfread",
        attribute, how); how ("truth",), ("none", is None?) or ("cmp", operator, constant); `hasattr(self, "_x")`:
        ("selfhas", attribute, ("truth",)); of the index of an enclosing `for i, x in enumerate(self.<attr>)`:
        ("loopidx", attr, whether the loop may be left early, how), true on some iteration when an index of the
        elements passes it.  The project evaluates it when every assignment of that name is seen
        (engine/globals_seen.py, engine/attrs_seen.py).  The atom stays an "expr" atom (its text and wording
        unchanged); None for any other test."""
        made = tensor_test(node, self.resolve_dotted_node, self._tensor_param)
        if made is not None:  # `tensor.device == torch.device("cpu")`: what the script made (engine/tensors_made.py)
            return made
        unset = self._unset_test(node)
        if unset is not None:  # `os.environ.get("DEBUG") == "1"`, `dist.is_initialized()`
            return unset
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr" and \
                self.lookup("hasattr").kind == V.REF and len(node.args) == 2 and not node.keywords and \
                isinstance(node.args[0], ast.Name) and self.lookup(node.args[0].id).kind == V.SELF and \
                isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            return ("selfhas", node.args[1].value, ("truth",))  # `hasattr(self, "_x")`: engine/attrs_seen.py
        got = _how(node)
        if got is None:
            return None
        how, node = got
        if isinstance(node, ast.Name) and node.id in self.loop_index:
            return ("loopidx", *self.loop_index[node.id], how)  # `i > 0` in `for i, layer in enumerate(self.layers)`
        q = self._global_name(node)
        if q:
            return ("global", q, how)
        attr = self._reaching_self_attr(node) if isinstance(node, ast.Name) and node.id in self.local_names \
            and not self.module_level else None
        return ("selfread", attr, how) if attr else None

    def _unset_test(self, node: ast.AST) -> tuple | None:
        """("unset", value, how, variable) for a test of what the process's environment decides, with the value a
        plain run leaves it (no environment variable set, torch.distributed not initialized): `os.environ.get("K")`
        / `os.getenv("K", "0")` (the default given), `"K" in os.environ` (False), `torch.distributed.is_initialized()`
        (False); how as _read_test's; the variable's name (None for torch.distributed).  The project holds a branch
        that needs another value as a condition (a plain run does not take it; a launcher or the user's shell
        may)."""
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) and \
                isinstance(node.left, ast.Constant) and isinstance(node.left.value, str) and \
                self.resolve_dotted_node(node.comparators[0]) == "os.environ":
            return ("unset", isinstance(node.ops[0], ast.NotIn), ("truth",), node.left.value)
        got = _how(node)
        if got is None:
            return None
        how, node = got
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        q = self.resolve_dotted_node(node.func)
        if q == "torch.distributed.is_initialized" and not node.args and not node.keywords:
            return ("unset", False, how, None)
        if q in ("os.environ.get", "os.getenv") and node.args and isinstance(node.args[0], ast.Constant) and \
                isinstance(node.args[0].value, str):
            given = [*node.args[1:2], *(kw.value for kw in node.keywords if kw.arg == "default")]
            if len(given) > 1 or len(node.args) > 2 or (given and not isinstance(given[0], ast.Constant)):
                return None
            return ("unset", given[0].value if given else None, how, node.args[0].value)
        return None

    def _global_name(self, node: ast.AST) -> str | None:
        """The qualified name of a module-level variable `node` reads: `pkg.mod.NAME`, a name imported
        from another module or defined in this one, or a local assigned once from one of those."""
        if isinstance(node, ast.Attribute):
            q = self.resolve_dotted_node(node)
            return q if q and "." in q else None
        if not isinstance(node, ast.Name) or self.module_level:
            return None
        if node.id in self.local_names:  # a local: what the assignment before the `if` read
            return self._reaching_global(node)
        if any(p is not None and node.id in p.local_names and not p.module_level for p in self._parents()):
            return None  # a closure's variable
        b = self.mod.bindings.get(node.id)
        if b is None:
            return None
        if b.kind == V.REF:
            return b.q if b.q and "." in b.q else None
        return f"{self.mod.modname}.{node.id}"

    def _reaching_global(self, node: ast.Name) -> str | None:
        """The module-level name a local tested by the `if` being analysed holds (_reaching_read, of a
        reference)."""
        v = self.env.get(node.id)
        if v is None or v.kind != V.REF:  # (what the analysis holds: a reference)
            return None
        read = self._reaching_read(node)
        return self._global_name(read) if read is not None else None

    def _reaching_self_attr(self, node: ast.Name) -> str | None:
        """The attribute of self a local tested by the `if` being analysed holds (`cache =
        self._cached_edge_index`, _reaching_read)."""
        v = self.env.get(node.id)
        if v is None or v.kind != V.SELFATTR:  # (what the analysis holds then: what `self.<attr>` reads)
            return None
        read = self._reaching_read(node)
        if read is not None and isinstance(read.value, ast.Name) and self.lookup(read.value.id).kind == V.SELF:
            return read.attr
        return None

    def _reaching_read(self, node: ast.Name) -> ast.Attribute | None:
        """What a local tested by the `if` being analysed holds: the statement before the `if` in its block
        that last stores the local is `local = <a>.<b>` (what the body of the `if` stores later does not
        reach its test); its value, or None when that is not so."""
        s, name = self._testing, node.id
        if not isinstance(s, ast.If):
            return None
        facts = self._local_facts()
        if name not in facts[0] or not any(n is node for n in walk(s.test)) or name in _stores(s.test):
            return None
        where = facts[1].get(id(s))
        if where is None:
            return None
        block, j = where
        for st in reversed(block[:j]):
            if name not in _stores(st):
                continue
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and \
                    isinstance(st.value, ast.Attribute):
                return st.value
            return None
        return None

    def _local_facts(self) -> tuple[set, dict]:
        """Of the function analysed (once): the locals some `local = <a.b>` assigns, less those a nested
        function declares nonlocal; and each statement's block and position in it."""
        if self._global_facts is None:
            assigned, nonlocal_, where = set(), set(), {}
            for n in walk(self.node):
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                        isinstance(n.value, ast.Attribute):
                    assigned.add(n.targets[0].id)
                elif isinstance(n, ast.Nonlocal):
                    nonlocal_.update(n.names)
                for f in ("body", "orelse", "finalbody"):
                    b = getattr(n, f, None)
                    if isinstance(b, list):
                        for k, x in enumerate(b):
                            where[id(x)] = (b, k)
            self._global_facts = (assigned - nonlocal_, where)
        return self._global_facts

    def _parents(self):
        p = self.parent
        while p is not None:
            yield p
            p = p.parent

    @staticmethod
    def _or_default(node: ast.AST, flag: tuple, test):
        """The test of `getattr(self.config, "name", <literal>)`: ("absent", the literal, test), which the project
        evaluates on the literal when the class of `self.config` lacks the field (engine/absent_fields.py);
        `test` itself for any other flag."""
        if flag[0] == "self" and "." in flag[1] and isinstance(node, ast.Call) and len(node.args) == 3 and \
                isinstance(node.args[2], ast.Constant):
            return ("absent", node.args[2].value, test)
        return test

    def _test_text(self, node: ast.AST) -> str:
        """A test's source on one line, shortened, for the condition a finding is worded with."""
        text = self.mod.text_of(node)  # on one line already (its whitespace runs made single spaces)
        return text if len(text) <= 60 else text[:57] + "..."

    def _branch_conds(self, test: ast.AST) -> tuple[tuple, tuple]:
        """Cond atoms that hold in the body and in the else branch of `if test:` (what is known).  The body of
        an `if a or b:` statement and the else branch of an `if a and b:` one hold under the whole test: an
        "expr" atom ("either", line, column) that the project evaluates by running the function on what it
        knows (engine/derived.py), and otherwise takes to hold, as before.  The line counts from the function's
        `def` line (an edit above the function moves it whole: engine/incremental.py reuses its summary as is)."""
        if isinstance(test, ast.BoolOp):
            atoms = [self._atom(v) for v in test.values]
            def_line = getattr(self.node, "lineno", None) if not self.module_level else None
            whole = ("expr", self._test_text(test), ("either", test.lineno - def_line, test.col_offset), True) \
                if def_line is not None and self._testing is not None and self._testing.test is test else None
            if isinstance(test.op, ast.And):
                return tuple(a for a in atoms if a), ((negated(whole),) if whole else ())
            return ((whole,) if whole else ()), (tuple(negated(a) for a in atoms) if all(atoms) else ())
        a = self._atom(test)
        return ((a,), (negated(a),)) if a else ((), ())

    def _registry_read(self, node: ast.AST) -> str | None:
        """`REGISTRY[key]` / `REGISTRY.get(key, ...)` with REGISTRY a module-level name: its qualified name."""
        if isinstance(node, ast.Subscript):
            base = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            base = node.func.value
        else:
            return None
        if not isinstance(base, ast.Name) or base.id in self.local_names:
            return None
        if base.id in self.mod.bindings and self.mod.bindings[base.id].kind == V.REF:
            return self.mod.bindings[base.id].q
        return f"{self.mod.modname}.{base.id}"

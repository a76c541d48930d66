"""A module's analysis: its text parsed (an editor buffer's, from what the last analysis of it left),
its top level walked, then its function bodies, each top-level statement's in turn, into a ModuleSummary
(a bulk load of a large tree: only the bodies that add to the module's own facts, engine/deferred.py).
The walking itself is engine/analyzer.py's FunctionAnalyzer.

The analyzer never imports or runs the code it reads.
"""
from __future__ import annotations

import ast
import bisect
import copy
import hashlib
import warnings

from ..modnames import absolute_module, module_name_for, package_of
from ..positions import LineIndex, Span
from . import deferred, incremental, recompiles, suppressions
from .syspath import sys_path_edits
from . import values as V
from .analyzer import FunctionAnalyzer
from .nodes import extent
from .ruleset import RuleSet
from .summary import BODY_FIELDS, FunctionSummary, ModuleSummary, writable_copy
from .values import Val

__all__ = ["ModuleAnalyzer", "analyze", "parse_module"]


def parse_module(text: str, path: str) -> ast.Module:
    """The module's syntax tree, as the analysis parses it (raises SyntaxError, ValueError, ...)."""
    with warnings.catch_warnings():  # SyntaxWarnings about the user's code are not ours to print
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=path, type_comments=False)


class ModuleAnalyzer:
    def __init__(self, path: str, text: str, modname: str, is_package: bool = False, recover: bool = False,
                 tree: ast.Module | None = None, bodies: bool = True, remember: bool = False,
                 previous: incremental.Memo | None = None, *, rules: RuleSet, library: bool = False,
                 defer: bool = False):
        self.path = path
        # a bulk load's: the function bodies only where they add to the module's own facts, the rest of the
        # summary made when first read (engine/deferred.py)
        self.defer = defer
        # a followed library's module: its tests the walk decides by running the function are recorded
        # (conditions_recorded._run_test; a project's own code does not read them)
        self.library = library
        self.rules = rules  # what the analysis dispatches its events to (engine/ruleset.py)
        # editor buffers (`remember`): the memo an analysis of an earlier version of this text left, whose
        # unchanged parts are taken (engine/incremental.py), and `memo`, this analysis' own, for the next
        self.remember = remember
        self.previous = previous
        self.memo: incremental.Memo | None = None
        self._written_classes: list[str] | None = None  # classes a unit's function bodies made
        # function qualname -> {parameter: tensor kind} to read as tensors (what its callers pass: "tensor",
        # "mask", "sparse"), while variant() analyses that function again (Arrivals.with_tensor_params); empty
        # otherwise
        self.tensors: dict[str, dict[str, str]] = {}
        # function qualname -> {call position: what the call returns}, the same way (Arrivals._call_results)
        self.results: dict[str, dict] = {}
        self._given_tree = tree  # `text` already parsed (by an earlier analysis of the same text)
        self.bodies = bodies  # False: the top level only (the functions are left for variant())
        self._queued: list = []  # the functions the top level defines, as run() queued them (for variant())
        # an editor buffer's: this analysis as a top-level-only one (bodies=False) would have left it, the base
        # of its functions' variants (Arrivals._base_analysis), which then need not walk the top level again
        self.base: ModuleAnalyzer | None = None
        self.text = text
        self.recover = recover
        self.modname = modname
        self.is_package = is_package
        self.lines = LineIndex(text)
        self.summary = ModuleSummary(
            name=modname, path=path, text_hash=hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        )
        self.summary.line_count = len(self.lines.lines)
        self.bindings: dict[str, Val] = {}
        self._pending: list[tuple[ast.AST, str, str | None, "FunctionAnalyzer | None"]] = []
        # qualname -> (fullgraph flag, compiled?, disabled, opaque, wrapped_by) from decorators
        self.decorations: dict[str, tuple] = {}
        self.tree: ast.Module | None = None  # the parsed module, when it parsed as it is
        self.analysed_tree: ast.Module | None = None  # what was analysed (recovered from a syntax error too)
        # no walrus and no yield anywhere: no expression binds a name (scope_facts' fast path)
        self.plain_exprs = ":=" not in text and "yield" not in text
        self._walrus = ":=" in text

    # ---- helpers -------------------------------------------------------------------------------
    def plain_in(self, node: ast.AST) -> bool:
        """No walrus and no yield in the lines of `node` (a function): scope_facts' fast path holds for
        its body even when another function of the module is a generator."""
        for line in self.lines.lines[node.lineno - 1:getattr(node, "end_lineno", None) or len(self.lines.lines)]:
            if "yield" in line or ":=" in line:
                return False
        return True

    def walrus_in(self, node: ast.AST) -> bool:
        """A `:=` in the lines of `node` (a function) or, when the module has none, False."""
        if not self._walrus:
            return False
        end = getattr(node, "end_lineno", None) or len(self.lines.lines)
        return any(":=" in line for line in self.lines.lines[node.lineno - 1:end])

    def span(self, node: ast.AST) -> Span:
        return self.lines.span_from_ast(node)

    def text_of(self, node: ast.AST) -> str:
        """The source text of a node (from the line index: ast.get_source_segment re-splits the
        whole file on every call, which made analysis quadratic)."""
        seg = None
        try:
            if self.lines.ascii:  # the node's own numbers are the columns: no Span to make
                l1, c1 = node.lineno - 1, node.col_offset
                l2 = (getattr(node, "end_lineno", None) or node.lineno) - 1
                c2 = getattr(node, "end_col_offset", None)
                if c2 is None:
                    c2 = c1
            else:
                span = self.span(node)
                l1, c1, l2, c2 = span.start.line, span.start.col, span.end.line, span.end.col
            line = self.lines.line
            if l1 == l2:
                seg = line(l1)[c1:c2]
            elif l2 - l1 < 20 or sum(1 for i in range(l1 + 1, l2) if line(i).strip()) < 19:
                # (blank lines not counted: an Enter inside a long call leaves its text as it was, LineShift)
                seg = "\n".join([line(l1)[c1:], *(line(i) for i in range(l1 + 1, l2)), line(l2)[:c2]])
        except Exception:
            seg = None
        if seg is None:
            try:
                seg = ast.unparse(node)
            except Exception:
                seg = "?"
        seg = " ".join(seg.split())
        return seg if len(seg) <= 80 else seg[:77] + "..."

    def absolute(self, module: str | None, level: int) -> str:
        r = absolute_module(package_of(self.modname, self.is_package), module, level)
        return (module or "") if r is None else r

    # ---- entry ---------------------------------------------------------------------------------
    def run(self) -> ModuleSummary:
        lines = incremental.split(self.text) if self.remember and self.bodies else None
        try:
            tree = self._given_tree
            if tree is None and lines is not None and self.previous is not None:
                tree = incremental.reparse(self.previous, lines, self.path)
            if tree is None:
                tree = parse_module(self.text, self.path)
        except SyntaxError as e:
            self.summary.syntax_error = (f"SyntaxError: {e.msg}", self._error_span(e))
            self.summary.suppressions = suppressions.read(self.text, self.lines.lines, None)
            tree = self._recover(e) if self.recover else None
            if tree is None:
                return self.summary
        except (ValueError, RecursionError, MemoryError) as e:
            self.summary.syntax_error = (f"cannot parse: {e}", Span.of(0, 0, 0, 0))
            return self.summary
        else:
            self.summary.suppressions = suppressions.read(self.text, self.lines.lines, tree)
            self.tree = tree
        self.analysed_tree = tree
        self.summary.sys_path = sys_path_edits(tree, self.path, self.text)
        top = FunctionAnalyzer(self, None, tree, qualname=self.modname, cls=None, module_level=True)
        top.analyze_module(tree.body)
        self.bindings = top.env
        for name, v in top.env.items():
            if v.kind == V.REF:
                self.summary.bindings[name] = ("ref", v.q)
            elif v.kind == V.INSTANCE:
                self.summary.bindings[name] = ("instance", v.q)
            elif v.kind == V.COMPILED:
                self.summary.bindings[name] = ("compiled", v.q)
            elif v.kind == V.OPAQUE:
                self.summary.bindings[name] = ("opaque", v.q)
            else:
                self.summary.bindings[name] = ("value", None)
        # Function bodies run after the module is imported: analyse them with the final bindings.
        self._queued = list(self._pending)
        if self.bodies and self.remember and self.tree is not None:
            self.base = self._as_top_level_only()
        if self.bodies:
            # (imports in function bodies from the syntax tree: the same whether the bodies are analysed now)
            function_imports = deferred.function_imports(tree, self.absolute, self.lines.lines)
            if self.defer and self.tree is not None and not self.summary.roots and not self.summary.unresolved_roots:
                self._deferred_pass(tree, top.env)
            else:
                if lines is not None:
                    if self.tree is None:  # recovered from a syntax error: the text analysed is another
                        lines = incremental.split(self.text)
                    # what each top-level statement's functions look up among the module's names
                    top.env = self.bindings = incremental.Reads(top.env)
                self._function_pass(tree, lines, keep=self.tree is not None)
            self.summary.imports |= function_imports
            self.summary.recompiles = recompiles.scan(tree, self.span, self.modname, self.text)
        return self.summary

    def _as_top_level_only(self) -> "ModuleAnalyzer":
        """A copy of this analysis, after its top level, in the state `bodies=False` would leave it: what the
        function pass changes in place (the summary's containers, its roots, the decorations) copied."""
        base = copy.copy(self)
        base.bodies = base.remember = False
        base.previous = base.memo = base.base = None
        base.summary = writable_copy(self.summary)
        base.summary.roots = [copy.copy(r) for r in self.summary.roots]
        base.bindings = dict(self.bindings)
        base.decorations = dict(self.decorations)
        base._queued = list(self._queued)
        base._pending = []
        base.tensors, base.results = {}, {}
        return base

    def _groups(self, tree: ast.Module) -> tuple[list[tuple[int, int]], dict[int, list]]:
        """The extents of the top-level statements (decorators included), and the queued functions by the
        statement that holds them (its index in tree.body), in the order they were queued."""
        extents = [extent(s) for s in tree.body]
        starts = [e[0] for e in extents]
        groups: dict[int, list] = {}
        for item in self._pending:
            groups.setdefault(bisect.bisect_right(starts, item[0].lineno) - 1, []).append(item)
        return extents, groups

    def _deferred_pass(self, tree: ast.Module, env: dict[str, Val]) -> None:
        """The function pass of a bulk load (engine/deferred.py): only the top-level statements whose function
        bodies may add to the module's own facts are analysed; the summary's BODY_FIELDS are left out (made
        by the module's full analysis when one is read), its functions' names kept as the analysis may give
        them."""
        may_add = deferred.triggers((name, v.q) for name, v in env.items() if v.kind == V.REF)
        extents, groups = self._groups(tree)
        lines = self.lines.lines
        for i, items in groups.items():
            first, last = extents[i]
            if may_add("\n".join(lines[first - 1:last])):
                self._pending = list(items)
                self._analyze_pending()
        self._pending = []
        d = self.summary.__dict__
        for k in BODY_FIELDS:
            d.pop(k, None)
        d["_function_names"] = deferred.function_names(tree, self.modname, lines)
        d["_deferred"] = (self.is_package, None)  # (the cache directory: the front-end's, api.py)

    def _function_pass(self, tree: ast.Module, lines: list[str] | None, keep: bool = True) -> None:
        """Analyse the function bodies, one top-level statement's functions (nested ones included) after
        another; with `lines` (the text's), each statement's share is taken from `self.previous` when the
        statement and what its functions read outside it are unchanged, else analysed and recorded, and
        with `keep` (the text parsed as it is, not recovered from a syntax error) the shares are the memo
        of this analysis (`self.memo`)."""
        extents, groups = self._groups(tree)
        self._pending = []
        if lines is None:  # nothing to remember
            for items in groups.values():
                self._pending = list(items)
                self._analyze_pending()
            return
        scope = (self.modname, self.is_package, self.plain_exprs)
        names = self.bindings
        prev = self.previous
        reusable = prev.units if prev is not None and prev.scope == scope else {}
        units: dict[tuple, incremental.Unit] = {}
        summary = self.summary
        moved = len(lines) - len(prev.lines) if reusable else 0  # lines added (removed) by the edit
        for i, items in groups.items():
            key = incremental.unit_key(lines, extents[i])
            decorations = {q: self.decorations.get(q) for _, q, _, _ in items}
            unit = reusable.get(key)
            if unit is None and moved and (old := reusable.get((key[0] - moved, key[1] - moved, key[2]))):
                unit = incremental.shifted(old, moved)  # the same statement, below the edit
            own = dict.fromkeys(c for _, _, c, _ in items if c)
            if unit is not None and unit.roots_before == len(summary.roots) and unit.decorations == decorations \
                    and names.same(unit.reads) \
                    and all(summary.classes.get(q) == cs for q, cs in unit.classes_before.items()) \
                    and len(unit.classes_before) == sum(q in summary.classes for q in own):
                incremental.replay(summary, unit)
            else:
                unit = incremental.Unit(decorations, len(summary.roots),
                                        incremental.classes_as_they_are(summary, own))
                state = incremental.record_start(summary)
                self._written_classes = []
                self._pending = list(items)
                names.seen = unit.reads
                self._analyze_pending()
                names.seen = None
                incremental.record_end(summary, state, unit, [*own, *self._written_classes])
                self._written_classes = None
            units[key] = unit
        if keep:
            self.memo = incremental.Memo(lines, tree, extents, scope, units)

    def _analyze_pending(self) -> None:
        """Analyse the queued functions (and those their analysis queues: nested functions, lambdas)."""
        while self._pending:
            node, qual, cls, parent = self._pending.pop(0)
            fa = FunctionAnalyzer(self, parent, node, qualname=qual, cls=cls)
            fa.analyze_function()

    def variant(self, qualname: str, tensors: frozenset[tuple[str, str]], classes: dict,
                results: frozenset = frozenset()) -> FunctionSummary | None:
        """After run(): the function `qualname` analysed again with the parameters `tensors` ((name, tensor
        kind) pairs) read as tensors of that kind and the calls in `results` returning what the project tells
        (Arrivals.with_tensor_params), on this analysis' top level: one module parse and top-level
        pass serve every such variant of the module.  `classes` are the module's classes as its full
        analysis left them (what every method set on `self`); the analysis writes into copies (the
        function's own class; summary containers) and changes neither."""
        base, tensors_before = self.summary, self.tensors
        self._pending = [e for e in self._queued if e[1] == qualname]
        summary = writable_copy(base)
        summary.classes = dict(classes)
        for _, _, cls, _ in self._pending:  # a method writes into its own class only
            if cls in summary.classes:
                summary.classes[cls] = writable_copy(summary.classes[cls])
        self.summary, self.tensors, self.results = summary, {qualname: dict(tensors)}, {qualname: dict(results)}
        try:
            self._analyze_pending()
            return self.summary.functions.get(qualname)
        finally:
            self.summary, self.tensors, self.results, self._pending = base, tensors_before, {}, []

    def _error_span(self, e: SyntaxError) -> Span:
        line = max((e.lineno or 1) - 1, 0)
        col = max((e.offset or 1) - 1, 0)  # SyntaxError.offset counts characters for str input
        end_line = max(((getattr(e, "end_lineno", None) or e.lineno or 1) - 1), line)
        end_col = getattr(e, "end_offset", None)
        end_col = max(end_col - 1, col + 1) if end_col and end_line == line else col + 1
        return self.lines.clamp_span(Span.of(line, col, end_line, end_col))

    def _recover(self, err: SyntaxError) -> ast.Module | None:
        """Blank the top-level blocks that do not parse (keeping every line where it is) and
        analyse the rest, so a half-typed function does not hide the findings of the others."""
        lines = self.text.splitlines(keepends=True)
        # the blanked text's tree from the memo of the last text that parsed (an editor buffer): only the
        # statements around the blanked lines parsed.  Only when the keystroke kept the number of lines (the
        # usual half-typed call; blanking keeps it too): a reparse that moves the statements below does so in
        # the memo's tree, and this memo must serve the next keystroke.  The same for every attempt below.
        memo = self.previous
        if memo is None or not self.remember or len(lines) != len(memo.lines) or \
                incremental.split(self.text) is None:
            memo = None

        def top_level(i: int) -> bool:
            s = lines[i]
            return bool(s) and (s[0].isalpha() or s[0] in "_@")

        for _ in range(16):
            n = len(lines)
            at = min(max((err.lineno or 1) - 1, 0), n - 1) if n else 0
            start = at
            while start > 0 and not top_level(start):
                start -= 1
            while start > 0 and lines[start - 1].startswith("@"):
                start -= 1
            end = at + 1
            while end < n and not (top_level(end) and not lines[end].startswith(("else", "elif", "except", "finally"))):
                end += 1
            for i in range(start, end):
                ending = lines[i][len(lines[i].rstrip("\r\n")):]
                lines[i] = ending
            text = "".join(lines)
            try:
                tree = incremental.reparse(memo, lines, self.path) if memo is not None else None
                if tree is None:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        tree = ast.parse(text, filename=self.path)
            except SyntaxError as e:
                err = e
                continue
            except (ValueError, RecursionError, MemoryError):
                return None
            self.text = text
            return tree
        return None


def analyze(path: str, text: str, modname: str | None = None, is_package: bool | None = None,
            recover: bool = False, *, rules: RuleSet, library: bool = False, defer: bool = False) -> ModuleSummary:
    """Analyse one module.  With `recover`, a file with a syntax error still has the top-level
    blocks that parse analysed (the editor case); otherwise it is reported and not analysed.  With `defer`,
    the function bodies only as far as the module's own facts need them (engine/deferred.py)."""
    if modname is None:
        modname, pkg = module_name_for(path)
        if is_package is None:
            is_package = pkg
    return ModuleAnalyzer(path, text, modname, bool(is_package), recover, rules=rules, library=library,
                          defer=defer).run()

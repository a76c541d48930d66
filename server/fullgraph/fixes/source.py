"""A module's text as the fixes read it: its lines and top-level statements, its imports and names,
and libcst fragments of one top-level statement at a time (`Fragment`), whose changes become one
minimal text edit."""
from __future__ import annotations

import ast
import os
import re
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..modnames import absolute_module, package_of
from ..positions import Pos, Span, first_line, split_lines
from .edits import TextEdit, detect_newline, give_up, line_starts, pos_of_offset


class Source:
    """One file's analysed text, with lazily built indexes."""

    def __init__(self, path: str, text: str, modname: str, tree: ast.Module | None = None):
        self.path = path
        self.text = text
        self.modname = modname
        self.starts = line_starts(text)
        self.newline = detect_newline(text)
        self._tree: ast.Module | None = tree  # the analyzer's, when it has one for this text
        self._tree_failed = False
        self._fragments: dict[tuple[int, int], Fragment | None] = {}
        self._top: list[tuple[int, int, ast.stmt]] | None = None
        self._indent: str | None = None
        self._names_in_use: frozenset[str] | None = None

    def release(self) -> None:
        """Drop the parsed trees, breaking the source <-> fragment reference cycles (they are parsed
        again if the source is used after all)."""
        self._fragments.clear()
        self._tree = None
        self._top = None

    # lines
    @property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    def line(self, n: int) -> str:
        if n < 0 or n >= len(self.starts):
            return ""
        end = self.starts[n + 1] if n + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[n]:end].rstrip("\r\n")

    def offset(self, p: Pos) -> int:
        if p.line >= len(self.starts):
            return len(self.text)
        return min(self.starts[p.line] + p.col, len(self.text))

    def pos(self, offset: int) -> Pos:
        return pos_of_offset(self.starts, offset)

    @property
    def n_lines(self) -> int:
        # a trailing newline starts an empty last "line" in `starts`; it is not a line of its own
        n = len(self.starts)
        if self.text.endswith(("\n", "\r")):
            n -= 1
        return n

    @property
    def indent_unit(self) -> str:
        """The file's indentation step (first indented line), default four spaces."""
        if self._indent is None:
            self._indent = "    "
            for m in re.finditer(r"^(?:def|class|if|for|while|with|try|async def)\b[^\n]*:[ \t]*(?:#[^\n]*)?\r?\n"
                                 r"(?:[ \t]*(?:#[^\n]*)?\r?\n)*([ \t]+)\S", self.text, re.M):
                self._indent = m.group(1)
                break
        return self._indent

    # ast
    @property
    def tree(self) -> ast.Module | None:
        if self._tree is None and not self._tree_failed:
            try:
                self._tree = ast.parse(self.text)
            except (SyntaxError, ValueError):
                self._tree_failed = True
        return self._tree

    def top_level(self) -> list[tuple[int, int, ast.stmt]]:
        """(first line, last line, node) of every top-level statement, decorators included (0-based)."""
        if self._top is None:
            out = []
            tree = self.tree
            if tree is not None:
                for node in tree.body:
                    first = node.lineno
                    for d in getattr(node, "decorator_list", ()):
                        first = min(first, d.lineno)
                    out.append((first - 1, (node.end_lineno or node.lineno) - 1, node))
            self._top = out
        return self._top

    def top_index_at(self, line: int) -> int | None:
        for i, (a, b, _) in enumerate(self.top_level()):
            if a <= line <= b:
                return i
        return None

    def range_at(self, line: int) -> tuple[int, int] | None:
        """First and last line of the top-level statement(s) covering `line`."""
        i = self.top_index_at(line)
        if i is None:
            return None
        a, b, _ = self.top_level()[i]
        # a top-level statement sharing its first/last line with another (`a = 1; b = 2`) is one line
        top = self.top_level()
        while i > 0 and top[i - 1][1] >= a:
            i -= 1
            a = top[i][0]
        j = i
        while j + 1 < len(top) and top[j + 1][0] <= b:
            j += 1
            b = max(b, top[j][1])
        return a, b

    def fragment_at(self, line: int) -> "Fragment":
        """The code around `line` parsed with libcst: the top-level statement, or only the method
        when `line` is inside a method of a top-level class (a class of 500 lines is not re-parsed
        and re-indexed for every finding in it)."""
        r = self.range_at(line)
        if r is None:
            give_up("not inside a top-level statement")
        a, b = r
        key: tuple = (a, b)
        method = self._method_range(a, b, line)
        if method is not None:
            key = (a, b, *method)
        if key not in self._fragments:
            try:
                self._fragments[key] = Fragment(self, a, b, method)
            except (cst.ParserSyntaxError, Exception):  # libcst may not parse every new syntax
                self._fragments[key] = None
        frag = self._fragments[key]
        if frag is None:
            give_up("libcst cannot parse this statement")
        return frag

    def _method_range(self, a: int, b: int, line: int) -> tuple[int, int] | None:
        """First and last line (0-based, decorators included) of the method of the top-level class
        spanning lines a..b that contains `line`, when it can be parsed on its own."""
        i = self.top_index_at(line)
        if i is None:
            return None
        first, last, node = self.top_level()[i]
        if (first, last) != (a, b) or not isinstance(node, ast.ClassDef) or not node.body or \
                node.body[0].lineno == node.lineno:
            return None  # not one class statement, or `class A: ...` on one line
        for m in node.body:
            if not isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            m_first = first_line(m) - 1
            m_last = (m.end_lineno or m.lineno) - 1
            if not m_first <= line <= m_last:
                continue
            if m_first <= node.lineno - 1 or m_last >= b + 1:
                return None
            head = self.line(m_first)
            indent = head[:len(head) - len(head.lstrip())]
            if not indent:
                return None
            # every line must keep the method's indentation (or be blank) to parse inside `class _:`;
            # a string literal running at column 0 falls back to the whole class
            for k in range(m_first, m_last + 1):
                s = self.line(k)
                if s.strip() and not s.startswith(indent):
                    return None
            return m_first, m_last
        return None

    def line_insert(self, line: int, text: str) -> TextEdit:
        """Insert whole lines before `line` (0-based; len(lines) appends at the end)."""
        if line >= len(self.starts):
            line = len(self.starts) - 1
        if line >= self.n_lines:
            # at the end of the file: make sure the previous line is terminated
            prefix = "" if not self.text or self.text.endswith(("\n", "\r")) else self.newline
            p = self.pos(len(self.text))
            return TextEdit(Span(p, p), prefix + text)
        p = Pos(line, 0)
        return TextEdit(Span(p, p), text)

    # module-level names
    def module_bindings(self) -> dict[str, str]:
        """Top-level import bindings: local name -> qualified name (relative imports resolved
        against this module's package)."""
        out: dict[str, str] = {}
        tree = self.tree
        if tree is None:
            return out
        package = package_of(self.modname, os.path.basename(self.path) == "__init__.py")
        for node in _import_nodes(tree.body):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        out[a.asname] = a.name
                    else:
                        head = a.name.split(".")[0]
                        out.setdefault(head, head)
            elif isinstance(node, ast.ImportFrom):
                module = absolute_module(package, node.module, node.level)
                if not module:  # None: beyond the top-level package
                    continue
                for a in node.names:
                    if a.name != "*":
                        out[a.asname or a.name] = f"{module}.{a.name}"
        return out

    def names_in_use(self) -> frozenset[str]:
        """Every name the module binds or reads anywhere, and every function and class name: what a new
        module-level name must not be.  Computed once per source (every split offer of a file asks)."""
        cached = self._names_in_use
        if cached is None:
            out = set(self.top_names())
            if self.tree is not None:
                for st in self.tree.body:
                    # (kept on the statement: the analysis keeps the statements an edit does not touch, so a
                    # keystroke's first fix offer walks the statement it changed, not a 7,000-line module)
                    names = st.__dict__.get("_fg_names")
                    if names is None:
                        names = st._fg_names = frozenset(
                            n.id if isinstance(n, ast.Name) else n.name for n in ast.walk(st)
                            if isinstance(n, (ast.Name, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)))
                    out |= names
            cached = self._names_in_use = frozenset(out)
        return cached

    def top_names(self) -> set[str]:
        """Every name bound at module level (defs, classes, assignments, imports)."""
        out: set[str] = set(self.module_bindings())
        tree = self.tree
        if tree is None:
            return out
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            out.add(n.id)
        return out

    def ref(self, qualname: str) -> str | None:
        """An expression naming `qualname` through the module's imports (`np.random` for numpy.random)."""
        best = None
        for local, q in self.module_bindings().items():
            if qualname == q or qualname.startswith(q + "."):
                expr = local + qualname[len(q):]
                if best is None or len(expr) < len(best):
                    best = expr
        return best

    def imports_end_line(self) -> int:
        """0-based line at which a new module-level line goes "after the imports"."""
        tree = self.tree
        if tree is None:
            return 0
        last = None
        for i, node in enumerate(tree.body):
            if _is_import_like(node):
                last = node
                continue
            if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
                    isinstance(node.value.value, str):
                last = last or node
                continue
            break
        if last is None:
            return 0
        return last.end_lineno or last.lineno


def _is_import_like(node: ast.stmt) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(node, ast.Try):
        return all(isinstance(s, (ast.Import, ast.ImportFrom, ast.Pass)) for s in node.body)
    if isinstance(node, ast.If):
        t = node.test
        name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else ""
        return name == "TYPE_CHECKING"
    return False


def _import_nodes(body: list[ast.stmt]):
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.Try):
            for s in node.body:
                if isinstance(s, (ast.Import, ast.ImportFrom)):
                    yield s


# ---- a parsed top-level statement ----------------------------------------------------------------
class Fragment:
    """Lines of a Source parsed with libcst: a whole top-level statement (lines top_first..top_last,
    0-based), or one method of a top-level class (`method` = its first and last line), which is
    parsed inside a stand-in `class _:` header so that its lines and columns stay the file's."""

    def __init__(self, src: Source, top_first: int, top_last: int, method: tuple[int, int] | None = None):
        self.src = src
        self.top_first = top_first
        self.top_last = top_last
        self.first, self.last = method if method is not None else (top_first, top_last)
        self.start_off = src.starts[self.first]
        self.end_off = src.starts[self.last + 1] if self.last + 1 < len(src.starts) else len(src.text)
        self.text = src.text[self.start_off:self.end_off]
        self.prefix = f"class _:{src.newline}" if method is not None else ""
        self._shift = 2 if self.prefix else 1  # the libcst line number of our line `first`
        self.module = cst.parse_module(self.prefix + self.text)
        self._wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        self._pos = None
        self._parents = None
        self._index = None

    @property
    def positions(self):
        if self._pos is None:
            self._pos = self._wrapper.resolve(PositionProvider)
        return self._pos

    @property
    def parents(self):
        if self._parents is None:
            # a plain walk over `children` is several times cheaper than ParentNodeProvider's visitor
            parents: dict = {}
            stack = [self.module]
            while stack:
                n = stack.pop()
                for c in n.children:
                    parents[c] = n
                    stack.append(c)
            self._parents = parents
        return self._parents

    def span_of(self, node: cst.CSTNode) -> Span:
        r = self.positions[node]
        d = self.first - self._shift
        return Span(Pos(r.start.line + d, r.start.column), Pos(r.end.line + d, r.end.column))

    def parent(self, node):
        return self.parents.get(node)

    def ancestors(self, node):
        p = self.parents.get(node)
        while p is not None:
            yield p
            p = self.parents.get(p)

    def nodes_covering(self, span: Span, types: tuple | type = cst.CSTNode) -> list:
        """Nodes of `types` whose range contains `span`, innermost first."""
        if self._index is None:
            f = self.first - self._shift
            self._index = [((r.start.line + f, r.start.column), (r.end.line + f, r.end.column), node)
                           for node, r in self.positions.items()]
        s0 = (span.start.line, span.start.col)
        e0 = (span.end.line, span.end.col)
        out = [(s, e, n) for s, e, n in self._index if s <= s0 and e0 <= e and isinstance(n, types)]
        out.sort(key=lambda t: (t[0], (-t[1][0], -t[1][1])), reverse=True)
        return [n for _, _, n in out]

    def node_at(self, span: Span, types: tuple | type) -> Any:
        """The node of `types` with exactly this span, else the innermost one covering it."""
        cands = self.nodes_covering(span, types)
        for n in cands:
            if self.span_of(n) == span:
                return n
        if cands:
            return cands[0]
        give_up("node not found")

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def statement_at(self, span: Span):
        """The innermost statement containing `span` (a compound statement when `span` is in its header)."""
        for n in self.nodes_covering(span, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if isinstance(n, cst.BaseCompoundStatement):
                body = getattr(n, "body", None)
                if body is not None and body in self.positions:
                    bs = self.span_of(body)
                    if bs.start <= span.start and span.end <= bs.end:
                        continue  # inside the body: a deeper statement should have matched
                return n
            return n
        give_up("no statement")

    def enclosing_function(self, node) -> cst.FunctionDef | None:
        for a in self.ancestors(node):
            if isinstance(a, cst.FunctionDef):
                return a
        return None

    def render(self, nodes, indent: str) -> str:
        """Code of statements as they would be written at `indent` in this fragment."""
        from libcst._nodes.internal import CodegenState

        st = CodegenState(default_indent=self.module.default_indent, default_newline=self.module.default_newline,
                          indent_tokens=[indent] if indent else [])
        for n in nodes:
            n._codegen(st)
        return "".join(st.tokens)

    def replace_stmts(self, old: list, new: list) -> TextEdit | None:
        """Replace consecutive sibling statements (whole lines, their leading comments included) by
        `new`; renders only those statements, not the whole fragment."""
        first_span = self.span_of(old[0])
        first = first_span.start.line - len(old[0].leading_lines)
        last = self.span_of(old[-1]).end.line
        indent = self.src.line(first_span.start.line)[:first_span.start.col]
        if indent.strip():
            give_up("statement does not start its line")
        s = self.src.starts[first]
        e = self.src.starts[last + 1] if last + 1 < len(self.src.starts) else len(self.src.text)
        return _minimal(self.src, s, self.src.text[s:e], self.render(new, indent))

    def replace_expr(self, node, new_code: str) -> TextEdit | None:
        sp = self.span_of(node)
        s, e = self.src.offset(sp.start), self.src.offset(sp.end)
        return _minimal(self.src, s, self.src.text[s:e], new_code)

    def rewrite(self, replacements: dict) -> TextEdit | None:
        """Replace nodes (by identity) and return the minimal edit, or None if nothing changed.

        A replacement value may be a node, cst.RemovalSentinel.REMOVE, or a FlattenSentinel."""
        new_module = self.module.visit(Replacer(replacements))
        return self.edit_to(new_module.code)

    def edit_to(self, new_text: str) -> TextEdit | None:
        """The edit turning this fragment's code into `new_text` (the code of an edited `module`)."""
        if self.prefix:
            if not new_text.startswith(self.prefix):
                give_up("the edit changes more than the method")
            new_text = new_text[len(self.prefix):]
        return _minimal(self.src, self.start_off, self.text, new_text)


def _minimal(src: "Source", start_off: int, old: str, new_text: str) -> TextEdit | None:
    """The smallest edit turning `old` (at start_off in src) into `new_text`."""
    if new_text == old:
        return None
    i = 0
    n = min(len(old), len(new_text))
    while i < n and old[i] == new_text[i]:
        i += 1
    j = 0
    while j < n - i and old[len(old) - 1 - j] == new_text[len(new_text) - 1 - j]:
        j += 1
    # do not split a \r\n pair
    while i > 0 and old[i - 1] == "\r" and i < len(old) and old[i] == "\n":
        i -= 1
    s = start_off + i
    e = start_off + len(old) - j
    return TextEdit(Span(src.pos(s), src.pos(e)), new_text[i:len(new_text) - j])


def _neg(p: Pos):
    return Pos(-p.line, -p.col)


def walk(node: cst.CSTNode):
    """`node` and every node below it (libcst's counterpart of `ast.walk`)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


class Replacer(cst.CSTTransformer):
    def __init__(self, replacements: dict):
        super().__init__()
        self.rep = replacements

    def on_leave(self, original_node, updated_node):
        if original_node in self.rep:
            rep = self.rep[original_node]
            if callable(rep) and not isinstance(rep, cst.CSTNode):
                return rep(updated_node)
            return rep
        return updated_node


# ---- per-call context ----------------------------------------------------------------------------

"""Re-analysing an editor buffer after a keystroke: only what the edit touched.

An analysis of a buffer leaves a `Memo` for the next one: the lines it read, its syntax tree, the module's
names as the function bodies see them, and each top-level statement's share of the function pass (a
`Unit`: the summaries of the functions and classes the statement defines, and what their analysis added
to the module's summary elsewhere).  The next analysis of the same buffer

- parses only the top-level statements around the changed lines; those below move in place by the
  lines added or removed (`reparse`; any doubt -- a `__future__` import, an encoding cookie, a region
  that does not parse on its own -- parses the whole text, as before);
- runs the module's top level again (cheap: no function body) and takes every statement whose text is
  unchanged from the memo instead of analysing its functions again -- moved, every position in it, when
  lines were added or removed above it (`shifted`) -- if what its functions' analysis reads beyond the
  statement is unchanged too: the module's names they looked up (`Reads`), the decorations of its
  functions, its classes as the top level left them, and the number of `torch.compile` roots before it
  (values refer to roots by index) (`ModuleAnalyzer._function_pass`).  A text that does not parse is
  recovered as before (the top-level blocks that do not parse blanked), and its other statements are
  taken from the memo of the last text that parsed the same way.

What a statement's functions add beyond its own functions and classes (roots, call sites, imports, the
calls passed to a root of the top level...) is recorded per unit and replayed in order.
tests/test_incremental.py checks the result against a fresh analysis after random edits of real modules:
the same summary, field for field, and the same findings.
"""
from __future__ import annotations

import ast
import copy
import warnings
from dataclasses import dataclass, field

from ..positions import LineShift, Span, first_line, moved_span
from .summary import FunctionSummary, ModuleSummary, writable_copy

# ModuleSummary containers a function body's analysis adds to, besides `functions` and `classes`
LIST_FIELDS = ("roots", "star_imports", "call_sites", "hooks", "unresolved_roots")
SET_FIELDS = ("imports", "ignored", "reorderable", "allow_in_graph", "dynamo_config", "device_calls", "env_writes")
# characters str.splitlines() ends a line at and Python's tokenizer does not: such a text is parsed whole
_ODD_LINE_ENDS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


@dataclass
class Unit:
    """One top-level statement's share of the function pass."""

    decorations: dict  # qualname -> ModuleAnalyzer.decorations entry of its functions, as they were read
    roots_before: int  # len(summary.roots) when its functions' analysis began
    # its classes as the top level left them, before its functions' analysis: what the top level gave them
    # (bases, class attributes...) depends on the names bound *above* the statement, not on the module's
    classes_before: dict = field(default_factory=dict)
    functions: dict[str, FunctionSummary] = field(default_factory=dict)
    classes: dict = field(default_factory=dict)  # qualname -> final ClassSummary of what it defines
    lists: dict[str, list] = field(default_factory=dict)  # LIST_FIELDS: the items it appended
    sets: dict[str, set] = field(default_factory=dict)  # SET_FIELDS it added to: the items it added
    root_calls: dict[int, tuple] = field(default_factory=dict)  # earlier root's index -> calls it added
    reads: dict = field(default_factory=dict)  # module name -> what its functions found bound to it (Reads)


_UNBOUND = object()


class Reads(dict):
    """The module's names (ModuleAnalyzer.bindings, the top level's env), noting in `seen` what the function
    bodies being analysed look up and find (or do not): a unit depends on those names only."""

    __slots__ = ("seen",)

    def __init__(self, names: dict):
        super().__init__(names)
        self.seen: dict | None = None

    def get(self, name, default=None):
        v = dict.get(self, name, _UNBOUND)
        if self.seen is not None:
            self.seen.setdefault(name, v)
        return default if v is _UNBOUND else v

    def __contains__(self, name) -> bool:
        return self.get(name, _UNBOUND) is not _UNBOUND

    def __getitem__(self, name):
        v = self.get(name, _UNBOUND)
        if v is _UNBOUND:
            raise KeyError(name)
        return v

    def same(self, seen: dict) -> bool:
        """Is every name in `seen` bound as it was (or still unbound)?"""
        return all(dict.get(self, name, _UNBOUND) == v for name, v in seen.items())


@dataclass
class Memo:
    lines: list[str]  # the text's lines, with their ends
    tree: ast.Module | None  # None once dropped (Workspace.set_text keeps the last few buffers' only)
    extents: list[tuple[int, int]]  # per statement of tree.body: first line (decorators included), last line
    scope: tuple  # the module's name, whether a package, and the walk's fast path: compared whole
    units: dict[tuple, Unit]  # (first line, last line, their text) -> Unit
    spent: bool = False  # its tree's statements were moved for a newer text: not to be reparsed from again


def unit_key(lines: list[str], span: tuple[int, int]) -> tuple:
    return span[0], span[1], "".join(lines[span[0] - 1:span[1]])


def split(text: str) -> list[str] | None:
    """The text's lines with their ends, as the tokenizer counts them; None when it cannot be told so."""
    if any(ch in text for ch in _ODD_LINE_ENDS):
        return None
    return text.splitlines(keepends=True)


def reparse(memo: Memo, lines: list[str], path: str) -> ast.Module | None:
    """The syntax tree of `lines` from the memo's tree: the top-level statements the changed lines touch
    parsed again, the others kept (those below, moved by the lines added or removed: in place, so the memo
    cannot serve again).  None when this cannot be sure to give what parsing the whole text would (then
    the caller parses it)."""
    old = memo.lines
    if memo.spent or memo.tree is None or not memo.tree.body:
        return None
    n, m = len(lines), len(old)
    moved = n - m
    top = min(n, m)
    lo = 0
    while lo < top and lines[lo] == old[lo]:
        lo += 1
    if lo == n == m:
        return memo.tree
    same_end = 0  # lines equal at the end, not overlapping those equal at the start
    while same_end < top - lo and lines[n - 1 - same_end] == old[m - 1 - same_end]:
        same_end += 1
    first, last = lo + 1, m - same_end  # the old text's changed lines, 1-based
    if first > last:  # lines inserted only: the statements around where they were inserted
        first, last = lo, lo + 1
    if first <= 2:
        return None  # an encoding declaration may have changed
    # the statements overlapping the changed lines, and the lines between them
    body, extents = memo.tree.body, memo.extents
    i = 0
    while i < len(body) and extents[i][1] < first:
        i += 1
    j = i
    while j < len(body) and extents[j][0] <= last:
        j += 1
    start = min(first, extents[i][0]) if i < len(body) else first
    end = max(last, extents[j - 1][1]) if j > i else last
    # a statement ending on the line the region starts on (`a = 1; b = 2`) is part of it
    while i > 0 and extents[i - 1][1] >= start:
        i -= 1
        start = min(start, extents[i][0])
    while j < len(body) and extents[j][0] <= end:
        end = max(end, extents[j][1])
        j += 1
    region = "".join(lines[start - 1:end + moved])
    if "__future__" in region:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            part = ast.parse(region, filename=path, type_comments=False)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for stmt in part.body:
        move_lines(stmt, start - 1)
    if moved:
        memo.spent = True
        for stmt in body[j:]:
            move_lines(stmt, moved)
    return ast.Module(body=[*body[:i], *part.body, *body[j:]], type_ignores=[])


def move_lines(stmt: ast.stmt, d: int) -> None:
    """ast.increment_lineno(stmt, d), in place, without walking the tree again: the statement's nodes with a line
    are listed once (on the node, `_fg_lined`: the editor moves the statements below each new line)."""
    nodes = stmt.__dict__.get("_fg_lined")
    if nodes is None:
        nodes = stmt._fg_lined = [n for n in ast.walk(stmt) if "lineno" in n._attributes]
    if not d:
        return
    for n in nodes:
        n.lineno += d
        if n.end_lineno is not None:
            n.end_lineno += d


def classes_as_they_are(summary: ModuleSummary, qualnames) -> dict:
    """Copies of the classes `qualnames` (their containers copied too: the function pass adds to them)."""
    return {q: writable_copy(summary.classes[q]) for q in qualnames if q in summary.classes}


def record_start(summary: ModuleSummary) -> tuple:
    """Before a unit's functions are analysed: swap in empty sets and functions (what the unit adds to
    them is then exactly what they hold after), note list lengths and each root's calls."""
    saved_sets = {f: getattr(summary, f) for f in SET_FIELDS}
    for f in SET_FIELDS:
        setattr(summary, f, set())
    saved_functions = summary.functions
    summary.functions = {}
    lengths = {f: len(getattr(summary, f)) for f in LIST_FIELDS}
    calls = [len(r.calls) for r in summary.roots]
    return saved_sets, saved_functions, lengths, calls


def record_end(summary: ModuleSummary, state: tuple, unit: Unit, classes: list[str]) -> None:
    """After a unit's functions were analysed: move what they added into `unit` (and back into the
    summary).  `classes`: qualnames of the classes whose state they may have changed or made."""
    saved_sets, saved_functions, lengths, calls = state
    for f in SET_FIELDS:
        added = getattr(summary, f)
        if added:
            unit.sets[f] = added
            saved_sets[f].update(added)
        setattr(summary, f, saved_sets[f])
    unit.functions = summary.functions
    for fs in unit.functions.values():
        fs.origin = object()
    saved_functions.update(unit.functions)
    summary.functions = saved_functions
    for f in LIST_FIELDS:
        items = getattr(summary, f)[lengths[f]:]
        if items:
            unit.lists[f] = items
    for i, n in enumerate(calls):
        r = summary.roots[i]
        if len(r.calls) > n:
            unit.root_calls[i] = r.calls[n:]
    unit.classes = {q: summary.classes[q] for q in dict.fromkeys(classes) if q in summary.classes}


def replay(summary: ModuleSummary, unit: Unit) -> None:
    """A unit taken from the memo: what its analysis added, added again (roots copied: a later unit's
    calls are added to them, and the memo's must stay as recorded)."""
    summary.functions.update(unit.functions)
    for f, items in unit.sets.items():
        getattr(summary, f).update(items)
    for f, items in unit.lists.items():
        getattr(summary, f).extend([copy.copy(x) for x in items] if f == "roots" else items)
    for i, more in unit.root_calls.items():
        r = summary.roots[i]
        r.calls = (*r.calls, *more)
    summary.classes.update(unit.classes)


def _moved(x, d: int, spans=("span",), blocks=False):
    """A copy of a summary record with the Span fields `spans` (and its `block` line) `d` lines down."""
    return _moved_records([x], d, spans, blocks)[0]


def _moved_records(items: list, d: int, spans: tuple, blocks: bool) -> list:
    """_moved of each record (sites, edges: the bulk of what a function records), without a call per record."""
    out = []
    new_obj = object.__new__
    for x in items:
        new = new_obj(type(x))
        nd = new.__dict__
        nd.update(x.__dict__)
        for f in spans:
            nd[f] = moved_span(nd[f], d)
        if blocks and nd["block"] is not None:
            nd["block"] += d
        out.append(new)
    return out


def moved_function(fs: FunctionSummary, d: int) -> FunctionSummary:
    """A copy of `fs` `d` lines down."""
    new = _moved(fs, d, ("span", "name_span"))
    new.sites = _moved_records(fs.sites, d, ("span", "stmt"), True)
    new.edges = _moved_records(fs.edges, d, ("span",), True)
    new.iter_uses = _moved_records(fs.iter_uses, d, ("span",), False)
    new.decorator_lines = [n + d for n in fs.decorator_lines]
    new.wrapped_by = [(q, called, moved_span(s, d)) for q, called, s in fs.wrapped_by]
    new.comprehensions = [(moved_span(s, d), names) for s, names in fs.comprehensions]
    new.effects = [(moved_span(s, d), text) for s, text in fs.effects]
    new.unknown_calls = [(name, moved_span(s, d), conds, dead) for name, s, conds, dead in fs.unknown_calls]
    return new


def _moved_list(field_name: str, items: list, d: int) -> list:
    if field_name == "unresolved_roots":
        return [(label, moved_span(s, d)) for label, s in items]
    if field_name == "call_sites":
        out = []
        for c in items:
            new = _moved(c, d)
            new.arg_spans = tuple(moved_span(s, d) for s in c.arg_spans)
            out.append(new)
        return out
    if field_name == "roots":
        return [_moved(r, d) for r in items]
    return items  # star_imports, hooks: names only


def shifted(unit: Unit, d: int) -> Unit | None:
    """`unit` for its statement `d` lines further down (a line was added or removed above it): every
    position in what it recorded moved (summary.py says which fields hold positions; the test checks
    this against a shift of every Span found anywhere).  None when positions are also in its names (a
    lambda's qualname is `<lambda:line:col>`): its statement is analysed again then."""
    if any("<lambda:" in q for q in unit.functions):
        return None
    return Unit(
        decorations={q: None if e is None else (*e[:4], [(w, c, moved_span(s, d)) for w, c, s in e[4]])
                     for q, e in unit.decorations.items()},
        roots_before=unit.roots_before,
        classes_before={q: _moved(cs, d, ("span", "name_span")) for q, cs in unit.classes_before.items()},
        functions={q: moved_function(fs, d) for q, fs in unit.functions.items()},
        classes={q: _moved(cs, d, ("span", "name_span")) for q, cs in unit.classes.items()},
        lists={f: _moved_list(f, items, d) for f, items in unit.lists.items()},
        sets=unit.sets,
        root_calls=unit.root_calls,
        reads=unit.reads)


def blank_lines_edit(old: list[str], new: list[str], tree: ast.Module) -> LineShift | None:
    """The edit from the lines `old` to `new` (with their ends; `tree` the new text's syntax tree) when it only added
    or removed blank lines where a blank line means nothing to Python (not inside a string, not after a backslash),
    so that every analysis of the new text is the last one's with its positions moved (LineShift); else None."""
    if len(old) == len(new):
        return None  # (a blank line's spaces changed: nothing moved, and the text's hash tells the rest)
    n = min(len(old), len(new))
    p = 0
    while p < n and old[p] == new[p]:
        p += 1
    q = 0
    while q < n - p and old[-1 - q] == new[-1 - q]:
        q += 1
    gone, came = old[p:len(old) - q], new[p:len(new) - q]
    if any(line.strip() for line in (*gone, *came)):
        return None
    if p and old[p - 1].rstrip("\r\n").endswith("\\"):
        return None  # a blank line after a backslash ends the logical line
    # the same edit may be told at another place among equal blank lines: any such place is blank, so the
    # string test below (any string spanning the edited lines) is the same wherever it is told
    for stmt in tree.body:
        first, last = first_line(stmt) - 1, (stmt.end_lineno or stmt.lineno) - 1
        if first >= p:
            break
        if last < p:
            continue
        for node in ast.walk(stmt):  # (the statement the blank lines are in: a string inside it spanning them)
            if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.lineno - 1 < p <= (node.end_lineno or 0) - 1 \
                    and (isinstance(node, ast.JoinedStr) or isinstance(node.value, (str, bytes))):
                return None
    return LineShift(p, len(gone), len(came))

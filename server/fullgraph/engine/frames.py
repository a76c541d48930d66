"""What Dynamo does after a graph break it cannot resume from (torch 2.13, verified in tests/test_realcode.py).

Dynamo resumes after a graph break by compiling the rest of the function as a new frame -- except
when the break sits inside a `for` loop or a `try` block of that function: then it compiles up to
the last resumable point, or nothing ("Failed to handle graph break gracefully"), and runs the rest
of the function uncompiled.  Two consequences a reader of the source can predict:

* the function's other breaks are never seen at run time: they show only once the first one is
  fixed (reported, but as conditional on that fix);
* before Python 3.12 every list/set/dict comprehension is a function of its own; run uncompiled,
  the function calls it, and Dynamo compiles that call as a new frame whose argument is a list or
  dict iterator, which it cannot step ("Missing tp_iternext", FG405) -- when the comprehension
  reads what the function was given (the module, its inputs), which makes Dynamo take the frame.

Calls made from the uncompiled rest are compiled as frames of their own: their breaks stay.

A `with` whose context manager is made by a call that breaks is one more break (FG408): Dynamo resumes
after the call with the object it returned as an input of the new frame, and enters only context
managers it created while tracing ("Unsupported context manager").  A break at a `with` cannot be
resumed either: the rest of the function runs uncompiled.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from .conditions_evaluated import merge

# comprehensions are inlined into their function since Python 3.12 (PEP 709)
COMPREHENSION_FRAMES = sys.version_info < (3, 12)


@dataclass
class FrameFacts:
    """One function as a root reaches it: where its own breaks are and what its calls reach."""

    name: str
    params: tuple[str, ...]
    path: str  # the module's path
    steps: list  # the call path from the root (model.Step)
    comprehensions: list = field(default_factory=list)  # FunctionSummary.comprehensions
    own: list = field(default_factory=list)  # (line, block, when, (rule, span, message, data)) of each own finding
    calls: list = field(default_factory=list)  # (line, block, when, target qualnames)
    with_calls: list = field(default_factory=list)  # (span, text, when, target qualnames): `with f(...):`
    # line -> the Cond atoms of the `if`s around what is there (Site.conds, Edge.conds): which breaks
    # lie on paths that exclude each other
    conds: dict = field(default_factory=dict)
    # line -> where the run's one definite path first traces what is there (conditions_evaluated.first_taken: (the
    # run, the place)), None when two paths disagree: the order a loop's iterations meet breaks in
    order: dict = field(default_factory=dict)

    def ordered(self, line: int, when: tuple | None) -> None:
        """Record `when` (first_taken) for `line`; two different ones: not known."""
        if line in self.order and self.order[line] != when:
            self.order[line] = None
        else:
            self.order[line] = when

    def apart(self, a: int, b: int) -> bool:
        """Lines `a` and `b` lie on branches of one `if` that exclude each other."""
        atoms = set(self.conds.get(b, ()))
        return any(x[:3] + (not x[3],) in atoms for x in self.conds.get(a, ()))


def _better(a: tuple | None, b: tuple | None) -> tuple | None:
    """The condition that makes a break more certain: () (always) beats any condition."""
    if a is None:
        return b
    if b is None:
        return a
    return b if len(b) < len(a) else a


class Frames:
    def __init__(self, facts: dict[str, FrameFacts]):
        self.facts = facts
        self._breaks: dict[str, tuple | None] = {}

    def breaks(self, q: str, _stack: frozenset = frozenset()) -> tuple | None:
        """The condition under which calling `q` reaches a graph break: () always, None never."""
        if q in self._breaks:
            return self._breaks[q]
        facts = self.facts.get(q)
        if facts is None or q in _stack:
            return None
        best = None
        for _line, _block, when in self.points(q, _stack | {q}):
            best = _better(best, when)
        self._breaks[q] = best
        return best

    def points(self, q: str, _stack: frozenset = frozenset()) -> list[tuple[int, int | None, tuple]]:
        """Where in `q` a graph break happens, with its condition: its own findings and the calls
        reaching one (line order)."""
        facts = self.facts[q]
        out = [(line, block, when) for line, block, when, _ in facts.own]
        for line, block, when, targets in facts.calls:
            best = None
            for t in targets:
                best = _better(best, self.breaks(t, _stack))
            if best is not None:
                out.append((line, block, merge(when, best)))
        return sorted(out, key=lambda p: (p[0], len(p[2])))

    def unenterable(self, q: str) -> list[tuple]:
        """(span, text, condition) of each `with` in `q` whose context manager is made by a call that
        reaches a graph break."""
        out = []
        for span, text, when, targets in self.facts[q].with_calls:
            best = None
            for t in targets:
                best = _better(best, self.breaks(t))
            if best is not None:
                out.append((span, text, merge(when, best)))
        return out

    def add_own(self, q: str, entries: list[tuple]) -> None:
        """More findings of `q` itself (what the break points are computed from is reset)."""
        self.facts[q].own.extend(entries)
        self._breaks.clear()

    def first_unresumable(self, q: str) -> tuple[int, tuple, int | None] | None:
        """(line, condition, resumed_at) of the break after which Dynamo runs the rest of `q` uncompiled: the first
        break, certain or possible, inside a `for`/`try` or a `with`'s context expression.  A certain break
        elsewhere before it (`n = x.sum().item()`) is resumed from: Dynamo compiles the rest of `q` from there as a
        frame of its own, which the later break then leaves uncompiled (checked against Dynamo 2.13:
        tests/test_realcode.py); `resumed_at` is the last such line, None when the frame is `q` itself."""
        resumed_at = None
        for line, block, when in self.points(q):
            if block is not None:
                return line, when, resumed_at
            if not when:
                resumed_at = line
        return None

    def hidden(self, q: str) -> tuple[int, set[int]] | None:
        """(line of the certain unresumable break, lines of `q`'s own findings it hides).  Dynamo then
        skips `q` as a frame of its own: compiled as the root, it never traces `q` again; called from
        compiled code, `q` is still inlined into its caller up to its first break on the path taken, so
        only what another break precedes on the same path is hidden (`if`: one break per branch).  After a
        certain break Dynamo resumes from, the frame the unresumable break leaves uncompiled is the rest of `q`
        from there: what follows the unresumable break is hidden (a possible break between the two is resumed
        from too when it happens)."""
        first = self.first_unresumable(q)
        later = self._traced_later(q)
        facts = self.facts[q]
        if first is None or first[1] or (later is not None and self._met_after(facts, first[0], later[0])):
            return later  # (the first break by line is met later on the run's path: a later iteration's)
        line, _, resumed_at = first
        own = {ln for ln, _b, _w, _p in facts.own if ln != line}
        met_after = later[1] if later is not None and later[0] == line else set()
        if resumed_at is not None:
            return line, {ln for ln in own if ln > line} | met_after
        if len(facts.steps) <= 1:
            return line, own
        points = sorted({p[0] for p in self.points(q)})
        return line, {ln for ln in own if any(p < ln and not facts.apart(p, ln) for p in points)} | met_after

    @staticmethod
    def _met_after(facts: FrameFacts, a: int, b: int) -> bool:
        """Does the run's definite path first meet line `a` after line `b` (both ordered, in the same run)?"""
        oa, ob = facts.order.get(a), facts.order.get(b)
        return oa is not None and ob is not None and oa[0] == ob[0] and (oa[1] > ob[1] or (oa[1] == ob[1] and a > b))

    def _traced_later(self, q: str) -> tuple[int, set[int]] | None:
        """(line of the first certain unresumable break the run's definite path meets, the own findings that path
        meets after it, whatever their lines): a loop's later iterations (BigBird's plan loop breaks at
        `int(np.sum(...))` in its first iteration; the `range()`s of its second never run compiled), or a branch
        after the break's in the same one.  None when the order is not known."""
        facts = self.facts[q]
        certain = [(facts.order[ln], ln) for ln, block, when in self.points(q)
                   if block is not None and not when and facts.order.get(ln) is not None]
        if not certain or len({c[0][0] for c in certain}) > 1:
            return None  # (none, or orders of two runs: paths the walk took with other values)
        at, line = min(certain, key=lambda c: (c[0][1], c[1]))
        # (met first after the same test as the break: later in the same stretch of code, by line)
        return line, {ln for ln, _b, _w, _p in facts.own if ln != line and self._met_after(facts, ln, line)}

    def comprehension_frames(self, q: str):
        """(span, condition, break line) of each comprehension Dynamo compiles as a frame of its own
        because `q` runs uncompiled after an unresumable break."""
        if not COMPREHENSION_FRAMES:
            return []
        first = self.first_unresumable(q)
        if first is None or first[2] is not None:
            # (after a break Dynamo resumed from, what a comprehension of the resumed frame is given is not checked
            # against Dynamo: none is predicted)
            return []
        facts = self.facts[q]
        given = set(facts.params)
        return [(span, first[1], first[0]) for span, reads in facts.comprehensions
                if reads & given and span.start.line != first[0]]

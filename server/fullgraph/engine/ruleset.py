"""The rules the engine dispatches to, as lookup tables, and whether a rule applies to a compile.

The engine imports no rule.  A `RuleSet` is handed to it (rules/registry.py builds the one of all
rules; api.py passes it to each analysis and to the project), and the engine asks it:

- during a module's analysis (engine/analyzer.py, engine/calls.py), which rules match a callee's
  qualified name (`call_rules`), a method name (`methods`) or a syntactic event (`hooks`), and calls
  their ``check(event)``;
- during the walk from a compiled root (engine/findings.py), which rules listen to a project event
  (`project`: "root", "edge", "reached", "frame"; engine/walk_events.py) and calls their
  ``at_<event>(event)``;
- for a finding, the rule of its code (`by_code`): its versions, modes, ``holds``, ``silenced_by`` and
  ``breaks_in_callee``.
"""
from __future__ import annotations

from typing import Any, Iterable

FULLGRAPH = "fullgraph"  # torch.compile(..., fullgraph=True): the break raises
PARTIAL = "partial"  # torch.compile(...) without fullgraph: the break splits the graph
BOTH = frozenset({FULLGRAPH, PARTIAL})

PROJECT_EVENTS = ("root", "edge", "reached", "frame", "compile")


class RuleSet:
    """Dispatch tables over a list of rule objects (rules/base.py's Rule, by duck typing)."""

    def __init__(self, rules: Iterable[Any]):
        self.rules: list = sorted(rules, key=lambda r: r.code)
        self.by_code: dict[str, Any] = {}
        self.calls: dict[str, list] = {}
        self.methods: dict[str, list] = {}
        self.hooks: dict[str, list] = {}
        self.project: dict[str, list] = {e: [] for e in PROJECT_EVENTS}
        for r in self.rules:
            if r.code in self.by_code:
                raise RuntimeError(f"duplicate rule code {r.code}")
            self.by_code[r.code] = r
            for q in r.calls:
                self.calls.setdefault(q, []).append(r)
            for m in r.methods:
                self.methods.setdefault(m, []).append(r)
            for h in r.hooks:
                self.hooks.setdefault(h, []).append(r)
            for e in r.project_hooks:
                self.project[e].append(r)
        self._call_rules: dict[str, list | None] = {}

    def call_rules(self, q: str) -> list | None:
        """Rules for a qualified callee: exact name first, then `pkg.*` patterns, innermost first
        (remembered per name: the analysis asks for every call it reads)."""
        try:
            return self._call_rules[q]
        except KeyError:
            pass
        rules = self.calls.get(q)
        p = q
        while rules is None and "." in p:
            p = p.rsplit(".", 1)[0]
            rules = self.calls.get(p + ".*")
        if len(self._call_rules) >= 50_000:  # a long-running language server: bounded
            self._call_rules.clear()
        self._call_rules[q] = rules
        return rules


def applies(rule, version, fullgraph: bool | None) -> bool:
    """Whether `rule` reports on that torch version for a root compiled with (True) or without (False)
    fullgraph=True; None: only a rule that holds in both modes."""
    if not rule.versions.contains(version):
        return False
    modes = rule.modes(version)
    if fullgraph is True:
        return FULLGRAPH in modes
    if fullgraph is False:
        return PARTIAL in modes
    return modes == BOTH

"""All rules, and the dispatch tables the analyzer uses (built once at import)."""
from __future__ import annotations

from .base import Rule


def _collect() -> list[Rule]:
    from . import autograd, data_dependent, meta, opaque, python, side_effects  # noqa: F401

    seen: dict[str, Rule] = {}

    def walk(cls):
        for sub in cls.__subclasses__():
            if getattr(sub, "code", None) and sub.__dict__.get("code"):
                if sub.code in seen:
                    raise RuntimeError(f"duplicate rule code {sub.code}")
                seen[sub.code] = sub()
            walk(sub)

    walk(Rule)
    return sorted(seen.values(), key=lambda r: r.code)


RULES: list[Rule] = _collect()
BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}

CALLS: dict[str, list[Rule]] = {}
METHODS: dict[str, list[Rule]] = {}
HOOKS: dict[str, list[Rule]] = {}
for _r in RULES:
    for _q in _r.calls:
        CALLS.setdefault(_q, []).append(_r)
    for _m in _r.methods:
        METHODS.setdefault(_m, []).append(_r)
    for _h in _r.hooks:
        HOOKS.setdefault(_h, []).append(_r)


_CALL_RULES: dict[str, list[Rule] | None] = {}


def call_rules(q: str) -> list[Rule] | None:
    """Rules for a qualified callee: exact name first, then `pkg.*` patterns, innermost first
    (remembered per name: the analysis asks for every call it reads)."""
    try:
        return _CALL_RULES[q]
    except KeyError:
        pass
    rules = CALLS.get(q)
    p = q
    while rules is None and "." in p:
        p = p.rsplit(".", 1)[0]
        rules = CALLS.get(p + ".*")
    if len(_CALL_RULES) >= 50_000:  # a long-running language server: bounded
        _CALL_RULES.clear()
    _CALL_RULES[q] = rules
    return rules


def get(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    return BY_CODE.get(key.upper()) or BY_NAME.get(key.lower())

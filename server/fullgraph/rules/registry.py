"""All rules, and the rule set the engine dispatches to (engine/ruleset.py), built once at import."""
from __future__ import annotations

from ..engine.ruleset import RuleSet
from . import autograd, data_dependent, host, meta, opaque, python, recompile, side_effects  # noqa: F401  (they define the rules)
from .base import Rule


def _collect() -> list[Rule]:
    found: list[Rule] = []

    def walk(cls):
        for sub in cls.__subclasses__():
            if getattr(sub, "code", None) and sub.__dict__.get("code"):
                found.append(sub())
            walk(sub)

    walk(Rule)
    return found


RULESET = RuleSet(_collect())  # (raises on a duplicate code)
RULES: list[Rule] = RULESET.rules
BY_CODE: dict[str, Rule] = RULESET.by_code
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


def get(code_or_name: str) -> Rule | None:
    key = code_or_name.strip()
    return BY_CODE.get(key.upper()) or BY_NAME.get(key.lower())

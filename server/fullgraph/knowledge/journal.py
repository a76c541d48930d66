"""What both sides of a collection read: the catalog's case modules, the catalog probe's journal (one JSON
line per finished case) and a case's verdict in words."""
from __future__ import annotations

import json
from pathlib import Path

CASE_MODULES = ("cases_seed", "cases_side_effects", "cases_data_dependent", "cases_python", "cases_modules",
                "cases_guards")


def catalog_done(path: Path) -> tuple[dict[str, dict], str | None]:
    """The catalog probe's journal: finished cases, and the case started last and never finished."""
    done: dict[str, dict] = {}
    started = None
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash
            if "started" in rec:
                started = rec["started"]
            else:
                cid = rec.pop("id")
                done[cid] = rec
                if started == cid:
                    started = None
    return done, started


def verdict_text(c: dict | None) -> str:
    if c is None:
        return "absent"
    if c.get("skipped"):
        return "skipped"
    if c.get("crashed"):
        return "crashed"
    if c.get("error"):
        return "error"
    if c.get("breaks"):
        code = c.get("gb_code") or (c.get("exception") or "?").rsplit(".", 1)[-1]
        return f"breaks ({code} {(c.get('gb_type') or '')[:100]})"
    plain = c.get("plain") or {}
    extra = " (plain mode breaks)" if plain.get("breaks") else ""
    if c.get("same_as_eager") is False:
        extra += " (differs from eager)"
    return "compiles" + extra

"""Scoring shared by bench/modules/score.py and bench/realworld: `fullgraph check --format json` findings
matched to Dynamo's graph-break sites, statement by statement.

* A Dynamo **site** is a statement: a file and its first and last line.  A finding is **on** the site when one
  of its locations (the diagnostic itself by default; bench/realworld also counts the ``library_sites`` it
  lists) is in that file with its start line inside the statement.  The JSON's ``range`` lines are 1-based
  (``fullgraph/positions.py`` ``Span.to_json``).
* A finding is **shown** (printed by default) unless its JSON has ``"conditional": true``.  Both kinds are in
  the JSON; a site is **found** only by a shown finding (recall), and a site that only a conditional finding
  is on is counted apart (``site_status`` says ``"conditional"``).
* Recall and precision are ratios of such counts (``ratio``); what is counted differs per benchmark (see the
  docstrings of bench/modules/score.py and bench/realworld/score_runs.py).
"""
from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import Path

FOUND, CONDITIONAL, MISSED = "found", "conditional", "missed"


def shown(d: dict) -> bool:
    """Shown by default: not marked ``"conditional": true``."""
    return not d.get("conditional")


def split_shown(diags: Iterable[dict]) -> tuple[list[dict], list[dict]]:
    """(the shown findings, the conditional ones), each in the JSON's order."""
    diags = list(diags)
    return [d for d in diags if shown(d)], [d for d in diags if not shown(d)]


def json_line(x: dict, which: str = "start") -> int:
    """The 1-based line where the JSON ``range`` of a diagnostic (or library site) starts (or ends), 0 if absent."""
    return (x.get("range") or {}).get(which, {}).get("line", 0)


def inside(loc: dict, path: str, start: int, end: int, field: str = "path") -> bool:
    """`loc` (``{field: path, "line": n}``) is in `path` with its line in ``start..end``."""
    return loc[field] == path and start <= loc["line"] <= end


def on_any(loc: dict, statements: Iterable[tuple[str, int, int]], field: str = "path") -> bool:
    """`loc` is inside one of the statements ``(path, start, end)``."""
    return any(inside(loc, p, a, b, field) for p, a, b in statements)


def site_status(diags: list[dict], path: str, start: int, end: int,
                locations: Callable[[dict], list[dict]] = lambda d: [d],
                field: str = "path") -> tuple[str, dict | None, dict | None]:
    """How the findings meet the site `path:start-end`: ``(FOUND, finding, location)`` for the first shown
    finding with a location inside it, else ``(CONDITIONAL, ...)`` for the first conditional one, else
    ``(MISSED, None, None)``."""
    for want_shown in (True, False):
        for d in diags:
            if shown(d) != want_shown:
                continue
            for loc in locations(d):
                if inside(loc, path, start, end, field):
                    return (FOUND if want_shown else CONDITIONAL), d, loc
    return MISSED, None, None


def ratio(a: int, b: int, digits: int = 4) -> float | None:
    """a / b rounded (recall = found sites / sites, precision = findings on a site / findings); None if b is 0."""
    return round(a / b, digits) if b else None


class SourceLines:
    """Source lines and statement spans of files, read once (`resolve` maps a stored path to a file)."""

    def __init__(self, resolve: Callable[[str], str] = lambda p: p):
        self.resolve = resolve
        self.text: dict[str, list[str]] = {}
        self.stmts: dict[str, list[tuple[int, int]]] = {}

    def lines(self, path: str) -> list[str]:
        path = self.resolve(path)
        if path not in self.text:
            try:
                self.text[path] = Path(path).read_text(encoding="utf-8").splitlines()
            except OSError:
                self.text[path] = []
        return self.text[path]

    def line(self, path: str, n: int) -> str:
        """Line n (1-based), stripped; "" outside the file."""
        ls = self.lines(path)
        return ls[n - 1].strip() if 0 < n <= len(ls) else ""

    def statement(self, path: str, n: int) -> tuple[int, int]:
        """The innermost simple statement (or compound statement header) containing line n."""
        path = self.resolve(path)
        if path not in self.stmts:
            self.stmts[path] = _statement_spans("\n".join(self.lines(path)))
        best = (n, n)
        for a, b in self.stmts[path]:
            if a <= n <= b and (best == (n, n) or b - a < best[1] - best[0]):
                best = (a, b)
        return best


_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.FunctionDef, ast.ClassDef, ast.Try, ast.AsyncFunctionDef,
             ast.AsyncFor, ast.AsyncWith)


def _statement_spans(text: str) -> list[tuple[int, int]]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            end = node.end_lineno or node.lineno
            if isinstance(node, _COMPOUND):
                body = getattr(node, "body", None)
                end = max((body[0].lineno - 1) if body else end, node.lineno)
            spans.append((node.lineno, end))
    return spans

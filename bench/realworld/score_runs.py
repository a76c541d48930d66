"""Scoring the runs: each run (model x mode) of truth.json against its check in static.json, with the
statement matching of bench/scoring.py.  The text below the next line is the report's "Method" section.

Scoring (what the CLI/JSON shows):

* a Dynamo site is **found** when a shown JSON diagnostic (not ``"conditional": true``) is in the site's file
  with its start line inside the site's statement, or lists such a location in its ``library_sites`` (the
  JSON's ``range`` lines are 1-based, as ``fullgraph/positions.py`` ``Span.to_json`` writes them);
  found only by a conditional diagnostic is counted apart; *at a caller*: a shown location inside the
  statement of an outer library frame of the same Dynamo stack (informative, not recall);
* a diagnostic's **locations** are its ``library_sites`` (the library breaks behind an echo at the user's
  line) or, when it has none, the diagnostic itself.  A shown location that no Dynamo site of the same run
  accounts for (its statement or an outer frame's) is **static-only**; the eager coverage run says whether
  its statement ran for this input (then Dynamo traced it without a break: a false positive) or not;
* **precision**: over the models Dynamo compiles with no break in any of their modes (*clean* models), the
  distinct shown locations of their scripts, per model; and per library, over the *clean runs* (a model x mode
  Dynamo compiles without a break), the distinct shown locations of each such script, per run.
"""
from __future__ import annotations

from common import Sources, site_key, unranges
from models import BY_NAME
from scoring import FOUND, MISSED, on_any, site_status, split_shown


def locations(d: dict) -> list[dict]:
    """What a diagnostic points at: its library sites, or itself when it has none."""
    return d["library_sites"] or [d]


def score_site(s: dict, diags: list[dict]) -> tuple[str, str | None, str | None]:
    """found / found (conditional only) / missed (+ at a caller), the matching location, and the
    condition the finding states there (conditional only)."""
    st, d, loc = site_status(diags, s["path"], *s["stmt"], locations=lambda d: [d] + d["library_sites"])
    if st != MISSED:
        return st, f"{loc['path']}:{loc['line']} {loc['code']}", \
            None if st == FOUND else loc.get("condition") or d.get("condition")
    for d in split_shown(diags)[0]:
        for loc in locations(d):
            if on_any(loc, s.get("outer", [])):
                return "missed (at a caller)", f"{loc['path']}:{loc['line']} {loc['code']}", None
    return MISSED, None, None


def accounted(loc: dict, sites: list[dict]) -> bool:
    """A Dynamo site of the run accounts for `loc`: it lies in the site's statement or an outer frame's."""
    return on_any(loc, [(s["path"], *s["stmt"]) for s in sites] + [o for s in sites for o in s.get("outer", [])])


def executed(loc: dict, run_t: dict, src: Sources) -> bool | None:
    """Whether the statement of `loc` ran in the run's eager coverage run (None: not known)."""
    cov = run_t.get("coverage")
    if cov is None:
        return None
    lines = cov.get(loc["path"])
    if lines is None:  # a library file the call never entered; nothing known of other files
        return False if loc["path"].startswith(run_t["library"] + "/") else None
    a, b = src.statement(loc["path"], loc["line"])
    ls = unranges(lines)
    return any(n in ls for n in range(a, b + 1))


def score(truth: dict, static: dict) -> dict:
    """{"rows": one row per run of a model in models.py: the run, and when it was checked, each site's status,
    the shown/conditional counts, the distinct shown locations and the static-only ones}."""
    src = Sources()
    rows = []
    for key, run_t in truth.get("runs", {}).items():
        name, mode = key.split("/")
        if name not in BY_NAME:
            continue
        chk = static.get("checks", {}).get(key)
        row = {"key": key, "model": name, "mode": mode, "library": run_t["library"], "family": run_t["family"],
               "ok": run_t["ok"], "error": run_t.get("error"), "sites": run_t["sites"], "events": run_t["events"],
               "runtime_seconds": run_t["seconds"], "check": None}
        if chk is None or "diagnostics" not in chk:
            row["check_error"] = (chk or {}).get("error", "not checked")
            row["check_seconds"] = (chk or {}).get("seconds")
            rows.append(row)
            continue
        diags = chk["diagnostics"]
        row["check_seconds"] = chk["seconds"]
        row["check"] = True
        status = []
        for s in run_t["sites"]:
            st, match, condition = score_site(s, diags)
            top = site_status(diags, s["path"], *s["stmt"])[0] == FOUND  # a top-level diagnostic there
            status.append({"status": st, "match": match, "top": top, "condition": condition,
                           "blockers": static.get("explain", {}).get(key, {}).get(site_key(s))})
        row["status"] = status
        shown_d, cond_d = split_shown(diags)
        row["n_shown"] = len(shown_d)
        row["n_conditional"] = len(cond_d)
        locs = {}
        for d in shown_d:
            for loc in locations(d):
                locs.setdefault((loc["path"], loc["line"], loc["code"]), loc)
        row["shown_locations"] = len(locs)
        row["static_only"] = static_only(locs, run_t, src)
        rows.append(row)
    return {"rows": rows}


def static_only(locs: dict, run_t: dict, src: Sources) -> list[dict]:
    """The shown locations no Dynamo site of the run accounts for, with whether their statement ran eagerly."""
    only = []
    for (p, ln, code), loc in locs.items():
        if accounted(loc, run_t["sites"]):
            continue
        ex = executed(loc, run_t, src)
        only.append({"path": p, "line": ln, "code": code, "executed": ex, "message": loc.get("message", "")[:160],
                     "text": src.line(p, ln)[:100] if not p.startswith("bench/") else ""})
    return only

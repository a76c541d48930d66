"""Conditional findings inside followed libraries, gathered: one finding per compile call and library.

A model from a followed library (`--follow transformers`) reaches many breaks on paths fullgraph cannot
decide statically (other model families' losses, attention back-ends, ...).  The engine reports them at
the user's call that reaches them, one finding per line and code, each with `condition` set.  Front-ends
that show them in an editor or in SARIF gather them here into one finding per compile call and library:
"N possible graph breaks inside transformers on paths this call may take", with every site and its
condition in `library_sites`, at the severity `Config.conditional` asks for (hint | information | off).

A runtime record (`fullgraph trace`, .fullgraph/breaks.json) decides some of them: a site where Dynamo
broke in that run becomes its own finding ("observed at runtime", an error under fullgraph=True, else a
warning); when the run went through the file of the compile call, the sites it did not break at are
marked "not reached in the last run".
"""
from __future__ import annotations

import dataclasses
import os
from collections import Counter
from dataclasses import dataclass

from .model import ERROR, HINT, INFO, WARNING, Finding, LibrarySite
from .positions import Span

GROUP_CODE = "FG004"
GROUP_NAME = "possible-library-breaks"


def is_group(f: Finding) -> bool:
    return bool(f.data.get("conditional_group"))


def site_library(site: LibrarySite) -> str:
    """The top-level package of a library site ("transformers")."""
    if site.module:
        return site.module.split(".")[0]
    parts = os.path.normpath(site.path).split(os.sep)
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            i = len(parts) - 1 - parts[::-1].index(marker)
            if i + 1 < len(parts):
                return parts[i + 1].removesuffix(".py")
    return os.path.basename(site.path).removesuffix(".py")


def site_where(site: LibrarySite) -> str:
    """`transformers.modeling_utils:4778` (the module, else the file name, and the line)."""
    return f"{site.module or os.path.basename(site.path)}:{site.span.start.line + 1}"


def by_condition(sites: list[LibrarySite]) -> list[tuple[str, list[LibrarySite]]]:
    """The sites grouped by condition, the commonest condition first."""
    groups: dict[str, list[LibrarySite]] = {}
    for s in sites:
        groups.setdefault(s.condition or "", []).append(s)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


@dataclass(frozen=True)
class Observed:
    """A site Dynamo broke at in the recorded run."""

    gb_type: str
    gb_code: str | None
    fullgraph: bool | None
    message: str


def gather(findings: list[Finding], level: str = "hint", record=None, record_root: str | None = None) -> list[Finding]:
    """`findings` with the conditional library findings gathered per (file, compile call, library).

    level "off": every conditional finding (the user's own too) is left out; "hint"/"information": the
    severity of the gathered findings (the user's own conditional findings stay as they are).  `record`
    (a trace.record.Record) confirms sites: see the module's docstring.
    """
    if level == "off":  # the sites a run broke at are no longer conditional: they stay
        return [f for f in confirm(findings, record, record_root) if f.condition is None]
    out: list[Finding] = []
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        if f.condition is None or not f.data.get("library_finding") or not f.library_sites:
            out.append(f)
            continue
        for site in f.library_sites:
            key = (f.path, _root_key(f), site_library(site))
            groups.setdefault(key, []).append(f)
    for (path, _, lib), echoes in groups.items():
        uniq = list({id(e): e for e in echoes}.values())
        sites = sorted({s for e in uniq for s in e.library_sites if site_library(s) == lib},
                       key=lambda s: (s.condition or "", s.path, s.span.start, s.code))
        out.extend(_group(path, lib, uniq, sites, level, record, record_root))
    out.sort(key=Finding.sort_key)
    return out


def _root_key(f: Finding):
    r = f.root
    return (r.location.path, r.location.span) if r is not None else None


def _group(path: str, lib: str, echoes: list[Finding], sites: list[LibrarySite], level: str, record,
           record_root: str | None) -> list[Finding]:
    places = {(e.path, e.span) for e in echoes}
    first = min(echoes, key=Finding.sort_key)
    root = first.root
    if len(places) == 1:
        span = first.span
    elif root is not None and root.location.path == path:
        span = root.location.span
    else:
        span = first.span
    observed, ran = _observed(record, record_root, path, sites)
    out: list[Finding] = []
    undecided = []
    for s in sites:
        o = observed.get(s)
        if o is None:
            undecided.append(s)
            continue
        echo = next(e for e in echoes if s in e.library_sites)
        out.append(_observed_finding(echo, s, o, span, lib))
    if undecided:
        n = len(undecided)
        message = f"{n} possible graph break{'s' if n != 1 else ''} inside {lib} on paths this call may take"
        if ran:
            message += f" (not reached by {ran[0]})"
        conditions = Counter(s.condition for s in undecided)
        out.append(Finding(
            path=path, code=GROUP_CODE, name=GROUP_NAME, message=message, span=span, root=root,
            severity=HINT if level == "hint" else INFO, library_sites=undecided,
            condition=conditions.most_common(1)[0][0] or "a path this call may take",
            data={"conditional_group": True, "library": lib, "not_reached": bool(ran),
                  "codes": sorted({s.code for s in undecided}), "stmt": first.data.get("stmt")}))
    return out


def confirm(findings: list[Finding], record, record_root: str | None = None) -> list[Finding]:
    """The command line's view (findings not gathered): each conditional library finding loses the sites
    the record's run broke at, which become findings of their own (shown: not conditional)."""
    if record is None:
        return findings
    out: list[Finding] = []
    for f in findings:
        if f.condition is None or not f.data.get("library_finding") or not f.library_sites:
            out.append(f)
            continue
        observed, _ = _observed(record, record_root, f.path, f.library_sites)
        rest = [s for s in f.library_sites if s not in observed]
        for s, o in observed.items():
            out.append(_observed_finding(f, s, o, f.span, site_library(s)))
        if len(rest) == len(f.library_sites):
            out.append(f)
        elif rest:
            n, lib = len(rest), site_library(rest[0])
            more = f"; and {n - 1} more" if n > 1 else ""
            out.append(dataclasses.replace(f, library_sites=rest, message=(
                f"{'graph break' if n == 1 else f'{n} graph breaks'} inside {lib} ({site_where(rest[0])}: "
                f"{rest[0].message}{more}), reached from your code here")))
    out.sort(key=Finding.sort_key)
    return out


def _observed_finding(f: Finding, s: LibrarySite, o: Observed, span: Span, lib: str) -> Finding:
    return Finding(
        path=f.path, code=s.code, name=o.gb_type, span=span, root=f.root, call_path=f.call_path,
        severity=ERROR if o.fullgraph else WARNING,
        message=f"graph break inside {lib} ({site_where(s)}: {s.message}), observed at runtime",
        gb_codes=(o.gb_code,) if o.gb_code else (), library_sites=[s], origin="confirmed",
        data={"library_finding": True, "observed_site": True, "site_frame": _frame_key(s.path, s.span),
              "runtime": {"gb_type": o.gb_type, "message": o.message}})


def _frame_key(path: str, span: Span) -> tuple[str, int, int]:
    return (_norm(path), span.start.line + 1, span.end.line + 1)


def _norm(path: str) -> str:
    try:
        return os.path.normcase(os.path.realpath(path))
    except (OSError, ValueError):
        return path


def innermost(b) -> tuple[str, int]:
    """Where Dynamo broke: the innermost frame it reported (library frames included)."""
    if b.stack:
        fr = b.stack[-1]
        return _norm(fr["path"]), int(fr["line"])
    return _norm(b.path), b.line


def _observed(record, record_root: str | None, path: str,
              sites: list[LibrarySite]) -> tuple[dict[LibrarySite, Observed], list[str]]:
    """The sites the record's run broke at, and the run's command when it went through `path` (its
    undecided sites were then not reached in that run), else []."""
    if record is None:
        return {}, []
    at: dict[tuple[str, int], object] = {}
    for b in record.breaks:
        at.setdefault(innermost(b), b)
    observed = {}
    for s in sites:
        key = _frame_key(s.path, s.span)
        for line in range(key[1], key[2] + 1):
            b = at.get((key[0], line))
            if b is not None:
                first = b.explanation.strip().splitlines()[0] if b.explanation.strip() else ""
                observed[s] = Observed(b.gb_type, b.gb_code, b.fullgraph,
                                       f"{b.gb_type}: {first}" if first and first != b.gb_type else b.gb_type)
                break
    return observed, (_command(record) if _ran(record, record_root, path) else [])


def _ran(record, record_root: str | None, path: str) -> bool:
    me = _norm(path)
    if any(_norm(p) == me for p in record.files):
        return True
    for arg in record.command:
        if arg.endswith(".py"):
            full = arg if os.path.isabs(arg) else os.path.join(record_root or os.getcwd(), arg)
            if _norm(full) == me:
                return True
    return False


def _command(record) -> list[str]:
    cmd = [os.path.basename(a) if i == 0 or os.path.isabs(a) else a for i, a in enumerate(record.command)]
    return [f"`{' '.join(cmd)}`"] if cmd else ["the last run"]


def confirmed_frames(findings: list[Finding]) -> set[tuple[str, int]]:
    """(path, line) of the library sites confirmed by the record, as `innermost` spells a break's."""
    out = set()
    for f in findings:
        k = f.data.get("site_frame")
        if k:
            out.update((k[0], line) for line in range(k[1], k[2] + 1))
    return out


def level_of(level: str) -> str:
    """The SARIF level of a gathered finding: "none" for a hint, "note" for information."""
    return "none" if level == "hint" else "note"


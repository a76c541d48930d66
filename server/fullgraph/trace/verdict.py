"""Which of a test's graph breaks fail it, and the text it fails with (the pytest plugin's policy).

Each break of a test's `Record` gets one kind:

* ``project``: its innermost frame (the last of Dynamo's stack) is project code: under the project
  root (pytest's rootdir, or the nearest directory above it with pyproject.toml or .git) and not an
  installed package, the standard library or torch (`parse.is_library_path`, the same attribution
  `fullgraph trace` uses);
* ``library``: the innermost frame is anywhere else, unless its package is included
  (``--graph-breaks-include transformers``), which makes it ``included``;
* ``allowed``: project/included, but the test's marker allows its code;
* ``known``: project/included, but the baseline accepts it.

``project`` and ``included`` breaks count: beyond the marker's ``max`` (default 0) they fail the test
(``--graph-breaks=fail``) or warn (``warn``); ``library`` breaks warn.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .parse import is_library_path
from .record import Break, Record, norm_path

PROJECT, LIBRARY, INCLUDED, ALLOWED, KNOWN = "project", "library", "included", "allowed", "known"
COUNTED = (PROJECT, INCLUDED)
_LIB_DIRS = ("site-packages", "dist-packages")


@dataclass
class Policy:
    rootdir: str
    include: list[str] = field(default_factory=list)  # package names whose breaks count
    baseline: object | None = None  # fullgraph.baseline.Baseline


@dataclass
class Verdict:
    kinds: list[str]  # one per record.breaks
    counted: list[Break]  # beyond max: these fail (or warn)
    over: bool  # more counted breaks than the marker's max

    def of(self, record: Record, kind: str) -> list[Break]:
        return [b for b, k in zip(record.breaks, self.kinds) if k == kind]


def innermost(b: Break) -> str:
    return b.stack[-1]["path"] if b.stack else b.path


def site_text(b: Break, base: str) -> str:
    """Where the break is: "pkg/mod.py:12", and for a break inside a library "lib.py:4 via pkg/mod.py:12"."""
    from ..output import rel_path

    here = f"{rel_path(b.path, base)}:{b.line}"
    if b.stack and b.stack[-1]["path"] != b.path:
        return f"{rel_path(b.stack[-1]['path'], base)}:{b.stack[-1]['line']} via {here}"
    return here


def module_of(path: str) -> str | None:
    """`.../site-packages/transformers/models/bert.py` -> "transformers.models.bert" (None outside
    an installed-packages directory)."""
    parts = [p for p in re.split(r"[\\/]", path) if p]
    idx = [i for i, p in enumerate(parts) if p in _LIB_DIRS]
    if not idx or idx[-1] + 1 >= len(parts):
        return None
    rest = parts[idx[-1] + 1:]
    rest[-1] = rest[-1].removesuffix(".py")
    if rest[-1] == "__init__" and len(rest) > 1:
        rest.pop()
    return ".".join(rest)


def in_project(path: str, rootdir: str) -> bool:
    if is_library_path(path):
        return False
    root = norm_path(rootdir)
    return norm_path(path).startswith(root.rstrip(os.sep) + os.sep)


def kind_of(b: Break, policy: Policy) -> str:
    path = innermost(b)
    if in_project(path, policy.rootdir):
        return PROJECT
    mod = module_of(path)
    if mod is not None and any(mod == name or mod.startswith(name + ".") for name in policy.include):
        return INCLUDED
    return LIBRARY


def codes_of(b: Break) -> set[str]:
    """The codes an ``allow=[...]`` entry can name for this break: its GB code (or exception class)
    and the FG rules that stand for that GB code (`fullgraph rules --format json` lists them)."""
    out = {c for c in (b.gb_code, b.exc_class, b.code) if c}
    if b.gb_code:
        from ..rules import registry

        out.update(r.code for r in registry.RULES if b.gb_code in r.gb_codes)
    return {c.upper() for c in out}


def judge(record: Record, policy: Policy, allow: list[str] | None = None, max_breaks: int = 0) -> Verdict:
    allow_set = {a.strip().upper() for a in allow or [] if a.strip()}
    kinds = [kind_of(b, policy) for b in record.breaks]
    for i, b in enumerate(record.breaks):
        if kinds[i] in COUNTED and allow_set and codes_of(b) & allow_set:
            kinds[i] = ALLOWED
    if policy.baseline is not None:
        from ..baseline import cached_lines

        lines_of = cached_lines()
        idx = [i for i, k in enumerate(kinds) if k in COUNTED]
        _new, known = policy.baseline.split(
            idx, lambda i: policy.baseline.key(record.breaks[i].path, record.breaks[i].line,
                                               record.breaks[i].code, lines_of), "runtime")
        for i in known:
            kinds[i] = KNOWN
    counted = [b for b, k in zip(record.breaks, kinds) if k in COUNTED]
    return Verdict(kinds=kinds, counted=counted, over=len(counted) > max_breaks)


# ---- text ------------------------------------------------------------------------------------------
def failure_text(breaks: list[Break], record: Record, base: str, mode: str, max_breaks: int = 0,
                 reused: list[dict] | None = None) -> str:
    """What the failing test shows: each break as `fullgraph trace` prints it, with Dynamo's
    explanation, hints and stack, the rule to `fullgraph explain`, and the static analysis's fixes
    for that line when it has any."""
    from ..output import finding_lines, runtime_lines
    from .record import to_finding, read_text

    static = _static_matches(breaks, record)
    n = len(breaks)
    where = "project code" if all(in_project(innermost(b), base) for b in breaks) else \
        "project code or included packages"
    head = (f"fullgraph: {n} graph break{'s' if n != 1 else ''} in {where} "
            f"(--graph-breaks={mode}{f', max={max_breaks}' if max_breaks else ''}):")
    lines = [head, ""]
    for b in breaks:
        f = to_finding(b, read_text(b.path))
        match = static.get(id(b))
        if match is not None and match.fixes:
            f.fixes = list(match.fixes)
        lines.extend(finding_lines(f, base))
        lines.extend(runtime_lines(f, base, rule=match.code if match is not None else None))
        lines.append("")
    for r in reused or []:
        lines.append(f"note: {r['function']} was compiled first by {r['first']}; Dynamo's caches were reset "
                     "before this test, so it was compiled again here")
    lines.append("Allow a code with @pytest.mark.graph_breaks(allow=[\"CODE\"]), or accept today's breaks "
                 "with --graph-breaks-baseline FILE --graph-breaks-update-baseline.")
    return "\n".join(lines).rstrip()


def warning_text(b: Break, kind: str, base: str) -> str:
    first = b.explanation.strip().splitlines()[0] if b.explanation.strip() else ""
    msg = f"graph break {b.code} {b.gb_type}{': ' + first if first and first != b.gb_type else ''} " \
          f"at {site_text(b, base)}"
    if kind == LIBRARY:
        mod = module_of(innermost(b))
        how = f"--graph-breaks-include {mod.split('.')[0]}" if mod else "it is outside the project root"
        msg += f"; in library code, not counted ({how} counts it)" if mod else f"; not counted ({how})"
    return msg


def _static_matches(breaks: list[Break], record: Record) -> dict[int, object]:
    """break -> the static finding at its line (same line or statement), when the analysis has one."""
    # the break's file and the files of its user frames and root: the compiled root may be elsewhere
    candidates = {b.path for b in breaks} | {fr["path"] for b in breaks for fr in b.stack} | \
        {b.root["path"] for b in breaks if b.root}
    paths = sorted(p for p in candidates if not is_library_path(p) and os.path.isfile(p))
    if not paths:
        return {}
    try:
        from pathlib import Path

        from ..api import Workspace
        from ..config import discover
        from .compare import compare

        ws = Workspace(discover(Path(paths[0]).parent))
        result = ws.check([Path(p) for p in paths], jobs=1)
        sub = Record(files=dict(record.files), breaks=list(breaks), torch_version=record.torch_version)
        found = compare(sub, result.findings).found
    except Exception:  # noqa: BLE001 - fixes are a help; the failure text stands without them
        return {}
    return {id(b): f for b, f in found}


# ---- recompiles (--recompiles) ------------------------------------------------------------------------
@dataclass
class RecompileVerdict:
    kinds: list[str]  # one per record.recompiles: project | included | library
    counted: list  # the project/included recompiles (Recompile)
    over: bool  # more counted recompiles (by count) than the marker's max


def recompile_kind(r, policy: Policy) -> str:
    """project when the line that reads the guarded value or the compiled function is project code;
    included / library as for breaks (by the site's package)."""
    if in_project(r.path, policy.rootdir) or in_project(r.frame.get("path") or r.path, policy.rootdir):
        return PROJECT
    for path in (r.path, r.frame.get("path") or r.path):
        mod = module_of(path)
        if mod is not None and any(mod == name or mod.startswith(name + ".") for name in policy.include):
            return INCLUDED
    return LIBRARY


def judge_recompiles(record: Record, policy: Policy, max_recompiles: int = 0) -> RecompileVerdict:
    kinds = [recompile_kind(r, policy) for r in record.recompiles]
    counted = [r for r, k in zip(record.recompiles, kinds) if k in COUNTED]
    return RecompileVerdict(kinds=kinds, counted=counted, over=sum(r.count for r in counted) > max_recompiles)


def recompile_failure_text(recompiles: list, base: str, mode: str, max_recompiles: int = 0) -> str:
    """Each recompile as `fullgraph trace --show` prints it: its site, the compiled function, the guards
    that failed, Dynamo's hint and where the function was called from."""
    from ..output import finding_lines
    from .record import read_text, recompile_finding, recompile_lines

    n = sum(r.count for r in recompiles)
    where = "project code" if all(in_project(r.path, base) or in_project(r.frame.get("path") or r.path, base)
                                  for r in recompiles) else "project code or included packages"
    lines = [f"fullgraph: {n} recompile{'s' if n != 1 else ''} in {where} "
             f"(--recompiles={mode}{f', max={max_recompiles}' if max_recompiles else ''}):", ""]
    for r in recompiles:
        f = recompile_finding(r, read_text(r.path))
        lines.extend(finding_lines(f, base)[:1])
        lines.extend(recompile_lines(r, base))
        lines.append("")
    lines.append("Accept recompiles with @pytest.mark.recompiles(max=N), or skip the check with "
                 "@pytest.mark.recompiles(False).")
    return "\n".join(lines).rstrip()


def recompile_site_text(r, base: str) -> str:
    from ..output import rel_path

    return f"{rel_path(r.path, base)}:{r.line}"


def recompile_warning_text(r, kind: str, base: str) -> str:
    from .record import recompile_message

    msg = f"recompile {r.code} {recompile_message(r)} at {recompile_site_text(r, base)}"
    if kind == LIBRARY:
        mod = module_of(r.path) or module_of(r.frame.get("path") or "")
        how = f"--graph-breaks-include {mod.split('.')[0]} counts it" if mod else "it is outside the project root"
        msg += f"; in library code, not counted ({how})"
    return msg

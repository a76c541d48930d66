"""Output formats for findings: text, json, sarif (2.1.0), github (workflow commands)."""
from __future__ import annotations

import json
import os
from typing import Iterable

from . import __version__
from .model import ERROR, HINT, INFO, WARNING, Finding
from .rules import registry
from .torchinfo import versions_text
from .trace.parse import is_library_path

FORMATS = ("text", "json", "sarif", "github")
FILE_CODES = ("FG001", "FG002")
RECOMPILE_CODES = ("FG6",)  # recompilation hazards (rules/recompile.py): counted apart from graph breaks  # the file could not be analysed (syntax error, unreadable): not a graph break
LIBRARY_SITES_SHOWN = 3  # library sites listed under a finding in the text output before folding


def rel_path(path: str, base: str | None) -> str:
    base = base or os.getcwd()
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def format_text(findings: list[Finding], files_checked: int, torch_version: str, torch_source: str,
                base: str | None = None, color: bool = False, unresolved: int = 0, conditional: int = 0,
                unfollowed: int = 0, replaced: int = 0) -> str:
    lines: list[str] = []
    for f in findings:
        lines.extend(finding_lines(f, base, color))
    lines.append(summary_line(findings, files_checked, torch_version, torch_source, unresolved, conditional,
                              unfollowed, replaced))
    return "\n".join(lines)


def finding_lines(f: Finding, base: str | None = None, color: bool = False) -> list[str]:
    """One finding as the text output shows it: location, severity, code, message, root, path, fixes."""
    def c(code: str, s: str) -> str:
        return f"\x1b[{code}m{s}\x1b[0m" if color else s

    lines: list[str] = []
    cell = f"cell {f.data['cell']}:" if "cell" in f.data else ""
    loc = f"{rel_path(f.path, base)}:{cell}{f.span.start.line + 1}:{f.span.start.col + 1}"
    sev = {ERROR: c("31", "error"), WARNING: c("33", "warning"), INFO: c("36", "info"), HINT: c("36", "hint")}[f.severity]
    lines.append(f"{c('1', loc)}: {sev} {c('1', f.code)} {f.message}")
    if f.root is not None:
        fg = {True: "fullgraph=True", False: "without fullgraph=True"}.get(f.root.fullgraph, "fullgraph unknown")
        r = f.root.location
        rcell = f"cell {f.data['root_cell']}:" if "root_cell" in f.data else ""
        lines.append(f"    compiled by {f.root.label} ({fg}) at {rel_path(r.path, base)}:{rcell}{r.span.start.line + 1}")
    if len(f.call_path) > 1:
        lines.append(f"    call path: {' -> '.join(s.qualname for s in f.call_path)}")
    elif f.call_path:
        lines.append(f"    in: {f.call_path[0].qualname}")
    for site in f.library_sites[:LIBRARY_SITES_SHOWN]:
        lines.append(f"    inside: {rel_path(site.path, base)}:{site.span.start.line + 1}:{site.span.start.col + 1}: "
                     f"{site.code} {site.message}")
    if len(f.library_sites) > LIBRARY_SITES_SHOWN:
        lines.append(f"    ... and {len(f.library_sites) - LIBRARY_SITES_SHOWN} more library sites "
                     "(--format json lists them all)")
    if f.fixes:
        lines.append("    fixes: " + "; ".join(f"{x.title}{'' if x.safe else ' (unsafe)'}" for x in f.fixes))
    return lines


def runtime_lines(f: Finding, base: str | None = None, rule: str | None = None) -> list[str]:
    """What a runtime finding (`fullgraph.trace.record.to_finding`) adds below `finding_lines`: Dynamo's
    explanation and hints, the stack it reported (outermost first), and where to read more (`rule`:
    the static finding's code at that line, else the first rule that stands for the GB code)."""
    lines: list[str] = []
    explanation = (f.data.get("explanation") or "").strip().splitlines()
    if explanation and explanation[0] in f.message:  # the message has the first line already
        explanation = explanation[1:]
    for i, text in enumerate(explanation):
        lines.append(("    explanation: " if i == 0 else "                 ") + text)
    for h in f.data.get("hints") or []:
        lines.append(f"    hint: {h}")
    stack = f.data.get("stack") or []
    first_user = next((i for i, s in enumerate(stack) if not is_library_path(s["path"])), 0)
    stack = stack[first_user:]  # the frames above the user's code (runpy, pytest, ...) say nothing
    if stack:
        lines.append("    stack (innermost last):")
        lines.extend(f"      {rel_path(s['path'], base)}:{s['line']} in {s.get('function') or '?'}" for s in stack)
    rules = [rule] if rule else [r.code for r in registry.RULES if f.gb_codes and f.gb_codes[0] in r.gb_codes]
    more = [f"fullgraph explain {rules[0]}"] if rules else []
    if f.url:
        more.append(f.url)
    if more:
        lines.append("    more: " + " ; ".join(more))
    return lines


def _hazards(n: int) -> str:
    return f"{n} recompilation hazard{'s' if n != 1 else ''} (warning{'s' if n != 1 else ''})"


def summary_line(findings: list[Finding], files_checked: int, torch_version: str, torch_source: str,
                 unresolved: int = 0, conditional: int = 0, unfollowed: int = 0, replaced: int = 0) -> str:
    """The closing line: graph breaks, files that could not be analysed, compiled targets not resolved,
    replaced methods and calls from compiled code not followed, conditional findings not shown."""
    unreadable = sum(1 for f in findings if f.code in FILE_CODES)
    hazards = sum(1 for f in findings if f.code.startswith(RECOMPILE_CODES))
    breaks = [f for f in findings if f.code not in FILE_CODES and not f.code.startswith(RECOMPILE_CODES)]
    n = len(breaks)
    errors = sum(1 for f in breaks if f.severity == ERROR)
    conds = sum(1 for f in breaks if f.condition is not None)
    files = f"{files_checked} file{'s' if files_checked != 1 else ''} checked"
    if n:
        kinds = [f"{errors} error{'s' if errors != 1 else ''}",
                 f"{n - errors - conds} warning{'s' if n - errors - conds != 1 else ''}"]
        if conds:
            kinds.append(f"{conds} conditional")
        head = f"Found {n} graph break{'s' if n != 1 else ''} ({', '.join(kinds)})"
        head += f" and {_hazards(hazards)} in {files}" if hazards else f" in {files}"
    elif hazards:
        head = f"No graph breaks; found {_hazards(hazards)} in {files}"
    else:
        head = f"No graph breaks found in {files}"
    extra = []
    if conditional:
        extra.append(f"{conditional} more on conditional paths (--show-conditional)")
    if unreadable:
        extra.append(f"{unreadable} file{'s' if unreadable != 1 else ''} could not be analysed")
    stops = []
    if unresolved:
        stops.append(f"{unresolved} compiled target{'s' if unresolved != 1 else ''} could not be resolved")
    if replaced:
        stops.append(f"{replaced} replaced method{'s' if replaced != 1 else ''} could not be followed")
    if unfollowed:
        stops.append(f"{unfollowed} call{'s' if unfollowed != 1 else ''} from compiled code could not be followed")
    if stops:
        extra.append(", ".join(stops) + "; -v lists them")
    return f"{head}{''.join('; ' + e for e in extra)} ({versions_text(torch_version, torch_source)})."


def format_json(result) -> str:
    return json.dumps(result.to_json(), indent=2, ensure_ascii=False)


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def format_github(findings: list[Finding], base: str | None = None) -> str:
    out = []
    for f in findings:
        level = "error" if f.severity == ERROR else "warning" if f.severity == WARNING else "notice"
        path = rel_path(f.path, base)
        msg = f.message
        if f.root is not None:
            msg += f" (compiled by {f.root.label}; path: {f.path_text()})"
        out.append(
            f"::{level} title={_gh_escape(f.code + ' ' + f.name, True)},file={_gh_escape(path, True)},"
            f"line={f.span.start.line + 1},col={f.span.start.col + 1},"
            f"endLine={f.span.end.line + 1},endColumn={f.span.end.col + 1}::{_gh_escape(msg)}"
        )
    return "\n".join(out)


def format_sarif(findings: list[Finding], base: str | None = None) -> str:
    """SARIF 2.1.0.  `findings` as conditional.gather leaves them: a gathered finding inside a library
    is at level "none" (a hint) or "note" (information)."""
    base = base or os.getcwd()
    rules = []
    index = {}
    for i, r in enumerate(registry.RULES):
        index[r.code] = i
        rules.append({
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": " ".join(r.what.split())},
            "helpUri": r.url(),
            "help": {"text": " ".join(r.instead.split()), "markdown": rule_docs(r)},
            "properties": {"gb_codes": list(r.gb_codes), "torch_versions": r.versions.describe()},
            "defaultConfiguration": {"level": "warning" if getattr(r, "recompile", False) else "error"},
        })
    from .conditional import GROUP_CODE, GROUP_NAME

    if any(f.code == GROUP_CODE for f in findings):
        index[GROUP_CODE] = len(rules)
        rules.append({"id": GROUP_CODE, "name": GROUP_NAME,
                      "shortDescription": {"text": "possible graph breaks inside a followed library on paths "
                                                   "fullgraph cannot decide (`fullgraph trace` confirms them)"},
                      "defaultConfiguration": {"level": "none"}})
    results = []
    for f in findings:
        region = {
            "startLine": f.span.start.line + 1,
            "startColumn": f.span.start.col + 1,
            "endLine": f.span.end.line + 1,
            "endColumn": f.span.end.col + 1,
        }
        res = {
            "ruleId": f.code,
            "level": "error" if f.severity == ERROR else "warning" if f.severity == WARNING else
                     "none" if f.severity == HINT else "note",
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.path, base), "uriBaseId": "%SRCROOT%"},
                "region": region}}],
            "properties": {"call_path": [s.qualname for s in f.call_path], "gb_codes": list(f.gb_codes),
                           **({"conditional": f.condition} if f.condition is not None else {}),
                           **({"origin": f.origin} if f.origin != "static" else {}),
                           **({"cell": f.data["cell"]} if "cell" in f.data else {})},
        }
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        related = [(f"{site.code}: {site.message}" + (" — not reached in the last run" if f.data.get("not_reached") else ""),
                    site.path, site.span) for site in f.library_sites]
        if f.root is not None:
            related.insert(0, (f"compiled by {f.root.label}", f.root.location.path, f.root.location.span))
        if related:
            res["relatedLocations"] = [{
                "id": i,
                "message": {"text": text},
                "physicalLocation": {"artifactLocation": {"uri": _uri(path, base), "uriBaseId": "%SRCROOT%"},
                                     "region": {"startLine": span.start.line + 1, "startColumn": span.start.col + 1}},
            } for i, (text, path, span) in enumerate(related, 1)]
        if f.root is not None:
            flow = []
            for s in f.call_path:
                if s.call is None:
                    continue
                flow.append({"location": {
                    "physicalLocation": {"artifactLocation": {"uri": _uri(s.call.path, base), "uriBaseId": "%SRCROOT%"},
                                         "region": {"startLine": s.call.span.start.line + 1,
                                                    "startColumn": s.call.span.start.col + 1}},
                    "message": {"text": f"calls {s.qualname}"}}})
            if flow:
                res["codeFlows"] = [{"threadFlows": [{"locations": flow}]}]
        results.append(res)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "fullgraph", "version": __version__,
                                "informationUri": "https://pypi.org/project/fullgraph/", "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": _file_uri(base)}},
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _uri(path: str, base: str) -> str:
    from urllib.parse import quote

    rel = rel_path(path, base)
    if os.path.isabs(rel):
        return _file_uri(rel)
    return quote(rel.replace(os.sep, "/"))


def _file_uri(path: str) -> str:
    from pathlib import Path

    uri = Path(path).resolve().as_uri()
    return uri + "/" if os.path.isdir(path) and not uri.endswith("/") else uri


def format_rules(fmt: str = "text", rules: Iterable = ()) -> str:
    rules = list(rules) or registry.RULES
    if fmt == "json":
        return json.dumps([{"code": r.code, "name": r.name, "summary": r.summary, "gb_codes": list(r.gb_codes),
                            "versions": r.versions.describe(), "fixes": list(r.fixes), "url": r.url()}
                           for r in rules], indent=2)
    width = max(len(r.name) for r in rules)
    return "\n".join(f"{r.code}  {r.name.ljust(width)}  {r.summary}" for r in rules)


def rule_docs(cls) -> str:
    """A rule's documentation in Markdown (`fullgraph explain`, hover, SARIF help)."""
    parts = [f"## {cls.code} {cls.name}", "", cls.summary, ""]
    parts += ["### What it does", cls.what.strip(), ""]
    parts += ["### Why it recompiles" if getattr(cls, "recompile", False) else "### Why it breaks the graph",
              cls.why.strip(), ""]
    gbs = ", ".join(f"[{c}]({u})" for c, u in cls.gb_links())
    meta = [f"Applies to: {cls.versions.describe()}"]
    if gbs:
        meta.append(f"Dynamo: {gbs}")
    meta.append(cls.verified)
    parts += ["; ".join(meta), ""]
    bad = [e for e in cls.examples if e.breaks]
    good = [e for e in cls.examples if not e.breaks]
    if bad:
        parts += ["### Example", "```python", bad[0].code.strip(), "```", ""]
    parts += ["### Use instead", cls.instead.strip(), ""]
    if good:
        parts += ["```python", good[0].code.strip(), "```", ""]
    if cls.fixes:
        from .fixes import FIX_TITLES  # (fixes load libcst: only for a rule's docs)

        parts += ["### Fixes"]
        parts += [f"- `{f}`: {FIX_TITLES.get(f, f)}" for f in cls.fixes]
        parts.append("")
    return "\n".join(parts)

"""`fullgraph trace`: the subcommand (registered through `fullgraph.cli._load_extensions`)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

EPILOG = """\
modes:
  fullgraph trace [--out FILE] [--format F] -- COMMAND...   run COMMAND, record every graph break and recompile
  fullgraph trace --from-log PATH [--out FILE]              import a TORCH_LOGS text log / TORCH_TRACE dir
  fullgraph trace --compare [--record FILE] [PATHS]         runtime record vs static analysis
  fullgraph trace --show [--record FILE]                    print a record

The record goes to .fullgraph/breaks.json in the project root (the nearest directory with
pyproject.toml or .git) unless --out is given.  Findings carry Dynamo's GB code (e.g. GB0059) as
their code, or, for errors without one (data-dependent guards), Dynamo's exception class (UserError).
Recompiles (a guard failed and Dynamo compiled the frame again) are listed after the breaks, with
the failing guard, at the line that reads the guarded value; code Recompile, or GB0039 when the
frame hit the recompile limit.  --from-log reads TORCH_LOGS="graph_breaks,recompiles" logs.
Exit status: the command's own (128+N if a signal N ended it); 2 for usage errors.
"""


def add_subcommand(subparsers) -> None:
    from ..output import FORMATS

    t = subparsers.add_parser(
        "trace", help="run a command and record every graph break Dynamo meets (runtime capture)",
        description="Run a command with a capture hook and record every torch.compile graph break "
                    "Dynamo meets, or import / compare such records.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    t.add_argument("--out", type=Path, help="where to write the record (default: .fullgraph/breaks.json)")
    t.add_argument("--format", "--output-format", dest="format", default="text", choices=FORMATS)
    t.add_argument("--compare", action="store_true", help="compare a record with the static analysis of PATHS")
    t.add_argument("--record", type=Path, help="record to read (--compare, --show)")
    t.add_argument("--from-log", type=Path, metavar="PATH",
                   help="import a TORCH_LOGS=graph_breaks,recompiles text log or a TORCH_TRACE directory")
    t.add_argument("--show", action="store_true", help="print an existing record")
    t.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    t.add_argument("args", nargs="*", metavar="COMMAND | PATHS",
                   help="after --: the command to run; with --compare: files or folders (default: .)")
    t.set_defaults(func=cmd_trace)


def cmd_trace(args) -> int:
    from ..cli import EXIT_CLEAN, UsageError
    from .record import default_record_path, load_record, save_record

    modes = [m for m in ("compare", "from_log", "show") if getattr(args, m)]
    if len(modes) > 1:
        raise UsageError("--compare, --from-log and --show cannot be combined")
    if args.compare:
        return _compare(args)
    if args.show:
        if args.args:
            raise UsageError("--show takes no command or paths")
        path = str(args.record or default_record_path())
        record = load_record(path)
        if record is None:
            raise UsageError(f"no readable record at {path} (run `fullgraph trace -- COMMAND` first)")
        _print_record(record, args, path)
        return EXIT_CLEAN
    if args.from_log:
        from .logs import LogError, record_from_log

        if args.args:
            raise UsageError("--from-log takes no command")
        try:
            record = record_from_log(str(args.from_log))
        except LogError as e:
            raise UsageError(str(e)) from None
        out = str(args.out or default_record_path())
        save_record(record, out)
        _note(f"imported {_counts(record)} from {args.from_log} to {_rel(out)}")
        _print_record(record, args, out)
        return EXIT_CLEAN
    if args.record:
        raise UsageError("--record is for --compare and --show; use --out to choose where a capture goes")
    if not args.args:
        raise UsageError("no command given: fullgraph trace [--out FILE] -- COMMAND...")
    from .run import CommandNotFound, run_command

    out = str(args.out or default_record_path())
    try:
        record, status, hooked = run_command(list(args.args))
    except CommandNotFound as e:
        print(f"fullgraph: error: command not found: {e}", file=sys.stderr)
        return 127
    save_record(record, out)
    _note(f"recorded {_counts(record)} from {hooked} Python process"
          f"{'es' if hooked != 1 else ''} to {_rel(out)}")
    if hooked == 0:
        _note("warning: no Python process of the command loaded the capture hook (not Python, or started "
              "with -I/-E/-S, or with a cleared environment); nothing was recorded")
    _print_record(record, args, out)
    return status


def _counts(record) -> str:
    n = len(record.breaks)
    text = f"{n} graph break{'s' if n != 1 else ''}"
    r = sum(x.count for x in record.recompiles)
    if r:
        text += f" and {r} recompile{'s' if r != 1 else ''}"
    return text


def _note(msg: str) -> None:
    print(f"fullgraph: {msg}", file=sys.stderr, flush=True)


def _rel(path: str) -> str:
    try:
        r = os.path.relpath(path)
    except ValueError:
        return path
    return path if r.startswith("..") else r


class _TraceResult:
    """What `fullgraph.output.format_json` prints for a record (the `check` schema, plus the run)."""

    def __init__(self, record, findings, record_path, recompiles=()):
        self.record, self.findings, self.record_path = record, findings, record_path
        self.recompiles = list(recompiles)

    def to_json(self) -> dict:
        from .. import __version__

        return {
            "version": __version__,
            "torch_version": self.record.torch_version,
            "files_checked": len(self.record.files),
            "diagnostics": [dict(f.to_json(), hints=f.data.get("hints", []), stack=f.data.get("stack", []),
                                 count=f.data.get("count", 1)) for f in self.findings],
            "recompiles": [dict(f.to_json(), **{k: v for k, v in f.data.items() if k != "kind"})
                           for f in self.recompiles],
            "record": os.path.abspath(self.record_path),
            "command": self.record.command,
            "exit_code": self.record.exit_code,
            "source": self.record.source,
        }


def _print_record(record, args, record_path: str) -> None:
    from ..output import format_github, format_json, format_sarif, format_text
    from .record import all_recompile_findings, findings_of

    findings = findings_of(record)
    recompiles = all_recompile_findings(record)
    if args.format == "json":
        out = format_json(_TraceResult(record, findings, record_path, recompiles))
    elif args.format == "sarif":
        both = findings + recompiles
        out = _sarif_with_runtime_rules(format_sarif(both, base=os.getcwd()), both)
    elif args.format == "github":
        out = format_github(findings + recompiles, base=os.getcwd())
    else:
        color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
        out = format_text(findings, len(record.files), record.torch_version or "unknown",
                          "recorded at run time", base=os.getcwd(), color=color)
        if record.recompiles:
            out += "\n" + _recompiles_text(record, color)
    if out:
        print(out, flush=True)


def _recompiles_text(record, color: bool) -> str:
    """The recompiles after the breaks: each at its site, with the guards, the compiled function and
    where it was called from; then one line of totals."""
    from ..output import finding_lines
    from .record import read_text, recompile_finding, recompile_lines

    base = os.getcwd()
    lines = [f"\nRecompiles observed at run time ({len(record.recompiles)}):"]
    for r in record.recompiles:  # sorted by site, like the findings
        lines.extend(finding_lines(recompile_finding(r, read_text(r.path)), base, color)[:1])
        lines.extend(recompile_lines(r, base))
    total = sum(r.count for r in record.recompiles)
    functions = {(r.frame.get("path"), r.frame.get("line"), r.function) for r in record.recompiles}
    limited = sum(1 for r in record.recompiles if r.limit_hit)
    lines.append(f"{total} recompile{'s' if total != 1 else ''} of {len(functions)} compiled function"
                 f"{'s' if len(functions) != 1 else ''}"
                 + (f"; {limited} hit the recompile limit (run eagerly from then on)" if limited else "") + ".")
    return "\n".join(lines)


def _sarif_with_runtime_rules(text: str, findings) -> str:
    """Describe the GB codes in the SARIF driver's rules, so each result's ruleIndex points at its rule."""
    doc = json.loads(text)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    index = {r["id"]: i for i, r in enumerate(rules)}
    for f in findings:
        if f.code not in index:
            index[f.code] = len(rules)
            rules.append({
                "id": f.code, "name": f.name,
                "shortDescription": {"text": f.name},
                "fullDescription": {"text": (f.data.get("explanation") or (
                    "A guard of every earlier compile failed, so Dynamo compiled the frame again"
                    if f.data.get("kind") == "recompile" else f.name)).strip()},
                **({"helpUri": f.url} if f.url else {}),
                "properties": {"origin": "runtime", "gb_codes": list(f.gb_codes)},
                "defaultConfiguration": {"level": "warning"},
            })
    for res, f in zip(run["results"], findings):
        res["ruleIndex"] = index[res["ruleId"]]
        res.setdefault("properties", {})["origin"] = "runtime"
        res["properties"]["hints"] = f.data.get("hints", [])
        res["properties"]["count"] = f.data.get("count", 1)
        if f.data.get("kind") == "recompile":
            res["level"] = "warning"
            res["properties"].update(kind="recompile", guard=f.data.get("guard"), guards=f.data.get("guards"),
                                     target=f.data.get("target"), limit_hit=f.data.get("limit_hit"),
                                     frame=f.data.get("frame"), call_site=f.data.get("call_site"))
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _compare(args) -> int:
    from ..api import Workspace
    from ..cli import EXIT_CLEAN, UsageError, load_config
    from .compare import compare, format_comparison_text
    from .record import default_record_path, load_record

    if args.format not in ("text", "json"):
        raise UsageError("--compare prints text or json")
    path = str(args.record or default_record_path())
    record = load_record(path)
    if record is None:
        raise UsageError(f"no readable record at {path} (run `fullgraph trace -- COMMAND` first)")
    paths = [Path(p) for p in args.args] or [Path(".")]
    for p in paths:
        if not p.exists():
            raise UsageError(f"path does not exist: {p}")
    cfg = load_config(argparse.Namespace(paths=paths))
    result = Workspace(cfg).check(paths)
    c = compare(record, result.findings)
    if args.format == "json":
        print(json.dumps(c.to_json(os.path.abspath(path)), indent=2, ensure_ascii=False))
    else:
        print(format_comparison_text(c, record, path, os.getcwd()))
    return EXIT_CLEAN

"""`fullgraph` command line: check, rules, explain, lsp (and the subcommands other modules add)."""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from . import __version__
from .config import CONDITIONAL_LEVELS

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 2 with a clear message (argparse's default is 2 as well)
        self.print_usage(sys.stderr)
        print(f"fullgraph: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)


def _codes(value: str) -> list[str]:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fullgraph", description="Find, explain and fix torch.compile graph breaks from source.")
    p.add_argument("--version", action="version", version=f"fullgraph {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    c = sub.add_parser("check", help="report graph breaks in files and folders")
    c.add_argument("paths", nargs="*", type=Path, help="files or folders (default: .)")
    c.add_argument("--format", "--output-format", dest="format", default="text",
                   choices=("text", "json", "sarif", "github"))
    c.add_argument("--select", type=_codes, help="comma-separated codes or prefixes to enable (e.g. FG1,FG301)")
    c.add_argument("--ignore", type=_codes, help="comma-separated codes or prefixes to disable")
    c.add_argument("--extend-select", type=_codes, default=None)
    c.add_argument("--torch-version", help="evaluate rules for this torch version (default: the installed one)")
    c.add_argument("--root", action="append", default=[], metavar="MOD:QUALNAME",
                   help="an extra compiled root, e.g. pkg.model:Net.forward (repeatable)")
    c.add_argument("--config", type=Path, help="pyproject.toml to read [tool.fullgraph] from")
    c.add_argument("--follow", action="append", default=[], metavar="PACKAGE",
                   help="analyse into this installed package (e.g. transformers); repeatable")
    c.add_argument("--extra-paths", action="append", default=[], metavar="DIR",
                   help="also find imports in this directory, like a PYTHONPATH entry (also [tool.fullgraph] "
                        "extra-paths); repeatable, or comma-separated")
    c.add_argument("--verbose", "-v", action="store_true",
                   help="also list roots and calls the analysis could not resolve (stderr)")
    c.add_argument("--exclude", type=lambda s: [x for x in s.split(",") if x], default=None)
    c.add_argument("--fix", action="store_true", help="apply safe fixes")
    c.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff: apply unsafe fixes too")
    c.add_argument("--diff", action="store_true", help="print the fixes as a unified diff instead of writing")
    c.add_argument("--show-conditional", action="store_true",
                   help="also show (and fail on) conditional findings: breaks on paths that flags off by "
                        "default keep out of the default call (JSON always lists them)")
    c.add_argument("--record", type=Path, metavar="FILE",
                   help="the runtime record (`fullgraph trace`) whose breaks confirm conditional library findings "
                        "(default: .fullgraph/breaks.json in the project root, when there is one)")
    c.add_argument("--conditional", choices=CONDITIONAL_LEVELS, default=None,
                   help="conditional findings inside followed libraries in SARIF: one per compile call and "
                        "library, at level none (hint) or note (information), or left out (off); also "
                        "[tool.fullgraph] conditional")
    c.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    c.add_argument("--baseline", type=Path, metavar="FILE",
                   help="report only findings not in this baseline (fullgraph/baseline.py describes it)")
    c.add_argument("--update-baseline", action="store_true",
                   help="with --baseline: write the current findings to FILE and exit 0")
    c.add_argument("--jobs", "-j", type=int, default=None, help="parallel workers (default: CPU count)")
    c.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    c.add_argument("--no-cache", action="store_true",
                   help="analyse every file afresh: neither read nor write the summary cache")

    cl = sub.add_parser("clean", help="delete the analysis cache ($FULLGRAPH_CACHE_DIR, default ~/.cache/fullgraph)")
    cl.set_defaults(func=cmd_clean)

    r = sub.add_parser("rules", help="list the rules")
    r.add_argument("--format", choices=("text", "json"), default="text")

    e = sub.add_parser("explain", help="print a rule's documentation")
    e.add_argument("rule", help="code or name, e.g. FG101 or print-call")

    lsp = sub.add_parser("lsp", help="run the language server (stdio)")
    lsp.add_argument("--tcp", action="store_true", help=argparse.SUPPRESS)
    lsp.add_argument("--port", type=int, default=2087, help=argparse.SUPPRESS)

    for add in _EXTENSIONS:
        add(sub)
    return p


# Other modules register subcommands here: add(subparsers) defines the parser and sets `func`.
_EXTENSIONS: list = []


def load_config(args):
    from .config import Config, apply_settings, discover, load_pyproject

    if getattr(args, "config", None):
        if not args.config.is_file():
            raise UsageError(f"config file not found: {args.config}")
        cfg = load_pyproject(args.config)
    else:
        start = args.paths[0] if getattr(args, "paths", None) else Path.cwd()
        cfg = discover(Path(start) if Path(start).exists() else Path.cwd())
    overrides = {}
    if getattr(args, "select", None) is not None:
        overrides["select"] = args.select
    if getattr(args, "ignore", None) is not None:
        overrides["ignore"] = args.ignore
    if getattr(args, "extend_select", None):
        overrides["extend-select"] = args.extend_select
    if getattr(args, "torch_version", None):
        overrides["torch-version"] = args.torch_version
    if getattr(args, "exclude", None) is not None:
        overrides["exclude"] = args.exclude
    apply_settings(cfg, overrides, "command line")
    if getattr(args, "root", None):
        cfg.roots = list(cfg.roots) + list(args.root)
    if getattr(args, "follow", None):
        cfg.follow = list(cfg.follow) + list(args.follow)
    if getattr(args, "extra_paths", None):
        cfg.extra_paths = list(cfg.extra_paths) + [os.path.abspath(d) for a in args.extra_paths
                                                   for d in a.split(",") if d]
    if cfg.torch_version is None and getattr(args, "torch_version", None):
        raise UsageError(f"invalid --torch-version {args.torch_version!r}")
    return cfg if isinstance(cfg, Config) else cfg


def cmd_check(args) -> int:
    """`fullgraph check`, with the cyclic GC off for the whole command (as in Workspace.check): once the
    check returned, formatting its output would otherwise trigger full collections that rescan every
    summary the workspace holds (~2 s on the torch tree; they hold no garbage cycles worth it)."""
    import gc

    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _check_command(args)
    finally:
        if gc_was_enabled:
            gc.enable()


def _check_command(args) -> int:
    from .api import Workspace
    from .engine.not_followed import is_replaced
    from .output import format_github, format_json, format_sarif, format_text

    cfg = load_config(args)
    for w in cfg.warnings:
        print(f"fullgraph: warning: {w}", file=sys.stderr)
    paths = args.paths or [Path(".")]
    for p in paths:
        if not p.exists():
            raise UsageError(f"path does not exist: {p}")
    ws = Workspace(cfg, use_cache=not args.no_cache)
    result = ws.check(paths, jobs=args.jobs)
    notebooks = _notebooks(ws)
    if args.fix or args.diff:
        from .fixes.apply import fix_paths

        changed = fix_paths(ws, result, unsafe=args.unsafe_fixes, diff=args.diff, out=sys.stdout)
        if args.fix and not args.diff:
            ws = Workspace(cfg, use_cache=not args.no_cache)
            result = ws.check(paths, jobs=args.jobs)
            notebooks = _notebooks(ws)
            if changed:
                print(f"fullgraph: fixed {changed} finding{'s' if changed != 1 else ''}", file=sys.stderr)
    if args.verbose:
        _print_unresolved(ws, result)
        print(f"fullgraph: cache: {ws.cache_hits} of {ws.cache_hits + ws.cache_misses} files' summaries read "
              f"from {ws.cache_dir or 'nowhere (cache off)'}", file=sys.stderr)
    if args.baseline is not None or args.update_baseline:
        result = _apply_baseline(args, ws, result)
        if result is None:
            return EXIT_CLEAN
    if notebooks:  # positions in notebooks per cell (the cells as they were when `result` was computed)
        from .notebook import in_cells

        result = dataclasses.replace(result, findings=in_cells(result.findings, notebooks))
    record, record_root, record_path = _runtime_record(args)
    if record is not None:  # the library sites a recorded run broke at are breaks, not conditional
        from .conditional import confirm

        before = sum(1 for f in result.findings if f.data.get("observed_site"))
        result = dataclasses.replace(result, findings=confirm(result.findings, record, record_root))
        n = sum(1 for f in result.findings if f.data.get("observed_site")) - before
        if n:
            print(f"fullgraph: {n} conditional library site{'s' if n != 1 else ''} observed at runtime "
                  f"(record {record_path})", file=sys.stderr)
    if args.conditional is not None:
        cfg.conditional = args.conditional
    # conditional findings (a flag off by default keeps their path out of the default call) are in
    # JSON always, gathered in SARIF per compile call and library (cfg.conditional); text and GitHub output show them, and fail on them, on request
    shown = [f for f in result.findings if f.condition is None or args.show_conditional]
    if args.format == "json":
        out = format_json(result)
    elif args.format == "sarif":
        from .conditional import gather

        out = format_sarif(gather(result.findings, cfg.conditional, record, record_root), base=os.getcwd())
    elif args.format == "github":
        out = format_github(shown, base=os.getcwd())
    else:
        color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
        out = format_text(shown, result.files_checked, result.torch_version, result.torch_source,
                          base=os.getcwd(), color=color,
                          unresolved=sum(1 for u in result.unresolved_roots if not is_replaced(u[3])),
                          replaced=sum(1 for u in result.unresolved_roots if is_replaced(u[3])),
                          conditional=len(result.findings) - len(shown), unfollowed=len(result.unfollowed_calls))
    if out and not (args.diff and args.format == "text" and not result.findings):
        print(out)
    if shown and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _runtime_record(args):
    """The runtime record `--record` names, else the project's .fullgraph/breaks.json if there is one, the
    project root its relative command paths are read from, and its path; (None, None, None) without one."""
    from .trace.record import RECORD_RELPATH, find_project_root, load_record

    if args.record is not None:
        if not args.record.is_file():
            raise UsageError(f"no record at {args.record} (run `fullgraph trace -- COMMAND` first)")
        path = str(args.record.resolve())
        root = os.path.dirname(os.path.dirname(path))
    else:
        root = find_project_root()
        path = os.path.join(root, RECORD_RELPATH)
        if not os.path.isfile(path):
            return None, None, None
    record = load_record(path)
    if record is None:
        print(f"fullgraph: warning: cannot read the runtime record {path}; not used", file=sys.stderr)
    return record, root, path


def _apply_baseline(args, ws, result):
    """--baseline: drop the findings the baseline accepts (None after --update-baseline wrote it)."""
    from .baseline import BaselineError, load
    from .output import FILE_CODES
    from .positions import split_lines

    if args.baseline is None:
        raise UsageError("--update-baseline needs --baseline FILE")
    cache: dict = {}

    def lines_of(path):
        if path not in cache:
            text = ws.source_of(path)
            cache[path] = split_lines(text) if text is not None else None
        return cache[path]

    try:
        bl = load(str(args.baseline), missing_ok=args.update_baseline)
        graph_breaks = [f for f in result.findings if f.code not in FILE_CODES]
        key = lambda f: bl.key(f.path, f.span.start.line + 1, f.code, lines_of)  # noqa: E731
        if args.update_baseline:
            bl.replace("static", (key(f) for f in graph_breaks))
            bl.save()
            n = bl.total("static")
            print(f"fullgraph: wrote {n} finding{'s' if n != 1 else ''} to the baseline {args.baseline}",
                  file=sys.stderr)
            return None
        new, known = bl.split(graph_breaks, key, "static")
    except BaselineError as e:
        raise UsageError(str(e)) from None
    if known:
        print(f"fullgraph: {len(known)} finding{'s' if len(known) != 1 else ''} in the baseline "
              f"{args.baseline} not shown", file=sys.stderr)
    keep = {id(f) for f in new}
    return dataclasses.replace(result, findings=[f for f in result.findings
                                                 if f.code in FILE_CODES or id(f) in keep])


def _notebooks(ws) -> dict:
    """The summaries of the notebooks the workspace analysed (their cells map positions back)."""
    return {p: m for p, m in ws.project.modules.items() if getattr(m, "cells", None) is not None}


def _print_unresolved(ws, result) -> None:
    from .engine.not_followed import call_words, is_replaced, root_words

    proj = ws.project
    for label, path, span, why in result.unresolved_roots:
        if is_replaced(why):  # "assigned in `__init__`"
            print(f"fullgraph: unfollowed method: {label} called from {path}:{span.start.line + 1} "
                  f"({root_words(why)})", file=sys.stderr)
        else:
            print(f"fullgraph: unresolved root: {label} at {path}:{span.start.line + 1} ({root_words(why)})",
                  file=sys.stderr)
    missing = ws.imports_not_found()
    if missing:
        print("fullgraph: imports not found (not in the project, nor on the importing file's search path: its "
              "folder, its sys.path edits, the project root, src/, extra-paths; nor installed):", file=sys.stderr)
        for name, path in missing:
            print(f"    {name} (imported by {path})", file=sys.stderr)
    if result.unfollowed_calls:
        print("fullgraph: calls from compiled code that could not be followed (`--follow PACKAGE` analyses an "
              "installed package):", file=sys.stderr)
        for name, path, span, why in result.unfollowed_calls:
            print(f"    {name} at {path}:{span.start.line + 1} ({call_words(why)})", file=sys.stderr)
    user = {name for name, _, _, _ in result.unfollowed_calls}
    top = sorted(((name, n) for name, n in proj.unresolved_calls.items() if name not in user),
                 key=lambda kv: -kv[1])[:30]
    if top:
        print("fullgraph: calls inside followed packages that were not followed:", file=sys.stderr)
        for name, n in top:
            print(f"    {name} ({n}x)", file=sys.stderr)


def cmd_rules(args) -> int:
    from .output import format_rules

    print(format_rules(args.format))
    return EXIT_CLEAN


def cmd_explain(args) -> int:
    from .output import rule_docs
    from .rules import registry

    rule = registry.get(args.rule)
    if rule is None:
        raise UsageError(f"unknown rule {args.rule!r}; `fullgraph rules` lists them")
    print(rule_docs(rule))
    return EXIT_CLEAN


def cmd_clean(args) -> int:
    from .cache import clean

    root, files, size = clean()
    if root is None:
        print("fullgraph: the cache is off (FULLGRAPH_CACHE_DIR=off): nothing to remove")
    elif files:
        amount = f"{size / 1e6:.1f} MB" if size >= 1e5 else f"{size / 1e3:.1f} kB"
        print(f"fullgraph: removed {root} ({files} file{'s' if files != 1 else ''}, {amount})")
    else:
        print(f"fullgraph: nothing to remove: no cache at {root}")
    return EXIT_CLEAN


def cmd_lsp(args) -> int:
    from .lsp.server import run

    run(tcp=args.tcp, port=args.port)
    return EXIT_CLEAN


_COMMANDS = {"check": cmd_check, "rules": cmd_rules, "explain": cmd_explain, "lsp": cmd_lsp}


def main(argv: list[str] | None = None) -> int:
    _load_extensions()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    func = getattr(args, "func", None) or _COMMANDS[args.command]
    try:
        return func(args)
    except UsageError as e:
        print(f"fullgraph: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as e:  # internal error: say so clearly, exit 2
        import traceback

        traceback.print_exc()
        print(f"fullgraph: internal error: {e.__class__.__name__}: {e}", file=sys.stderr)
        return EXIT_ERROR


def entry() -> None:
    """The console script (and `python -m fullgraph`): run the command, then leave without tearing down
    what it built.  A whole-tree check holds millions of small summary objects; freeing them one by one
    at interpreter exit took a quarter of the run on the torch tree (bench/README.md)."""
    import logging

    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass
    logging.shutdown()
    os._exit(code)


def _load_extensions() -> None:
    """Subcommands living in their own modules (runtime capture, ...)."""
    import importlib

    for name in ("fullgraph.trace.cli",):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        add = getattr(mod, "add_subcommand", None)
        if add is not None and add not in _EXTENSIONS:
            _EXTENSIONS.append(add)

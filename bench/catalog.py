"""Precision and recall against the graph-break catalog (Dynamo's verdicts, recorded on torch 2.13).

    .venv/bin/python bench/catalog.py [--catalog DIR] [--torch-version V] [--out FILE] [--verbose]

The catalog (255 minimal cases, each compiled with `torch.compile(fullgraph=True, backend="eager")`
by its own runner on torch 2.13) records for every case whether Dynamo broke the graph.  Its case
files and verdicts are kept in tests/catalog/ (the default; see its README.md), or pass the full
catalog folder (with results.json).  Each case is analysed the way a user's code would be: the case's own
file (its imports, module-level helpers and the other cases, with the catalog's harness.py beside
it, so `@case(...)` and `case_logger` resolve through the project) plus one line that compiles the
case -- `torch.compile(fn, fullgraph=True)`, or `Module().compile(fullgraph=True)` where the catalog
used that -- and a config line where the case ran under a config patch.  Only findings reached from
that line count.  Nothing is imported or run.

- recall: breaking cases with at least one finding, and whether one is on the line Dynamo reported
  (the case's `# BREAK` marker, or the reported line when the marker is elsewhere);
- false positives: non-breaking cases with any finding (the number that must stay 0).

Some breaks are not visible in the source alone (an iterator passed in by the runner's inputs, a C++
extension, a tensor argument used as a Python scalar); they are listed as misses with their category.
With `--torch-version V` the verdicts are Dynamo's on that release, as collected in
server/fullgraph/data/knowledge-V.json (`python -m fullgraph.knowledge collect V`), and the analysis is
run for that version (its trace table, the rules' version ranges); nothing of that torch is installed.
Writes bench/results/catalog.json (catalog-V.json with --torch-version).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "server"))

from fullgraph.api import Workspace  # noqa: E402
from fullgraph.config import Config  # noqa: E402


def default_catalog() -> Path:
    env = os.environ.get("FULLGRAPH_CATALOG")
    return Path(env) if env else ROOT / "tests" / "catalog"


def verdicts(catalog: Path) -> list[dict]:
    """The cases and Dynamo's verdicts: the catalog's results.json, or the copy's verdicts.json."""
    for name in ("results.json", "verdicts.json"):
        p = catalog / name
        if p.is_file():
            return json.loads(p.read_text())["cases"]
    raise FileNotFoundError(f"no results.json or verdicts.json in {catalog}")


def knowledge_verdicts(version: str) -> list[dict]:
    """The cases and Dynamo's verdicts on torch `version`, from its collected knowledge file."""
    path = ROOT / "server" / "fullgraph" / "data" / f"knowledge-{version}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path.name} not collected (python -m fullgraph.knowledge collect {version})")
    cat = json.loads(path.read_text(encoding="utf-8"))["catalog"]
    return [{"id": cid, "category": c.get("category"), "breaks": c.get("breaks"), "gb_type": c.get("gb_type"),
             "config": c.get("config"), "compile_mode": c.get("compile_mode")} for cid, c in cat.items()]


def committed_versions() -> list[str]:
    """The releases whose knowledge is committed (server/fullgraph/data/knowledge-<version>.json)."""
    paths = (ROOT / "server" / "fullgraph" / "data").glob("knowledge-*.json")
    return sorted((p.stem.split("-", 1)[1] for p in paths), key=lambda v: tuple(int(x) for x in v.split(".")))


def case_target(tree: ast.Module, case_id: str) -> ast.AST | None:
    """The function or class registered as `case_id` by `@case("case_id", ...)`."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and getattr(dec.func, "id", "") == "case" and dec.args and \
                        isinstance(dec.args[0], ast.Constant) and dec.args[0].value == case_id:
                    return node
    return None


def compile_lines(case: dict, target: ast.AST) -> str:
    extra = ""
    for key, value in (case.get("config") or {}).items():
        # the runner patched torch._dynamo.config (e.g. ignore_logging_functions = {bad_fn3})
        for fname in re.findall(r"<function (\w+)(?: at|>)", str(value)):
            extra += f"torch._dynamo.config.{key}.add({fname})\n"
    if isinstance(target, ast.ClassDef):
        if case.get("compile_mode") == "module.compile":
            return extra + f"_m = {target.name}()\n_m.compile(fullgraph=True)\n"
        return extra + f"_compiled = torch.compile({target.name}(), fullgraph=True)\n"
    return extra + f"_compiled = torch.compile({target.name}, fullgraph=True)\n"


def break_lines(text: str) -> set[int]:
    """1-based lines marked `# BREAK` in the case file (the catalog marks the line Dynamo reports)."""
    return {i + 1 for i, line in enumerate(text.splitlines()) if re.search(r"#\s*BREAK\b", line)}


def run(catalog: Path, verbose: bool = False, quiet: bool = False, torch_version: str | None = None) -> dict:
    """Static findings against the verdicts: the catalog's own (torch 2.13), or with `torch_version` the
    ones collected on that release, analysed for that version."""
    result = run_versions(catalog, [torch_version])[torch_version]
    if not quiet:
        report(catalog, result, torch_version, verbose)
    return result


def run_versions(catalog: Path, versions: list[str | None]) -> dict[str | None, dict]:
    """`run` for several versions at once: each case is read and analysed once, and its findings are
    computed for every version (None: the catalog's own verdicts, analysed for the installed torch)."""
    by_version = {v: {c["id"]: c for c in (knowledge_verdicts(v) if v else verdicts(catalog))} for v in versions}
    ids = list(dict.fromkeys(cid for cases in by_version.values() for cid in cases))
    sources = {p.name: p.read_text() for p in sorted(catalog.glob("cases_*.py"))}
    trees = {name: ast.parse(src) for name, src in sources.items()}
    rows: dict[str | None, list[dict]] = {v: [] for v in versions}
    seconds = dict.fromkeys(versions, 0.0)
    work = Path(tempfile.mkdtemp(prefix="fg_catalog_"))
    try:
        for cid in ids:
            wanted = [v for v in versions if by_version[v].get(cid, {}).get("breaks") is not None]
            if not wanted:  # crashed the interpreter: no verdict
                continue
            case = by_version[wanted[0]][cid]
            found = [(name, t) for name, src in sources.items() if (t := case_target(trees[name], cid))]
            if not found:
                for v in wanted:
                    rows[v].append({"id": cid, "category": case["category"], "breaks": by_version[v][cid]["breaks"],
                                    "status": "not found in the case files"})
                continue
            fname, target = found[0]
            d = work / cid
            d.mkdir()
            shutil.copy(catalog / "harness.py", d / "harness.py")
            comp = compile_lines(case, target)
            text = sources[fname].rstrip("\n") + "\n\n\n" + comp
            root_line = text.count("\n", 0, text.rindex(comp)) + comp.count("\n")  # 1-based, last line
            path = d / fname
            path.write_text(text)
            end = getattr(target, "end_lineno", target.lineno)
            marked = break_lines(text)
            loaded, done = None, {}
            for v in wanted:
                t0 = time.perf_counter()
                analysed = str(Config(torch_version=v).torch())  # None: the installed torch
                if analysed in done:  # the same analysis (the installed torch is a collected one)
                    findings = done[analysed]
                    break_rows(rows[v], by_version[v][cid], findings, path, marked, target, end)
                    continue
                ws = Workspace(Config(project_root=str(d), torch_version=v), use_cache=False)
                if loaded is None:
                    ws.load_files([str(path), str(d / "harness.py")], jobs=1)
                    loaded = list(ws.project.modules.values())
                else:  # the summaries do not depend on the version: only the findings do
                    for mod in loaded:
                        ws.project.set_module(mod)
                # findings anywhere (a helper in harness.py too), reached from the compile line
                findings = [f for f in ws.findings_for(None, fixes=False)
                            if f.root is not None and f.root.location.path == str(path)
                            and not f.code.startswith("FG6")  # recompilation hazards are no graph breaks
                            and f.root.location.span.start.line + 1 == root_line]
                done[analysed] = findings
                seconds[v] += time.perf_counter() - t0
                break_rows(rows[v], by_version[v][cid], findings, path, marked, target, end)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {v: score(rows[v], seconds[v]) for v in versions}


def break_rows(rows: list[dict], verdict: dict, findings: list, path: Path, marked: set[int], target: ast.AST,
               end: int) -> None:
    lines = sorted({f.span.start.line + 1 for f in findings if f.path == str(path)})
    rows.append({
        "id": verdict["id"], "category": verdict["category"], "breaks": verdict["breaks"],
        "gb_type": verdict.get("gb_type"),
        "findings": [{"code": f.code, "file": os.path.basename(f.path), "line": f.span.start.line + 1,
                      "message": f.message} for f in findings],
        "on_marked_line": bool(set(lines) & marked),
        "case_lines": [target.lineno, end],
    })


def score(rows: list[dict], seconds: float) -> dict:
    breaking = [r for r in rows if r["breaks"] and "findings" in r]
    clean = [r for r in rows if r["breaks"] is False and "findings" in r]
    hit = [r for r in breaking if r["findings"]]
    fps = [r for r in clean if r["findings"]]
    summary = {
        "breaking": len(breaking), "found": len(hit), "on_marked_line": sum(r["on_marked_line"] for r in hit),
        "clean": len(clean), "false_positives": len(fps), "seconds": round(seconds, 1),
        "misses_by_category": dict(Counter(r["category"] for r in breaking if not r["findings"]).most_common()),
    }
    return {"summary": summary, "cases": rows}


def report(catalog: Path, result: dict, torch_version: str | None, verbose: bool) -> None:
    rows, summary = result["cases"], result["summary"]
    breaking = [r for r in rows if r["breaks"] and "findings" in r]
    clean = [r for r in rows if r["breaks"] is False and "findings" in r]
    hit = [r for r in breaking if r["findings"]]
    fps = [r for r in clean if r["findings"]]
    seconds = summary["seconds"]
    print(f"catalog: {catalog}" + (f" (Dynamo {torch_version}'s verdicts)" if torch_version else ""))
    print(f"breaking cases found: {len(hit)}/{len(breaking)} "
          f"({summary['on_marked_line']} with a finding on the line marked # BREAK)")
    print(f"false positives: {len(fps)}/{len(clean)} non-breaking cases with a finding")
    for r in fps:
        print(f"  FP {r['id']} ({r['category']}): {r['findings']}")
    print("misses:")
    for r in breaking:
        if not r["findings"]:
            print(f"  {r['id']:38} {r['category']:32} {r.get('gb_type') or ''}")
    if verbose:
        for r in hit:
            print(f"  found {r['id']:32} {[(f['code'], f['line']) for f in r['findings']]}"
                  f"{'' if r['on_marked_line'] else '  (not on the # BREAK line)'}")
    print(f"{seconds:.1f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--catalog", type=Path, default=default_catalog(),
                    help="the catalog folder (default: $FULLGRAPH_CATALOG or tests/catalog)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "catalog.json")
    ap.add_argument("--verbose", action="store_true", help="list the cases found too")
    ap.add_argument("--torch-version", help="score against Dynamo's verdicts on this collected release "
                    f"(one of {', '.join(committed_versions())}), analysing for that version")
    args = ap.parse_args()
    try:
        knowledge_verdicts(args.torch_version) if args.torch_version else verdicts(args.catalog)
    except FileNotFoundError as e:
        print(f"{e}; pass --catalog DIR", file=sys.stderr)
        return 2
    if args.torch_version and args.out == HERE / "results" / "catalog.json":
        args.out = HERE / "results" / f"catalog-{args.torch_version}.json"
    result = run(args.catalog, args.verbose, torch_version=args.torch_version)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    return 1 if result["summary"]["false_positives"] else 0


if __name__ == "__main__":
    sys.exit(main())

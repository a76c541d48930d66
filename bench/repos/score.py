"""Score `fullgraph check` on bench/repos against Dynamo's truth (truth.json from collect.py).

    .venv/bin/python bench/repos/score.py                          # markdown report on stdout
    .venv/bin/python bench/repos/score.py --out bench/repos/RESULTS.md
    .venv/bin/python bench/repos/score.py --at HEAD --out ...      # the analyzer as committed (git archive
                                                                   # of server/ into a temp dir), not the work tree
    .venv/bin/python bench/repos/score.py --json                   # the summary as JSON

Per repository, one `fullgraph check bench/repos/<name> --format json --no-cache` (static: nothing is run),
scored by statement with bench/modules/score.py's `score()`:

* a truth site (a statement where Dynamo logged a graph break) is **found** when a diagnostic of the same
  file starts on a line inside the site's statement range;
* **recall (shown)**: sites found by diagnostics shown by default, i.e. whose JSON has `"conditional": false`
  (the CLI's text output hides conditional findings unless --show-conditional);
* **precision (shown)**: shown diagnostics that start inside a truth site / all shown diagnostics;
* **recall (JSON)**: sites found by any diagnostic of the JSON, conditional ones included;
* **unresolved compile calls**: the JSON's `unresolved_roots` (compiled targets fullgraph could not
  resolve), against the compile calls written in the folder (`torch.compile(...)`, `@torch.compile`,
  `x.compile(...)`, counted in the source by AST).

Diagnostics inside a use.py stand-in region (fakes of missing dependencies, see collect.py) are library
code: they are dropped before scoring and counted apart; so are findings that are not graph breaks
(META_CODES: a file that could not be analysed, a compile call whose target is not followed).  Each miss gets the class written for it in
classes.json (unresolved compile call / unresolved import / value kind lost / rule missing / other).
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODULES = os.path.join(REPO, "bench", "modules")
TRUTH = os.path.join(HERE, "truth.json")
CLASSES = os.path.join(HERE, "classes.json")
PYTHON = os.path.join(REPO, ".venv", "bin", "python")
# findings that are not graph breaks: a file that could not be analysed (FG001, FG002, output.FILE_CODES) and a
# compile call whose target is not followed (FG003, where the analyzer has it): left out of the scoring
META_CODES = ("FG001", "FG002", "FG003")
MISS_CLASSES = ("unresolved compile call", "unresolved import", "value kind lost", "rule missing", "other")


def _collect_module():
    """bench/repos/collect.py (imported by its path: bench/modules/score.py imports bench/modules/collect.py as
    `collect`): its loader and what it knows of stand-in regions."""
    name = "fg_repos_collect"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "collect.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def modules_score():
    """bench/modules/score.py (it imports bench/modules/collect.py as `collect` itself)."""
    return _collect_module()._load("fg_modules_score", os.path.join(MODULES, "score.py"))


def standin_ranges(use_py: str) -> list[tuple[int, int]]:
    return _collect_module().standin_ranges(use_py)


# ---- the analyzer ------------------------------------------------------------------------------------------
def analyzer_at(rev: str | None, tmp: str) -> tuple[list[str], dict, str]:
    """(command prefix, environment, description): the work tree's .venv/bin/fullgraph, or with `rev` the
    server/ of that commit (git archive) run as `python -m fullgraph` from a temporary directory."""
    env = dict(os.environ)
    if not rev:
        return [os.path.join(REPO, ".venv", "bin", "fullgraph")], env, "the work tree"
    sha = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    dest = os.path.join(tmp, "server-" + sha)
    os.makedirs(dest)
    archive = subprocess.run(["git", "-C", REPO, "archive", sha, "server"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    env["PYTHONPATH"] = os.path.join(dest, "server")
    return [PYTHON, "-m", "fullgraph"], env, f"commit {sha} (server/ as committed)"


def run_check(prefix: list[str], env: dict, folder: str) -> tuple[dict, float]:
    """The JSON report of one folder; with -v, what the analysis could not resolve (stderr) is kept in
    report["_verbose"]."""
    cmd = prefix + ["check", folder, "--format", "json", "--no-cache", "-v"]
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    dt = time.time() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"fullgraph check failed ({proc.returncode}) on {folder}:\n{proc.stderr[-3000:]}")
    try:
        report = json.loads(proc.stdout)
        report["_verbose"] = [ln[len("fullgraph: "):] for ln in proc.stderr.splitlines()
                              if ln.startswith("fullgraph: ") and "cache:" not in ln]
        return report, dt
    except ValueError:
        raise SystemExit(f"fullgraph check printed no JSON:\n{proc.stdout[:2000]}\n{proc.stderr[-2000:]}") from None


# ---- compile calls written in the source --------------------------------------------------------------------
def compile_calls(folder: str) -> list[dict]:
    """`torch.compile(...)`, `@torch.compile`, `compile(...)` imported from torch, `x.compile(...)` (not re/regex)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
        for fn in sorted(filenames):
            if not fn.endswith(".py"):
                continue
            path = os.path.join(dirpath, fn)
            try:
                with open(path, encoding="utf-8") as fh:
                    tree = ast.parse(fh.read())
            except (OSError, SyntaxError, ValueError):
                continue
            torch_compile_names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                                   and n.module == "torch" for a in n.names if a.name == "compile"}
            rel = os.path.relpath(path, folder)
            seen = set()
            for node in ast.walk(tree):
                func = node.func if isinstance(node, ast.Call) else node if isinstance(node, ast.Attribute) else None
                if func is None or id(func) in seen:
                    continue
                hit = False
                if isinstance(func, ast.Attribute) and func.attr == "compile":
                    base = func.value
                    if isinstance(base, ast.Name) and base.id == "torch":
                        hit = True
                    elif isinstance(node, ast.Call) and not (isinstance(base, ast.Name) and base.id in ("re", "regex")):
                        hit = True
                elif isinstance(func, ast.Name) and func.id in torch_compile_names and isinstance(node, ast.Call):
                    hit = True
                if hit:
                    seen.add(id(func))
                    out.append({"file": rel, "line": node.lineno, "text": ast.get_source_segment(
                        open(path, encoding="utf-8").read(), node).splitlines()[0][:100]})
    return sorted({(c["file"], c["line"]): c for c in out}.values(), key=lambda c: (c["file"], c["line"]))


# ---- scoring -----------------------------------------------------------------------------------------------
def score_repo(entry: dict, report: dict, folder: str) -> dict:
    ms = modules_score()
    use_py = os.path.realpath(os.path.join(folder, "use.py"))
    ranges = standin_ranges(use_py)
    kept, dropped, meta = [], 0, []
    for d in report.get("diagnostics", []):
        line = d["range"]["start"]["line"]
        if os.path.realpath(d["path"]) == use_py and any(a <= line <= b for a, b in ranges):
            dropped += 1
            continue
        if d.get("code") in META_CODES:
            meta.append({"file": os.path.relpath(os.path.realpath(d["path"]), os.path.realpath(folder)), "line": line,
                         "code": d.get("code"), "message": d.get("message", "")[:200]})
            continue
        kept.append(d)
    report = dict(report, diagnostics=kept)
    truth_like = {"cases": [{"case": "use.py", "sites": entry["sites"], "unobserved": entry.get("unobserved", []),
                             "clean": entry["clean"], "fullgraph": sorted({r["fullgraph"] for r in entry["roots"]})}]}
    res = ms.score(truth_like, report, folder)
    real = os.path.realpath(folder)
    any_found = set()
    for s in entry["sites"]:
        for d in kept:
            p = os.path.realpath(d["path"])
            if p.startswith(real + os.sep) and os.path.relpath(p, real) == s["file"] and \
                    s["start"] <= d["range"]["start"]["line"] <= s["end"]:
                any_found.add((s["file"], s["start"]))
    unresolved = []
    for u in report.get("unresolved_roots", []):
        p = os.path.realpath(u["path"])
        unresolved.append({"file": os.path.relpath(p, real) if p.startswith(real + os.sep) else u["path"],
                           "line": u["range"]["start"]["line"], "label": u.get("label"), "reason": u.get("reason")})
    s = res["summary"]
    return {
        "repo": entry["repo"],
        "sites": s["truth_sites"], "found": s["found_sites"], "found_any": len(any_found),
        "diagnostics": s["diagnostics"], "on_site": s["diagnostics_on_site"], "false_positives": s["false_positives"],
        "conditional": s["conditional"], "conditional_on_site": s["conditional_on_site"],
        "standin_diagnostics_dropped": dropped, "meta_findings": meta,
        "roots_run": len(entry["roots"]), "compile_calls": compile_calls(folder), "unresolved": unresolved,
        "misses": res["misses"], "false_positive_list": res["false_positives"], "conditional_list": res["conditional"],
        "compile_ok": entry["compile_ok"],
        "verbose": report.get("_verbose", []),
        "shown": [{"file": os.path.relpath(os.path.realpath(d["path"]), real), "line": d["range"]["start"]["line"],
                   "code": d["code"], "message": d["message"][:200], "root": (d.get("root") or {}).get("label"),
                   "call_path": d.get("call_path")} for d in kept if not d.get("conditional")],
    }


def load_classes() -> dict:
    try:
        with open(CLASSES, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {}


def _pct(a: int, b: int) -> str:
    return "n/a" if not b else f"{100 * a / b:.1f}% ({a}/{b})"


def _md(s: str) -> str:
    return str(s).replace("|", "\\|").replace("`", "'")


def markdown(rows: list[dict], truth: dict, meta: dict, classes: dict, sources: dict) -> str:
    t = {k: sum(r[k] for r in rows) for k in ("sites", "found", "found_any", "diagnostics", "on_site",
                                               "false_positives", "conditional", "conditional_on_site")}
    n_unres = sum(len(r["unresolved"]) for r in rows)
    n_calls = sum(len(r["compile_calls"]) for r in rows)
    out = [
        "# bench/repos: fullgraph check vs Dynamo on code in the wild",
        "",
        f"Scored {meta['date']} by `bench/repos/score.py` with the analyzer of {meta['analyzer']}; "
        f"{len(rows)} `fullgraph check <folder> --format json --no-cache` runs took {meta['seconds']:.1f} s. "
        f"Truth: `truth.json` (torch {truth.get('torch_version')}, collected {truth.get('date')} at "
        f"{truth.get('commit')} in {truth.get('collect_seconds')} s"
        + ("" if truth.get("collected", "all") == "all" else f"; {truth['collected']}") + ").",
        "",
        "| measure | value |",
        "|---|---|",
        f"| repositories (with a break / clean under Dynamo) | {len(rows)} ({sum(1 for r in rows if r['sites'])} / "
        f"{sum(1 for r in rows if not r['sites'])}) |",
        f"| Dynamo break sites (statements) | {t['sites']} |",
        f"| **recall, shown findings** | **{_pct(t['found'], t['sites'])}** |",
        f"| **precision, shown findings** | **{_pct(t['on_site'], t['diagnostics'])}** |",
        f"| recall, every JSON finding (conditional ones too) | {_pct(t['found_any'], t['sites'])} |",
        f"| conditional findings (hidden by default) | {t['conditional']} ({t['conditional_on_site']} on a site) |",
        f"| compile calls not resolved (JSON `unresolved_roots`) / compile calls written | {n_unres} / {n_calls} |",
        "",
        "## Per repository",
        "",
        "| folder | repository | compiled by | sites | found (shown) | found (JSON) | shown findings | on a site | FP | "
        "conditional | compile calls | unresolved |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        src = sources.get(r["repo"], {})
        out.append(f"| {r['repo']} | {src.get('repository', '')} | {_md(src.get('compiled_by', ''))} | {r['sites']} | "
                   f"{r['found']} | {r['found_any']} | {r['diagnostics']} | {r['on_site']} | {r['false_positives']} | "
                   f"{r['conditional']} | {len(r['compile_calls'])} | {len(r['unresolved'])} |")
    out.append(f"| **total** | | | **{t['sites']}** | **{t['found']}** | **{t['found_any']}** | **{t['diagnostics']}** | "
               f"**{t['on_site']}** | **{t['false_positives']}** | **{t['conditional']}** | **{n_calls}** | "
               f"**{n_unres}** |")

    misses = [(r["repo"], m) for r in rows for m in r["misses"]]
    counts: dict[str, int] = {}
    for repo, m in misses:
        c = classes.get(f"{repo}/{m['file']}:{m['start']}", {}).get("class", "unclassified")
        counts[c] = counts.get(c, 0) + 1
    out += ["", f"## Misses ({len(misses)}) by class", "", "| class | misses |", "|---|---|"]
    for c in sorted(counts, key=lambda c: (-counts[c], c)):
        out.append(f"| {c} | {counts[c]} |")
    out += ["", "| site | Dynamo | statement | class | why |", "|---|---|---|---|---|"]
    for repo, m in misses:
        rng = f"{m['start']}-{m['end']}" if m["end"] != m["start"] else f"{m['start']}"
        cl = classes.get(f"{repo}/{m['file']}:{m['start']}", {})
        out.append(f"| {repo}/{m['file']}:{rng} | {_md('; '.join(m['gb_types']))} | `{_md(m['text'][:80])}` | "
                   f"{cl.get('class', 'unclassified')} | {_md(cl.get('note', ''))} |")
    fps = [(r["repo"], f) for r in rows for f in r["false_positive_list"]]
    out += ["", f"## False positives ({len(fps)})", ""]
    if fps:
        out += ["| finding | code | line | note |", "|---|---|---|---|"]
        for repo, f in fps:
            cl = classes.get(f"{repo}/{f['file']}:{f['line']}:fp", {})
            note = "after a frame skip (unobserved)" if f["unobserved"] else ""
            note = "; ".join(x for x in (note, cl.get("note", "")) if x)
            out.append(f"| {repo}/{f['file']}:{f['line']} | {f['code']} | `{_md(f['text'][:80])}` | {_md(note)} |")
    conds = [(r["repo"], c) for r in rows for c in r["conditional_list"]]
    if conds:
        out += ["", f"## Conditional findings ({len(conds)}, not shown by default)", "",
                "| finding | code | on a site | line |", "|---|---|---|---|"]
        for repo, c in conds:
            out.append(f"| {repo}/{c['file']}:{c['line']} | {c['code']} | {'yes' if c['on_site'] else 'no'} | "
                       f"`{_md(c['text'][:80])}` |")
    out += ["", "## How to reproduce", "",
            "```sh",
            ".venv/bin/python bench/repos/collect.py          # Dynamo's truth -> bench/repos/truth.json (minutes, nice 19; on demand)",
            f".venv/bin/python bench/repos/score.py{' --at ' + meta['at'] if meta.get('at') else ''} --out bench/repos/RESULTS.md",
            "```", "",
            "Classes of the misses are written by hand in `classes.json` (key `folder/file:line` of the site's first "
            "line; `...:line:fp` for a false positive); a new miss shows as `unclassified`."]
    out += ["", f"## Compile calls not resolved ({n_unres} of {n_calls} written)", "",
            "| call | label | reason |", "|---|---|---|"]
    for r in rows:
        for u in r["unresolved"]:
            out.append(f"| {r['repo']}/{u['file']}:{u['line']} | `{_md(u['label'])}` | {_md(u['reason'])} |")
    out += ["", "### Every compile call written", "", "| call | statement |", "|---|---|"]
    for r in rows:
        for c in r["compile_calls"]:
            out.append(f"| {r['repo']}/{c['file']}:{c['line']} | `{_md(c['text'])}` |")
    return "\n".join(out) + "\n"


def load_sources() -> dict:
    """folder -> {repository, compiled_by} from sources.json (written by hand with the README table)."""
    try:
        with open(os.path.join(HERE, "sources.json"), encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default=TRUTH)
    ap.add_argument("--at", metavar="REV", help="score the analyzer of this commit (git archive of server/)")
    ap.add_argument("--only", nargs="*", help="repository folder names (substrings)")
    ap.add_argument("--out", help="write the markdown report here")
    ap.add_argument("--json", action="store_true", help="print the JSON summary")
    ap.add_argument("--json-out", help="write every row (misses, false positives, unresolved calls) as JSON")
    args = ap.parse_args(argv)
    with open(args.truth, encoding="utf-8") as fh:
        truth = json.load(fh)
    entries = [e for e in truth["repos"] if not args.only or any(s in e["repo"] for s in args.only)]
    tmp = tempfile.mkdtemp(prefix="fgrepos-score-")
    try:
        prefix, env, desc = analyzer_at(args.at, tmp)
        rows, total = [], 0.0
        for e in entries:
            folder = os.path.join(HERE, e["repo"])
            report, dt = run_check(prefix, env, folder)
            total += dt
            rows.append(score_repo(e, report, folder))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "analyzer": desc, "seconds": total,
            "at": args.at}
    classes = load_classes()
    text = markdown(rows, truth, meta, classes, load_sources())
    t = {k: sum(r[k] for r in rows) for k in ("sites", "found", "found_any", "diagnostics", "on_site")}
    summary = {"repos": len(rows), "sites": t["sites"], "found_shown": t["found"], "found_json": t["found_any"],
               "shown_findings": t["diagnostics"], "shown_on_site": t["on_site"],
               "unresolved_compile_calls": sum(len(r["unresolved"]) for r in rows),
               "compile_calls": sum(len(r["compile_calls"]) for r in rows), "analyzer": desc}
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump({"meta": meta, "summary": summary, "rows": rows}, fh, indent=1)
    if args.json:
        print(json.dumps(summary, indent=1))
    elif not args.out:
        print(text)
    else:
        print(f"recall (shown) {_pct(t['found'], t['sites'])}, precision (shown) {_pct(t['on_site'], t['diagnostics'])}, "
              f"recall (JSON) {_pct(t['found_any'], t['sites'])}; unresolved compile calls "
              f"{summary['unresolved_compile_calls']}/{summary['compile_calls']} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

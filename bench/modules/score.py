"""Score `fullgraph check` against Dynamo's truth for bench/modules/cases (truth.json from collect.py).

    .venv/bin/python bench/modules/score.py                       # markdown report on stdout
    .venv/bin/python bench/modules/score.py --out bench/modules/RESULTS.md
    .venv/bin/python bench/modules/score.py --json                # JSON summary on stdout
    .venv/bin/python bench/modules/score.py --fixes [--out FILE]  # apply --fix --unsafe-fixes to a copy, rerun Dynamo
    .venv/bin/python bench/modules/score.py --truth bench/modules/truth-2.15.0.json --torch-version 2.15.0
                                  # another release's truth, the analyzer told the user's torch is that release

Scoring (line level): one `fullgraph check CASES --format json` over the whole tree (one project).
* A truth site (a statement where Dynamo reported a graph break) is **found** when a diagnostic of the same
  file starts on a line inside the site's statement line range.  recall = found sites / truth sites.
* precision = diagnostics that start inside a truth site / all diagnostics.
* Only diagnostics shown by default count: one whose JSON has `"conditional": true` is set aside and
  reported separately (how many, and how many sit on truth sites).
* A diagnostic that is not on a truth site but lies where Dynamo never looked (the rest of a frame Dynamo
  skipped after a break in a loop, `unobserved` in truth.json) still counts as a false positive; the
  report says how many false positives are of that kind.
The matching (statement ranges, shown vs conditional, the ratios) is bench/scoring.py's, shared with
bench/realworld.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if os.path.dirname(HERE) not in sys.path:
    sys.path.append(os.path.dirname(HERE))  # bench/: the shared scoring module
import collect  # noqa: E402
from scoring import CONDITIONAL, FOUND, SourceLines, json_line, on_any, ratio, site_status, split_shown  # noqa: E402

REPO = collect.REPO
CASES = collect.CASES
TRUTH = collect.TRUTH
FULLGRAPH = collect.FULLGRAPH


# ---- running the analyzer --------------------------------------------------------------------------------
def run_check(cases_dir: str, extra: list[str] | None = None, cwd: str = REPO) -> tuple[dict, float, str]:
    cmd = [FULLGRAPH, "check", cases_dir, "--format", "json"] + (extra or [])
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    dt = time.time() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"fullgraph check failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    try:
        return json.loads(proc.stdout), dt, " ".join(cmd)
    except ValueError:
        raise SystemExit(f"fullgraph check printed no JSON:\n{proc.stdout[:2000]}\n{proc.stderr[-2000:]}") from None


def git_head() -> str:
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--", "server"], capture_output=True,
                               text=True).stdout.strip()
        return head + (" (+ uncommitted changes under server/)" if dirty else "")
    except OSError:
        return "?"


# ---- matching (bench/scoring.py) -------------------------------------------------------------------------
def _truth_sites(truth: dict, cases_dir: str) -> tuple[list[dict], dict[str, str], list[tuple[str, int, int]]]:
    """The truth sites (with their case), the case of every case file, the unobserved regions."""
    sites = []
    case_of_file: dict[str, str] = {}
    unobserved: list[tuple[str, int, int]] = []
    for c in truth["cases"]:
        group = collect.case_group(c["case"])
        for s in c["sites"]:
            sites.append(dict(s, case=c["case"]))
        for r in c.get("unobserved", []):
            unobserved.append((r["file"], r["start"], r["end"]))
        case_of_file[c["case"]] = c["case"]
        if group != c["case"]:  # a package: every file of the folder belongs to the case
            for fn in os.listdir(os.path.join(cases_dir, group)):
                if fn.endswith(".py"):
                    case_of_file[os.path.join(group, fn)] = c["case"]
    return sites, case_of_file, unobserved


def score(truth: dict, report: dict, cases_dir: str = CASES) -> dict:
    """The JSON report matched to the truth sites per statement: summary, rows per case, misses, false
    positives, conditional diagnostics (bench/repos/score.py scores with it too)."""
    cases_real = os.path.realpath(cases_dir)
    sites, case_of_file, unobserved = _truth_sites(truth, cases_dir)
    diags = []
    for d in report.get("diagnostics", []):
        p = os.path.realpath(d["path"])
        if not p.startswith(cases_real + os.sep) or str(d.get("code", "")).startswith("FG6"):
            continue  # (FG6xx: recompilation hazards, not graph breaks; tests/recompiles scores them)
        rel = os.path.relpath(p, cases_real)
        diags.append({"file": rel, "line": json_line(d), "code": d.get("code"), "message": d.get("message", ""),
                      "conditional": bool(d.get("conditional", False)), "case": case_of_file.get(rel, rel),
                      "fullgraph": (d.get("root") or {}).get("fullgraph"), "on_site": None})

    statements = [(s["file"], s["start"], s["end"]) for s in sites]
    for d in diags:
        d["on_site"] = on_any(d, statements, field="file")
        d["unobserved"] = not d["on_site"] and on_any(d, unobserved, field="file")
    for s in sites:  # found: a shown diagnostic on the site; conditional: only a conditional one
        s["status"] = site_status(diags, s["file"], s["start"], s["end"], field="file")[0]

    shown, cond = split_shown(diags)
    found = [s for s in sites if s["status"] == FOUND]
    misses = [s for s in sites if s["status"] != FOUND]
    fps = [d for d in shown if not d["on_site"]]
    on_site = [d for d in shown if d["on_site"]]
    text = SourceLines(resolve=lambda rel: os.path.join(cases_dir, rel)).line

    rows = []
    for c in truth["cases"]:
        cs = [s for s in sites if s["case"] == c["case"]]
        cd = [d for d in shown if d["case"] == c["case"]]
        cc = [d for d in cond if d["case"] == c["case"]]
        rows.append({
            "case": c["case"], "fullgraph": True in c.get("fullgraph", []), "clean": c["clean"],
            "sites": len(cs), "found": sum(1 for s in cs if s["status"] == FOUND),
            "diagnostics": len(cd), "on_site": sum(1 for d in cd if d["on_site"]),
            "false_positives": sum(1 for d in cd if not d["on_site"]),
            "conditional": len(cc), "conditional_on_site": sum(1 for d in cc if d["on_site"]),
        })
    n_sites = len(sites)
    summary = {
        "cases": len(truth["cases"]),
        "clean_cases": sum(1 for c in truth["cases"] if c["clean"]),
        "breaking_cases": sum(1 for c in truth["cases"] if not c["clean"]),
        "truth_sites": n_sites,
        "found_sites": len(found),
        "recall": ratio(len(found), n_sites),
        "diagnostics": len(shown),
        "diagnostics_on_site": len(on_site),
        "precision": ratio(len(on_site), len(shown)),
        "false_positives": len(fps),
        "false_positives_unobserved": sum(1 for d in fps if d["unobserved"]),
        "clean_cases_flagged": sum(1 for r in rows if r["clean"] and r["diagnostics"]),
        "breaking_cases_fully_found": sum(1 for r in rows if not r["clean"] and r["found"] == r["sites"]),
        "breaking_cases_any_found": sum(1 for r in rows if not r["clean"] and r["found"] > 0),
        "conditional": len(cond),
        "conditional_on_site": sum(1 for d in cond if d["on_site"]),
        "conditional_would_find": sum(1 for s in misses if s["status"] == CONDITIONAL),
    }
    return {
        "summary": summary,
        "rows": rows,
        "misses": [{"file": s["file"], "line": s["line"], "start": s["start"], "end": s["end"],
                    "gb_types": s["gb_types"], "root_fullgraph": s["root_fullgraph"], "text": s["text"]}
                   for s in misses],
        "false_positives": [{"file": d["file"], "line": d["line"], "code": d["code"], "message": d["message"],
                             "unobserved": d["unobserved"], "text": text(d["file"], d["line"])} for d in fps],
        "conditional": [{"file": d["file"], "line": d["line"], "code": d["code"], "on_site": d["on_site"],
                         "text": text(d["file"], d["line"])} for d in cond],
    }


# ---- report ----------------------------------------------------------------------------------------------
def _pct(x):
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("`", "'")


def markdown(result: dict, truth: dict, meta: dict) -> str:
    s = result["summary"]
    out = [
        "# bench/modules: fullgraph check vs Dynamo",
        "",
        f"Scored {meta['date']} by `bench/modules/score.py` at commit {meta['commit']}; "
        f"`{meta['command']}` took {meta['check_seconds']:.1f} s. Truth: `{meta.get('truth', 'truth.json')}` "
        f"(torch {truth.get('torch_version')}, collected {truth.get('date')} at {truth.get('commit')}).",
        "",
        "| measure | value |",
        "|---|---|",
        f"| cases (clean / breaking) | {s['cases']} ({s['clean_cases']} / {s['breaking_cases']}) |",
        f"| truth sites | {s['truth_sites']} |",
        f"| **recall** (sites found) | **{_pct(s['recall'])}** ({s['found_sites']}/{s['truth_sites']}) |",
        f"| **precision** (diagnostics on a site) | **{_pct(s['precision'])}** "
        f"({s['diagnostics_on_site']}/{s['diagnostics']}) |",
        f"| false positives | {s['false_positives']} (of which {s['false_positives_unobserved']} where Dynamo "
        f"never looked: after a frame skip) |",
        f"| clean cases flagged | {s['clean_cases_flagged']}/{s['clean_cases']} |",
        f"| breaking cases with every site found / with at least one | {s['breaking_cases_fully_found']} / "
        f"{s['breaking_cases_any_found']} of {s['breaking_cases']} |",
        f"| conditional diagnostics (hidden by default) | {s['conditional']} ({s['conditional_on_site']} on a truth "
        f"site; showing them would find {s['conditional_would_find']} more sites) |",
        "",
        "## Per case",
        "",
        "| case | fullgraph | sites | found | diagnostics | on site | FP | conditional (on site) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        mark = "" if (r["found"] == r["sites"] and r["false_positives"] == 0) else " ✗"
        out.append(f"| {r['case']}{mark} | {'yes' if r['fullgraph'] else ''} | {r['sites']} | {r['found']} | "
                   f"{r['diagnostics']} | {r['on_site']} | {r['false_positives']} | "
                   f"{r['conditional']} ({r['conditional_on_site']}) |")
    out += ["", f"## Misses ({len(result['misses'])})", ""]
    if result["misses"]:
        out += ["| site | Dynamo | line |", "|---|---|---|"]
        for m in result["misses"]:
            rng = f"{m['start']}-{m['end']}" if m["end"] != m["start"] else f"{m['start']}"
            out.append(f"| {m['file']}:{m['line']} ({rng}) | {_md_escape('; '.join(m['gb_types']))} | "
                       f"`{_md_escape(m['text'][:90])}` |")
    out += ["", f"## False positives ({len(result['false_positives'])})", ""]
    if result["false_positives"]:
        out += ["| diagnostic | code | line | note |", "|---|---|---|---|"]
        for f in result["false_positives"]:
            note = "after a frame skip (unobserved)" if f["unobserved"] else ""
            out.append(f"| {f['file']}:{f['line']} | {f['code']} | `{_md_escape(f['text'][:90])}` | {note} |")
    if result["conditional"]:
        out += ["", f"## Conditional diagnostics ({len(result['conditional'])}, not counted)", "",
                "| diagnostic | code | on a truth site | line |", "|---|---|---|---|"]
        for c in result["conditional"]:
            out.append(f"| {c['file']}:{c['line']} | {c['code']} | {'yes' if c['on_site'] else 'no'} | "
                       f"`{_md_escape(c['text'][:90])}` |")
    return "\n".join(out) + "\n"


# ---- --fixes -----------------------------------------------------------------------------------------------
COMPARE = r"""
import math, sys, torch
def same(a, b, path="result"):
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return f"{path}: tensor vs {type(b).__name__}"
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"{path}: {tuple(a.shape)}/{a.dtype} vs {tuple(b.shape)}/{b.dtype}"
        if a.is_floating_point() or a.is_complex():
            ok = torch.allclose(a.detach().float(), b.detach().float(), rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            ok = torch.equal(a, b)
        return None if ok else f"{path}: values differ"
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{path}: keys differ"
        for k in a:
            r = same(a[k], b[k], f"{path}[{k!r}]")
            if r: return r
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            r = same(x, y, f"{path}[{i}]")
            if r: return r
        return None
    if isinstance(a, float) and isinstance(b, float):
        return None if math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6) else f"{path}: {a} vs {b}"
    return None if a == b else f"{path}: {a!r} vs {b!r}"
a = torch.load(sys.argv[1], weights_only=False)
b = torch.load(sys.argv[2], weights_only=False)
r = same(a, b)
print("same" if r is None else r)
"""


def compare_results(a: str, b: str) -> str:
    if not (os.path.exists(a) and os.path.exists(b)):
        return "no result"
    proc = subprocess.run([collect.PYTHON, "-c", COMPARE, a, b], capture_output=True, text=True,
                          env=collect._env())
    if proc.returncode != 0:
        return "compare failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
    return proc.stdout.strip() or "?"


def _parses(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            ast.parse(fh.read())
        return True
    except (SyntaxError, ValueError, OSError):
        return False


def run_fixes(truth: dict, cases_dir: str, only: list[str] | None) -> dict:
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="fgbench-fixes-")
    try:
        fixed_dir = os.path.join(work, "cases")
        shutil.copytree(cases_dir, fixed_dir, ignore=shutil.ignore_patterns("__pycache__"))
        proc = subprocess.run([FULLGRAPH, "check", fixed_dir, "--fix", "--unsafe-fixes"], cwd=work,
                              capture_output=True, text=True)
        fix_log = (proc.stdout + proc.stderr)[-4000:]
        rows = []
        for c in truth["cases"]:
            rel = c["case"]
            if only and not any(o in rel for o in only):
                continue
            group = collect.case_group(rel)
            files = [group] if group == rel else [os.path.join(group, f)
                                                  for f in sorted(os.listdir(os.path.join(cases_dir, group)))
                                                  if f.endswith(".py")]
            changed = [f for f in files if open(os.path.join(cases_dir, f), "rb").read()
                       != open(os.path.join(fixed_dir, f), "rb").read()]
            row = {"case": rel, "changed_files": changed, "sites_before": len(c["sites"])}
            if not changed:
                row.update(status="unchanged", sites_after=len(c["sites"]))
                rows.append(row)
                continue
            broken = [f for f in changed if not _parses(os.path.join(fixed_dir, f))]
            row["unparsable"] = broken
            with tempfile.TemporaryDirectory(prefix="fgbench-fix1-") as tmp:
                orig_eager = os.path.join(tmp, "orig_eager.pt")
                orig_comp = os.path.join(tmp, "orig_compiled.pt")
                fixed_comp = os.path.join(tmp, "fixed_compiled.pt")
                collect.run_mode("eager", os.path.join(cases_dir, rel), tmp, trace=False, save_result=orig_eager)
                collect.run_mode("collect", os.path.join(cases_dir, rel), tmp, trace=False, save_result=orig_comp)
                if broken:
                    row.update(status="does not parse", sites_after=None)
                    rows.append(row)
                    print(f"{rel:48s} DOES NOT PARSE: {broken}", flush=True)
                    continue
                runner, events, _ = collect.run_mode("collect", os.path.join(fixed_dir, rel), tmp, trace=True,
                                                     save_result=fixed_comp)
                sites, loose, _ = collect.sites_from_events(events, runner.get("roots") or [], fixed_dir)
                row["sites_after"] = len(sites)
                row["runs"] = bool(runner.get("ok"))
                if not runner.get("ok"):
                    row["status"] = "fails: " + f"{runner.get('error_type')}: {(runner.get('error') or '')[:200]}"
                else:
                    row["result_vs_eager"] = compare_results(orig_eager, fixed_comp)
                    row["compiled_vs_eager_before"] = compare_results(orig_eager, orig_comp)
                    row["rng_flag"] = row["compiled_vs_eager_before"] != "same"
                    row["status"] = "ok" if row["result_vs_eager"] == "same" else (
                        "differs (already differed before the fix: RNG/compile)" if row["rng_flag"] else "DIFFERS")
                if any(r.get("fullgraph") for r in runner.get("roots") or []):
                    strict, _, _ = collect.run_mode("strict", os.path.join(fixed_dir, rel), tmp, trace=False)
                    row["fullgraph_true_runs"] = bool(strict.get("ok"))
            print(f"{rel:48s} sites {row['sites_before']} -> {row['sites_after']}  {row['status']}"
                  f"{'  [fullgraph=True now runs]' if row.get('fullgraph_true_runs') else ''}", flush=True)
            rows.append(row)
        changed_rows = [r for r in rows if r["changed_files"]]
        summary = {
            "cases": len(rows),
            "cases_changed": len(changed_rows),
            "sites_before_in_changed": sum(r["sites_before"] for r in changed_rows),
            "sites_after_in_changed": sum(r["sites_after"] or 0 for r in changed_rows if r["sites_after"] is not None),
            "breaks_removed": sum(max(0, r["sites_before"] - (r["sites_after"] or 0)) for r in changed_rows
                                  if r["sites_after"] is not None),
            "cases_break_free_after": sum(1 for r in changed_rows if r.get("sites_after") == 0 and r["sites_before"]),
            "unparsable": [r["case"] for r in rows if r.get("unparsable")],
            "failing_to_run": [r["case"] for r in rows if str(r.get("status", "")).startswith("fails")],
            "same_result": sum(1 for r in changed_rows if r.get("result_vs_eager") == "same"),
            "different_result": [r["case"] for r in changed_rows if r.get("status") == "DIFFERS"],
            "different_result_rng": [r["case"] for r in changed_rows if r.get("rng_flag")
                                     and r.get("result_vs_eager") != "same"],
            "clean_cases_changed": [r["case"] for r in changed_rows if r["sites_before"] == 0],
            "seconds": round(time.time() - t0, 1),
        }
        return {"summary": summary, "rows": rows, "fix_log": fix_log}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def fixes_markdown(res: dict, meta: dict) -> str:
    s = res["summary"]
    out = [
        "# bench/modules: `fullgraph check --fix --unsafe-fixes`, then Dynamo again",
        "",
        f"Run {meta['date']} at commit {meta['commit']} ({s['seconds']:.0f} s). Every case was copied, fixed in "
        "place by the analyzer, and the fixed copies that changed were run again under Dynamo (backend=eager, "
        "resuming after breaks) and compared with the original eager result.",
        "",
        f"- cases changed by the fixes: {s['cases_changed']}/{s['cases']} "
        f"(clean cases changed: {len(s['clean_cases_changed'])})",
        f"- Dynamo break sites in the changed cases: {s['sites_before_in_changed']} -> {s['sites_after_in_changed']} "
        f"({s['breaks_removed']} removed; {s['cases_break_free_after']} cases now break-free)",
        f"- fixed files that no longer parse: {len(s['unparsable'])} {s['unparsable'] or ''}",
        f"- fixed cases that no longer run: {len(s['failing_to_run'])} {s['failing_to_run'] or ''}",
        f"- main() equal to the original eager result: {s['same_result']}/{s['cases_changed']}; "
        f"different: {s['different_result'] or 'none'}; different but compiled output already differed from "
        f"eager before the fix (RNG): {s['different_result_rng'] or 'none'}",
        "",
        "| case | files changed | sites before -> after | result | fullgraph=True runs after |",
        "|---|---|---|---|---|",
    ]
    for r in res["rows"]:
        if not r["changed_files"]:
            continue
        out.append(f"| {r['case']} | {len(r['changed_files'])} | {r['sites_before']} -> {r.get('sites_after')} | "
                   f"{_md_escape(str(r.get('result_vs_eager') or r.get('status')))} | "
                   f"{'' if 'fullgraph_true_runs' not in r else ('yes' if r['fullgraph_true_runs'] else 'no')} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default=TRUTH)
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("--out", help="write the markdown report here")
    ap.add_argument("--json", action="store_true", help="print the JSON summary instead of markdown")
    ap.add_argument("--json-out", help="write the full JSON result here")
    ap.add_argument("--fixes", action="store_true", help="apply the analyzer's fixes to a copy and rerun Dynamo (slow)")
    ap.add_argument("--only", nargs="*", help="--fixes: only cases whose path contains one of these")
    ap.add_argument("--torch-version", help="passed to `fullgraph check --torch-version` (default: the analyzer "
                    "evaluates for the torch installed in .venv)")
    args = ap.parse_args(argv)

    with open(args.truth, encoding="utf-8") as fh:
        truth = json.load(fh)
    cases_dir = os.path.abspath(args.cases)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": git_head(),
            "truth": os.path.basename(args.truth)}

    if args.fixes:
        res = run_fixes(truth, cases_dir, args.only)
        text = fixes_markdown(res, meta)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        if args.json_out:
            with open(args.json_out, "w", encoding="utf-8") as fh:
                json.dump(res, fh, indent=1)
        print(json.dumps(res["summary"], indent=1) if args.json else text)
        return 0

    report, dt, cmd = run_check(cases_dir, ["--torch-version", args.torch_version] if args.torch_version else None)
    meta.update(check_seconds=dt, command=cmd.replace(REPO + os.sep, "").replace(os.path.dirname(REPO) + os.sep, ""))
    result = score(truth, report, cases_dir)
    result["meta"] = meta
    text = markdown(result, truth, meta)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)
    if args.json:
        print(json.dumps(dict(result["summary"], commit=meta["commit"], check_seconds=round(dt, 2)), indent=1))
    elif not args.out:
        print(text)
    else:
        s = result["summary"]
        print(f"recall {_pct(s['recall'])} ({s['found_sites']}/{s['truth_sites']}), precision {_pct(s['precision'])} "
              f"({s['diagnostics_on_site']}/{s['diagnostics']}); conditional {s['conditional']}; -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

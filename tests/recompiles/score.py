"""Score the analyzer's recompile findings (FG6xx) against Dynamo's recompile verdicts (static, no torch).

    .venv/bin/python tests/recompiles/score.py                                   # the catalog, 2.13 verdicts
    .venv/bin/python tests/recompiles/score.py --cases bench/modules/recompiles \\
        --truth bench/modules/recompiles/truth-2.13.0.json                       # the realistic modules
    .venv/bin/python tests/recompiles/score.py --truth tests/recompiles/verdicts-2.15.0.json --torch-version 2.15.0
    .venv/bin/python tests/recompiles/score.py --findings out.json               # an existing `--format json` output

Without `--findings` it runs `python -m fullgraph check CASES --format json --select FG6` (this checkout's
`server/` on PYTHONPATH) once over the whole folder.

* A recompiling case (Dynamo recompiled it: `recompiles > 0` in the truth) is **found** when a finding whose
  code starts with `FG6` starts on one of its `# recompile: <kind>` lines. recall = found / recompiling cases
  (also per kind).
* A **false positive** is an FG6 finding in a near-miss case (0 recompiles), or on a line of a recompiling case
  that carries no `# recompile:` mark.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from collect import discover, marks  # noqa: E402  (collect imports torch only in its child mode)


def run_check(cases_dir: str, python: str, torch_version: str | None) -> dict:
    cmd = [python, "-m", "fullgraph", "check", cases_dir, "--format", "json", "--select", "FG6"]
    if torch_version:
        cmd += ["--torch-version", torch_version]
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "server"))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"fullgraph check failed (rc={p.returncode}):\n{p.stderr[-3000:]}")


def score(cases_dir: str, truth: dict, findings: dict) -> dict:
    cases_dir = os.path.abspath(cases_dir)
    verdicts = {c["case"]: c for c in truth["cases"]}
    diags = [d for d in findings.get("diagnostics", []) if str(d.get("code", "")).startswith("FG6")]
    by_case: dict[str, list[int]] = defaultdict(list)
    outside = 0
    for d in diags:
        rel = os.path.relpath(os.path.abspath(d["path"]), cases_dir)
        line = (d.get("range") or {}).get("start", {}).get("line", 0) or d.get("line", 0)
        if rel.startswith(".."):
            outside += 1
            continue
        by_case[rel].append(line)
    rows, fps = [], []
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for path in discover(cases_dir):
        rel = os.path.relpath(path, cases_dir)
        v = verdicts.get(rel)
        if v is None:
            continue
        marked = {ln: k for ln, k in marks(path)}
        lines = by_case.get(rel, [])
        if v["recompiling"]:
            found = any(ln in marked for ln in lines)
            for k in set(marked.values()) or {"(unmarked)"}:
                per_kind[k][1] += 1
                per_kind[k][0] += found
            rows.append((rel, v["recompiles"], found))
            fps += [(rel, ln, "unmarked line") for ln in lines if ln not in marked]
        else:
            fps += [(rel, ln, "near-miss") for ln in lines]
    recompiling = len(rows)
    found = sum(f for *_, f in rows)
    near = sum(not v["recompiling"] for k, v in verdicts.items())
    return {
        "torch_version": truth.get("torch_version"),
        "cases": len(verdicts),
        "recompiling": recompiling,
        "found": found,
        "recall": found / recompiling if recompiling else 0.0,
        "near_miss": near,
        "findings": len(diags),
        "false_positives": len(fps),
        "false_positive_cases": len({c for c, *_ in fps}),
        "near_miss_flagged": len({c for c, _, why in fps if why == "near-miss"}),
        "findings_outside": outside,
        "per_kind": {k: {"found": f, "cases": n} for k, (f, n) in sorted(per_kind.items())},
        "missed": [c for c, _, f in rows if not f],
        "fp": [{"case": c, "line": ln, "why": why} for c, ln, why in fps],
    }


def report(s: dict) -> str:
    out = [f"# Recompile findings (FG6) against Dynamo {s['torch_version']}", "",
           f"- recall: {s['found']}/{s['recompiling']} recompiling cases = {100 * s['recall']:.0f}%",
           f"- false positives: {s['false_positives']} findings in {s['false_positive_cases']} cases "
           f"({s['near_miss_flagged']} of {s['near_miss']} near-misses flagged)",
           f"- FG6 findings: {s['findings']}" + (f" ({s['findings_outside']} outside the folder)"
                                                if s["findings_outside"] else ""),
           "", "| kind | found | cases |", "|---|---|---|"]
    out += [f"| {k} | {v['found']} | {v['cases']} |" for k, v in s["per_kind"].items()]
    if s["fp"]:
        out += ["", "False positives:"] + [f"- {f['case']}:{f['line']} ({f['why']})" for f in s["fp"]]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=os.path.join(HERE, "cases"))
    ap.add_argument("--truth", help="verdicts JSON (default: verdicts-2.13.0.json beside the catalog, "
                                    "truth-2.13.0.json beside other folders)")
    ap.add_argument("--findings", help="an existing `fullgraph check --format json` output (else it is run)")
    ap.add_argument("--python", default=sys.executable, help="interpreter that runs fullgraph check")
    ap.add_argument("--torch-version", help="passed to fullgraph check")
    ap.add_argument("--json", action="store_true", help="print the score as JSON")
    a = ap.parse_args(argv)
    cases = os.path.abspath(a.cases)
    truth_path = a.truth
    if not truth_path:
        if cases == os.path.join(HERE, "cases"):
            truth_path = os.path.join(HERE, "verdicts-2.13.0.json")
        else:
            truth_path = os.path.join(cases, "truth-2.13.0.json")
    with open(truth_path) as f:
        truth = json.load(f)
    if a.findings:
        with open(a.findings) as f:
            findings = json.load(f)
    else:
        findings = run_check(cases, a.python, a.torch_version)
    s = score(cases, truth, findings)
    print(json.dumps(s, indent=1) if a.json else report(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())

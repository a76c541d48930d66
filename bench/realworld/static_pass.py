"""The static pass (``--static-only``): what the CLI shows.  ``fullgraph check scripts/<model>_<mode>.py
--follow <library> --format json -j 1`` through the CLI's own entry point, one child process per script with a
timeout; the compact diagnostics go to ``static.json``.  For the scripts with sites the check missed, the same
child then dumps the engine's view of the script (``dump_engine``) and ``explain.py`` says why each was missed
(``--no-explain`` skips it).

``child_check`` runs in the child process (``run_models.py --child-check``).
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from common import (ENTRY, NICE, REPO, STATIC_JSON, TRUTH_JSON, VENV_PY, WORK, Sources, absolute, lib_dir, load_json,
                    rel, run, script_of, site_key, tag_of, versions, write_compact)
from explain import analyse_miss
from models import BY_NAME
from score_runs import score_site
from scoring import json_line


# ==== the child process ===========================================================================
def child_check(script: str, library: str, out: str, engine_out: str, stack_files_json: str) -> None:
    """`fullgraph check SCRIPT --follow LIBRARY --format json -j 1` through the CLI's own entry point
    (`fullgraph.cli.main`, what the console script runs), in this process so that the same Workspace can then
    be asked why the missed sites were missed (engine_out, unless it is "-")."""
    import contextlib
    import io

    from fullgraph import api, cli

    seen = []
    orig = api.Workspace.__init__

    def init(self, *a, **k):
        orig(self, *a, **k)
        seen.append(self)

    api.Workspace.__init__ = init
    buf, err = io.StringIO(), io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        rc = cli.main(["check", script, "--follow", library, "--format", "json", "-j", "1"])
    secs = time.perf_counter() - t
    Path(out).write_text(json.dumps({"exit": rc, "seconds": secs, "stdout": buf.getvalue(),
                                     "stderr": err.getvalue()[-2000:]}))
    if engine_out != "-" and seen:
        dump_engine(seen[-1], library, engine_out, json.loads(Path(stack_files_json).read_text()))


def dump_engine(ws, library: str, out: str, stack_files: list[str]) -> None:
    """The engine's view of the script (for explaining misses): the functions the walk reached from the
    script's roots, and the functions, sites and call edges of the modules on Dynamo's stacks."""
    proj = ws.project
    real = os.path.realpath
    ignored, allowed = set(), set()
    for m in list(proj.modules.values()):
        ignored |= m.ignored
        allowed |= m.allow_in_graph
    reached = {}
    for r in proj.roots():
        if not r.entries or r.info is None:
            continue
        if getattr(r.mod, "library", False) and r.decl.kind != "config":
            continue  # the library's own torch.compile calls: not what the script compiles
        for rc in proj.walker.reach(r, allowed, ignored):
            fs = rc.fs
            reached.setdefault(fs.qualname, {"path": real(rc.mod.path),
                                             "lines": [fs.span.start.line + 1, fs.span.end.line + 1]})
    ld = ws.follow_roots().get(library)
    for f in stack_files:  # load the library modules on Dynamo's stacks that the check did not load
        if ld and f.startswith(real(ld) + os.sep) and f.endswith(".py"):
            relp = os.path.relpath(f, real(ld))[:-3].replace(os.sep, ".")
            name = library + ("" if relp == "__init__" else "." + relp.removesuffix(".__init__"))
            if not any(real(m.path) == f for m in proj.modules.values()):
                try:
                    ws._load_library_module(name)
                except Exception:  # noqa: BLE001 - diagnosis only
                    pass
    functions, sites, edges = {}, {}, {}
    want = set(stack_files)
    for m in list(proj.modules.values()):
        if not getattr(m, "library", False) or real(m.path) not in want:
            continue
        functions[real(m.path)] = [[q, fs.span.start.line + 1, fs.span.end.line + 1] for q, fs in m.functions.items()]
        sites[real(m.path)] = [[x.span.start.line + 1, x.span.end.line + 1, x.code, fs.qualname]
                               for fs in m.functions.values() for x in fs.sites]
        rows = []
        for fs in list(m.functions.values()):
            for e in fs.edges:
                try:
                    tg = [t.qualname for t, _ in proj.resolve_edge(e, m)]
                except Exception:  # noqa: BLE001 - diagnosis only
                    tg = []
                rows.append([e.span.start.line + 1, e.span.end.line + 1, e.kind, e.text[:80], tg])
        edges[real(m.path)] = rows
    with open(out, "w") as fh:
        json.dump({"reached": reached, "functions": functions, "sites": sites, "edges": edges}, fh)


# ==== the pass ====================================================================================
def compact_diag(d: dict) -> dict:
    """What static.json keeps of a JSON diagnostic: its location (path made relative, 1-based lines), code,
    condition, message, conditional flag and library sites."""
    def loc(x):
        return {"path": rel(x["path"]), "line": json_line(x), "end": json_line(x, "end"), "code": x.get("code")}

    def cond(x, into):
        if x.get("condition"):
            into["condition"] = x["condition"]
        return into

    out = cond(d, loc(d))
    out["message"] = (d.get("message") or "")[:240]
    if "conditional" in d:
        out["conditional"] = bool(d["conditional"])
    out["library_sites"] = [cond(s, dict(loc(s), message=(s.get("message") or "")[:160]))
                            for s in d.get("library_sites") or []]
    return out


def static_one(name: str, mode: str, timeout: int, sites: list[dict] | None) -> dict:
    """The CLI's JSON for one script (+ the engine dump behind the explanations when `sites` is given)."""
    m = BY_NAME[name]
    tag = tag_of(name, mode)
    d = WORK / "static"
    d.mkdir(parents=True, exist_ok=True)
    out, eng, sf = d / f"{tag}.cli.json", d / f"{tag}.engine.json", d / f"{tag}.stackfiles.json"
    for p in (out, eng):
        if p.exists():
            p.unlink()
    sf.write_text(json.dumps(sorted({os.path.realpath(absolute(fr.rsplit(":", 1)[0])) for s in sites or []
                                     for fr in s["stack"] if not fr.startswith("<")})))
    cmd = [*NICE, str(VENV_PY), str(ENTRY), "--child-check", str(script_of(name, mode).relative_to(REPO)),
           m.library, str(out), str(eng) if sites else "-", str(sf)]
    rc, wall = run(cmd, d / f"{tag}.check.log", timeout)
    if rc == -999:
        return {"exit": rc, "seconds": round(wall, 2), "error": f"timeout after {timeout} s"}
    try:
        res = json.loads(out.read_text())
        e = {"exit": res["exit"], "seconds": round(res["seconds"], 2)}
        e["diagnostics"] = [compact_diag(x) for x in json.loads(res["stdout"])["diagnostics"]]
    except (OSError, ValueError, KeyError) as exc:
        return {"exit": rc, "seconds": round(wall, 2), "error": f"exit {rc}, no JSON ({type(exc).__name__}); see "
                f"work/static/{tag}.check.log"}
    if sites is not None:
        e["_engine"] = str(eng)
    return e


def explain_misses(name: str, engine_json: str, sites: list[dict]) -> dict:
    """Why each missed site was missed (see analyse_miss); {site key: [[blocker, detail], ...]}."""
    if not os.path.exists(engine_json):
        return {site_key(s): [["(explanation failed)", "no engine dump"]] for s in sites}
    eng = json.loads(Path(engine_json).read_text())
    src = Sources()
    libdir = os.path.realpath(lib_dir(BY_NAME[name].library))
    res = {}
    for s in sites:
        try:
            res[site_key(s)] = [list(x) for x in analyse_miss(s, eng, libdir, src)]
        except Exception as exc:  # noqa: BLE001 - diagnosis only
            res[site_key(s)] = [["(explanation failed)", f"{type(exc).__name__}: {exc}"]]
    return res


def static_pass(names: list[str], timeout: int, explain: bool) -> None:
    """Check each mode of each model; static.json keeps the other models' entries (a partial run)."""
    truth = load_json(TRUTH_JSON)
    old = load_json(STATIC_JSON)
    checks = dict(old.get("checks", {})) if old else {}
    explains = dict(old.get("explain", {})) if old else {}
    t0 = time.perf_counter()
    secs = []
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=str(REPO),
                            check=False).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "server"], cwd=str(REPO), check=False).returncode != 0
    analyzer = commit + ("+dirty" if dirty else "")  # the analyzer each entry was scored with
    for k, name in enumerate(names):
        for mode in BY_NAME[name].modes:
            key = f"{name}/{mode}"
            run_t = truth.get("runs", {}).get(key)
            sites = run_t["sites"] if explain and run_t and run_t.get("ok") and run_t["sites"] else None
            e = static_one(name, mode, timeout, sites)
            eng = e.pop("_engine", None)
            e["analyzer"] = analyzer
            checks[key] = e
            secs.append(e["seconds"])
            explains.pop(key, None)
            if sites and "diagnostics" in e:
                missed = [x for x in sites if score_site(x, e["diagnostics"])[0] != "found"]
                if missed:
                    explains[key] = explain_misses(name, eng, missed)
            print(f"[{time.perf_counter() - t0:6.0f}s] {k + 1}/{len(names)} {key}: check {e['seconds']:.1f} s, "
                  f"{len(e.get('diagnostics', []))} diagnostics {e.get('error', '')}", flush=True)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M"), "versions": versions(), "commit": commit,
            "server_dirty": dirty, "last_pass_seconds": round(time.perf_counter() - t0), "last_pass_checks": len(secs),
            "last_pass_check_seconds": round(sum(secs), 1), "timeout": timeout}
    write_compact(STATIC_JSON, {"meta": meta, "checks": dict(sorted(checks.items())),
                                "explain": dict(sorted(explains.items()))})

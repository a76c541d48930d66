"""Record Dynamo's graph breaks on every bench/repos/<name>/use.py (on demand: minutes, never in CI).

    .venv/bin/python bench/repos/collect.py                  # every repository -> bench/repos/truth.json
    .venv/bin/python bench/repos/collect.py --only nanogpt   # re-collect some, keep the others' entries
    .venv/bin/python bench/repos/collect.py --eager          # also run each use.py with torch.compile = identity

The whole collection runs at `nice 19` (the process renices itself; its children inherit it), one
subprocess at a time, OMP_NUM_THREADS=1.  It reuses the capture of bench/modules (itself the capture of
`fullgraph trace`):

* `bench/modules/runner.py collect USE_PY` imports use.py as a script (its folder first on sys.path)
  and calls its `main()`; every `torch.compile` gets `backend="eager"` and `fullgraph=False`, so Dynamo
  resumes after each break and logs every break it meets (a root compiled with fullgraph=True is traced
  with capture_scalar_outputs / capture_dynamic_output_shape_ops, as fullgraph=True implies on 2.13);
* the run goes through the capture hook of `fullgraph trace` (`fullgraph/trace/_hook.py`, a handler on
  the `torch.__trace` structured-trace logger), and each break event is read with its own user stack
  (`bench/modules/collect.py: run_mode / _events`);
* events become sites with `bench/modules/collect.py: sites_from_events`: the innermost frame of the
  stack inside the repository's folder, widened to its statement (a simple statement, or the header of a
  compound one); events at the same statement are merged into one site with their gb_types and reasons.

Stand-ins: a use.py replaces missing optional dependencies (einops, torchvision, tiktoken, ...) with
small fakes written between the lines `# --- stand-ins` and `# --- end of stand-ins`.  Frames in that
region are treated as library frames: a break inside a stand-in is attributed to the repository line
that called it, as a break inside the real library would be.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TRUTH = os.path.join(HERE, "truth.json")
MODULES = os.path.join(REPO, "bench", "modules")
STANDIN_START = "# --- stand-ins"
STANDIN_END = "# --- end of stand-ins"


def _load(name: str, path: str):
    """Import a file under an explicit module name (bench/modules/collect.py is `collect` there too)."""
    if name in sys.modules:
        return sys.modules[name]
    if MODULES not in sys.path:
        sys.path.insert(0, MODULES)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def modules_collect():
    return _load("fg_modules_collect", os.path.join(MODULES, "collect.py"))


def discover(root: str = HERE) -> list[str]:
    """Repository folders: every sub-folder of bench/repos with a use.py."""
    return sorted(d for d in os.listdir(root)
                  if not d.startswith((".", "_")) and os.path.isfile(os.path.join(root, d, "use.py")))


def standin_ranges(use_py: str) -> list[tuple[int, int]]:
    """Line ranges (1-based, inclusive) of the stand-in regions of a use.py."""
    out, start = [], None
    try:
        with open(use_py, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return out
    for i, text in enumerate(lines, 1):
        s = text.strip()
        if s.startswith(STANDIN_END) and start is not None:
            out.append((start, i))
            start = None
        elif s.startswith(STANDIN_START):
            start = i
    if start is not None:
        out.append((start, len(lines)))
    return out


def _in_standin(fr_path: str, line: int, use_py: str, ranges) -> bool:
    return bool(fr_path) and os.path.realpath(fr_path) == use_py and any(a <= line <= b for a, b in ranges)


def strip_standins(events: list[dict] | None, use_py: str) -> list[dict] | None:
    """Drop the frames of use.py's stand-in region from every event's stack (they are library code)."""
    if events is None:
        return None
    use_py = os.path.realpath(use_py)
    ranges = standin_ranges(use_py)
    if not ranges:
        return events
    out = []
    for ev in events:
        ev = dict(ev)
        ev["stack"] = [fr for fr in ev["stack"] if not _in_standin(fr["path"], int(fr["line"]), use_py, ranges)]
        fb = ev.get("fallback")
        if fb and _in_standin(fb[0], int(fb[1]), use_py, ranges):
            ev["fallback"] = None
        comp = ev.get("compiled")
        if comp and _in_standin(comp["path"], int(comp["line"]), use_py, ranges):
            ev["compiled"] = None
        out.append(ev)
    return out


def run_capture(use_py: str, tmp: str, timeout: int = 1800) -> tuple[dict, list[dict] | None, float]:
    """`bench/modules/runner.py collect USE_PY` under the capture hook of `fullgraph trace`, as
    bench/modules/collect.py's run_mode does; the events also carry their compile key and, read from the
    same part files, the resume functions Dynamo compiled (`repair_root_frames`)."""
    import glob
    import shutil

    from fullgraph.trace.collect import process_from_part_file
    from fullgraph.trace.run import capture_env, make_bootstrap

    mc = modules_collect()
    out = os.path.join(tmp, "collect.json")
    cap = tempfile.mkdtemp(prefix="capture-", dir=tmp)
    boot, parts = make_bootstrap(cap)
    env = capture_env(boot, parts, base=mc._env())
    cmd = [mc.PYTHON, mc.RUNNER, "collect", use_py, out]
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout)
        stderr = proc.stderr
    except subprocess.TimeoutExpired as e:
        stderr = f"timeout after {timeout}s\n" + (e.stderr if isinstance(e.stderr, str) else "")
    dt = time.time() - t0
    try:
        with open(out, encoding="utf-8") as fh:
            runner = json.load(fh)
    except (OSError, ValueError):
        runner = {"ok": False, "error": "runner wrote no record", "error_type": "NoRecord", "roots": []}
    runner["stderr"] = stderr[-4000:]
    events = []
    for part in sorted(glob.glob(os.path.join(parts, "*.jsonl"))):
        starts = _starts(part)
        p = process_from_part_file(part)
        for h in p.hits:
            comp = p.compiles.get(h.compile_key) if h.compile_key else None
            m = h.message
            events.append({
                "gb_type": m.gb_type, "gb_code": m.gb_code, "exc_class": m.exc_class,
                "explanation": m.explanation or "",
                "stack": [{"path": fr.path, "line": fr.line, "function": fr.function} for fr in h.stack],
                "compiled": ({"path": comp.path, "function": comp.function, "line": comp.line, "resume": comp.resume}
                             if comp is not None else None),
                "fallback": list(h.fallback) if h.fallback else None,
                "compile_key": list(h.compile_key) if h.compile_key else None,
                "resume_starts": starts,
            })
    shutil.rmtree(cap, ignore_errors=True)
    return runner, events, dt


def _starts(part: str) -> list[dict]:
    """Every frame Dynamo started compiling in one part file: frame_id, file, raw code name, first line."""
    strings: dict = {}
    out = []
    with open(part, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            meta = obj.get("meta") if isinstance(obj, dict) else None
            if not isinstance(meta, dict):
                continue
            if "str" in meta and isinstance(meta["str"], list) and len(meta["str"]) == 2:
                strings[meta["str"][1]] = meta["str"][0]
            elif "dynamo_start" in meta:
                stack = (meta.get("dynamo_start") or {}).get("stack") or []
                if stack:
                    paths = [strings.get(fr.get("filename"), fr.get("filename")) if isinstance(fr.get("filename"), int)
                             else fr.get("filename") for fr in stack]
                    top = stack[-1]
                    out.append({"frame_id": meta.get("frame_id"), "path": paths[-1],
                                "name": str(top.get("name")), "line": top.get("line"),
                                "above": [[p, fr.get("line")] for p, fr in zip(paths[:-1], stack[:-1])]})
    return out


_RESUME = re.compile(r"^torch_dynamo_resume_in_(.+)_at_(\d+)$")


def repair_root_frames(events: list[dict] | None, repo_dir: str) -> list[dict] | None:
    """Put back the compiled frame's own line when Dynamo's user stack left it out.

    When a break happens in library code inlined from the frame Dynamo was compiling (e.g. a
    `self.encoder(...)` call into nn.TransformerEncoder that calls `.item()`), Dynamo 2.13's "User code
    traceback" lists the frames above the compiled one and the inlined library frames, but not the
    compiled frame itself; the innermost repository frame is then the caller outside the compiled code.
    Dynamo resumes after such a break in a function named `torch_dynamo_resume_in_<fn>_at_<line>`: the
    first one compiled after the break, in the same file and function, names the line of the call.
    Events whose compiled frame is in the repository and whose stack has no frame of it get that frame
    (`repaired: true`); if no resume function names the line, `root_line_unknown: true`.
    """
    if events is None:
        return None
    mc = modules_collect()
    out = []
    for ev in events:
        comp = ev.get("compiled")
        if not comp or not mc._under(comp["path"], repo_dir):
            out.append(ev)
            continue
        cpath = os.path.realpath(comp["path"])
        inside = [fr for fr in ev["stack"] if fr.get("path") and os.path.realpath(fr["path"]) == cpath
                  and mc._orig_name(fr.get("function", "")) == comp["function"]]
        if inside or not ev["stack"]:
            out.append(ev)
            continue
        fid = (ev.get("compile_key") or [None, None])[1]
        # frames above the compiled one (its dynamo_start stack): a repository frame of the event that is not
        # among them lies inside the compiled code already (an inlined call), and the event needs no repair
        start = next((st for st in ev.get("resume_starts") or [] if st.get("frame_id") == fid), None)
        if start is not None:
            above = {(os.path.realpath(p), int(ln)) for p, ln in start.get("above") or [] if p and ln is not None}
            if any(mc._under(fr["path"], repo_dir) and (os.path.realpath(fr["path"]), int(fr["line"])) not in above
                   for fr in ev["stack"]):
                out.append(ev)
                continue
        line = None
        for st in ev.get("resume_starts") or []:
            m = _RESUME.match(st["name"])
            if not m or m.group(1) != comp["function"] or not st.get("path"):
                continue
            if os.path.realpath(st["path"]) != cpath:
                continue
            if fid is not None and st.get("frame_id") is not None and st["frame_id"] <= fid:
                continue
            line = int(m.group(2))
            break
        ev = dict(ev)
        if line is None:
            ev["root_line_unknown"] = True
            out.append(ev)
            continue
        stack = list(ev["stack"])
        last_repo = max((i for i, fr in enumerate(stack) if mc._under(fr["path"], repo_dir)), default=-1)
        frame = {"path": comp["path"], "line": line, "function": comp["function"]}
        stack.insert(last_repo + 1, frame)
        ev["stack"] = stack
        ev["repaired"] = frame
        out.append(ev)
    return out


def collect_repo(name: str, root: str = HERE, eager: bool = False, verbose: bool = True) -> dict:
    mc = modules_collect()
    repo_dir = os.path.join(root, name)
    use_py = os.path.join(repo_dir, "use.py")
    entry: dict = {"repo": name}
    seconds = {}
    with tempfile.TemporaryDirectory(prefix="fgrepos-") as tmp:
        if eager:
            ran, _, dt = mc.run_mode("eager", use_py, tmp, trace=False, timeout=900)
            seconds["eager"] = round(dt, 1)
            entry["eager_ok"] = bool(ran.get("ok"))
            entry["eager_error"] = None if ran.get("ok") else f"{ran.get('error_type')}: {(ran.get('error') or '')[:800]}"
        coll, events, dt = run_capture(use_py, tmp)
        seconds["collect"] = round(dt, 1)
    events = repair_root_frames(strip_standins(events, use_py), repo_dir)
    roots = coll.get("roots") or []
    entry["compile_ok"] = bool(coll.get("ok"))
    entry["compile_error"] = None if coll.get("ok") else f"{coll.get('error_type')}: {(coll.get('error') or '')[:1500]}"
    if not coll.get("ok"):
        entry["traceback"] = (coll.get("traceback") or coll.get("stderr") or "")[-3000:]
    rr = []
    for r in roots:
        f = r.get("file")
        rel = os.path.relpath(f, repo_dir) if f and mc._under(f, repo_dir) else f
        item = {"file": rel, "function": r.get("name"), "line": r.get("line"), "fullgraph": bool(r.get("fullgraph"))}
        if item not in rr:
            rr.append(item)
    entry["roots"] = rr
    unknown = [ev for ev in events or [] if ev.get("root_line_unknown")]
    known = None if events is None else [ev for ev in events if not ev.get("root_line_unknown")]
    sites, loose, unobserved = mc.sites_from_events(known, roots, repo_dir)
    repaired = {(os.path.relpath(os.path.realpath(ev["repaired"]["path"]), repo_dir), ev["repaired"]["line"])
                for ev in known or [] if ev.get("repaired")}
    for s in sites:  # the site's line came from the resume function's name (Dynamo's stack lacked it)
        s["root_line_repaired"] = any(f == s["file"] and s["start"] <= ln <= s["end"] for f, ln in repaired)
    for ev in unknown:  # the compiled frame's line is not known: not attributed to a statement
        loose.append({"gb_type": ev["gb_type"], "reason": ev["explanation"][:600], "root_line_unknown": True,
                      "compiled_frame": ev["compiled"],
                      "stack": [f"{os.path.relpath(os.path.realpath(fr['path']), repo_dir)}:{fr['line']}:{fr['function']}"
                                for fr in ev["stack"] if mc._under(fr["path"], repo_dir)]})
    entry["sites"] = sites
    entry["unattributed"] = loose
    entry["unobserved"] = unobserved
    entry["breaks"] = len(sites)
    entry["clean"] = not sites and not loose
    entry["trace_ok"] = events is not None
    entry["events"] = len(events or [])
    entry["dynamo"] = coll.get("dynamo") or {}
    entry["seconds"] = seconds
    if verbose:
        msg = (f"{name:28s} compile={'ok' if entry['compile_ok'] else 'FAIL'} roots={len(rr)} "
               f"events={entry['events']} sites={len(sites)}")
        if entry["dynamo"]:
            msg += f" graphs={entry['dynamo'].get('unique_graphs')}"
        if loose:
            msg += f" unattributed={len(loose)}"
        if eager:
            msg += f" eager={'ok' if entry['eager_ok'] else 'FAIL'}"
        msg += f" ({sum(seconds.values()):.0f}s)"
        print(msg, flush=True)
        for s in sites:
            print(f"    {s['file']}:{s['line']} [{s['start']}-{s['end']}] {'/'.join(s['gb_types'])}"
                  f"{' (skips frame)' if s['skips_frame'] else ''}: {s['text'][:80]}", flush=True)
        if not entry["compile_ok"]:
            print("    error:", entry["compile_error"][:600], flush=True)
        if eager and not entry["eager_ok"]:
            print("    eager error:", entry["eager_error"][:600], flush=True)
    return entry


def _git_head() -> str | None:
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or None
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=TRUTH)
    ap.add_argument("--only", nargs="*", help="repository folder names (substrings); others keep their entry")
    ap.add_argument("--eager", action="store_true", help="also run each use.py with torch.compile = identity")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    try:
        os.nice(19 - os.nice(0))  # the lowest priority; every child inherits it
    except OSError:
        pass

    names = discover()
    if args.only:
        names = [n for n in names if any(s in n for s in args.only)]
    previous = {}
    if args.only and os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as fh:
            previous = {r["repo"]: r for r in json.load(fh).get("repos", [])}
    t0 = time.time()
    entries = dict(previous)
    for n in names:
        entries[n] = collect_repo(n, eager=args.eager, verbose=not args.quiet)
    elapsed = time.time() - t0
    known = set(discover())
    ordered = [entries[k] for k in sorted(entries) if k in known]
    torch_version = subprocess.run([modules_collect().PYTHON, "-c", "import torch; print(torch.__version__)"],
                                   capture_output=True, text=True).stdout.strip()
    truth = {
        "version": 1,
        "torch_version": torch_version,
        "python": platform.python_version(),
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),  # noqa: UP017
        "commit": _git_head(),
        "collect_seconds": round(elapsed, 1),
        "collected": "all" if not args.only else f"only {args.only} (others kept from the previous truth)",
        "summary": {
            "repos": len(ordered),
            "clean": sum(1 for r in ordered if r["clean"]),
            "breaking": sum(1 for r in ordered if not r["clean"]),
            "sites": sum(len(r["sites"]) for r in ordered),
            "compile_failures": [r["repo"] for r in ordered if not r["compile_ok"]],
        },
        "repos": ordered,
    }
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(truth, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    s = truth["summary"]
    print(f"\n{s['repos']} repositories: {s['clean']} clean, {s['breaking']} breaking, {s['sites']} sites; "
          f"compile failures {s['compile_failures'] or 'none'}; {elapsed:.0f}s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""fullgraph's view: `fullgraph check SCRIPT --follow LIB --extra-paths <2.14.1 site-packages> --torch-version 2.14
--format json --no-cache` per script (create_model form and, for timm, the direct form), in a child process that
then lists the functions the walk reached from the script's compiled roots (engine internals).  -> static.json

Run from this folder with the main venv (pygls/libcst) and this checkout's server on the path:
    PYTHONPATH=../../server /work/main/.venv/bin/python run_static.py [name ...]
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.expanduser("~/.cache/fullgraph/torch/2.14.1/venv/lib/python3.11/site-packages")


def child(script: str, lib: str, out: str) -> None:
    from fullgraph import api, cli
    seen = []
    orig = api.Workspace.__init__

    def init(self, *a, **k):
        orig(self, *a, **k)
        seen.append(self)

    api.Workspace.__init__ = init
    buf = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        rc = cli.main(["check", script, "--follow", lib, "--extra-paths", SITE, "--torch-version", "2.14",
                       "--format", "json", "-j", "1", "--no-cache"])
    secs = time.perf_counter() - t0
    proj = seen[-1].project
    ignored, allowed = set(), set()
    for m in list(proj.modules.values()):
        ignored |= m.ignored
        allowed |= m.allow_in_graph
    reached = []
    for r in proj.roots():
        if r.entries and r.info is not None and not getattr(r.mod, "library", False):
            reached += [rc_.fs.qualname for rc_ in proj.walker.reach(r, allowed, ignored)]
    with open(out, "w") as fh:
        json.dump({"exit": rc, "seconds": round(secs, 2), "json": json.loads(buf.getvalue()),
                   "reached": sorted(set(reached))}, fh)


def rel(p: str) -> str:
    p = os.path.realpath(p)
    s = os.path.realpath(SITE)
    return os.path.relpath(p, s) if p.startswith(s + os.sep) else os.path.relpath(p, HERE)


def compact(d: dict) -> dict:
    def loc(x):
        return {"path": rel(x["path"]), "line": x["range"]["start"]["line"] + 1, "code": x.get("code")}
    return {**loc(d), "message": d["message"][:200], "conditional": bool(d.get("conditional")),
            **({"condition": d["condition"]} if d.get("condition") else {}),
            "library_sites": [loc(s) for s in d.get("library_sites") or []]}


def main() -> None:
    sys.path.insert(0, HERE)
    from models import MODELS
    want = set(sys.argv[1:])
    path = os.path.join(HERE, "static.json")
    static = json.load(open(path)) if os.path.exists(path) and want else {"runs": {}}
    os.makedirs(os.path.join(HERE, "work"), exist_ok=True)
    for name, lib, _, _ in MODELS:
        if want and name not in want:
            continue
        for mode in ("eval", "train"):
            for form in ("", "_direct"):
                script = os.path.join(HERE, "scripts", f"{name}_{mode}{form}.py")
                if not os.path.exists(script):
                    continue
                out = os.path.join(HERE, "work", f"{name}_{mode}{form}.static.json")
                env = dict(os.environ, OMP_NUM_THREADS="1")
                subprocess.run(["nice", "-n", "5", sys.executable, __file__, "--child", script, lib, out], env=env,
                               timeout=600)
                r = json.load(open(out))
                j = r["json"]
                static["runs"][f"{name}/{mode}{form}"] = {
                    "seconds": r["seconds"], "exit": r["exit"],
                    "diagnostics": [compact(d) for d in j["diagnostics"]],
                    "unresolved_roots": [u["reason"] for u in j.get("unresolved_roots", [])],
                    "unfollowed_calls": j.get("unfollowed_calls", []),
                    "reached": [q for q in r["reached"] if q.startswith(lib + ".")]}
                s = static["runs"][f"{name}/{mode}{form}"]
                print(f"{name}/{mode}{form}: {sum(not d['conditional'] for d in s['diagnostics'])} shown, "
                      f"{sum(d['conditional'] for d in s['diagnostics'])} conditional, unresolved "
                      f"{s['unresolved_roots']}, {len(s['unfollowed_calls'])} unfollowed, {len(s['reached'])} reached "
                      f"({r['seconds']} s)", flush=True)
    with open(path, "w") as fh:
        json.dump(static, fh, indent=1)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:5])
    else:
        main()

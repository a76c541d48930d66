"""Diagnosis: run `fullgraph check SCRIPT --follow LIB` in this process and print the functions the walk
reached from the script's compiled roots (engine internals; may break on an engine refactor).
    PYTHONPATH=../../server /work/main/.venv/bin/python reached.py SCRIPT LIB [more check arguments, e.g. --root]"""
import contextlib
import io
import os
import sys

from fullgraph import api, cli

SITE = os.path.expanduser("~/.cache/fullgraph/torch/2.14.1/venv/lib/python3.11/site-packages")
seen = []
orig = api.Workspace.__init__


def init(self, *a, **k):
    orig(self, *a, **k)
    seen.append(self)


api.Workspace.__init__ = init
script, lib = sys.argv[1], sys.argv[2]
with contextlib.redirect_stdout(io.StringIO()):
    cli.main(["check", script, "--follow", lib, "--extra-paths", SITE, "--torch-version", "2.14",
              "--format", "json", "-j", "1", "--no-cache", *sys.argv[3:]])
ws = seen[-1]
proj = ws.project
ignored, allowed = set(), set()
for m in list(proj.modules.values()):
    ignored |= m.ignored
    allowed |= m.allow_in_graph
for r in proj.roots():
    print("root", r.decl.kind if hasattr(r, "decl") else "?", getattr(r.decl, "label", ""), bool(r.entries),
          r.info is not None)
    if not r.entries or r.info is None:
        continue
    for rc in proj.walker.reach(r, allowed, ignored):
        print("  ", rc.fs.qualname, os.path.relpath(rc.mod.path, SITE) if rc.mod.path.startswith(SITE) else rc.mod.path)

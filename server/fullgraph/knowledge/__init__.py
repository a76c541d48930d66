"""Collect what Dynamo says on one torch release, in that release's own interpreter.

    python -m fullgraph.knowledge collect 2.15.0      # venv (cached), then every probe, then data/
    python -m fullgraph.knowledge venv 2.15.0         # only make (or check) the cached venv
    python -m fullgraph.knowledge diff 2.13.0 2.15.0  # what changed between two collected releases
    python -m fullgraph.knowledge oracle 2.15.0       # the fix oracle (tests/test_fixes_oracle.py) on that torch

Everything fullgraph knows about Dynamo was first read on one torch; users run others.  ``collect``
makes (or reuses) a venv with exactly that torch under ``~/.cache/fullgraph/torch/<version>/``
(``$FULLGRAPH_TORCH_CACHE`` overrides the root), installs torch, NumPy, SciPy, tqdm and ninja there
(the catalog's cases and the trace table probe them), and runs, *inside* that venv with this
checkout's ``server/`` on ``PYTHONPATH``:

- ``tracetable``: ``python -m fullgraph.tracetable`` (the callables Dynamo skips), written as that
  generator writes it, ``data/tracetable-<major>.<minor>.json``;
- ``catalog``: every case of ``tests/catalog`` compiled with ``fullgraph=True`` (breaks or not,
  Dynamo's gb_type and GB code, whether the result equals eager) and with ``fullgraph=False`` (graphs
  and the break reasons Dynamo counted), and whether each of the case's fixes compiles;
- ``registry``: ``torch/_dynamo/graph_break_registry.json`` (GB code -> gb_type, context,
  explanation, hints: its first entry);
- ``apis``: every ``torch.*`` name the fixes emit (read from ``fixes/*.py``) and a few more: exists,
  callable, type.

The result is ``data/knowledge-<version>.json``, one entry per line, keys sorted.  This module never
imports torch in the parent process and is imported by no other module of the package: the parent
uses the standard library only; the ``_probe`` subcommand is what runs in the torch venv.

Each probe's output is kept under the cache (``parts/``), so an interrupted collection resumes
(``--fresh`` redoes it).  Every torch process runs under ``nice -n 19`` with one thread.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from .journal import catalog_done, verdict_text

PKG = Path(__file__).resolve().parent.parent  # the package fullgraph/
SERVER = PKG.parent
ROOT = SERVER.parent
DATA = PKG / "data"
CATALOG = ROOT / "tests" / "catalog"
PARTS = ("registry", "apis", "calls", "catalog", "tracetable")
# the catalog's case modules, in its runner's order (any other cases_*.py after them)
# installed beside torch: the catalog probes NumPy, SciPy and tqdm, and builds a C++ extension (ninja)
EXTRAS = ("numpy", "scipy", "tqdm", "ninja", "setuptools")
# fix APIs not spelled `torch.<name>` in fixes/*.py (built from parts, or what a fix may move to)
EXTRA_APIS = (
    "torch._dynamo.nonstrict_trace", "torch.compiler.nonstrict_trace", "torch._higher_order_ops.print",
    "torch._dynamo.config.ignore_logging_functions", "torch._dynamo.config.reorderable_logging_functions",
    "torch._dynamo.config.capture_scalar_outputs", "torch._dynamo.config.capture_dynamic_output_shape_ops",
    "torch.library.custom_op", "torch.library.register_fake", "torch.library.triton_op",
    "torch.library.wrap_triton", "torch.cond", "torch.where", "torch.compiler.disable",
    "torch.compiler.is_compiling", "torch.compiler.is_dynamo_compiling", "torch.compiler.set_stance",
    "torch.compiler.allow_in_graph", "torch._dynamo.allow_in_graph", "torch._dynamo.disable",
    "torch._dynamo.graph_break", "torch._check", "torch._check_is_size", "torch._assert",
    "torch._assert_async", "torch.compiler.substitute_in_graph", "torch._dynamo.mark_dynamic",
)
VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")


# ---------------------------------------------------------------------------------------------------
# the parent: venv, probes, data file (standard library only)
# ---------------------------------------------------------------------------------------------------
def cache_root() -> Path:
    env = os.environ.get("FULLGRAPH_TORCH_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "fullgraph" / "torch"


def venv_python(version: str) -> Path:
    return cache_root() / version / "venv" / "bin" / "python"


def _log(msg: str) -> None:
    print(f"[knowledge {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _nice(cmd: list[str]) -> list[str]:
    return ["nice", "-n", "19", *cmd]


@contextlib.contextmanager
def _locked(path: Path):
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SystemExit(f"{path}: another collection of this version is running") from None
        yield


def _installed_torch(py: Path) -> str | None:
    if not py.exists():
        return None
    p = subprocess.run([str(py), "-c", "import importlib.metadata as m; print(m.version('torch'))"],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def _public_env() -> dict[str, str]:
    """pip without this machine's configuration (its local mirror and its torch cap): the public index."""
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)
    env.pop("PIP_CONSTRAINT", None)
    return env


def ensure_venv(version: str, index: str = "auto", python: str | None = None) -> Path:
    """The cached venv with torch==`version` (made, or checked and reused): its python."""
    home = cache_root() / version
    py = venv_python(version)
    ok = home / "venv" / ".fullgraph-ok"
    if ok.exists() and (_installed_torch(py) or "").split("+")[0] == version:
        return py
    base = python or getattr(sys, "_base_executable", None) or sys.executable
    if not py.exists():
        _log(f"making the venv {home / 'venv'} ({base})")
        subprocess.run([base, "-m", "venv", str(home / "venv")], check=True)
    cmd = _nice([str(py), "-m", "pip", "install", "--no-cache-dir", "--progress-bar", "off",
                 f"torch=={version}", *EXTRAS])
    attempts = {"auto": ["machine", "public"], "machine": ["machine"], "public": ["public"]}[index]
    t0 = time.time()
    for where in attempts:
        _log(f"pip install torch=={version} ({'the machine configuration' if where == 'machine' else 'the public index'})")
        p = subprocess.run(cmd, env=dict(os.environ) if where == "machine" else _public_env())
        if p.returncode == 0 and (_installed_torch(py) or "").split("+")[0] == version:
            break
    else:
        raise SystemExit(f"could not install torch=={version} into {home / 'venv'}")
    ok.write_text(f"{_installed_torch(py)} installed in {time.time() - t0:.0f}s\n")
    _log(f"torch {_installed_torch(py)} installed in {time.time() - t0:.0f}s")
    return py


# what tests/test_fixes_oracle.py needs beside torch (the package's dependencies and pytest)
ORACLE_DEPS = ("libcst>=1.1", "pygls>=2.0,<3", "pytest", "pytest-asyncio")


def oracle(version: str, pytest_args: list[str], index: str = "auto") -> int:
    """Run the fix oracle in the release's cached venv, this checkout's `server/` on PYTHONPATH: the fixes
    are offered for that installed torch (its API: torch.compiler.nonstrict_trace from 2.14.1) and each
    fixed module is compiled by it.  The oracle's dependencies are installed into the venv once."""
    with _locked(cache_root() / version / ".lock"):
        py = ensure_venv(version, index=index)
        if subprocess.run([str(py), "-c", "import libcst, pygls, pytest, pytest_asyncio"],
                          capture_output=True).returncode != 0:
            cmd = _nice([str(py), "-m", "pip", "install", "--progress-bar", "off", *ORACLE_DEPS])
            for env in (dict(os.environ), _public_env()):
                if subprocess.run(cmd, env=env).returncode == 0:
                    break
            else:
                raise SystemExit(f"could not install {' '.join(ORACLE_DEPS)} into {py.parent.parent}")
    env = _child_env(version)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = _nice([str(py), "-m", "pytest", str(ROOT / "tests" / "test_fixes_oracle.py"), "-q", "-p", "no:cacheprovider",
                 *pytest_args])
    _log(f"fix oracle on torch {_installed_torch(py)}: {' '.join(cmd)}")
    return subprocess.run(cmd, env=env, cwd=ROOT).returncode


def fix_api_names() -> list[str]:
    """The `torch.` names the fixes emit (`torch.x.y` or `{tn}.x.y` in fixes/*.py) and EXTRA_APIS."""
    names = set(EXTRA_APIS)
    for f in sorted((PKG / "fixes").glob("*.py")):
        for m in re.finditer(r"(?<![\w.])(?:torch|\{tn\})((?:\.[A-Za-z_][A-Za-z0-9_]*)+)", f.read_text(encoding="utf-8")):
            name = "torch" + m.group(1)
            if not name.endswith("_") or name.endswith("__"):
                names.add(name)
    return sorted(names)


def table_names() -> list[str]:
    """Every callable a shipped trace table lists (any version's)."""
    names: set[str] = set()
    for p in DATA.glob("tracetable-*.json"):
        names.update(json.loads(p.read_text(encoding="utf-8")).get("breaks", {}))
    return sorted(names)


def _catalog_digest(catalog: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(catalog.glob("*.py")):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def _child_env(version: str) -> dict[str, str]:
    home = cache_root() / version
    env = dict(os.environ)
    env.update(PYTHONPATH=str(SERVER), CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONBREAKPOINT="0", TORCH_EXTENSIONS_DIR=str(home / "torch_extensions"),
               PYTHONDONTWRITEBYTECODE="1", FULLGRAPH_CACHE_DIR=str(home / "fullgraph-cache"))
    for k in ("PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(k, None)
    return env


def _run_probe(py: Path, version: str, part: str, out: Path, catalog: Path, timeout: float) -> int:
    cmd = _nice([str(py), "-m", "fullgraph.knowledge", "_probe", part, "--out", str(out), "--catalog", str(catalog)])
    if part == "apis":
        cmd += ["--names", ",".join(fix_api_names())]
    if part == "calls":
        names = out.with_suffix(".names")
        names.write_text("\n".join(table_names()) + "\n", encoding="utf-8")
        cmd += ["--names", f"@{names}"]
    work = cache_root() / version / "work"
    work.mkdir(parents=True, exist_ok=True)
    try:
        return subprocess.run(cmd, env=_child_env(version), cwd=work, stdin=subprocess.DEVNULL,
                              timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        _log(f"{part}: timed out after {timeout:.0f}s")
        return -1


def collect_catalog(py: Path, version: str, parts: Path, catalog: Path, timeout: float) -> dict[str, dict]:
    """Run the catalog probe until every case has a verdict; a case that kills the interpreter is
    recorded as crashed and the probe resumes after it."""
    journal = parts / "catalog.jsonl"
    for _ in range(20):
        rc = _run_probe(py, version, "catalog", journal, catalog, timeout)
        done, started = catalog_done(journal)
        if rc == 0:
            return done
        if started is None:
            raise SystemExit(f"the catalog probe failed (rc={rc}) outside any case; see its output above")
        _log(f"catalog: case {started} ended the interpreter (rc={rc}): recorded as crashed, resuming")
        with open(journal, "a", encoding="utf-8") as f:
            f.write(json.dumps({"id": started, "breaks": None, "crashed": f"rc={rc}"}, sort_keys=True) + "\n")
    raise SystemExit("the catalog probe crashed 20 times")


def install_tracetable(part: Path, force: bool = False) -> dict:
    """Copy the generated table into data/ under the generator's own name; an existing different
    table is left alone unless `force` (the difference is reported)."""
    text = part.read_text(encoding="utf-8")
    table = json.loads(text)
    m = re.match(r"(\d+)\.(\d+)", table["torch"])
    dest = DATA / f"tracetable-{m.group(1)}.{m.group(2)}.json"
    info = {"file": dest.name, "rows": len(table["breaks"]), "python": table.get("python"),
            "numpy": table.get("numpy"), "sha256": hashlib.sha256(text.encode()).hexdigest()[:16]}
    if dest.exists() and dest.read_text(encoding="utf-8") != text and not force:
        old = json.loads(dest.read_text(encoding="utf-8"))["breaks"]
        new = table["breaks"]
        added = sorted(set(new) - set(old))
        removed = sorted(set(old) - set(new))
        info["shipped_differs"] = {"added": added, "removed": removed,
                                   "changed": sorted(k for k in set(old) & set(new) if old[k] != new[k])}
        _log(f"{dest.name} exists and differs from this run (+{len(added)} -{len(removed)}): left as it is "
             f"(--force-tracetable replaces it; this run's table is {part})")
    elif not dest.exists() or dest.read_text(encoding="utf-8") != text:
        dest.write_text(text, encoding="utf-8")
        _log(f"wrote {dest}")
    return info


def _git_head() -> str | None:
    try:
        p = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                           text=True, timeout=30)
        return p.stdout.strip() or None
    except Exception:  # noqa: BLE001 - not a git checkout
        return None


def collect(version: str, *, index: str = "auto", python: str | None = None, only: list[str] | None = None,
            fresh: bool = False, catalog: Path = CATALOG, out_dir: Path = DATA, force_tracetable: bool = False,
            timeout: float = 4 * 3600) -> Path | None:
    if not VERSION_RE.match(version):
        raise SystemExit(f"give an exact release, e.g. 2.15.0 (not {version!r})")
    home = cache_root() / version
    with _locked(home / ".lock"):
        t0 = time.time()
        py = ensure_venv(version, index=index, python=python)
        parts = home / "parts"
        parts.mkdir(parents=True, exist_ok=True)
        seconds: dict[str, float] = {}
        for part in only or PARTS:
            out = parts / (f"{part}.jsonl" if part == "catalog" else f"{part}.json")
            if fresh and out.exists():
                out.unlink()
            if part != "catalog" and out.exists():
                _log(f"{part}: reusing {out}")
                continue
            _log(f"{part}: probing torch {version}")
            t = time.time()
            if part == "catalog":
                collect_catalog(py, version, parts, catalog, timeout)
            elif _run_probe(py, version, part, out, catalog, timeout) != 0 or not out.exists():
                raise SystemExit(f"the {part} probe failed; see its output above")
            seconds[part] = round(time.time() - t, 1)
            (parts / f"{part}.seconds").write_text(f"{seconds[part]}\n")
            _log(f"{part}: {seconds[part]:.0f}s")
        for part in PARTS:
            s = parts / f"{part}.seconds"
            if part not in seconds and s.exists():
                seconds[part] = float(s.read_text())
        missing = [p for p in PARTS if not (parts / (f"{p}.jsonl" if p == "catalog" else f"{p}.json")).exists()]
        if missing:
            _log(f"not all probed yet: {', '.join(missing)}; the data file is written when all are")
            return None
        env = json.loads((parts / "registry.json").read_text())["meta"]
        catalog_cases, _ = catalog_done(parts / "catalog.jsonl")
        knowledge = {
            "meta": {**env, "catalog_sha256": _catalog_digest(catalog), "fullgraph_commit": _git_head(),
                     "collected": datetime.date.today().isoformat(), "seconds": seconds,
                     "n_cases": len(catalog_cases),
                     "n_breaking": sum(1 for c in catalog_cases.values() if c.get("breaks")),
                     "n_crashed": sum(1 for c in catalog_cases.values() if c.get("crashed"))},
            "registry": json.loads((parts / "registry.json").read_text())["registry"],
            "apis": json.loads((parts / "apis.json").read_text())["apis"],
            "calls": json.loads((parts / "calls.json").read_text())["calls"],
            "catalog": catalog_cases,
            "tracetable": install_tracetable(parts / "tracetable.json", force_tracetable)
            if out_dir == DATA else {"file": None},
        }
        dest = Path(out_dir) / f"knowledge-{version}.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(dumps(knowledge), encoding="utf-8")
        m = knowledge["meta"]
        _log(f"wrote {dest} ({dest.stat().st_size // 1024} KB): torch {m['torch']}, python {m['python']}, "
             f"{m['n_cases']} cases ({m['n_breaking']} break, {m['n_crashed']} crashed), "
             f"{len(knowledge['registry'])} GB codes, {sum(a['exists'] for a in knowledge['apis'].values())}/"
             f"{len(knowledge['apis'])} fix APIs exist, {knowledge['tracetable'].get('rows')} trace-table rows; "
             f"{time.time() - t0:.0f}s")
        return dest


def dumps(obj: dict) -> str:
    """JSON with sorted keys, one line per entry of each top-level section (diff-friendly)."""
    lines = ["{"]
    keys = sorted(obj)
    for i, k in enumerate(keys):
        v = obj[k]
        end = "," if i < len(keys) - 1 else ""
        if isinstance(v, dict) and v:
            lines.append(f" {json.dumps(k)}: {{")
            sub = sorted(v)
            for j, sk in enumerate(sub):
                lines.append(f"  {json.dumps(sk)}: {json.dumps(v[sk], sort_keys=True, ensure_ascii=False)}"
                             + ("," if j < len(sub) - 1 else ""))
            lines.append(" }" + end)
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def load(version: str, data: Path = DATA) -> dict:
    return json.loads((Path(data) / f"knowledge-{version}.json").read_text(encoding="utf-8"))


def diff(a: str, b: str, data: Path = DATA) -> dict:
    """What differs between two collected releases: catalog verdicts, fix APIs, GB codes, trace table."""
    ka, kb = load(a, data), load(b, data)
    out: dict = {"catalog": {}, "fixes": {}, "apis": {}, "registry": {}, "tracetable": {}}
    for cid in sorted(set(ka["catalog"]) | set(kb["catalog"])):
        ca, cb = ka["catalog"].get(cid), kb["catalog"].get(cid)
        va, vb = verdict_text(ca), verdict_text(cb)
        if va != vb:  # the verdict, its GB code and gb_type, a break in plain mode, a result unlike eager
            out["catalog"][cid] = [va, vb]
        fa, fb = (ca or {}).get("fixes") or {}, (cb or {}).get("fixes") or {}
        for s in sorted(set(fa) | set(fb)):
            if fa.get(s) != fb.get(s):
                out["fixes"][f"{cid}/{s}"] = [fa.get(s), fb.get(s)]
    for n in sorted(set(ka["apis"]) | set(kb["apis"])):
        xa, xb = ka["apis"].get(n, {}), kb["apis"].get(n, {})
        if (xa.get("exists"), xa.get("callable")) != (xb.get("exists"), xb.get("callable")):
            out["apis"][n] = [xa.get("exists"), xb.get("exists")]
    ra, rb = ka["registry"], kb["registry"]
    out["registry"] = {"added": sorted(set(rb) - set(ra)), "removed": sorted(set(ra) - set(rb)),
                       "gb_type_changed": sorted(k for k in set(ra) & set(rb)
                                                 if ra[k].get("gb_type") != rb[k].get("gb_type"))}
    ta, tb = (_table(k, data) for k in (ka, kb))
    if ta is not None and tb is not None:
        out["tracetable"] = {"added": sorted(set(tb) - set(ta)), "removed": sorted(set(ta) - set(tb)),
                             "changed": sorted(k for k in set(ta) & set(tb) if ta[k] != tb[k])}
        calls = kb.get("calls") or {}
        # a row leaves the table when the call is traced, or when it breaks with a gb_type the table omits
        out["tracetable"]["removed_on_b"] = {q: _call(calls.get(q), rb) for q in out["tracetable"]["removed"]
                                             if q in calls}
    return out


def _call(c: str | None, registry: dict) -> str:
    if not c:
        return "not probed"
    if c.startswith("GB"):
        return f"still breaks: {c} {(registry.get(c) or {}).get('gb_type', '')}".rstrip()
    return "still " + c if c.startswith("breaks") else c


def _table(k: dict, data: Path) -> dict | None:
    f = (k.get("tracetable") or {}).get("file")
    p = Path(data) / f if f else None
    if not p or not p.exists():
        return None
    t = json.loads(p.read_text(encoding="utf-8"))
    return t["breaks"] if t.get("torch") == k["meta"]["torch"].split("+")[0] else None


def print_diff(a: str, b: str) -> None:
    d = diff(a, b)
    ma, mb = load(a)["meta"], load(b)["meta"]
    print(f"# torch {ma['torch']} (python {ma['python']}) -> {mb['torch']} (python {mb['python']})")
    if (ma.get("torch_cuda") is None) != (mb.get("torch_cuda") is None):
        print("(a CPU build against a CUDA build: torch.cuda.* and torch.backends.* rows may differ by build)")
    print(f"\n## catalog verdicts that differ ({len(d['catalog'])})")
    for cid, (va, vb) in d["catalog"].items():
        print(f"- {cid}: {va} -> {vb}")
    print(f"\n## fixes whose fullgraph compile differs ({len(d['fixes'])})")
    for k, (va, vb) in d["fixes"].items():
        print(f"- {k}: {va} -> {vb}")
    print(f"\n## fix APIs whose existence differs ({len(d['apis'])})")
    for k, (va, vb) in d["apis"].items():
        print(f"- {k}: {va} -> {vb}")
    r = d["registry"]
    print(f"\n## GB registry: +{len(r['added'])} -{len(r['removed'])} codes, {len(r['gb_type_changed'])} gb_types changed")
    for key in ("added", "removed", "gb_type_changed"):
        if r[key]:
            print(f"- {key}: {' '.join(r[key])}")
    t = d["tracetable"]
    if t:
        print(f"\n## trace table: +{len(t['added'])} -{len(t['removed'])} rows, {len(t['changed'])} changed")
        for key in ("added", "removed", "changed"):
            for q in t[key]:
                why = t["removed_on_b"].get(q) if key == "removed" else None
                print(f"- {key}: {q}" + (f" ({why} on {b})" if why else ""))
    else:
        print("\n## trace table: not comparable (a table of another patch release is shipped)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fullgraph.knowledge", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="collect one torch release's verdicts into data/knowledge-<version>.json")
    c.add_argument("version", help="an exact release, e.g. 2.15.0")
    c.add_argument("--index", choices=("auto", "machine", "public"), default="auto",
                   help="where pip finds torch: this machine's pip configuration, the public index "
                        "(PIP_CONFIG_FILE=/dev/null, no PIP_CONSTRAINT), or the first then the second (default)")
    c.add_argument("--python", help="the interpreter the venv is made from (default: this one's base)")
    c.add_argument("--only", help=f"comma-separated probes to (re)run: {','.join(PARTS)}")
    c.add_argument("--fresh", action="store_true", help="re-run the probes instead of resuming their cached output")
    c.add_argument("--catalog", default=str(CATALOG))
    c.add_argument("--out-dir", default=str(DATA))
    c.add_argument("--force-tracetable", action="store_true",
                   help="replace a shipped tracetable-<major>.<minor>.json that differs from this run's")
    v = sub.add_parser("venv", help="make (or check) the cached venv of a torch release; print its python")
    v.add_argument("version")
    v.add_argument("--index", choices=("auto", "machine", "public"), default="auto")
    v.add_argument("--python")
    o = sub.add_parser("oracle", help="run the fix oracle (tests/test_fixes_oracle.py) on a torch release, in its "
                                      "cached venv; arguments after -- go to pytest")
    o.add_argument("version")
    o.add_argument("--index", choices=("auto", "machine", "public"), default="auto")
    o.add_argument("pytest_args", nargs=argparse.REMAINDER)
    d = sub.add_parser("diff", help="the differences between two collected releases")
    d.add_argument("a")
    d.add_argument("b")
    p = sub.add_parser("_probe", help=argparse.SUPPRESS)
    p.add_argument("part", choices=PARTS)
    p.add_argument("--out", required=True)
    p.add_argument("--catalog", default=str(CATALOG))
    p.add_argument("--names", default="")
    p.add_argument("--only")
    p.add_argument("--child", action="store_true")
    p.add_argument("--no-fixes", action="store_true")
    args = ap.parse_args(argv)
    if args.cmd == "collect":
        only = [x for x in (args.only or "").split(",") if x] or None
        if only and set(only) - set(PARTS):
            ap.error(f"unknown probe(s): {', '.join(set(only) - set(PARTS))}")
        collect(args.version, index=args.index, python=args.python, only=only, fresh=args.fresh,
                catalog=Path(args.catalog), out_dir=Path(args.out_dir), force_tracetable=args.force_tracetable)
        return 0
    if args.cmd == "venv":
        if not VERSION_RE.match(args.version):
            ap.error("give an exact release, e.g. 2.15.0")
        with _locked(cache_root() / args.version / ".lock"):
            print(ensure_venv(args.version, index=args.index, python=args.python))
        return 0
    if args.cmd == "diff":
        print_diff(args.a, args.b)
        return 0
    if args.cmd == "oracle":
        if not VERSION_RE.match(args.version):
            ap.error("give an exact release, e.g. 2.15.0")
        return oracle(args.version, [a for a in args.pytest_args if a != "--"], index=args.index)
    from .probes import probe_main

    return probe_main(args)


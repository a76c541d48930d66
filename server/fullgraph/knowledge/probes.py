"""The probes of `python -m fullgraph.knowledge collect`: what runs inside the cached venv of a torch
release (`_probe PART`), never imported by the parent process."""
from __future__ import annotations

import contextlib
import io
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

from .journal import CASE_MODULES, catalog_done, verdict_text


def _environment() -> dict:
    import torch

    out = {"torch": torch.__version__, "torch_cuda": torch.version.cuda, "torch_git": torch.version.git_version,
           "python": platform.python_version(), "platform": platform.platform(terse=True)}
    for mod in ("numpy", "scipy", "tqdm"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            out[mod] = None
    return out


def probe_registry() -> dict:
    import torch._dynamo

    path = Path(torch._dynamo.__file__).parent / "graph_break_registry.json"
    reg = {}
    if path.exists():
        for code, entries in json.loads(path.read_text(encoding="utf-8")).items():
            e = entries[0] if isinstance(entries, list) and entries else entries
            if isinstance(e, dict):
                reg[code] = {"gb_type": e.get("Gb_type"), "context": e.get("Context"),
                             "explanation": e.get("Explanation"), "hints": e.get("Hints") or []}
    return {"meta": _environment(), "registry": reg}


def _resolve(name: str) -> tuple[object, bool]:
    """`name` as code that imported only its top-level package reads it (attribute by attribute), else
    after importing the longest importable prefix; and whether that import was needed."""
    import importlib

    parts = name.split(".")
    obj = importlib.import_module(parts[0])
    try:
        for p in parts[1:]:
            obj = getattr(obj, p)
        return obj, False
    except AttributeError:
        pass
    for i in range(len(parts), 1, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)  # AttributeError: absent
        return obj, True
    raise AttributeError(name)


def probe_apis(names: list[str]) -> dict:
    import inspect

    import torch  # noqa: F401

    out = {}
    for n in names:
        try:
            obj, imported = _resolve(n)
        except Exception as e:  # noqa: BLE001
            out[n] = {"exists": False, "error": type(e).__name__}
            continue
        rec = {"exists": True, "callable": callable(obj), "type": type(obj).__name__}
        if imported:
            rec["needs_import"] = True
        if isinstance(obj, (bool, int, float, str)) or obj is None:
            rec["value"] = obj
        elif callable(obj) and not inspect.isclass(obj):
            with contextlib.suppress(Exception):
                sig = re.sub(r"<module '([\w.]+)' from '[^']*'>", r"<module '\1'>", str(inspect.signature(obj)))
                rec["signature"] = sig[:200]
        out[n] = rec
    return {"meta": _environment(), "apis": out}


def _import_path(name: str):
    """`heapq.heappush`, `datetime.datetime.now`: the longest importable module, then attributes."""
    import importlib

    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise AttributeError(name)


def probe_calls(names: list[str]) -> dict:
    """Each callable any shipped trace table lists, called with no argument in code compiled with
    fullgraph=True (as `tracetable.dynamo_break_on_call` does): the GB code of the break whatever its
    gb_type (the table keeps only some gb_types; the registry has its text), `breaks: <gb_type>` for a
    break without a code, `traced` (no break at the call: it compiled, or failed otherwise once Dynamo
    traced into it, e.g. "Observed exception": the call without its arguments raised), or `absent` in
    this torch / Python / NumPy."""
    import types

    import torch
    import torch._dynamo

    torch.set_num_threads(1)
    link = re.compile(r"gb/gb(\d{4})\.html")

    def f(x):
        FN()  # noqa: F821 - bound in the function's own globals below
        return x + 1

    out = {}
    for q in names:
        if not q:
            continue
        try:
            obj = _import_path(q)
        except Exception:  # noqa: BLE001
            out[q] = "absent"
            continue
        fn = types.FunctionType(f.__code__, {"FN": obj, "__builtins__": __builtins__})
        torch._dynamo.reset()
        try:
            torch.compile(fn, fullgraph=True, backend="eager")(torch.ones(1))
            out[q] = "traced"
        except torch._dynamo.exc.Unsupported as e:
            m = link.search(str(e))
            if getattr(e, "gb_type", None) == "Observed exception":
                out[q] = "traced"  # traced into, and the call without its arguments raised
                continue
            out[q] = f"GB{m.group(1)}" if m else "breaks: " + (getattr(e, "gb_type", None) or str(e).splitlines()[0][:160])
        except Exception:  # noqa: BLE001
            out[q] = "traced"
    return {"meta": _environment(), "calls": out}


def _short(v, n=120) -> str:
    s = repr(v)
    s = re.sub(r" at 0x[0-9a-f]+", "", s)
    return s if len(s) <= n else s[:n] + "..."


def _clean(v):
    """Strings without what differs between runs and machines: object addresses, absolute paths."""
    if isinstance(v, str):
        v = re.sub(r" at 0x[0-9a-fA-F]+", "", v)
        for prefix, name in ((sys.prefix, "<prefix>"), (str(Path.home()), "<home>")):
            v = v.replace(prefix, name)
        return v
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


def _probe_case(c, harness, with_fixes: bool = True, timeout: int = 120) -> dict:
    """One case as the catalog's runner compiles it (its run_catalog.py, condensed)."""
    rec: dict = {"category": c.category, "compile_mode": c.compile_mode,
                 "config": {k: _short(v) for k, v in (c.config or {}).items()} or None}
    if c.needs:
        why = c.needs()
        if why:
            rec["skipped"] = why
            return rec
    ref = None
    if c.eager_ref:
        try:
            if c.setup:
                c.setup()
            with harness.time_limit(timeout):
                ref = {"out": harness.run_eager(c.fn, c.inputs, cfg=c.config)[0]}
            with contextlib.suppress(Exception):
                if c.setup:
                    c.setup()
                with harness.time_limit(timeout):
                    ref["out123"] = harness.run_eager(c.fn, c.inputs, cfg=c.config, seed=123)[0]
        except Exception as e:  # noqa: BLE001
            rec["eager_error"] = f"{type(e).__name__}: {str(e)[:120]}"
    with harness.time_limit(timeout):
        comp = harness.run_compiled(c.fn, c.inputs, cfg=c.config, mode=c.compile_mode, setup=c.setup,
                                    repeat=c.repeat)
    rec["breaks"] = not comp["ok"]
    if comp["ok"]:
        rec["gb_type"] = rec["gb_code"] = None
        if ref is not None:
            rec["same_as_eager"] = harness.same(comp["out"], ref["out"])
            if "out123" in ref and "out_seed123" in comp:
                rec["same_on_new_inputs"] = harness.same(comp["out_seed123"], ref["out123"])
        rec["graphs"] = comp.get("graphs_captured")
    else:
        err = comp["error"]
        rec["gb_type"], rec["gb_code"] = err["gb_type"], err["gb_code"]
        if err["exception"] != "torch._dynamo.exc.Unsupported":
            rec["exception"] = err["exception"]
    if c.run_fullgraph_false:
        with harness.time_limit(timeout):
            ff = harness.run_fullgraph_false(c.fn, c.inputs, cfg=c.config, mode=c.compile_mode, setup=c.setup)
        rec["plain"] = {"runs": ff["ok"], "graphs": ff["graph_count"],
                        "breaks": sorted(f"{r['reason']} x{r['count']}" for r in ff["graph_breaks"])}
        if ff["error"]:
            rec["plain"]["error"] = (ff["error"] or {}).get("first_line", "")[:160]
    if with_fixes:
        fixes = {}
        for fx in c.fixes:
            try:
                with harness.time_limit(timeout):
                    res = harness.run_compiled(fx.fn, fx.inputs or c.inputs, cfg=fx.config, compile=fx.compile,
                                               setup=fx.setup, teardown=fx.teardown)
                fixes[fx.strategy] = bool(res["ok"])
            except Exception:  # noqa: BLE001 - a timeout or a harness error: it does not compile
                fixes[fx.strategy] = False
        rec["fixes"] = fixes
    return rec


def probe_catalog(catalog: Path, journal: Path, only: set[str] | None = None, child: bool = False,
                  with_fixes: bool = True) -> None:
    """Every case of the catalog, one JSON line each in `journal` (a `started` line before each, so a
    crash is attributed); cases already in the journal are skipped (resume)."""
    import importlib

    import torch

    torch.set_num_threads(1)
    sys.path.insert(0, str(catalog))
    sys.stdin = io.StringIO("c\n" * 10000)  # pdb.set_trace()/input() in eager references
    import harness

    mods = list(CASE_MODULES) + sorted(p.stem for p in catalog.glob("cases_*.py") if p.stem not in CASE_MODULES)
    for m in mods:
        if (catalog / f"{m}.py").exists():
            importlib.import_module(m)
    done, _ = catalog_done(journal)
    cases = [c for c in harness.CASES.values() if (not only or c.id in only) and c.id not in done]
    print(f"torch {torch.__version__}: {len(cases)} cases to run ({len(done)} done)", flush=True)
    with open(journal, "a", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps({"started": c.id}) + "\n")
            f.flush()
            if c.isolate and not child:
                rec = _isolated(c, catalog)
            else:
                try:
                    rec = _probe_case(c, harness, with_fixes=with_fixes)
                except Exception as e:  # noqa: BLE001 - a timeout or a harness error
                    rec = {"category": c.category, "error": f"{type(e).__name__}: {str(e)[:200]}"}
            print(f"{c.id:<44} {verdict_text(rec)}", flush=True)
            f.write(json.dumps(_clean({"id": c.id, **rec}), sort_keys=True, default=_short) + "\n")
            f.flush()
            os.fsync(f.fileno())


def _isolated(c, catalog: Path) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "case.jsonl"
        cmd = [sys.executable, "-m", "fullgraph.knowledge", "_probe", "catalog", "--catalog", str(catalog),
               "--out", str(out), "--only", c.id, "--child"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        done, _ = catalog_done(out)
        if rc == 0 and c.id in done:
            return {**done[c.id], "isolated": True}
        return {"category": c.category, "breaks": None, "isolated": True,
                "crashed": f"child interpreter exited with rc={rc}" + (" (SIGSEGV)" if rc in (-11, 139) else "")}


def probe_main(args) -> int:
    out = Path(args.out)
    if args.part == "catalog":
        probe_catalog(Path(args.catalog), out, set(filter(None, (args.only or "").split(","))) or None,
                      child=args.child, with_fixes=not args.no_fixes)
        return 0
    if args.part == "tracetable":
        from .. import tracetable

        return tracetable.main([str(out)])
    names = args.names
    if names.startswith("@"):
        names = ",".join(Path(names[1:]).read_text(encoding="utf-8").split())
    if args.part == "registry":
        data = probe_registry()
    elif args.part == "apis":
        data = probe_apis(names.split(","))
    else:
        data = probe_calls(names.split(","))
    out.write_text(json.dumps(_clean(data), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0



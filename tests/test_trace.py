"""`fullgraph trace` as a user runs it: real scripts, real torch 2.13 (CPU, backend="eager").

Each run costs a torch import (~2-3 s), so the scripts batch many breaks and the records are shared
by module-scoped fixtures.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "trace_fixtures"
PY = sys.executable


def _env(tmpdir: Path | None = None, **extra) -> dict:
    env = dict(os.environ)
    env.pop("TORCH_LOGS", None)
    env.pop("TORCH_TRACE", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if tmpdir is not None:
        tmpdir.mkdir(parents=True, exist_ok=True)
        env["TMPDIR"] = str(tmpdir)
    env.update(extra)
    return env


def fullgraph(*args, cwd, env=None, timeout=300):
    return subprocess.run([PY, "-m", "fullgraph", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          env=env or _env(), timeout=timeout, check=False)


def copy_fixture(name: str, dest: Path) -> Path:
    shutil.copytree(FIXTURES / name, dest, ignore=shutil.ignore_patterns("__pycache__", ".fullgraph"))
    return dest


def by_site(record: dict) -> dict:
    return {(Path(b["path"]).name, b["line"]): b for b in record["breaks"]}


def _ours(tmpdir: Path) -> list:
    """What fullgraph trace left in the temp dir (torch keeps its own cache dir there, e.g. torchinductor_<user>)."""
    return [p for p in tmpdir.iterdir() if p.name.startswith("fullgraph-trace-")]


def sha1(p: Path) -> str:
    return hashlib.sha1(p.read_bytes()).hexdigest()


# ---- one run, many breaks ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    base = tmp_path_factory.mktemp("multi")
    proj = copy_fixture("multi", base / "proj")
    tmp = base / "tmp"
    r = fullgraph("trace", "--", PY, "train.py", cwd=proj, env=_env(tmp))
    record = json.loads((proj / ".fullgraph" / "breaks.json").read_text())
    return proj, tmp, r, record


def test_every_break_recorded_at_the_right_place(multi):
    _, _, r, record = multi
    assert r.returncode == 0, r.stderr
    sites = {(Path(b["path"]).name, b["line"], b["column"], b["end_column"], b["gb_code"])
             for b in record["breaks"]}
    assert sites == {
        ("train.py", 16, 9, 36, "GB0291"),   # helpers.log.info("forward") in Net.forward
        ("train.py", 22, 5, 18, "GB0059"),   # print("step")
        ("helpers.py", 8, 5, 21, "GB0059"),  # print("scaling") in a helper in another module
        ("train.py", 24, 5, 32, "GB0025"),   # torch._dynamo.graph_break()
        ("helpers.py", 13, 12, 48, "GB0156"),  # json.dumps(...): the break is inside json
        ("train.py", 26, 8, 20, "GB0170"),   # if y.sum() > 0:   (Python marks `y.sum() > 0:`)
        ("train.py", 28, 16, 31, "GB0124"),  # y.mean().item()
        ("train.py", 34, 9, 25, "GB0059"),   # print in a for loop (frame skipped)
        ("train.py", 40, 5, 20, "GB0059"),   # fullgraph=True: raised, caught by the script
        ("train.py", 46, 8, 14, None),       # fullgraph=True data-dependent guard: UserError, no GB code
    }
    assert record["version"] == 2 and record["source"] == "live"
    assert record["torch_version"].startswith("2.13")
    assert record["command"] == [PY, "train.py"] and record["exit_code"] == 0
    assert record["started"].endswith("Z") and record["finished"] >= record["started"]


def test_break_fields(multi):
    proj, _, _, record = multi
    b = by_site(record)[("train.py", 22)]
    assert b["gb_type"] == "Failed to trace builtin operator"
    assert b["explanation"].startswith("Dynamo does not know how to trace builtin operator `print`")
    assert any("reorderable_logging_functions" in h for h in b["hints"])
    assert b["exc_class"] == "Unsupported"
    assert b["root"] == {"path": str(proj / "train.py"), "line": 20, "function": "step", "fullgraph": False}
    # step() runs twice; the second call (a 2-d input) recompiles, so Dynamo meets the break again
    assert b["count"] == 2
    assert b["stack"][-1] == {"path": str(proj / "train.py"), "line": 22, "function": "step"}


def test_break_in_helper_of_another_module(multi):
    proj, _, _, record = multi
    b = by_site(record)[("helpers.py", 8)]
    assert [(Path(f["path"]).name, f["line"], f["function"]) for f in b["stack"][-2:]] == [
        ("train.py", 23, "step"), ("helpers.py", 8, "scale")]
    assert b["root"]["function"] == "step" and b["root"]["path"] == str(proj / "train.py")


def test_break_inside_library_code_keeps_user_frame_and_library_frames(multi):
    _, _, _, record = multi
    b = by_site(record)[("helpers.py", 13)]
    assert b["gb_type"] == "Unsupported method call"
    names = [(Path(f["path"]).name, f["function"]) for f in b["stack"]]
    i = names.index(("helpers.py", "describe"))
    assert names[i - 1] == ("train.py", "step")
    below = b["stack"][i + 1:]
    assert below, "the library frames under the user frame are kept"
    assert any(f["path"].endswith(os.path.join("json", "__init__.py")) and f["function"] == "dumps" for f in below)
    assert any(f["path"].endswith(os.path.join("json", "encoder.py")) for f in below)


def test_fullgraph_true_roots_are_errors(multi):
    proj, _, r, record = multi
    b = by_site(record)[("train.py", 40)]
    assert b["root"] == {"path": str(proj / "train.py"), "line": 38, "function": "strict", "fullgraph": True}
    assert b["count"] == 1
    assert "caught Unsupported from strict" in r.stderr  # the program still saw its exception
    g = by_site(record)[("train.py", 46)]
    assert g["gb_code"] is None and g["exc_class"] == "UserError"
    assert "Could not guard on data-dependent expression" in g["gb_type"]
    assert g["root"]["fullgraph"] is True and g["root"]["function"] == "guard"
    assert "error" in next(l for l in r.stdout.splitlines() if "train.py:46:8" in l)


def test_module_forward_root(multi):
    _, _, _, record = multi
    b = by_site(record)[("train.py", 16)]
    assert b["root"]["function"] == "forward" and b["root"]["line"] == 14
    # nn.Module's own frames are in the stack, between the script and forward
    assert any(f["path"].endswith(os.path.join("nn", "modules", "module.py")) for f in b["stack"])


def test_output_streams_unchanged_and_report_after(multi):
    _, _, r, _ = multi
    # the program's own stdout, untouched, then the report (sorted by file and line)
    assert r.stdout.startswith("step\nscaling\nstep\nscaling\niter 0\niter 1\n"
                               "helpers.py:8:5: warning GB0059 Failed to trace builtin operator")
    assert "Found 10 graph breaks (2 errors, 8 warnings) in 2 files checked" in r.stdout
    assert "call path: step -> scale" in r.stdout
    assert "fullgraph: recorded 10 graph breaks and 10 recompiles from 1 Python process to .fullgraph/breaks.json" in r.stderr


def test_files_hashed_and_nothing_else_written(multi):
    proj, tmp, _, record = multi
    assert record["files"] == {str(proj / "train.py"): sha1(proj / "train.py"),
                               str(proj / "helpers.py"): sha1(proj / "helpers.py")}
    written = sorted(str(p.relative_to(proj)) for p in proj.rglob("*"))
    assert written == [".fullgraph", os.path.join(".fullgraph", "breaks.json"), "helpers.py", "pyproject.toml",
                       "train.py"]
    assert _ours(tmp) == []  # the bootstrap and part files are gone


def test_formats_from_the_record(multi):
    proj, _, _, _ = multi
    j = json.loads(fullgraph("trace", "--show", "--format", "json", cwd=proj).stdout)
    d = next(d for d in j["diagnostics"] if d["range"]["start"]["line"] == 26)
    assert d["code"] == "GB0170" and d["origin"] == "runtime" and d["severity"] == "warning"
    assert d["range"] == {"start": {"line": 26, "column": 8}, "end": {"line": 26, "column": 20}}
    assert d["url"].endswith("gb/gb0170.html") and d["hints"] and d["stack"][-1]["line"] == 26
    assert j["exit_code"] == 0 and j["command"][-1] == "train.py"
    # step() is called again with a 2-d input: it, its resume functions and the helpers compiled as
    # frames of their own recompile (Dynamo's "tensor 'x' rank mismatch"), listed beside the breaks
    rc = {(Path(r["path"]).name, r["range"]["start"]["line"]): r for r in j["recompiles"]}
    assert set(rc) == {("train.py", 20), ("helpers.py", 7), ("helpers.py", 12)}
    step = rc[("train.py", 20)]
    assert step["code"] == "Recompile" and step["severity"] == "warning" and step["origin"] == "runtime"
    assert step["guard"] == "tensor 'x' rank mismatch. expected 1, actual 2"
    assert step["target"] == {"kind": "argument", "name": "x", "expr": "x"} and step["site"] == "parameter"
    assert step["count"] == 7 and step["resumed"] == 6 and not step["limit_hit"]
    assert step["call_site"] == {"path": str(proj / "train.py"), "line": 66, "function": "main"}

    sarif = json.loads(fullgraph("trace", "--show", "--format", "sarif", cwd=proj).stdout)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len(run["results"]) == 13
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
    assert [r["level"] for r in run["results"] if r["ruleId"] == "Recompile"] == ["warning"] * 3
    assert {"GB0170", "UserError"} <= {r["id"] for r in rules}

    gh = fullgraph("trace", "--show", "--format", "github", cwd=proj).stdout.splitlines()
    assert "::error title=GB0059 Failed to trace builtin operator,file=train.py,line=40,col=5,endLine=40," \
           "endColumn=20::" in "\n".join(gh)
    assert len(gh) == 13
    assert sum(ln.startswith("::warning title=Recompile Recompilation,") for ln in gh) == 3


# ---- exits and crashes ------------------------------------------------------------------------------
PROCS = textwrap.dedent('''
    import os, signal, subprocess, sys
    import torch

    @torch.compile(backend="eager")
    def parent_step(x):
        print("parent")
        return x + 1

    @torch.compile(backend="eager")
    def child_step(x):
        torch._dynamo.graph_break()
        return x * 2

    if sys.argv[1:] == ["child"]:
        child_step(torch.ones(2))
        os.kill(os.getpid(), signal.SIGKILL)  # no atexit, no flush at exit
    parent_step(torch.ones(2))
    rc = subprocess.run([sys.executable, __file__, "child"]).returncode
    print("child exit", rc)
    raise RuntimeError("the program crashes after its graph breaks")
''')


def test_children_merged_crash_and_sigkill_keep_the_record(tmp_path):
    (tmp_path / "procs.py").write_text(PROCS)
    out = tmp_path / "rec" / "r.json"
    r = fullgraph("trace", "--out", out, "--", PY, "procs.py", cwd=tmp_path, env=_env(tmp_path / "tmp"))
    assert r.returncode == 1
    assert "RuntimeError: the program crashes after its graph breaks" in r.stderr
    assert f"child exit {-9}" in r.stdout
    record = json.loads(out.read_text())
    assert record["exit_code"] == 1
    sites = {(b["line"], b["gb_code"], b["root"]["function"]) for b in record["breaks"]}
    assert sites == {(7, "GB0059", "parent_step"), (12, "GB0025", "child_step")}
    assert "from 2 Python processes" in r.stderr
    assert _ours(tmp_path / "tmp") == []


def test_sys_exit_status_propagates(tmp_path):
    (tmp_path / "exit3.py").write_text(textwrap.dedent('''
        import sys
        import torch

        @torch.compile(backend="eager")
        def f(x):
            print("in f")
            return x + 1

        f(torch.ones(2))
        sys.exit(3)
    '''))
    r = fullgraph("trace", "--out", "r.json", "--format", "json", "--", PY, "exit3.py", cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["exit_code"] == 3
    assert [(b["line"], b["gb_code"]) for b in record["breaks"]] == [(7, "GB0059")]
    assert r.stdout.startswith("in f\n{")  # the program's output, then the JSON report


def test_pytest_as_the_command(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (tmp_path / "model.py").write_text(textwrap.dedent('''
        import torch

        @torch.compile(backend="eager")
        def predict(x):
            y = x.relu()
            torch._dynamo.graph_break()
            return y + 1
    '''))
    (tmp_path / "test_model.py").write_text(textwrap.dedent('''
        import torch
        from model import predict

        def test_predict():
            assert predict(torch.ones(2)).tolist() == [2.0, 2.0]
    '''))
    r = fullgraph("trace", "--", PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_model.py",
                  cwd=tmp_path, env=_env(PYTHONPATH=""))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout
    record = json.loads((tmp_path / ".fullgraph" / "breaks.json").read_text())
    (b,) = record["breaks"]
    assert (Path(b["path"]).name, b["line"], b["gb_code"]) == ("model.py", 7, "GB0025")
    assert ("test_model.py", "test_predict") in {(Path(f["path"]).name, f["function"]) for f in b["stack"]}
    assert b["root"]["function"] == "predict"


def test_command_not_found_and_usage(tmp_path):
    r = fullgraph("trace", "--out", "r.json", "--", "no-such-command-xyz", cwd=tmp_path)
    assert r.returncode == 127 and "command not found: no-such-command-xyz" in r.stderr
    assert not (tmp_path / "r.json").exists()
    r = fullgraph("trace", cwd=tmp_path)
    assert r.returncode == 2 and "no command given" in r.stderr
    r = fullgraph("trace", "--show", "--record", "missing.json", cwd=tmp_path)
    assert r.returncode == 2 and "no readable record" in r.stderr


def test_existing_sitecustomize_still_runs_and_sys_path_is_clean(tmp_path):
    other = tmp_path / "site"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['OTHER_SITECUSTOMIZE'] = 'ran'\n")
    prog = ("import os, sys; print(os.environ.get('OTHER_SITECUSTOMIZE')); "
            "print([p for p in sys.path if 'fullgraph-trace-' in p]); print('torch' in sys.modules)")
    r = fullgraph("trace", "--out", "r.json", "--", PY, "-c", prog, cwd=tmp_path,
                  env=_env(PYTHONPATH=str(other)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:3] == ["ran", "[]", "False"]  # chained; our dir gone; torch not imported
    assert "from 1 Python process" in r.stderr
    r = fullgraph("trace", "--out", "r.json", "--", PY, "-I", "-c", "print(1)", cwd=tmp_path)
    assert r.returncode == 0 and "no Python process of the command loaded the capture hook" in r.stderr


# ---- imported logs give the same record as a live capture ---------------------------------------------
@pytest.fixture(scope="module")
def three_ways(tmp_path_factory):
    base = tmp_path_factory.mktemp("logs")
    proj = copy_fixture("logs", base / "proj")
    live = fullgraph("trace", "--out", base / "live.json", "--", PY, "breaks.py", cwd=proj)
    env = _env(TORCH_LOGS="graph_breaks")
    logged = subprocess.run([PY, "breaks.py"], cwd=proj, env=env, capture_output=True, text=True, timeout=300, check=False)
    (base / "stderr.txt").write_text(logged.stderr)
    traced = subprocess.run([PY, "breaks.py"], cwd=proj, env=_env(TORCH_TRACE=str(base / "tt")),
                            capture_output=True, text=True, timeout=300, check=False)
    imports = {}
    for name, src in (("text", base / "stderr.txt"), ("trace", base / "tt")):
        r = fullgraph("trace", "--from-log", src, "--out", base / f"{name}.json", cwd=proj)
        assert r.returncode == 0, r.stderr
        imports[name] = json.loads((base / f"{name}.json").read_text())
    assert live.returncode == logged.returncode == traced.returncode == 1
    return json.loads((base / "live.json").read_text()), imports


def test_live_capture_of_the_log_script(three_ways):
    live, _ = three_ways
    got = {(Path(b["path"]).name, b["line"], b["column"], b["end_line"], b["end_column"], b["gb_code"], b["count"])
           for b in live["breaks"]}
    assert got == {("util.py", 5, 20, 5, 49, "GB0156", 4), ("util.py", 9, 5, 9, 31, "GB0059", 4),
                   ("breaks.py", 12, 5, 12, 32, "GB0025", 2),
                   ("breaks.py", 19, 5, 21, 6, "GB0059", 1)}  # a call over three lines: the whole statement
    strict = next(b for b in live["breaks"] if b["line"] == 19)
    assert strict["root"]["fullgraph"] is True and live["exit_code"] == 1


@pytest.mark.parametrize("kind", ["text", "trace"])
def test_imported_logs_match_the_live_capture(three_ways, kind):
    live, imports = three_ways
    rec = imports[kind]
    assert rec["source"] == {"text": "torch_logs", "trace": "torch_trace"}[kind]
    assert rec["breaks"] == live["breaks"]
    assert rec["files"] == live["files"]


# ---- compare -------------------------------------------------------------------------------------------
def test_compare_with_static_analysis(tmp_path):
    proj = copy_fixture("compare", tmp_path / "proj")
    r = fullgraph("trace", "--", PY, "app.py", cwd=proj)
    assert r.returncode == 0, r.stderr
    r = fullgraph("trace", "--compare", "--format", "json", cwd=proj)
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)
    found = {(f["runtime"]["line"], f["runtime"]["gb_code"], f["static"]["code"], f["static"]["range"]["start"]["line"])
             for f in c["found"]}
    assert found == {(17, "GB0059", "FG101", 17),   # print(): both agree
                     (8, "GB0059", "FG101", 8)}     # print() in emit(), called through the alias LOG
    # report("via argument") with report=print: only visible at run time
    assert [(b["line"], b["gb_code"]) for b in c["missed"]] == [(21, "GB0059")]
    unconfirmed = {(Path(f["path"]).name, f["range"]["start"]["line"], f["code"]) for f in c["unconfirmed"]}
    assert unconfirmed == {("app.py", 19, "FG107")}  # time.sleep in a branch Dynamo never traced
    assert c["not_run"] == 1  # offline.py's print: never ran under Dynamo, not judged
    assert c["summary"] == {"runtime_breaks": 3, "found": 2, "missed": 1, "unconfirmed": 1}
    text = fullgraph("trace", "--compare", cwd=proj).stdout
    assert "Missed by static analysis (1):\n  app.py:21:5: GB0059 Failed to trace builtin operator" in text
    assert "2 of 3 runtime breaks found statically (66%); 1 static finding on code that ran not confirmed" in text
    # editing a file makes its runtime lines stale: not compared
    (proj / "app.py").write_text((proj / "app.py").read_text().replace('"""Static', '\n"""Static'))
    c = json.loads(fullgraph("trace", "--compare", "--format", "json", cwd=proj).stdout)
    assert c["stale_files"] == [str(proj / "app.py")] and c["found"] == [] and c["missed"] == []


SLEEPER = textwrap.dedent('''
    import time
    import torch

    @torch.compile(backend="eager")
    def f(x):
        print("traced", flush=True)
        return x + 1

    f(torch.ones(2))
    print("ready", flush=True)  # after Dynamo is done: the signal lands in the sleep, not in a compile
    time.sleep(120)
''')


@pytest.mark.parametrize("sig, status", [("SIGTERM", 128 + 15), ("SIGINT", 128 + 2)])
def test_signals_reach_the_command_and_the_record_is_written(tmp_path, sig, status):
    import signal

    (tmp_path / "sleeper.py").write_text(SLEEPER)
    def default_sigint():
        # as in a terminal: a job started in the background of a non-interactive shell (`cmd &`, nohup)
        # inherits SIGINT ignored, and Python then never raises KeyboardInterrupt
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    p = subprocess.Popen([PY, "-m", "fullgraph", "trace", "--out", "r.json", "--", PY, "sleeper.py"], cwd=tmp_path,
                         env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=default_sigint)
    try:
        assert p.stdout.readline() == "traced\n"
        assert p.stdout.readline() == "ready\n"
        if sig == "SIGTERM":
            p.send_signal(signal.SIGTERM)  # to fullgraph only: it forwards to the command
        else:
            os.killpg(p.pid, signal.SIGINT)  # Ctrl-C: the whole foreground process group
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == status, err
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["exit_code"] == status
    assert [(b["line"], b["gb_code"]) for b in record["breaks"]] == [(7, "GB0059")]


# ---- recompiles beside the breaks -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def recompiles(tmp_path_factory):
    """train.py recompiles without a graph break: a float argument once, a module's int attribute up to the
    recompile limit (3); a tensor argument (the near miss) does not recompile."""
    base = tmp_path_factory.mktemp("recompiles")
    proj = copy_fixture("recompiles", base / "proj")
    (proj / "pyproject.toml").write_text("[project]\nname = 'rc'\n")
    r = fullgraph("trace", "--", PY, "train.py", cwd=proj)
    logged = subprocess.run([PY, "train.py"], cwd=proj, env=_env(TORCH_LOGS="recompiles"), capture_output=True,
                            text=True, timeout=300, check=False)
    (base / "stderr.txt").write_text(logged.stderr)
    imported = fullgraph("trace", "--from-log", base / "stderr.txt", "--out", base / "text.json", cwd=proj)
    assert imported.returncode == 0, imported.stderr
    return proj, r, json.loads((proj / ".fullgraph" / "breaks.json").read_text()), \
        json.loads((base / "text.json").read_text())


def test_recompiles_recorded_with_reason_and_line(recompiles):
    proj, r, record, _ = recompiles
    assert r.returncode == 0, r.stderr
    assert "fullgraph: recorded 0 graph breaks and 4 recompiles from 1 Python process" in r.stderr
    assert record["version"] == 2 and record["breaks"] == []
    src = (proj / "train.py").read_text()
    rc = {(Path(x["path"]).name, x["line"]): x for x in record["recompiles"]}
    lr_line, calls_line = line_of(src, "return x * lr"), line_of(src, "self.calls += 1")
    assert set(rc) == {("train.py", lr_line), ("train.py", calls_line)}  # scale() with a tensor: none
    lr = rc[("train.py", lr_line)]
    assert lr["function"] == "step" and lr["frame"] == {"path": str(proj / "train.py"),
                                                         "line": line_of(src, "def step"), "function": "step"}
    assert lr["guard"] == "lr == 0.1" and lr["site"] == "stack" and lr["count"] == 1 and not lr["limit_hit"]
    assert lr["target"] == {"kind": "argument", "name": "lr", "expr": "lr"}
    assert lr["call_site"] == {"path": str(proj / "train.py"), "line": line_of(src, "compiled(torch.ones(3), lr)"),
                               "function": "main"}
    calls = rc[("train.py", calls_line)]
    assert calls["function"] == "forward" and calls["target"] == {"kind": "attribute", "name": "calls",
                                                                   "expr": "self.calls"}
    assert calls["guards"] == ["self.calls == 0", "self.calls == 1", "self.calls == 2"]
    assert calls["count"] == 3 and calls["limit_hit"] and calls["limit"] == {"name": "recompile_limit", "value": 3}
    assert "allow_unspec_int_on_nn_module" in calls["hint"]
    assert str(proj / "train.py") in record["files"]


def test_recompiles_shown_and_compared(recompiles):
    proj, r, _, _ = recompiles
    src = (proj / "train.py").read_text()
    lr_line = line_of(src, "return x * lr")
    assert f"train.py:{lr_line}:5: warning Recompile step recompiled 1 time: guard `lr == 0.1` failed" in r.stdout
    assert "    guarded value: argument `lr` of step" in r.stdout
    assert (f"train.py:{line_of(src, 'self.calls += 1')}:9: warning GB0039 forward recompiled 3 times: guard "
            "`self.calls == 0` ... `self.calls == 2` failed; hit recompile_limit (3): new inputs run without "
            "compiling (eager) from then on") in r.stdout
    assert "4 recompiles of 2 compiled functions; 1 hit the recompile limit (run eagerly from then on)." in r.stdout
    c = fullgraph("trace", "--compare", "--format", "json", cwd=proj)
    assert c.returncode == 0, c.stderr
    cj = json.loads(c.stdout)
    assert [(x["runtime"]["line"], x["runtime"]["guard"]) for x in cj["recompiles"]] == [
        (lr_line, "lr == 0.1"), (line_of(src, "self.calls += 1"), "self.calls == 0")]
    text = fullgraph("trace", "--compare", cwd=proj).stdout
    assert "Recompiles observed at run time (2):" in text


def test_recompiles_from_a_torch_logs_text_log_match_the_live_capture(recompiles):
    _, _, live, text = recompiles

    def facts(rec):
        return [(x["path"], x["line"], x["function"], x["frame"], x["guards"], x["target"], x["site"], x["count"],
                 x["limit_hit"], x["limit"]) for x in rec["recompiles"]]

    assert text["source"] == "torch_logs" and facts(text) == facts(live)


def test_record_api_looks_recompiles_up_by_line(recompiles):
    from fullgraph.trace.record import load_record, recompile_findings

    proj, _, _, _ = recompiles
    record = load_record(str(proj / ".fullgraph" / "breaks.json"))
    src = (proj / "train.py").read_text()
    path = str(proj / "train.py")
    assert [x.guard for x in record.recompiles_at(path, line_of(src, "return x * lr"))] == ["lr == 0.1"]
    assert [x.guard for x in record.recompiles_at(path, line_of(src, "def forward"))] == ["self.calls == 0"]
    assert record.recompiles_at(path, line_of(src, "def scale")) == []
    found = recompile_findings(record, path, src)
    assert [(f.code, f.severity, f.origin) for f in found] == [("Recompile", "warning", "runtime"),
                                                               ("GB0039", "warning", "runtime")]
    assert recompile_findings(record, path, src + "\n# edited\n") == []  # lines may have moved


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)

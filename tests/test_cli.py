"""`fullgraph check` as a user runs it: exit codes, formats, config, suppression, bad input."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness import EXAMPLES, dedent

PRINT_MOD = dedent('''
    import torch


    @torch.compile(fullgraph=True)
    def f(x):
        print("x", x)
        return x + 1
    ''')


def run(*args, cwd=None, input=None):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "fullgraph", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, env=env, input=input, timeout=300)


def test_examples_text_output_and_exit_code():
    r = run("check", EXAMPLES)
    assert r.returncode == 1, r.stderr
    assert "examples/nanogpt/utils.py:27:5: error FG101" in r.stdout or "utils.py:27:5: error FG101" in r.stdout
    assert "call path: nanogpt.model.GPT.forward -> nanogpt.layers.Block.forward" in r.stdout
    assert "Found 10 graph breaks (6 errors, 4 warnings) and 1 recompilation hazard (warning) in 7 files checked" \
        in r.stdout


def test_clean_exit_zero(tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x + 1\n")
    r = run("check", tmp_path)
    assert r.returncode == 0
    assert "No graph breaks found in 1 file checked" in r.stdout


def test_calls_that_could_not_be_followed_are_counted_and_listed(tmp_path):
    """A compiled function calling into a package that is not analysed: "No graph breaks found" says the
    walk stopped there, -v names the call and its place; the standard library and NumPy are not counted
    (Dynamo judges them itself)."""
    (tmp_path / "m.py").write_text(dedent('''
        import math

        import numpy as np
        import torch
        from somewhere_else import helper


        @torch.compile
        def f(x):
            return helper(x) * math.sqrt(2.0) + float(np.pi)
        '''))
    r = run("check", tmp_path)
    assert r.returncode == 0
    assert "No graph breaks found in 1 file checked; 1 call from compiled code could not be followed; " \
           "-v lists them" in r.stdout
    r = run("check", tmp_path, "-v")
    assert f"    somewhere_else.helper at {tmp_path / 'm.py'}:10" in r.stderr
    assert "math.sqrt" not in r.stderr and "numpy" not in r.stderr
    doc = json.loads(run("check", tmp_path, "--format", "json").stdout)
    assert [(u["call"], u["range"]["start"]["line"]) for u in doc["unfollowed_calls"]] == \
        [("somewhere_else.helper", 10)]


def test_calls_of_values_made_at_run_time_are_counted(tmp_path):
    """`fn = getattr(self, name); fn(x)` (torchmetrics' MetricCollection calls its metrics this way): what
    the call runs is not known, so "No graph breaks found" says the walk stopped there; the same call on
    a path a flag keeps off by default is not counted."""
    (tmp_path / "m.py").write_text(dedent('''
        import torch
        import torch.nn as nn


        class Collection(nn.Module):
            def __init__(self, method="double", debug=False):
                super().__init__()
                self.method = method
                self.debug = debug

            def double(self, x):
                return x * 2

            def forward(self, x):
                fn = getattr(self, self.method)
                if self.debug:
                    hook = getattr(self, "on_debug")
                    hook(x)
                return fn(x)


        compiled = torch.compile(Collection())
        '''))
    r = run("check", tmp_path)
    assert r.returncode == 0
    assert "No graph breaks found in 1 file checked; 1 call from compiled code could not be followed; " \
           "-v lists them" in r.stdout
    r = run("check", tmp_path, "-v")
    assert f"    fn at {tmp_path / 'm.py'}:19 (a value made at run time)" in r.stderr
    doc = json.loads(run("check", tmp_path, "--format", "json").stdout)
    assert [(u["call"], u["range"]["start"]["line"], u["why"]) for u in doc["unfollowed_calls"]] == \
        [("fn", 19, "a value made at run time")]


def test_json_schema(tmp_path):
    (tmp_path / "m.py").write_text(PRINT_MOD)
    r = run("check", tmp_path, "--format", "json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert set(doc) == {"version", "torch_version", "knowledge_version", "files_checked", "diagnostics",
                        "unresolved_roots", "unfollowed_calls"}
    assert doc["knowledge_version"] == "2.13.0"  # the collected release whose Dynamo verdicts stand for 2.13.0
    assert doc["unresolved_roots"] == []
    assert doc["unfollowed_calls"] == []
    assert doc["files_checked"] == 1
    (d,) = doc["diagnostics"]
    for key in ("path", "code", "name", "message", "severity", "range", "root", "call_path", "gb_codes", "url", "fixes",
                "library_sites"):
        assert key in d, key
    assert d["code"] == "FG101" and d["name"] == "print-call" and d["severity"] == "error"
    assert d["range"] == {"start": {"line": 6, "column": 5}, "end": {"line": 6, "column": 18}}
    assert d["call_path"] == ["m.f"]
    assert d["gb_codes"] == ["GB0059"]
    assert d["url"].endswith("gb0059.html")
    assert isinstance(d["fixes"], list)


def test_columns_are_characters_not_bytes(tmp_path):
    src = PRINT_MOD.replace('print("x", x)', 'y = "😀中文"; print(y)')
    (tmp_path / "m.py").write_text(src, encoding="utf-8")
    d = json.loads(run("check", tmp_path, "--format", "json").stdout)["diagnostics"][0]
    line = src.splitlines()[d["range"]["start"]["line"] - 1]
    assert line[d["range"]["start"]["column"] - 1:].startswith("print(y)")


def test_sarif_is_sarif_2_1_0(tmp_path):
    (tmp_path / "m.py").write_text(PRINT_MOD)
    doc = json.loads(run("check", tmp_path, "--format", "sarif", cwd=tmp_path).stdout)
    assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
    run0 = doc["runs"][0]
    assert run0["tool"]["driver"]["name"] == "fullgraph"
    rule_ids = [r["id"] for r in run0["tool"]["driver"]["rules"]]
    (res,) = run0["results"]
    assert res["ruleId"] == "FG101" and rule_ids[res["ruleIndex"]] == "FG101"
    assert res["level"] == "error"
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "m.py"
    assert loc["region"]["startLine"] == 6 and loc["region"]["startColumn"] == 5
    assert run0["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")


def test_github_format(tmp_path):
    (tmp_path / "m.py").write_text(PRINT_MOD)
    out = run("check", tmp_path, "--format", "github", cwd=tmp_path).stdout
    assert out.startswith("::error title=FG101 print-call,file=m.py,line=6,col=5,")


def test_select_ignore(tmp_path):
    (tmp_path / "m.py").write_text(PRINT_MOD)
    assert run("check", tmp_path, "--ignore", "FG1").returncode == 0
    assert run("check", tmp_path, "--select", "FG3").returncode == 0
    assert run("check", tmp_path, "--select", "FG1", "--ignore", "FG102").returncode == 1
    assert run("check", tmp_path, "--select", "FG101").returncode == 1


def test_pyproject_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.fullgraph]\nignore = ["FG101"]\nbogus = 1\n')
    (tmp_path / "m.py").write_text(PRINT_MOD)
    r = run("check", tmp_path)
    assert r.returncode == 0
    assert "unknown setting 'bogus'" in r.stderr


def test_config_roots(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(dedent('''
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                print(x)
                return x
        '''))
    assert run("check", tmp_path).returncode == 0  # nothing compiles Net here
    (tmp_path / "pyproject.toml").write_text('[tool.fullgraph]\nroots = ["pkg.model:Net.forward"]\n')
    r = run("check", tmp_path, "--format", "json")
    (d,) = json.loads(r.stdout)["diagnostics"]
    assert d["code"] == "FG101" and d["severity"] == "error" and d["call_path"] == ["pkg.model.Net.forward"]
    r = run("check", tmp_path, "--root", "pkg.model:Net", "--format", "json")
    assert len(json.loads(r.stdout)["diagnostics"]) == 1


def test_suppression_comments(tmp_path):
    src = PRINT_MOD.replace('print("x", x)', 'print("x", x)  # fullgraph: ignore[FG101]')
    (tmp_path / "m.py").write_text(src)
    assert run("check", tmp_path).returncode == 0
    (tmp_path / "m.py").write_text(PRINT_MOD.replace('print("x", x)', 'print("x", x)  # fullgraph: ignore'))
    assert run("check", tmp_path).returncode == 0
    (tmp_path / "m.py").write_text(PRINT_MOD.replace('print("x", x)', 'print("x", x)  # fullgraph: ignore[FG102]'))
    assert run("check", tmp_path).returncode == 1
    # the text inside a string is not a comment
    (tmp_path / "m.py").write_text(PRINT_MOD.replace('print("x", x)', 'print("# fullgraph: ignore", x)'))
    assert run("check", tmp_path).returncode == 1


def test_torch_version_gates_rules(tmp_path):
    src = dedent('''
        import torch


        @torch.compile(fullgraph=True)
        def f(x):
            return x + x.sum().item()
        ''')
    (tmp_path / "m.py").write_text(src)
    assert run("check", tmp_path, "--torch-version", "2.13").returncode == 0
    r = run("check", tmp_path, "--torch-version", "2.9", "--format", "json")
    assert [d["code"] for d in json.loads(r.stdout)["diagnostics"]] == ["FG303"]
    assert json.loads(r.stdout)["torch_version"] == "2.9.0"


def test_bad_input_gets_clear_findings_and_the_run_goes_on(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    (tmp_path / "binary.py").write_bytes(b"\x00\x01\x02import torch")
    (tmp_path / "latin.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    (tmp_path / "ok.py").write_text(PRINT_MOD)
    r = run("check", tmp_path, "--format", "json")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    by_file = {Path(d["path"]).name: d for d in doc["diagnostics"]}
    assert by_file["broken.py"]["code"] == "FG001" and "SyntaxError" in by_file["broken.py"]["message"]
    assert by_file["broken.py"]["range"]["start"]["line"] == 1
    assert by_file["binary.py"]["code"] == "FG002" and "NUL" in by_file["binary.py"]["message"]
    assert by_file["latin.py"]["code"] == "FG002"
    assert by_file["ok.py"]["code"] == "FG101"
    assert doc["files_checked"] == 4


def test_excluded_directories(tmp_path):
    for d in (".venv", "build", "node_modules", ".git"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "m.py").write_text(PRINT_MOD)
    r = run("check", tmp_path)
    assert r.returncode == 0 and "0 files checked" in r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.fullgraph]\nextend-exclude = ["gen"]\n')
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "m.py").write_text(PRINT_MOD)
    assert run("check", tmp_path).returncode == 0


def test_discovery_through_links_and_a_linked_tree(tmp_path):
    """Files are reported at their real path: a linked file once (by its target), a linked directory
    not entered, and a tree given through a link walked as the real tree (excludes still apply)."""
    real = tmp_path / "real"
    (real / "pkg").mkdir(parents=True)
    (real / "pyproject.toml").write_text('[tool.fullgraph]\nextend-exclude = ["pkg/gen_*.py"]\n')
    (real / "pkg" / "a.py").write_text(PRINT_MOD)
    (real / "pkg" / "gen_b.py").write_text(PRINT_MOD)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c.py").write_text(PRINT_MOD)
    os.symlink(outside / "c.py", real / "pkg" / "c_link.py")
    os.symlink(real / "pkg" / "a.py", real / "pkg" / "a_link.py")
    os.symlink(outside, real / "linked_dir")
    view = tmp_path / "view"
    os.symlink(real, view)
    r = run("check", view, "--format", "json", cwd=real)
    paths = sorted({d["path"] for d in json.loads(r.stdout)["diagnostics"]})
    assert paths == sorted(str(p.resolve()) for p in (real / "pkg" / "a.py", outside / "c.py"))
    assert json.loads(r.stdout)["files_checked"] == 2


def test_usage_errors_exit_2(tmp_path):
    assert run("check", tmp_path / "missing").returncode == 2
    assert run("check", tmp_path, "--torch-version", "banana").returncode == 2
    assert run("check", tmp_path, "--format", "xml").returncode == 2
    r = run("explain", "FG999")
    assert r.returncode == 2 and "unknown rule" in r.stderr


def test_rules_and_explain():
    r = run("rules")
    assert r.returncode == 0 and "FG101" in r.stdout and "print-call" in r.stdout
    rules = json.loads(run("rules", "--format", "json").stdout)
    assert {"code", "name", "summary"} <= set(rules[0])
    r = run("explain", "print-call")
    assert r.returncode == 0
    for heading in ("What it does", "Why it breaks the graph", "Example", "Use instead"):
        assert heading in r.stdout
    assert "GB0059" in r.stdout


def test_never_imports_checked_code(tmp_path):
    marker = tmp_path / "imported"
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n" + PRINT_MOD)
    run("check", tmp_path)
    assert not marker.exists()


@pytest.mark.parametrize("module", [True, False])
def test_python_dash_m_and_script(module, tmp_path):
    (tmp_path / "m.py").write_text(PRINT_MOD)
    if module:
        r = run("check", tmp_path)
    else:
        exe = Path(sys.executable).parent / "fullgraph"
        r = subprocess.run([str(exe), "check", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1 and "FG101" in r.stdout


def test_baseline_hides_known_findings_and_fails_on_a_new_one(tmp_path):
    (tmp_path / "m.py").write_text(PRINT_MOD)
    bl = tmp_path / "baseline.json"
    r = run("check", "m.py", "--baseline", bl, cwd=tmp_path)
    assert r.returncode == 2 and "baseline" in r.stderr and "does not exist (create it with --update-baseline)" \
        in r.stderr and "Traceback" not in r.stderr
    r = run("check", "m.py", "--baseline", bl, "--update-baseline", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "wrote 1 finding to the baseline" in r.stderr
    doc = json.loads(bl.read_text())
    assert doc == {"version": 1, "entries": [{"path": "m.py", "code": "FG101", "text": 'print("x", x)', "count": 1,
                                              "origin": "static"}]}
    # lines added above move the finding: still known
    (tmp_path / "m.py").write_text("# a comment\n\n" + PRINT_MOD)
    r = run("check", "m.py", "--baseline", bl, cwd=tmp_path)
    assert r.returncode == 0, r.stdout
    assert "1 finding in the baseline" in r.stderr
    r = run("check", "m.py", "--baseline", bl, "--format", "sarif", cwd=tmp_path)  # what CI uploads
    assert r.returncode == 0 and json.loads(r.stdout)["runs"][0]["results"] == []
    # a second identical line is beyond the baseline's count: new, reported at its line, exit 1
    (tmp_path / "m.py").write_text(PRINT_MOD.replace('    print("x", x)\n', '    print("x", x)\n    print("x", x)\n'))
    r = run("check", "m.py", "--baseline", bl, cwd=tmp_path)
    assert r.returncode == 1
    first = next(i for i, ln in enumerate(PRINT_MOD.splitlines(), 1) if "print(" in ln)
    assert f"m.py:{first + 1}:5: error FG101" in r.stdout and f"m.py:{first}:5" not in r.stdout
    # updating from `check` keeps the runtime entries the pytest plugin wrote
    doc["entries"].append({"path": "t.py", "code": "GB0025", "text": "torch._dynamo.graph_break()", "count": 1,
                           "origin": "runtime"})
    bl.write_text(json.dumps(doc))
    assert run("check", "m.py", "--baseline", bl, "--update-baseline", cwd=tmp_path).returncode == 0
    entries = json.loads(bl.read_text())["entries"]
    assert [(e["code"], e["count"], e["origin"]) for e in entries] == [("FG101", 2, "static"), ("GB0025", 1, "runtime")]


@pytest.mark.parametrize("content, message", [
    ("{", "is not valid JSON"),
    ('{"version": 2, "entries": []}', "is not a fullgraph baseline"),
    ('{"version": 1, "entries": [{"path": 1}]}', "entry #1 needs path, code, text"),
])
def test_bad_baseline_is_a_usage_error(tmp_path, content, message):
    (tmp_path / "m.py").write_text(PRINT_MOD)
    (tmp_path / "b.json").write_text(content)
    r = run("check", "m.py", "--baseline", "b.json", cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
    assert run("check", "m.py", "--update-baseline", cwd=tmp_path).returncode == 2

"""The pytest plugin (`fullgraph.pytest_plugin`): graph breaks as test failures.

Each run is a real pytest in a subprocess (`pytester.runpytest_subprocess`: Dynamo's state must not
leak into this process) over tiny compiled functions with real graph breaks on torch 2.13:
`torch._dynamo.graph_break()` (GB0025) and a branch on `.item()` (GB0124).  The assertions are
what a user sees: outcomes, the failure text, the warning, the summary table, the record file.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest_plugins = ["pytester"]
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")

LIB = textwrap.dedent('''\
    import torch


    def helper(x):
        torch._dynamo.graph_break()
        return x + 1
''')

CONFTEST = textwrap.dedent('''\
    import os
    import sys

    # an "installed" package: a module under a site-packages directory, as fullgraph's trace attribution sees it
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "site-packages"))
''')

TESTS = textwrap.dedent('''\
    import pytest
    import torch
    import fakelib


    def f(x):
        x = x + 1
        torch._dynamo.graph_break()
        return x * 2


    def g(x):
        if x.sum().item() > 0:
            return x + 1
        return x - 1


    def uses_lib(x):
        return fakelib.helper(x) * 2


    compiled_f = torch.compile(f, backend="eager")


    def test_project():
        compiled_f(torch.ones(3))


    def test_reuse():
        compiled_f(torch.ones(3))


    def test_item_counted():
        torch.compile(g, backend="eager")(torch.ones(3))


    @pytest.mark.graph_breaks(allow=["FG303"])
    def test_item_allowed():
        torch.compile(g, backend="eager")(torch.ones(3))


    @pytest.mark.graph_breaks(max=1)
    def test_max_one():
        torch.compile(g, backend="eager")(torch.ones(3))


    def test_library():
        torch.compile(uses_lib, backend="eager")(torch.ones(3))


    @pytest.mark.graph_breaks(False)
    def test_not_checked():
        torch.compile(f, backend="eager")(torch.ones(3))


    @pytest.mark.graph_breaks(allow=["GB0025"])
    def test_fixture(graph_breaks):
        assert len(graph_breaks) == 0
        torch.compile(f, backend="eager")(torch.ones(3))
        assert [b.gb_code for b in graph_breaks.in_project()] == ["GB0025"]
        assert graph_breaks.in_libraries() == []


    def test_clean():
        torch.compile(lambda x: x * 2, backend="eager")(torch.ones(3))
''')

FAILED = ["test_project", "test_reuse", "test_item_counted"]
PASSED = ["test_item_allowed", "test_max_one", "test_library", "test_not_checked", "test_fixture", "test_clean"]
ARGS = ("-p", "no:cacheprovider", "-o", "log_level=INFO")


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


@pytest.fixture
def project(pytester):
    pytester.makeconftest(CONFTEST)
    lib = pytester.path / "site-packages" / "fakelib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(LIB)
    pytester.makepyfile(test_breaks=TESTS)
    return pytester


def outcomes(result) -> dict[str, str]:
    """test name -> PASSED/FAILED, from the -rA short summary."""
    out = {}
    for ln in result.outlines:
        for word in ("PASSED", "FAILED", "ERROR"):
            if ln.startswith(word + " ") and "::" in ln:
                out[ln.split("::", 1)[1].split()[0]] = word
    return out


def expect_outcomes(result):
    got = outcomes(result)
    assert {t: got.get(t) for t in FAILED} == {t: "FAILED" for t in FAILED}, result.stdout.str()
    assert {t: got.get(t) for t in PASSED} == {t: "PASSED" for t in PASSED}, result.stdout.str()
    result.assert_outcomes(passed=len(PASSED), failed=len(FAILED), warnings=1)


@needs_torch
def test_project_breaks_fail_with_the_cli_text(project):
    other = {"path": str(project.path / "other.py"), "line": 3, "column": 1, "end_line": 3, "end_column": 5,
             "gb_type": "x", "gb_code": "GB0059", "exc_class": "Unsupported", "explanation": "", "hints": [],
             "stack": [], "root": None, "count": 1}
    (project.path / ".fullgraph").mkdir()
    (project.path / ".fullgraph" / "breaks.json").write_text(json.dumps(
        {"version": 1, "source": "live", "files": {other["path"]: "0" * 40}, "breaks": [other]}))
    result = project.runpytest_subprocess("--graph-breaks=fail", "-rA", *ARGS)
    expect_outcomes(result)
    text = result.stdout.str()
    gb_line = line_of(TESTS, "torch._dynamo.graph_break()")
    # the failure: the finding as `fullgraph trace` prints it, Dynamo's hint, the user stack, explain, fixes
    result.stdout.fnmatch_lines([
        "*_ test_project _*",
        "fullgraph: 1 graph break in project code (--graph-breaks=fail):",
        f"test_breaks.py:{gb_line}:5: warning GB0025 Call to `torch._dynamo.graph_break()`*",
        f"    compiled by torch.compile (without fullgraph=True) at test_breaks.py:{line_of(TESTS, 'def f(x)')}",
        "    fixes: Remove the explicit `graph_break()` call*",
        "    hint: Remove the `torch._dynamo.graph_break()` call.",
        "    stack (innermost last):",
        f"      test_breaks.py:{line_of(TESTS, 'compiled_f(torch.ones(3))')} in test_project",
        f"      test_breaks.py:{gb_line} in f",
        "    more: fullgraph explain FG201 ; https://*gb0025.html",
    ])
    result.stdout.fnmatch_lines([
        "*_ test_item_counted _*",
        f"test_breaks.py:{line_of(TESTS, 'if x.sum().item() > 0:')}:*: warning GB0124 Unsupported Tensor.item() call*",
        "    more: fullgraph explain FG303 ; *",
    ])
    # the library break is a warning that names the package to include
    result.stdout.fnmatch_lines([
        "*GraphBreakWarning: graph break GB0025 * at site-packages/fakelib/__init__.py:5 via test_breaks.py:"
        f"{line_of(TESTS, 'return fakelib.helper(x) * 2')}; in library code, not counted "
        "(--graph-breaks-include fakelib counts it)",
    ])
    # the table: the second test compiled `f` again (Dynamo was reset) and says so
    result.stdout.fnmatch_lines([
        "*= fullgraph: graph breaks =*",
        "test * breaks  sites",
        f"test_breaks.py::test_fixture * 1  test_breaks.py:{gb_line} GB0025 (allowed)",
        "test_breaks.py::test_item_allowed * 1  test_breaks.py:* GB0124 (allowed)",
        "test_breaks.py::test_item_counted * 1  test_breaks.py:* GB0124 (project)",
        "test_breaks.py::test_library * site-packages/fakelib/__init__.py:5 via test_breaks.py:* GB0025 (library)",
        f"test_breaks.py::test_project * 1  test_breaks.py:{gb_line} GB0025 (project)",
        f"test_breaks.py::test_reuse * 1  test_breaks.py:{gb_line} GB0025 (project)",
        "* note: f was compiled first by test_breaks.py::test_project (compiled again after Dynamo's reset)",
        "7 graph break sites in 7 of 8 checked tests (2 allowed, 1 library, 4 project); "
        "recorded in .fullgraph/breaks.json",
    ])
    table = text.split("fullgraph: graph breaks")[1].split("short test summary info")[0]
    assert "test_not_checked" not in table and "test_clean" not in table
    # the record: `fullgraph trace`'s format, merged (the other file's break is kept)
    from fullgraph.trace.record import load_record

    record = load_record(str(project.path / ".fullgraph" / "breaks.json"))
    assert record is not None and record.command[0] == "pytest" and "--graph-breaks=fail" in record.command
    sites = sorted((os.path.basename(b.path), b.line, b.gb_code) for b in record.breaks)
    assert sites == sorted([("other.py", 3, "GB0059"), ("test_breaks.py", gb_line, "GB0025"),
                            ("test_breaks.py", line_of(TESTS, "if x.sum().item() > 0:"), "GB0124"),
                            ("test_breaks.py", line_of(TESTS, "return fakelib.helper(x) * 2"), "GB0025")])
    assert str(project.path / "test_breaks.py") in {os.path.realpath(p) for p in record.files} | set(record.files)


@needs_torch
def test_xdist_gives_the_same_result(project):
    pytest.importorskip("xdist")
    result = project.runpytest_subprocess("--graph-breaks=fail", "-rA", "-n", "2", *ARGS)
    expect_outcomes(result)
    result.stdout.fnmatch_lines([
        "*= fullgraph: graph breaks =*",
        "test_breaks.py::test_item_counted * 1  test_breaks.py:* GB0124 (project)",
        "test_breaks.py::test_library * GB0025 (library)",
        "test_breaks.py::test_project * GB0025 (project)",
        "7 graph break sites in 7 of 8 checked tests (2 allowed, 1 library, 4 project); "
        "recorded in .fullgraph/breaks.json",
    ])
    from fullgraph.trace.record import load_record

    record = load_record(str(project.path / ".fullgraph" / "breaks.json"))
    assert sorted(b.gb_code for b in record.breaks) == ["GB0025", "GB0025", "GB0124"]


@needs_torch
def test_include_makes_a_library_break_count(project):
    result = project.runpytest_subprocess("--graph-breaks=fail", "-rA", "--graph-breaks-include", "other,fakelib",
                                          *ARGS)
    assert outcomes(result)["test_library"] == "FAILED"
    result.stdout.fnmatch_lines([
        "*_ test_library _*",
        "fullgraph: 1 graph break in project code or included packages (--graph-breaks=fail):",
        "    stack (innermost last):",
        "      test_breaks.py:* in uses_lib",
        "      site-packages/fakelib/__init__.py:5 in helper",
    ])


@needs_torch
def test_baseline_passes_old_breaks_and_fails_a_new_one(project):
    result = project.runpytest_subprocess("--graph-breaks=fail", "--graph-breaks-baseline", "baseline.json",
                                          "--graph-breaks-update-baseline", "-rA", *ARGS)
    assert set(outcomes(result).values()) == {"PASSED"}
    result.stdout.fnmatch_lines(["fullgraph: wrote 2 runtime break(s) to the baseline *baseline.json"])
    doc = json.loads((project.path / "baseline.json").read_text())
    assert sorted((e["path"], e["code"], e["text"], e["origin"]) for e in doc["entries"]) == [
        ("test_breaks.py", "GB0025", "torch._dynamo.graph_break()", "runtime"),
        ("test_breaks.py", "GB0124", "if x.sum().item() > 0:", "runtime"),
    ]
    # edits above the old breaks do not matter; a new break (a second graph_break() line in f) does
    src = TESTS.replace("import fakelib\n", "import fakelib\n\n# a comment that moves every line\n")
    src = src.replace("    torch._dynamo.graph_break()\n    return x * 2",
                      "    torch._dynamo.graph_break()\n    x = x - 1\n    torch._dynamo.graph_break()\n    return x * 2")
    project.makepyfile(test_breaks=src)
    result = project.runpytest_subprocess("--graph-breaks=fail", "--graph-breaks-baseline", "baseline.json",
                                          "-rA", *ARGS)
    got = outcomes(result)
    assert got["test_item_counted"] == "PASSED"  # in the baseline
    assert got["test_project"] == got["test_reuse"] == "FAILED"  # a second identical line: beyond the count
    result.stdout.fnmatch_lines([
        "*_ test_project _*",
        "fullgraph: 1 graph break in project code (--graph-breaks=fail):",
        f"test_breaks.py:{line_of(src, 'x = x - 1') + 1}:5: warning GB0025 *",
    ])


@needs_torch
def test_off_records_nothing(project):
    result = project.runpytest_subprocess("--graph-breaks=off", "-rA", *ARGS)
    result.assert_outcomes(passed=9)
    assert "fullgraph: graph breaks" not in result.stdout.str()
    assert not (project.path / ".fullgraph").exists()


@needs_torch
def test_ini_option_and_tool_fullgraph_warn_mode(project):
    """The README's line (`graph_breaks = "fail"` in [tool.pytest.ini_options]), and [tool.fullgraph]."""
    project.makepyfile(test_breaks=TESTS.split("compiled_f =")[0] + textwrap.dedent('''\
        def test_project():
            torch.compile(f, backend="eager")(torch.ones(3))
    '''))
    project.makepyprojecttoml('[tool.pytest.ini_options]\ngraph_breaks = "fail"\n')
    result = project.runpytest_subprocess(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["fullgraph: 1 graph break in project code (--graph-breaks=fail):"])
    project.makepyprojecttoml('[tool.fullgraph]\ngraph-breaks = "warn"\n')
    result = project.runpytest_subprocess(*ARGS)
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*GraphBreakWarning: graph break GB0025 * at test_breaks.py:*"])


@needs_torch
def test_project_code_outside_a_tests_rootdir_counts(pytester):
    """tests/pytest.ini makes tests/ the rootdir; the model in src/ is still the project's code."""
    pytester.makepyprojecttoml("[project]\nname = 'demo'\n")
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "model.py").write_text(TESTS.split("def g(x)")[0].replace("import fakelib\n", ""))
    tests = pytester.path / "tests"
    tests.mkdir()
    (tests / "pytest.ini").write_text("[pytest]\n")
    (tests / "conftest.py").write_text(
        "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n")
    (tests / "test_model.py").write_text("import torch\nimport model\n\n\ndef test_model():\n"
                                         "    torch.compile(model.f, backend='eager')(torch.ones(3))\n")
    result = pytester.runpytest_subprocess("tests", "--graph-breaks=fail", *ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["rootdir: *tests", "fullgraph: 1 graph break in project code (--graph-breaks=fail):",
                                 "src/model.py:7:5: warning GB0025 *", "    stack (innermost last):",
                                 "      tests/test_model.py:6 in test_model", "      src/model.py:7 in f"])


# ---- recompiles (--recompiles) ---------------------------------------------------------------------------------
RC_TESTS = textwrap.dedent('''\
    import pytest
    import torch


    def step(x, lr):
        return x * lr


    def scale(x, lr):
        return x * lr


    compiled_step = torch.compile(step, backend="eager")


    def test_float_rate():
        for lr in (0.1, 0.2, 0.3):
            compiled_step(torch.ones(3), lr)


    def test_tensor_rate():
        compiled_scale = torch.compile(scale, backend="eager")
        for lr in (0.1, 0.2, 0.3):
            compiled_scale(torch.ones(3), torch.tensor(lr))


    @pytest.mark.recompiles(max=1)
    def test_float_rate_accepted():
        for lr in (0.1, 0.2, 0.3):
            compiled_step(torch.ones(3), lr)
''')


@needs_torch
def test_recompiles_fail_with_the_guard_and_the_place(pytester):
    """A compiled function called with changing Python floats recompiles (`lr == 0.1` failed): the test fails
    with Dynamo's guard and the line; the same rate as a tensor (the near miss) does not recompile."""
    pytester.makepyfile(test_rc=RC_TESTS)
    result = pytester.runpytest_subprocess("--recompiles=fail", "-rA", *ARGS)
    got = outcomes(result)
    assert got == {"test_float_rate": "FAILED", "test_tensor_rate": "PASSED",
                   "test_float_rate_accepted": "PASSED"}, result.stdout.str()
    src = RC_TESTS
    result.stdout.fnmatch_lines([
        "*_ test_float_rate _*",
        "fullgraph: 1 recompile in project code (--recompiles=fail):",
        f"test_rc.py:{line_of(src, 'return x * lr')}:5: warning Recompile step recompiled 1 time: guard "
        "`lr == 0.1` failed",
        "    guarded value: argument `lr` of step",
        f"    compiled function: step at test_rc.py:{line_of(src, 'def step')}",
        f"    called from: test_rc.py:{line_of(src, 'compiled_step(torch.ones(3), lr)')} in test_float_rate",
        "Accept recompiles with @pytest.mark.recompiles(max=N)*",
    ])
    out = result.stdout.str()
    assert "fullgraph: graph breaks" not in out  # --graph-breaks is off: only the recompile check ran
    site = line_of(src, "return x * lr")
    result.stdout.fnmatch_lines(["*= fullgraph: recompiles =*",
                                 f"test_rc.py::test_float_rate  *1  test_rc.py:{site} step: lr == 0.1 (project)",
                                 "2 recompiles in 2 of 3 checked tests*"])
    record = json.loads((pytester.path / ".fullgraph" / "breaks.json").read_text())
    assert [(r["line"], r["guard"], r["count"]) for r in record["recompiles"]] == [(site, "lr == 0.1", 2)]


@needs_torch
def test_recompiles_warn_by_default_when_the_graph_break_check_is_on(pytester):
    """Not set: --graph-breaks=fail checks recompiles too, as warnings (an existing suite does not start
    failing); [tool.fullgraph] recompiles = "fail" makes them fail, and --recompiles=off wins over it."""
    pytester.makepyfile(test_rc=RC_TESTS)
    result = pytester.runpytest_subprocess("--graph-breaks=fail", *ARGS)
    result.assert_outcomes(passed=3, warnings=1)
    result.stdout.fnmatch_lines([
        f"*RecompileWarning: recompile Recompile step recompiled 1 time: guard `lr == 0.1` failed at "
        f"test_rc.py:{line_of(RC_TESTS, 'return x * lr')}",
        "*= fullgraph: recompiles =*",
        "*= fullgraph: graph breaks =*",
        "no graph breaks in 3 checked tests*",
    ])
    pytester.makepyprojecttoml('[tool.fullgraph]\nrecompiles = "fail"\n')
    result = pytester.runpytest_subprocess(*ARGS)
    result.assert_outcomes(passed=2, failed=1)
    result = pytester.runpytest_subprocess("--recompiles=off", *ARGS)
    result.assert_outcomes(passed=3)
    assert "fullgraph: recompiles" not in result.stdout.str()


# ---- bad input: a clear message, not a traceback (no torch runs: the plugin stops at configure) -------------
@pytest.mark.parametrize("args, message", [
    (["--graph-breaks=maybe"], "ERROR: --graph-breaks: unknown value 'maybe'; use one of: fail, warn, off"),
    (["--graph-breaks=fail", "--graph-breaks-baseline", "missing.json"],
     "ERROR: baseline *missing.json does not exist (create it with --graph-breaks-update-baseline)"),
    (["--graph-breaks=fail", "--graph-breaks-baseline", "bad.json"], "ERROR: baseline *bad.json is not valid JSON*"),
    (["--graph-breaks-update-baseline"], "ERROR: --graph-breaks-update-baseline needs --graph-breaks-baseline FILE"),
    (["--graph-breaks=warn", "--graph-breaks-baseline", "adir"], "ERROR: cannot read baseline *adir: Is a directory"),
    (["--recompiles=sometimes"], "ERROR: --recompiles: unknown value 'sometimes'; use one of: fail, warn, off"),
])
def test_bad_options(pytester, args, message):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    (pytester.path / "bad.json").write_text("{")
    (pytester.path / "adir").mkdir()
    result = pytester.runpytest_subprocess(*args, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str()


def test_bad_ini_value_and_marker(pytester):
    pytester.makeini("[pytest]\ngraph_breaks = always\n")
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: graph_breaks (ini): unknown value 'always'; use one of: fail, warn, off"])
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_x="import pytest\n@pytest.mark.graph_breaks(alow=['FG303'])\ndef test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--graph-breaks=fail")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.graph_breaks: unknown argument alow (allow=*, max=N)"])
    pytester.makepyfile(test_x="import pytest\n@pytest.mark.recompiles(allow=['x'])\ndef test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--recompiles=fail")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.recompiles: unknown argument allow (max=N)"])
    pytester.makeini("[pytest]\nrecompiles = never\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: recompiles (ini): unknown value 'never'; use one of: fail, warn, off"])


# ---- the plugin costs nothing when unused ------------------------------------------------------------------
def test_importing_the_plugin_imports_no_torch_libcst_or_engine():
    code = textwrap.dedent('''\
        import sys
        import pytest
        before = set(sys.modules)
        import fullgraph.pytest_plugin
        new = sorted(set(sys.modules) - before)
        print("\\n".join(new))
    ''')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "fullgraph.pytest_plugin" in out
    heavy = [m for m in out if m.split(".")[0] in ("torch", "libcst", "pygls", "numpy")
             or m.startswith(("fullgraph.engine", "fullgraph.api", "fullgraph.rules", "fullgraph.trace"))]
    assert heavy == []
    assert [m for m in out if m.startswith("fullgraph")] == ["fullgraph", "fullgraph.pytest_plugin", "fullgraph.pytest_settings"]


def test_a_plain_pytest_run_does_not_import_torch(pytester):
    """The plugin is loaded (entry point) but off: the run imports neither torch nor fullgraph's engine."""
    pytester.makepyfile(test_x=textwrap.dedent('''\
        import sys

        def test_x(pytestconfig):
            assert pytestconfig.pluginmanager.has_plugin("fullgraph")
            loaded = [m for m in sys.modules if m.split(".")[0] in ("torch", "libcst")
                      or m.startswith(("fullgraph.engine", "fullgraph.trace", "fullgraph.api"))]
            assert loaded == []
    '''))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_installed_package_of_a_path():
    from fullgraph.trace.verdict import module_of

    assert module_of("/v/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py") == \
        "transformers.models.bert.modeling_bert"
    assert module_of("/usr/lib/python3/dist-packages/fakelib/__init__.py") == "fakelib"
    assert module_of("/home/me/project/model.py") is None

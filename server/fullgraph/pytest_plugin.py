"""pytest plugin: torch.compile graph breaks as test failures (entry point ``pytest11: fullgraph``).

    pytest --graph-breaks=fail            # or graph_breaks = "fail" in [tool.pytest.ini_options]
    pytest --graph-breaks=warn --graph-breaks-include transformers
    pytest --graph-breaks=fail --graph-breaks-baseline .fullgraph/baseline.json [--graph-breaks-update-baseline]
    pytest --recompiles=fail              # or recompiles = "fail"; unset: warn when --graph-breaks is on
    pytest -p no:fullgraph                # do not load the plugin at all

With the option on, every graph break Dynamo meets during a test (setup, call and teardown) is
recorded by the runtime capture of `fullgraph trace` (`fullgraph.trace.pertest`); Dynamo's caches
are reset before each test (``torch._dynamo.reset()``), so each test compiles, and reports, the
breaks of what it runs.  At the end of the call a break in project code fails the test with the
text `fullgraph trace` prints for it; breaks in installed packages are warnings
(`fullgraph.trace.verdict` decides).  A summary table closes the run and the breaks are merged
into ``.fullgraph/breaks.json``, where the editor shows them.

``--recompiles`` does the same for recompilations (a guard failed and Dynamo compiled a frame again):
the same capture counts them per test, and a recompile in project code fails the test (``fail``) or
warns (``warn``) with Dynamo's guard failure and the line that reads the guarded value.  Not set
anywhere, it follows ``--graph-breaks`` but never fails: ``warn`` when the graph-break check is on,
``off`` when it is off (a one-time recompile, e.g. a second input shape, is often harmless, and a
suite that passed with ``--graph-breaks=fail`` must not start failing).

This module is imported by every pytest run in an environment where fullgraph is installed, so it
holds only the options, the settings and the fixture, and imports nothing but the standard library
and pytest: the check (`fullgraph.pytest_check`), the capture and torch are loaded only when the
option is on (or a test asks for the ``graph_breaks`` fixture).
"""
from __future__ import annotations

import os
import sys

import pytest

from .pytest_settings import (  # noqa: F401  (the warnings: public here)
    GraphBreakWarning,
    Marker,
    RecompileWarning,
    Settings,
)

MODES = ("fail", "warn", "off")
PLUGIN_NAME = "fullgraph-graph-breaks"
MARKER = ("graph_breaks(enabled=True, *, allow=(), max=0): fullgraph's graph-break check for this test: "
          "graph_breaks(False) skips it; allow=[codes] accepts breaks with these GB/FG codes; max=N accepts "
          "up to N breaks")
RECOMPILES_MARKER = ("recompiles(enabled=True, *, max=0): fullgraph's recompile check for this test: recompiles(False) "
                     "skips it; max=N accepts up to N recompiles")


_FIXTURE_CAPTURE = pytest.StashKey[object]()


# ---- options -----------------------------------------------------------------------------------------
def pytest_addoption(parser):
    group = parser.getgroup("fullgraph", "torch.compile graph breaks (fullgraph)")
    group.addoption("--graph-breaks", dest="graph_breaks", default=None, metavar="fail|warn|off",
                    help="fail tests whose project code breaks the torch.compile graph (fail), report the "
                         "breaks as warnings (warn), or do nothing (off, the default)")
    group.addoption("--graph-breaks-include", dest="graph_breaks_include", action="append", default=[],
                    metavar="PACKAGE", help="count breaks inside this installed package too (repeatable, or "
                                            "a comma-separated list)")
    group.addoption("--graph-breaks-baseline", dest="graph_breaks_baseline", default=None, metavar="FILE",
                    help="count only breaks that are not in this baseline (the format of "
                         "`fullgraph check --baseline`)")
    group.addoption("--graph-breaks-update-baseline", dest="graph_breaks_update_baseline", action="store_true",
                    help="write the breaks of this run to the --graph-breaks-baseline FILE (no test fails "
                         "for a graph break)")
    group.addoption("--recompiles", dest="recompiles", default=None, metavar="fail|warn|off",
                    help="fail tests in which Dynamo recompiles project code (a guard failed), report the "
                         "recompiles as warnings (warn), or do nothing (off); default: warn when "
                         "--graph-breaks is fail or warn, else off")
    parser.addini("graph_breaks", "fullgraph: fail | warn | off (default off)", default=None)
    parser.addini("recompiles", "fullgraph: fail | warn | off (default: warn when graph_breaks is on, else off)",
                  default=None)
    parser.addini("graph_breaks_include", "fullgraph: installed packages whose breaks count", type="args",
                  default=[])
    parser.addini("graph_breaks_baseline", "fullgraph: baseline file (relative to the rootdir)", default=None)


def _names(values) -> list[str]:
    return [n.strip() for v in values for n in str(v).split(",") if n.strip()]


def _pyproject_settings(config) -> dict:
    """[tool.fullgraph] of the rootdir's pyproject.toml ({} if none or unreadable)."""
    path = os.path.join(str(config.rootpath), "pyproject.toml")
    if not os.path.isfile(path):
        return {}
    try:
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover
            import tomli as tomllib
        with open(path, "rb") as fh:
            table = tomllib.load(fh).get("tool", {}).get("fullgraph", {})
    except Exception:  # noqa: BLE001 - pytest reports a broken pyproject.toml itself
        return {}
    return {k.replace("_", "-"): v for k, v in table.items()} if isinstance(table, dict) else {}


def read_settings(config) -> Settings:
    """The command line, else the ini option, else [tool.fullgraph]; raises pytest.UsageError."""
    opt = config.option
    ini_mode = config.getini("graph_breaks")
    tool = _pyproject_settings(config) if opt.graph_breaks is None and not ini_mode else {}
    mode = opt.graph_breaks or ini_mode or tool.get("graph-breaks") or "off"
    origin = ("--graph-breaks" if opt.graph_breaks else "graph_breaks (ini)" if ini_mode
              else "[tool.fullgraph] graph-breaks")
    if not isinstance(mode, str) or mode.strip().lower() not in MODES:
        raise pytest.UsageError(f"{origin}: unknown value {mode!r}; use one of: {', '.join(MODES)}")
    s = Settings(mode=mode.strip().lower())
    tool_include = tool.get("graph-breaks-include") or []
    s.include = _names(opt.graph_breaks_include) + _names(config.getini("graph_breaks_include")) + \
        _names([tool_include] if isinstance(tool_include, str) else tool_include)
    if opt.graph_breaks_baseline:
        s.baseline = os.path.join(str(config.invocation_params.dir), opt.graph_breaks_baseline)
    elif config.getini("graph_breaks_baseline") or tool.get("graph-breaks-baseline"):
        s.baseline = os.path.join(str(config.rootpath),
                                  config.getini("graph_breaks_baseline") or str(tool["graph-breaks-baseline"]))
    s.recompiles = _recompiles_mode(config, s.mode, tool)
    s.update_baseline = bool(opt.graph_breaks_update_baseline)
    if s.update_baseline and not s.baseline:
        raise pytest.UsageError("--graph-breaks-update-baseline needs --graph-breaks-baseline FILE")
    if s.update_baseline and s.mode == "off":
        raise pytest.UsageError("--graph-breaks-update-baseline needs --graph-breaks=fail or warn "
                                "(with the check off nothing is recorded)")
    return s


def _recompiles_mode(config, breaks_mode: str, tool: dict) -> str:
    """--recompiles, else the ini option, else [tool.fullgraph] recompiles, else warn if the graph-break
    check is on (fail or warn) and off if it is off."""
    opt = getattr(config.option, "recompiles", None)
    ini_mode = config.getini("recompiles")
    if opt is None and not ini_mode and not tool:
        tool = _pyproject_settings(config)
    mode = opt or ini_mode or tool.get("recompiles")
    if mode is None:
        return "off" if breaks_mode == "off" else "warn"
    origin = "--recompiles" if opt else "recompiles (ini)" if ini_mode else "[tool.fullgraph] recompiles"
    if not isinstance(mode, str) or mode.strip().lower() not in MODES:
        raise pytest.UsageError(f"{origin}: unknown value {mode!r}; use one of: {', '.join(MODES)}")
    return mode.strip().lower()


def pytest_configure(config):
    config.addinivalue_line("markers", MARKER)
    config.addinivalue_line("markers", RECOMPILES_MARKER)
    settings = read_settings(config)
    if settings.mode != "off" or settings.recompiles != "off":
        from .pytest_check import GraphBreaks

        config.pluginmanager.register(GraphBreaks(config, settings), PLUGIN_NAME)


def pytest_unconfigure(config):
    cap = config.stash.get(_FIXTURE_CAPTURE, None)
    if cap is not None:
        cap.close()


# ---- the fixture ---------------------------------------------------------------------------------------
@pytest.fixture
def graph_breaks(request):
    """The graph breaks Dynamo met in this test so far (records them even with --graph-breaks=off)."""
    from .pytest_check import Breaks, project_root
    from .trace.verdict import Policy

    plugin = request.config.pluginmanager.get_plugin(PLUGIN_NAME)
    if plugin is not None and plugin.capture.active:
        return Breaks(plugin.capture, plugin.policy)
    cap = request.config.stash.get(_FIXTURE_CAPTURE, None)
    if cap is None:
        from .trace.pertest import TestCapture

        cap = request.config.stash[_FIXTURE_CAPTURE] = TestCapture()
    cap.start(request.node.nodeid)
    request.addfinalizer(cap.stop)
    return Breaks(cap, Policy(rootdir=project_root(request.config), include=read_settings(request.config).include))

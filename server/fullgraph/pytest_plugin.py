"""pytest plugin: torch.compile graph breaks as test failures (entry point ``pytest11: fullgraph``).

    pytest --graph-breaks=fail            # or graph_breaks = "fail" in [tool.pytest.ini_options]
    pytest --graph-breaks=warn --graph-breaks-include transformers
    pytest --graph-breaks=fail --graph-breaks-baseline .fullgraph/baseline.json [--graph-breaks-update-baseline]
    pytest -p no:fullgraph                # do not load the plugin at all

With the option on, every graph break Dynamo meets during a test (setup, call and teardown) is
recorded by the runtime capture of `fullgraph trace` (`fullgraph.trace.pertest`); Dynamo's caches
are reset before each test (``torch._dynamo.reset()``), so each test compiles, and reports, the
breaks of what it runs.  At the end of the call a break in project code fails the test with the
text `fullgraph trace` prints for it; breaks in installed packages are warnings
(`fullgraph.trace.verdict` decides).  A summary table closes the run and the breaks are merged
into ``.fullgraph/breaks.json``, where the editor shows them.

This module is imported by every pytest run in an environment where fullgraph is installed, so it
imports nothing but the standard library and pytest: torch and the rest of fullgraph are loaded
only when the option is on (or a test asks for the ``graph_breaks`` fixture).
"""
from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, field

import pytest

MODES = ("fail", "warn", "off")
PLUGIN_NAME = "fullgraph-graph-breaks"
MARKER = ("graph_breaks(enabled=True, *, allow=(), max=0): fullgraph's graph-break check for this test: "
          "graph_breaks(False) skips it; allow=[codes] accepts breaks with these GB/FG codes; max=N accepts "
          "up to N breaks")


class GraphBreakWarning(UserWarning):
    """A graph break that does not fail the test (in a library, or --graph-breaks=warn)."""


@dataclass
class Settings:
    mode: str = "off"
    include: list[str] = field(default_factory=list)
    baseline: str | None = None
    update_baseline: bool = False


@dataclass
class Marker:
    enabled: bool = True
    allow: list[str] = field(default_factory=list)
    max: int = 0


_FIXTURE_CAPTURE = pytest.StashKey[object]()
_MARKER = pytest.StashKey[Marker]()
_RESULT = pytest.StashKey[dict]()


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
    parser.addini("graph_breaks", "fullgraph: fail | warn | off (default off)", default=None)
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
    s.update_baseline = bool(opt.graph_breaks_update_baseline)
    if s.update_baseline and not s.baseline:
        raise pytest.UsageError("--graph-breaks-update-baseline needs --graph-breaks-baseline FILE")
    if s.update_baseline and s.mode == "off":
        raise pytest.UsageError("--graph-breaks-update-baseline needs --graph-breaks=fail or warn "
                                "(with the check off nothing is recorded)")
    return s


def pytest_configure(config):
    config.addinivalue_line("markers", MARKER)
    settings = read_settings(config)
    if settings.mode != "off":
        config.pluginmanager.register(GraphBreaks(config, settings), PLUGIN_NAME)


def pytest_unconfigure(config):
    cap = config.stash.get(_FIXTURE_CAPTURE, None)
    if cap is not None:
        cap.close()


def read_marker(item) -> Marker:
    m = item.get_closest_marker("graph_breaks")
    if m is None:
        return Marker()
    where = f"{item.nodeid}: @pytest.mark.graph_breaks"
    if len(m.args) > 1 or (m.args and not isinstance(m.args[0], bool)):
        pytest.fail(f"{where}: the only positional argument is True or False", pytrace=False)
    unknown = set(m.kwargs) - {"allow", "max"}
    if unknown:
        pytest.fail(f"{where}: unknown argument {', '.join(sorted(unknown))} (allow=[codes], max=N)", pytrace=False)
    allow = m.kwargs.get("allow", [])
    if isinstance(allow, str):
        allow = [allow]
    if not isinstance(allow, (list, tuple, set)) or not all(isinstance(a, str) for a in allow):
        pytest.fail(f"{where}: allow= takes a list of codes, e.g. allow=[\"FG303\", \"GB0025\"]", pytrace=False)
    mx = m.kwargs.get("max", 0)
    if not isinstance(mx, int) or isinstance(mx, bool) or mx < 0:
        pytest.fail(f"{where}: max= takes a number of breaks (0 or more)", pytrace=False)
    return Marker(enabled=m.args[0] if m.args else True, allow=list(allow), max=mx)


# ---- the check (registered only when --graph-breaks is fail or warn) ------------------------------------
class GraphBreaks:
    def __init__(self, config, settings: Settings):
        from .trace.pertest import TestCapture, now
        from .trace.verdict import Policy

        self.config = config
        self.settings = settings
        self.worker = hasattr(config, "workerinput")  # a pytest-xdist worker: the controller reports
        baseline = None
        if settings.baseline:
            from .baseline import BaselineError, load

            try:
                baseline = load(settings.baseline, missing_ok=settings.update_baseline,
                                update_flag="--graph-breaks-update-baseline")
            except BaselineError as e:
                raise pytest.UsageError(str(e)) from None
        self.policy = Policy(rootdir=str(config.rootpath), include=settings.include,
                             baseline=None if settings.update_baseline else baseline)
        self.baseline = baseline
        self.capture = TestCapture()
        self.results: list[dict] = []
        self.started = now()
        self.record_path: str | None = None

    # -- per test --------------------------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item):
        try:
            marker, error = read_marker(item), None
        except pytest.fail.Exception as e:  # raised after pytest's own setup, which teardown expects
            marker, error = Marker(enabled=False), e
        item.stash[_MARKER] = marker
        if marker.enabled:
            self.capture.start(item.nodeid)
        result = yield
        if error is not None:
            raise error
        return result

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item):
        try:
            result = yield
        except BaseException:
            self._check(item, test_failed=True)
            raise
        self._check(item, test_failed=False)
        return result

    def _check(self, item, test_failed: bool) -> None:
        from .trace.verdict import LIBRARY, failure_text, judge, warning_text

        if not self.capture.active:
            return
        marker = item.stash.get(_MARKER, Marker())
        record = self.capture.snapshot()
        if not record.breaks:
            return
        verdict = judge(record, self.policy, marker.allow, marker.max)
        base = str(self.config.rootpath)
        fail = self.settings.mode == "fail" and verdict.over and not self.settings.update_baseline
        for b, kind in zip(record.breaks, verdict.kinds):
            if kind == LIBRARY or (kind in ("project", "included") and not fail and verdict.over):
                warnings.warn_explicit(GraphBreakWarning(warning_text(b, kind, base)), GraphBreakWarning,
                                       filename=b.path, lineno=b.line)
        if fail:
            text = failure_text(verdict.counted, record, base, self.settings.mode, marker.max)
            if test_failed:  # the test's own failure stays what it reports; the breaks go below it
                item.add_report_section("call", "graph breaks", text)
            else:
                pytest.fail(text, pytrace=False)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item, nextitem):
        try:
            return (yield)
        finally:
            tr = self.capture.stop()
            if tr is not None:
                item.stash[_RESULT] = self._result(tr, item.stash.get(_MARKER, Marker()))

    def _result(self, tr, marker: Marker) -> dict:
        from .trace.verdict import judge

        verdict = judge(tr.record, self.policy, marker.allow, marker.max)
        return dict(tr.to_json(), kinds=verdict.kinds)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if call.when == "teardown" and _RESULT in item.stash:
            report.fullgraph_breaks = item.stash[_RESULT]  # plain JSON: pytest-xdist sends it to the controller
        return report

    def pytest_runtest_logreport(self, report):
        data = getattr(report, "fullgraph_breaks", None)
        if report.when == "teardown" and isinstance(data, dict):
            self.results.append(data)

    # -- end of the session -----------------------------------------------------------------------------
    def pytest_sessionfinish(self, session):
        self.capture.close()
        if self.worker:
            return
        from .trace.pertest import merge_into_file, merge_records, now
        from .trace.record import Record, default_record_path

        records = [Record.from_json(d["record"]) for d in self.results]
        argv = ["pytest", *[str(a) for a in self.config.invocation_params.args]]
        merged = merge_records(records, command=argv, exit_code=int(session.exitstatus), started=self.started,
                               finished=now())
        if merged.breaks or merged.files:
            self.record_path = default_record_path(str(self.config.rootpath))
            try:
                merge_into_file(merged, self.record_path)
            except OSError as e:
                self.record_path = None
                self.config.issue_config_time_warning(
                    GraphBreakWarning(f"fullgraph: cannot write the record: {e}"), stacklevel=2)
        if self.settings.update_baseline:
            self._update_baseline(records)

    def _update_baseline(self, records) -> None:
        from .baseline import cached_lines
        from .trace.verdict import COUNTED, KNOWN

        seen = set()
        keys = []
        lines_of = cached_lines()
        for d, record in zip(self.results, records):
            for b, kind in zip(record.breaks, d.get("kinds") or []):
                site = (b.path, b.line, b.column, b.gb_type)
                if (kind in COUNTED or kind == KNOWN) and site not in seen:
                    seen.add(site)
                    keys.append(self.baseline.key(b.path, b.line, b.code, lines_of))
        self.baseline.replace("runtime", keys)
        self.baseline.save()

    def pytest_terminal_summary(self, terminalreporter):
        if self.worker:
            return
        from .trace.record import Record
        from .trace.verdict import site_text

        tw = terminalreporter
        rows = []
        total: dict[str, int] = {}
        for d in sorted(self.results, key=lambda d: d["nodeid"]):
            record = Record.from_json(d["record"])
            if not record.breaks:
                continue
            kinds = d.get("kinds") or ["?"] * len(record.breaks)
            sites = []
            for b, kind in zip(record.breaks, kinds):
                total[kind] = total.get(kind, 0) + 1
                sites.append(f"{site_text(b, str(self.config.rootpath))} {b.code} ({kind})")
            rows.append((d["nodeid"], str(sum(b.count for b in record.breaks)), sites, d.get("reused") or []))
        tw.write_sep("=", "fullgraph: graph breaks")
        if rows:
            w0 = max(len("test"), *(len(r[0]) for r in rows))
            tw.write_line(f"{'test'.ljust(w0)}  breaks  sites")
            for nodeid, n, sites, reused in rows:
                tw.write_line(f"{nodeid.ljust(w0)}  {n.rjust(6)}  {sites[0]}")
                for s in sites[1:]:
                    tw.write_line(f"{''.ljust(w0)}  {''.rjust(6)}  {s}")
                for r in reused:
                    tw.write_line(f"{''.ljust(w0)}  {''.rjust(6)}  note: {r['function']} was compiled first by "
                                  f"{r['first']} (compiled again after Dynamo's reset)")
        n_tests = len(self.results)
        n = sum(total.values())
        kinds = ", ".join(f"{v} {k}" for k, v in sorted(total.items()))
        tests = f"{n_tests} checked test{'s' if n_tests != 1 else ''}"
        line = f"{n} graph break site{'s' if n != 1 else ''} in {len(rows)} of {tests} ({kinds})" if rows \
            else f"no graph breaks in {tests}"
        if self.record_path:
            line += f"; recorded in {_rel(self.record_path, str(self.config.invocation_params.dir))}"
        tw.write_line(line)
        if self.settings.update_baseline:
            tw.write_line(f"fullgraph: wrote {self.baseline.total('runtime')} runtime break(s) to the baseline "
                          f"{self.settings.baseline}")


def _rel(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


# ---- the fixture ---------------------------------------------------------------------------------------
class Breaks:
    """The graph breaks of the running test so far (the ``graph_breaks`` fixture).

    ``records`` are `fullgraph.trace.record.Break`s (path, line, gb_code, gb_type, explanation,
    stack, root, count); ``in_project()`` / ``in_libraries()`` split them as the check does."""

    def __init__(self, capture, policy):
        self._capture, self._policy = capture, policy

    @property
    def records(self) -> list:
        return list(self._capture.snapshot().breaks)

    def _kind(self, kinds) -> list:
        from .trace.verdict import kind_of

        return [b for b in self.records if kind_of(b, self._policy) in kinds]

    def in_project(self) -> list:
        return self._kind(("project",))

    def in_libraries(self) -> list:
        return self._kind(("library", "included"))

    def codes(self) -> list[str]:
        return sorted({b.code for b in self.records})

    def __iter__(self):
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        return f"<graph_breaks {[f'{os.path.basename(b.path)}:{b.line} {b.code}' for b in self.records]}>"


@pytest.fixture
def graph_breaks(request):
    """The graph breaks Dynamo met in this test so far (records them even with --graph-breaks=off)."""
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
    return Breaks(cap, Policy(rootdir=str(request.config.rootpath), include=read_settings(request.config).include))

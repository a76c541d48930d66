"""The graph-break and recompile check of the pytest plugin: registered by `fullgraph.pytest_plugin`
only when ``--graph-breaks`` or ``--recompiles`` is fail or warn, so a run without them never imports
this module.

Per test: the marker is read, Dynamo is reset and the capture started before the test's fixtures
(setup); at the end of the call the breaks so far are judged (`fullgraph.trace.verdict`): library
breaks warn, counted breaks fail the test (or warn); after teardown the test's record rides on
the teardown report (so pytest-xdist brings it to the controller).  At the end the controller
merges the records into ``.fullgraph/breaks.json``, updates the baseline if asked, and prints the
table.
"""
from __future__ import annotations

import os
import warnings

import pytest

from .pytest_settings import (
    GraphBreakWarning,
    Marker,
    RecompileMarker,
    RecompileWarning,
    Settings,
)

_MARKER = pytest.StashKey[Marker]()
_RC_MARKER = pytest.StashKey[RecompileMarker]()
_RESULT = pytest.StashKey[dict]()


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


def read_recompiles_marker(item) -> RecompileMarker:
    m = item.get_closest_marker("recompiles")
    if m is None:
        return RecompileMarker()
    where = f"{item.nodeid}: @pytest.mark.recompiles"
    if len(m.args) > 1 or (m.args and not isinstance(m.args[0], bool)):
        pytest.fail(f"{where}: the only positional argument is True or False", pytrace=False)
    unknown = set(m.kwargs) - {"max"}
    if unknown:
        pytest.fail(f"{where}: unknown argument {', '.join(sorted(unknown))} (max=N)", pytrace=False)
    mx = m.kwargs.get("max", 0)
    if not isinstance(mx, int) or isinstance(mx, bool) or mx < 0:
        pytest.fail(f"{where}: max= takes a number of recompiles (0 or more)", pytrace=False)
    return RecompileMarker(enabled=m.args[0] if m.args else True, max=mx)


def project_root(config) -> str:
    """Where project code lives: pytest's rootdir, or the nearest directory above it with
    pyproject.toml or .git (a rootdir of tests/ with its own pytest.ini must not make src/ a library)."""
    from .trace.record import find_project_root

    root = str(config.rootpath)
    top = find_project_root(root)
    return top if os.path.commonpath([top, root]) == top else root


# ---- the check (registered only when --graph-breaks is fail or warn) ------------------------------------
class GraphBreaks:
    def __init__(self, config, settings: Settings):
        from .trace.pertest import TestCapture
        from .trace.record import now
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
        self.policy = Policy(rootdir=project_root(config), include=settings.include,
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
            marker, rc_marker, error = read_marker(item), read_recompiles_marker(item), None
        except pytest.fail.Exception as e:  # raised after pytest's own setup, which teardown expects
            marker, rc_marker, error = Marker(enabled=False), RecompileMarker(enabled=False), e
        if self.settings.mode == "off":
            marker = Marker(enabled=False)
        if self.settings.recompiles == "off":
            rc_marker = RecompileMarker(enabled=False)
        item.stash[_MARKER] = marker
        item.stash[_RC_MARKER] = rc_marker
        if marker.enabled or rc_marker.enabled:
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
        base = self.policy.rootdir  # paths relative to the project root
        texts = []
        if marker.enabled and record.breaks:
            verdict = judge(record, self.policy, marker.allow, marker.max)
            fail = self.settings.mode == "fail" and verdict.over and not self.settings.update_baseline
            for b, kind in zip(record.breaks, verdict.kinds):
                if kind == LIBRARY or (kind in ("project", "included") and not fail and verdict.over):
                    warnings.warn_explicit(GraphBreakWarning(warning_text(b, kind, base)), GraphBreakWarning,
                                           filename=b.path, lineno=b.line)
            if fail:
                texts.append(("graph breaks",
                              failure_text(verdict.counted, record, base, self.settings.mode, marker.max)))
        rc_text = self._check_recompiles(item, record, base)
        if rc_text:
            texts.append(("recompiles", rc_text))
        if texts:
            if test_failed:  # the test's own failure stays what it reports; the breaks go below it
                for title, text in texts:
                    item.add_report_section("call", title, text)
            else:
                pytest.fail("\n\n".join(text for _, text in texts), pytrace=False)

    def _check_recompiles(self, item, record, base: str) -> str | None:
        """Warn about the test's recompiles, or return the failure text (--recompiles=fail, over max)."""
        from .trace.verdict import (
            LIBRARY,
            judge_recompiles,
            recompile_failure_text,
            recompile_warning_text,
        )

        marker = item.stash.get(_RC_MARKER, RecompileMarker(enabled=False))
        if not marker.enabled or not record.recompiles:
            return None
        verdict = judge_recompiles(record, self.policy, marker.max)
        fail = self.settings.recompiles == "fail" and verdict.over
        for r, kind in zip(record.recompiles, verdict.kinds):
            if kind == LIBRARY or (not fail and verdict.over):
                warnings.warn_explicit(RecompileWarning(recompile_warning_text(r, kind, base)), RecompileWarning,
                                       filename=r.path, lineno=r.line)
        if fail:
            return recompile_failure_text(verdict.counted, base, self.settings.recompiles, marker.max)
        return None

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item, nextitem):
        try:
            return (yield)
        finally:
            tr = self.capture.stop()
            if tr is not None:
                item.stash[_RESULT] = self._result(tr, item.stash.get(_MARKER, Marker()),
                                                   item.stash.get(_RC_MARKER, RecompileMarker(enabled=False)))

    def _result(self, tr, marker: Marker, rc_marker: RecompileMarker) -> dict:
        from .trace.verdict import judge, judge_recompiles

        # the record keeps what Dynamo did; the flags say which checks this test had (markers, modes)
        verdict = judge(tr.record, self.policy, marker.allow, marker.max)
        return dict(tr.to_json(), kinds=verdict.kinds, breaks_checked=marker.enabled,
                    recompiles_checked=rc_marker.enabled,
                    recompile_kinds=judge_recompiles(tr.record, self.policy, rc_marker.max).kinds)

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
        from .trace.pertest import merge_records
        from .trace.record import Record, default_record_path, merge_into_file, now

        records = [Record.from_json(d["record"]) for d in self.results]
        argv = ["pytest", *[str(a) for a in self.config.invocation_params.args]]
        merged = merge_records(records, command=argv, exit_code=int(session.exitstatus), started=self.started,
                               finished=now())
        if merged.breaks or merged.files or merged.recompiles:
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
            if not d.get("breaks_checked", True):
                continue
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
        if self.settings.recompiles != "off":
            self._recompiles_summary(tw)
        if self.settings.mode == "off":
            if self.record_path:
                tw.write_line(f"recorded in {_rel(self.record_path, str(self.config.invocation_params.dir))}")
            return
        rows = []
        total: dict[str, int] = {}
        for d in sorted(self.results, key=lambda d: d["nodeid"]):
            record = Record.from_json(d["record"])
            if not record.breaks or not d.get("breaks_checked", True):
                continue
            kinds = d.get("kinds") or ["?"] * len(record.breaks)
            sites = []
            for b, kind in zip(record.breaks, kinds):
                total[kind] = total.get(kind, 0) + 1
                sites.append(f"{site_text(b, self.policy.rootdir)} {b.code} ({kind})")
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
        n_tests = sum(1 for d in self.results if d.get("breaks_checked", True))
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


    def _recompiles_summary(self, tw) -> None:
        from .trace.record import Record
        from .trace.verdict import recompile_site_text

        rows = []
        total = 0
        for d in sorted(self.results, key=lambda d: d["nodeid"]):
            record = Record.from_json(d["record"])
            if not record.recompiles or not d.get("recompiles_checked", True):
                continue
            kinds = d.get("recompile_kinds") or ["?"] * len(record.recompiles)
            sites = [f"{recompile_site_text(r, self.policy.rootdir)} {r.function}: {r.guard}"
                     f"{' (x' + str(r.count) + ')' if r.count > 1 else ''}{' [limit hit]' if r.limit_hit else ''}"
                     f" ({kind})" for r, kind in zip(record.recompiles, kinds)]
            n = sum(r.count for r in record.recompiles)
            total += n
            rows.append((d["nodeid"], str(n), sites))
        tw.write_sep("=", "fullgraph: recompiles")
        if rows:
            w0 = max(len("test"), *(len(r[0]) for r in rows))
            tw.write_line(f"{'test'.ljust(w0)}  recompiles  guard that failed")
            for nodeid, n, sites in rows:
                tw.write_line(f"{nodeid.ljust(w0)}  {n.rjust(10)}  {sites[0]}")
                for site in sites[1:]:
                    tw.write_line(f"{''.ljust(w0)}  {''.rjust(10)}  {site}")
        n_tests = sum(1 for d in self.results if d.get("recompiles_checked", True))
        tests = f"{n_tests} checked test{'s' if n_tests != 1 else ''}"
        tw.write_line(f"{total} recompile{'s' if total != 1 else ''} in {len(rows)} of {tests}" if rows
                      else f"no recompiles in {tests}")


def _rel(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


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

    @property
    def recompiles(self) -> list:
        """The recompiles of the running test so far (`fullgraph.trace.record.Recompile`: path, line,
        function, guard, target, count, limit_hit)."""
        return list(self._capture.snapshot().recompiles)

    def __iter__(self):
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        return f"<graph_breaks {[f'{os.path.basename(b.path)}:{b.line} {b.code}' for b in self.records]}>"



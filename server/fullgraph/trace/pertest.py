"""Runtime capture one test at a time, inside the test process (the pytest plugin's recorder).

The same capture as `fullgraph trace -- COMMAND`: the `_hook.Recorder` handler on the
``torch.__trace`` logger writes Dynamo's events to part files, and `collect.build_record` turns them
into a `Record`.  Here the recorder is attached in-process (no bootstrap) and switched to a new
directory for each test, so each test gets a record of its own; between tests it is paused.

    cap = TestCapture()
    cap.start("test_x.py::test_a")        # resets Dynamo's caches first (if torch._dynamo is loaded)
    ...                                   # the test runs
    cap.snapshot()                        # the record so far (the fixture reads it mid-test)
    tr = cap.stop()                       # TestRecord: record + functions reused from earlier tests
    merge_records([tr.record, ...])       # the session's record
    merge_into_file(record, path)         # into .fullgraph/breaks.json, keeping other files' breaks
"""
from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field

from . import _hook
from .collect import build_record, process_from_part_file
from .parse import is_library_path
from .record import Break, Recompile, Record, norm_path, recompile_sort_key


@dataclass
class TestRecord:
    __test__ = False  # not a test class, whatever module imports it
    nodeid: str
    record: Record
    # compiled functions this test compiled that an earlier test (in this process) compiled first:
    # {"path", "function", "first"}; Dynamo was reset in between, so they were compiled again here
    reused: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"nodeid": self.nodeid, "record": self.record.to_json(), "reused": [dict(r) for r in self.reused]}

    @staticmethod
    def from_json(d: dict) -> TestRecord:
        return TestRecord(nodeid=str(d.get("nodeid")), record=Record.from_json(d.get("record")),
                          reused=[r for r in d.get("reused") or [] if isinstance(r, dict)])


def reset_dynamo() -> bool:
    """torch._dynamo.reset() if Dynamo is loaded (never imports torch).  True if it was reset."""
    dynamo = sys.modules.get("torch._dynamo")
    reset = getattr(dynamo, "reset", None)
    if reset is None:
        return False
    reset()
    return True


class TestCapture:
    __test__ = False

    def __init__(self, reset: bool = True):
        self.reset = reset
        self._tmp: str | None = None
        self._recorder: _hook.Recorder | None = None
        self._n = 0
        self._dir: str | None = None
        self._nodeid: str | None = None
        self._first: dict[tuple[str, str], str] = {}  # compiled function -> the first test that compiled it

    @property
    def active(self) -> bool:
        return self._dir is not None

    def start(self, nodeid: str) -> None:
        if self._dir is not None:
            self.stop()
        if self.reset:
            reset_dynamo()
        if self._recorder is None:
            self._tmp = tempfile.mkdtemp(prefix="fullgraph-pytest-")
            self._recorder = _hook.Recorder(None)
            logging.getLogger(_hook.TRACE_LOGGER).addHandler(self._recorder)
        self._n += 1
        self._dir = os.path.join(self._tmp, str(self._n))
        os.makedirs(self._dir)
        self._nodeid = nodeid
        self._recorder.switch(self._dir)

    def _build(self) -> tuple[Record, list]:
        files = sorted(os.path.join(self._dir, f) for f in os.listdir(self._dir) if f.endswith(".jsonl"))
        procs = [process_from_part_file(f) for f in files]
        return build_record(procs, source="live", command=[]), procs

    def snapshot(self) -> Record:
        """The current test's record so far (an empty one when no test is being captured)."""
        if self._dir is None:
            return Record(source="live")
        return self._build()[0]

    def stop(self) -> TestRecord | None:
        if self._dir is None:
            return None
        self._recorder.switch(None)
        record, procs = self._build()
        nodeid = self._nodeid or ""
        reused = []
        for p in procs:
            for (path, function), _line in sorted(p.compiled_functions().items()):
                if is_library_path(path):
                    continue
                first = self._first.setdefault((path, function), nodeid)
                if first != nodeid:
                    reused.append({"path": path, "function": function, "first": first})
        shutil.rmtree(self._dir, ignore_errors=True)
        self._dir = self._nodeid = None
        return TestRecord(nodeid=nodeid, record=record, reused=reused)

    def close(self) -> None:
        self.stop()
        if self._recorder is not None:
            logging.getLogger(_hook.TRACE_LOGGER).removeHandler(self._recorder)
            self._recorder = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None


def _key(b: Break) -> tuple:
    root = (norm_path(b.root["path"]), b.root.get("function")) if b.root else None
    return (norm_path(b.path), b.line, b.column, b.gb_type, root)


def merge_records(records: list[Record], **meta) -> Record:
    """One record of several (the tests of a session): the same break in several adds up its counts;
    a file reported with two different contents is left out of ``files`` (it changed during the run)."""
    out = Record(source="live", **meta)
    merged: dict[tuple, Break] = {}
    conflict: set[str] = set()
    for r in records:
        out.torch_version = out.torch_version or r.torch_version
        for path, h in r.files.items():
            if out.files.setdefault(path, h) != h:
                conflict.add(path)
        for b in r.breaks:
            k = _key(b)
            if k in merged:
                merged[k].count += b.count
            else:
                merged[k] = Break.from_json(b.to_json())
    for path in conflict:
        out.files.pop(path, None)
    out.breaks = sorted(merged.values(), key=lambda b: (b.path, b.line, b.column or 0, b.gb_type))
    recompiles: dict[tuple, Recompile] = {}
    for r in records:
        for rc in r.recompiles:
            k = recompile_key(rc)
            if k in recompiles:
                old = recompiles[k]
                old.count += rc.count
                old.resumed += rc.resumed
                old.guards.extend(g for g in rc.guards if g not in old.guards)
                del old.guards[10:]
                if rc.limit_hit:
                    old.limit_hit, old.limit = True, rc.limit
            else:
                recompiles[k] = Recompile.from_json(rc.to_json())
    out.recompiles = sorted(recompiles.values(), key=recompile_sort_key)
    return out


def recompile_key(r: Recompile) -> tuple:
    """The same recompile in two records: compiled function, site, guarded value (or guard)."""
    return (norm_path(r.frame.get("path", "")), r.frame.get("line"), r.function, norm_path(r.path), r.line,
            (r.target or {}).get("expr") or r.guard)

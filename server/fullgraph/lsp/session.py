"""The session: one server's state (settings, configuration, the workspace, open documents, results) and
the analysis pipeline run on it (schedule -> analyse -> publish -> fixes), behind the public methods the
feature modules call (schedule, result_for, refresh_others, diagnostics_of, engine_fixes_now, ...).
`FullgraphServer` is the pygls `LanguageServer` each handler receives as `ls`; server.py makes the one
instance and router.py lists the handlers.  What an open URI is analysed as (a file, or a notebook as
one module shown in its cells) is documents.py.

Threading model: LSP messages are handled on the asyncio event loop; every engine call (analysis,
findings, fixes) runs on one engine thread in priority order (lsp/engine.py: the edited document
first, fix offers and indexing in the background), so the workspace is never touched concurrently
and the loop never blocks.  Changes are debounced on the loop, and results for a stale document
version are dropped.  Diagnostics are pulled (textDocument/diagnostic) when the client supports
it, pushed otherwise.
"""
from __future__ import annotations

import asyncio
import copy
import logging
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..api import Workspace, decode_source, SourceError
from ..conditional import confirmed_frames, gather, is_group
from ..config import MAX_FILE_BYTES, Config, apply_settings, discover
from ..model import Finding
from ..positions import LineIndex
from ..torchinfo import versions_text
from . import convert as cv
from .documents import Documents
from .engine import FIXES, NOW, REFRESH, Engine
from .protocol import FullgraphProtocol

log = logging.getLogger("fullgraph.lsp")

# Settings the VS Code client owns (the server accepts and ignores them).
CLIENT_SETTINGS = {"enable", "interpreter", "importStrategy", "showNotifications", "path", "trace", "args", "cwd"}
SERVER_SETTINGS = {"select", "ignore", "extendSelect", "extendIgnore", "torchVersion", "roots", "exclude",
                   "extendExclude", "follow", "src", "extraPaths", "customOpNamespace", "codeLens", "logLevel",
                   "debounce", "conditional", "trusted"}
LOG_LEVELS = {"error": t.MessageType.Error, "warning": t.MessageType.Warning, "info": t.MessageType.Info,
              "debug": t.MessageType.Log}
# Fix phases wait until no document has changed, and no squiggles were published, for this long: a fix
# job cannot stop half-way through a finding (tens of ms), so one running while the user types delays
# the next keystroke's squiggles.  Counting from the publication too matters for large files, whose
# analysis alone outlasts the pause (the next keystroke is typed after the squiggles appear).  The
# lightbulb does not wait for the phase (code actions compute what they need).
FIX_IDLE = 0.3


# Notebooks: Jupyter's notebook type in VS Code, Python cells (the client syncs cells through these).
NOTEBOOK_SYNC = t.NotebookDocumentSyncOptions(notebook_selector=[t.NotebookDocumentFilterWithCells(
    notebook="jupyter-notebook", cells=[t.NotebookCellLanguage(language="python")])], save=True)


@dataclass
class DocResult:
    version: int | None
    text: str
    index: LineIndex
    findings: list[Finding]
    diagnostics: list[t.Diagnostic]  # one per finding, in the coordinates of the document or cell showing it
    owners: list[str] = field(default_factory=list)  # the URI showing each diagnostic (a cell's, for notebooks)
    key: str = ""  # the URI of the analysed unit (the document, or the notebook)
    published: tuple[str, ...] = ()  # URIs diagnostics were pushed to (cells that lose theirs get [])
    done: asyncio.Event = field(default_factory=asyncio.Event)
    fixes_done: bool = False  # the fix phase attached fixes to these findings
    # fixes computed for a code action before the fix phase got there: _diag_key -> fixes
    fixes_on_request: dict = field(default_factory=dict)


class FullgraphServer(LanguageServer):
    """The language server and its session: what handlers receive as `ls`."""

    def __init__(self):
        super().__init__("fullgraph", __version__, text_document_sync_kind=t.TextDocumentSyncKind.Incremental,
                         notebook_document_sync=NOTEBOOK_SYNC, protocol_cls=FullgraphProtocol)
        self.engine = Engine()
        self.docs = Documents(self)
        self._paths: dict[str, str] = {}  # uri -> absolute path (memo of path_of)
        self.fix_phases = 0  # numbers fix phases: the newest document's fixes are computed first
        self.last_change = 0.0  # time.monotonic() of the last didChange (fix phases wait for a pause)
        self.last_published = 0.0  # time.monotonic() of the last analysis' squiggles
        # the diagnostics made for the last publications, by what made them (convert.diagnostic_key)
        self._diagnostics: dict[tuple, t.Diagnostic] = {}
        self.fix_jobs: dict[str, asyncio.Future] = {}  # uri -> its fix phase's current engine job
        self.settings: dict[str, Any] = {}
        self.config = Config()
        self.ws = Workspace(self.config)
        self.results: dict[str, DocResult] = {}
        self.tasks: dict[str, asyncio.Task] = {}
        self.pull = False
        self.refresh_support = False
        self.watch_support = False
        self.config_support = False
        self.debounce = 0.15
        self.log_level = "info"
        self.root: str | None = None
        self.indexed = False
        self.generation = 0  # bumps whenever any analysis input changes
        self.record = None  # the runtime capture (fullgraph trace), if any
        self.record_path: str | None = None
        self.record_poll: asyncio.Future | None = None  # configuration.await_runtime_record's wait for a run

    # ---- logging -------------------------------------------------------------------------------
    def log(self, level: str, message: str) -> None:
        order = ["error", "warning", "info", "debug"]
        if order.index(level) > order.index(self.log_level if self.log_level in order else "info"):
            return
        try:
            self.window_log_message(t.LogMessageParams(type=LOG_LEVELS[level], message=f"[fullgraph] {message}"))
        except Exception:  # the transport may be closing
            pass

    # ---- settings ------------------------------------------------------------------------------
    def apply_editor_settings(self, settings: dict | None) -> None:
        settings = dict(settings or {})
        if "settings" in settings and isinstance(settings["settings"], dict):
            settings = settings["settings"]
        self.settings = settings
        base = discover(Path(self.root)) if self.root else Config()
        engine_settings = {}
        for key, value in settings.items():
            if key in CLIENT_SETTINGS:
                continue
            if key not in SERVER_SETTINGS:
                self.log("warning", f"unknown setting fullgraph.{key} ignored")
                continue
            if key == "logLevel":
                if value in LOG_LEVELS:
                    self.log_level = value
                else:
                    self.log("warning", f"fullgraph.logLevel must be one of {sorted(LOG_LEVELS)}; got {value!r}")
            elif key == "debounce":
                if isinstance(value, (int, float)) and 0 <= value <= 5:
                    self.debounce = float(value)
            elif key in ("codeLens", "trusted"):
                pass
            elif value not in (None, "", []):
                engine_settings[key] = value
        apply_settings(base, engine_settings, "editor settings")
        for w in base.warnings:
            self.log("warning", w)
        base.warnings.clear()
        self.config = base

    def trusted(self) -> bool:
        """The client said the workspace is trusted (VS Code's `isTrusted`): "Confirm with Dynamo" runs code."""
        return self.settings.get("trusted") is True

    def code_lens_enabled(self) -> bool:
        return self.settings.get("codeLens", True) is not False

    def rebuild_workspace(self) -> None:
        """New config: a fresh workspace with every open document and (re)indexed files."""
        ws = Workspace(self.config)
        for key in self.docs.keys():
            doc = self.docs.get(key)
            path = self.path_of(key)
            if path and doc is not None:
                self._set_buffer(ws, path, doc.text)
        self.ws = ws
        self.indexed = False
        self.generation += 1
        # results of the old configuration must not answer the next pull
        for task in self.tasks.values():
            task.cancel()
        self.tasks.clear()
        self.results.clear()

    # ---- paths ---------------------------------------------------------------------------------
    def path_of(self, uri: str) -> str | None:
        p = self._paths.get(uri)
        if p is None:
            p = to_fs_path(uri)
            if p:
                p = os.path.abspath(p)
            else:
                # untitled buffers: a stable fake path so they can be analysed
                name = re.sub(r"[^A-Za-z0-9_.-]", "_", uri.split(":", 1)[-1]) or "untitled"
                p = os.path.abspath(os.path.join(os.sep, "__fullgraph_untitled__", name + ".py"))
            if len(self._paths) > 50000:
                self._paths.clear()
            self._paths[uri] = p
        return p

    def _open_uri(self, path: str) -> str | None:
        """The URI of the open document or notebook at `path`, as the client spells it."""
        for uri in self.docs.keys():
            if self.path_of(uri) == path:
                return uri
        return None

    def uri_of(self, path: str) -> str:
        return self._open_uri(path) or from_fs_path(path) or path

    def index_of(self, path: str) -> LineIndex | None:
        uri = self._open_uri(path)
        doc = self.docs.get(uri) if uri is not None else None
        if doc is not None:
            return LineIndex(doc.text)
        text = self.ws.texts.get(path)
        if text is None:
            try:
                text = decode_source(Path(path).read_bytes())
            except (OSError, SourceError):
                return None
        return LineIndex(text)

    @property
    def encoding(self) -> str:
        return cv.encoding_name(self.workspace.position_encoding)

    # ---- engine calls (worker thread) ----------------------------------------------------------
    def _set_buffer(self, ws: Workspace, path: str, text: str) -> None:
        if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
            ws.set_error(path, "FG002", f"document is over {MAX_FILE_BYTES // 1024} KiB; not analysed")
        elif "\x00" in text:
            ws.set_error(path, "FG002", "document contains NUL characters (binary?); not analysed")
        else:
            ws.set_text(path, text)

    def _engine_analyze(self, path: str, text: str) -> list[Finding]:
        self._set_buffer(self.ws, path, text)
        return self._with_runtime(path, text, self._gathered(self._static_findings(path)))

    def _engine_findings(self, path: str) -> list[Finding]:
        text = self.ws.texts.get(path)
        return self._with_runtime(path, text, self._gathered(self._static_findings(path)))

    def _gathered(self, findings: list[Finding]) -> list[Finding]:
        """Conditional library findings: one per compile call and library (conditional.py), the sites the
        runtime record saw break made findings of their own."""
        root = os.path.dirname(os.path.dirname(self.record_path)) if self.record_path else self.root
        return gather(findings, self.config.conditional, self.record, root)

    def _static_findings(self, path: str) -> list[Finding]:
        """The file's findings, and an information diagnostic on each compile call it cannot follow (FG003)."""
        return self.ws.findings_for([path], fixes=False) + self.ws.unfollowed([path])

    def _engine_fixes(self, uri: str, version, path: str, text: str, findings: list[Finding], start: int,
                      priority: tuple[int, int]) -> int:
        """Second phase: attach fixes to findings[start:] until done or something more urgent waits.
        Returns how far it got, or -1 if the document moved on."""
        i = start
        while i < len(findings):
            if self.ws.texts.get(path) != text or self.docs.version(uri) != version:
                return -1
            if i > start and self.engine.urgent_waiting(priority):
                break
            if findings[i].origin != "runtime" and not is_group(findings[i]):
                self.ws.attach_fixes([findings[i]])
            i += 1
        return i

    def engine_fixes_now(self, path: str, text: str, findings: list[Finding]) -> list[Finding] | None:
        """Engine job for a code action that comes before the fix phase got to its findings: copies
        of `findings` with their fixes, or None if the buffer moved on."""
        if self.ws.texts.get(path) != text:
            return None
        out = [_fix_copy(f) for f in findings]
        self.ws.attach_fixes([f for f in out if f.origin != "runtime" and not is_group(f)])
        return out

    def _with_runtime(self, path: str, text: str | None, findings: list[Finding]) -> list[Finding]:
        """Merge the breaks Dynamo reported at run time: a static finding on the same line becomes
        "confirmed at runtime"; others show as "observed at runtime".  Entries for a file whose
        content changed since the run are dropped by runtime_findings (never shown at wrong lines)."""
        if self.record is None or text is None:
            return findings
        from ..trace.record import runtime_findings

        try:
            observed = runtime_findings(self.record, path, text)
        except Exception as e:  # a bad record must not take diagnostics down
            self.log("warning", f"cannot use the runtime record: {e}")
            return findings
        by_line: dict[int, Finding] = {}
        for f in findings:
            if not is_group(f) and not f.data.get("observed_site"):
                by_line.setdefault(f.span.start.line, f)
        out = list(findings)
        shown = confirmed_frames(findings)  # library sites already shown as observed at runtime
        for r in observed:
            stack = r.data.get("stack") or []
            if stack and (os.path.normcase(os.path.realpath(stack[-1]["path"])), stack[-1]["line"]) in shown:
                continue
            f = by_line.get(r.span.start.line)
            if f is not None:
                f.origin = "confirmed"
                f.data["runtime"] = {"gb_type": r.name, "message": r.message}
            else:
                out.append(r)
        out = self._with_recompiles(path, text, out)
        out.sort(key=Finding.sort_key)
        return out

    def _with_recompiles(self, path: str, text: str, findings: list[Finding]) -> list[Finding]:
        """Merge the recompiles Dynamo performed (a version 2 record): a static recompilation hazard
        (FG6xx) at one of a recompile's lines (the line that reads the guarded value, the compiled
        function's first line, or the call of the compiled function in this file) is confirmed, its message
        saying "observed at runtime: Dynamo recompiled `fn` N times (guard `...` failed)"; a recompile no
        static finding stands for becomes a warning of its own at its line.  Like breaks, recompiles of a
        file changed since the run are dropped (recompile_findings)."""
        from ..trace.record import recompile_findings

        try:
            observed = recompile_findings(self.record, path, text)
        except Exception as e:  # a bad record must not take diagnostics down
            self.log("warning", f"cannot use the recompiles of the runtime record: {e}")
            return findings
        if not observed:
            return findings
        hazards: dict[int, list[int]] = {}  # 0-based line -> indices of static FG6xx findings there
        for i, f in enumerate(findings):
            if f.origin != "runtime" and not is_group(f) and is_recompile_hazard(f):
                hazards.setdefault(f.span.start.line, []).append(i)
        out = list(findings)
        key = os.path.normcase(os.path.realpath(path))
        for r in observed:
            lines = {r.span.start.line}
            for where in (r.data.get("frame"), r.data.get("call_site")):
                if where and isinstance(where.get("line"), int) and \
                        os.path.normcase(os.path.realpath(where.get("path") or "")) == key:
                    lines.add(where["line"] - 1)
            matched = sorted({i for line in lines for i in hazards.get(line, [])})
            summary = recompile_summary(r)
            if not matched:
                g = _fix_copy(r)
                g.message = f"observed at runtime: {summary}"
                out.append(g)
                continue
            for i in matched:
                g = out[i] if out[i].data.get("recompiles_observed") else _fix_copy(out[i])
                g.data["recompiles_observed"] = list(g.data.get("recompiles_observed") or []) + [r.data]
                g.message += f" — observed at runtime: {summary}"
                g.origin = "confirmed"
                out[i] = g
        return out

    def load_runtime_record(self) -> None:
        from ..trace.record import default_record_path, load_record

        if self.record_path is None:
            self.record_path = default_record_path(self.root) if self.root else None
        self.record = load_record(self.record_path) if self.record_path and os.path.isfile(self.record_path) else None
        if self.record is not None:
            self.log("info", f"runtime record {self.record_path}: {len(self.record.breaks)} breaks, "
                             f"{len(self.record.recompiles)} recompiles")

    # ---- scheduling ----------------------------------------------------------------------------
    def schedule(self, uri: str, delay: float | None = None) -> None:
        """Analyse the unit `uri` belongs to (a cell's is its notebook) after `delay` (the debounce)."""
        doc = self.docs.get(uri)
        if doc is None:
            return
        uri = doc.key
        prev = self.tasks.get(uri)
        if prev is not None and not prev.done():
            prev.cancel()
        res = self.results.get(uri)
        if res is None or res.version != doc.version:
            self.results[uri] = DocResult(doc.version, doc.text, LineIndex(doc.text), [], [], key=uri)
        self.tasks[uri] = asyncio.ensure_future(self._run(uri, doc.version, self.debounce if delay is None else delay))

    async def _run(self, uri: str, version: int | None, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            doc = self.docs.get(uri)
            if doc is None or doc.version != version:
                return
            text = doc.text
            path = self.path_of(uri)
            started = time.perf_counter()
            try:
                findings = await self.engine.submit((NOW, 0), self._engine_analyze, path, text)
            except Exception as e:  # never crash the server on an engine bug
                log.exception("analysis failed")
                self.log("error", f"analysis of {path} failed: {e.__class__.__name__}: {e}")
                findings = []
            if self.docs.version(uri) != version:
                return  # stale: a newer edit is on its way
            self.generation += 1
            self._store(uri, version, text, findings)
            self.last_published = time.monotonic()
            self.engine.free_garbage()  # (what the analysis replaced: freed now that its diagnostics are out)
            self.log("debug", f"analysed {os.path.basename(path)} v{version}: {len(findings)} findings in "
                              f"{(time.perf_counter() - started) * 1000:.0f} ms")
            if doc.cells is not None:
                self.refresh_pulls()  # an edit in one cell can change the diagnostics of the others
            await self.refresh_others(uri)
            await self._add_fixes(uri, version, path, text, findings)
        except asyncio.CancelledError:
            pass

    async def _add_fixes(self, uri: str, version, path: str, text: str, findings: list[Finding]) -> None:
        """Squiggles first, lightbulbs a moment later: computing fix edits costs more than the
        analysis, so they are attached in a second step, once the user pauses (FIX_IDLE), and the
        diagnostics re-sent with them."""
        if not findings:
            res = self.results.get(uri)
            if res is not None and res.version == version:
                res.fixes_done = True
            return
        spent = 0.0
        fixed = [_fix_copy(f) for f in findings]
        self.fix_phases += 1
        priority = (FIXES, -self.fix_phases)  # the newest document's fixes first
        done = 0
        # One finding at a time on the engine thread, yielding whenever something more urgent (a
        # keystroke, a newer document's fixes) is waiting; a newer version abandons this work.
        while done < len(fixed):
            while (quiet := time.monotonic() - max(self.last_change, self.last_published)) < FIX_IDLE:
                await asyncio.sleep(FIX_IDLE - quiet)  # the user is typing
            if self.docs.version(uri) != version:
                return
            job = self.engine.submit(priority, self._engine_fixes, uri, version, path, text, fixed, done, priority)
            # a newer phase for this document drops this one's queued job (newer phases go first, so
            # an older one could otherwise wait in the queue for as long as the user keeps typing)
            prev = self.fix_jobs.get(uri)
            if prev is not None and prev is not job and not prev.done():
                prev.cancel()
            self.fix_jobs[uri] = job
            t0 = time.perf_counter()
            try:
                done = await job
                spent += time.perf_counter() - t0
            except asyncio.CancelledError:
                return
            except Exception as e:
                log.exception("fixes failed")
                self.log("error", f"computing fixes for {path} failed: {e.__class__.__name__}: {e}")
                return
            if done < 0:
                return
        if self.docs.version(uri) != version:
            return
        self._store(uri, version, text, fixed)
        self.results[uri].fixes_done = True
        self.log("debug", f"fixes for {os.path.basename(path)} v{version} in {spent * 1000:.0f} ms")
        self.refresh_pulls()

    def _store(self, uri: str, version, text: str, findings: list[Finding]) -> None:
        idx = LineIndex(text)
        diags, owners = self.diagnostics_of(uri, text, idx, findings)
        res = self.results.get(uri)
        if res is None or res.version != version:
            res = DocResult(version, text, idx, findings, diags, owners, key=uri)
            self.results[uri] = res
        else:
            same = res.text == text and _keys(res.findings) == _keys(findings)
            res.text, res.index, res.findings, res.diagnostics, res.owners = text, idx, findings, diags, owners
            res.fixes_done = False  # until the caller says these findings carry their fixes
            if not same:  # the same findings again (re-analysed once the index is built): their fixes stand
                res.fixes_on_request = {}
        res.done.set()
        if not self.pull:
            doc = self.docs.get(uri)
            targets = doc.owners() if doc is not None else (uri,)
            for target in dict.fromkeys((*targets, *res.published)):
                mine = [d for d, o in zip(diags, owners) if o == target]
                self.protocol.publish_diagnostics(target, mine,
                                                  version if target == uri else self.docs.cell_version(target))
            res.published = targets

    def diagnostics_of(self, uri: str, text: str, idx: LineIndex,
                       findings: list[Finding]) -> tuple[list[t.Diagnostic], list[str]]:
        """The diagnostics of `findings` in the unit `uri`, and the URI showing each (a notebook's
        diagnostics, related locations and edits are moved into its cells)."""
        cache: dict[str, LineIndex | None] = {self.path_of(uri): idx}

        def index_of(path: str) -> LineIndex | None:  # one LineIndex per file per publication
            if path not in cache:
                cache[path] = self.index_of(path)
            return cache[path]

        uris: dict[str, str] = {}

        def uri_of(path: str) -> str:  # (each finding's related locations and edits name the same few files)
            got = uris.get(path)
            if got is None:
                got = uris[path] = self.uri_of(path)
            return got

        diags = [self._diagnostic(f, idx, text, uri, index_of, uri_of) for f in findings]
        doc = self.docs.get(uri)
        if doc is None or doc.cells is None:
            return diags, [uri] * len(diags)
        pairs = [cv.into_cells(d, doc) for d in diags]
        return [d for _, d in pairs], [o for o, _ in pairs]

    def _diagnostic(self, f: Finding, idx: LineIndex, text: str, uri: str, index_of, uri_of) -> t.Diagnostic:
        key = cv.diagnostic_key(f, idx, self.encoding, uri)
        got = self._diagnostics.get(key) if key is not None else None
        if got is None:
            got = self._make_diagnostic(f, idx, text, uri, index_of, uri_of)
            if key is not None:
                if len(self._diagnostics) >= 4096:
                    self._diagnostics.clear()
                self._diagnostics[key] = got
        return got

    def _make_diagnostic(self, f: Finding, idx: LineIndex, text: str, uri: str, index_of, uri_of) -> t.Diagnostic:
        # a gathered finding stands for several codes in the library: no suppression comment silences it
        return cv.to_diagnostic(f, idx, self.encoding, uri_of, index_of,
                                suppress_edit=None if is_group(f) else cv.suppression_edit(f, text, idx, self.encoding, uri))

    async def refresh_others(self, changed_uri: str) -> None:
        """An edit in one file can change findings in another (roots and callees across files)."""
        others = {}
        for uri in self.docs.keys():
            res = self.results.get(uri)
            version = self.docs.version(uri)
            if uri != changed_uri and res is not None and res.version == version and res.done.is_set():
                others[uri] = (version, res)
        if not others:
            return
        paths = {uri: self.path_of(uri) for uri in others}
        # one engine job: the project's findings are computed once and filtered per file
        fresh = await self.engine.submit((REFRESH, 0), lambda: {u: self._engine_findings(p) for u, p in paths.items()})
        changed_any = False
        for uri, (version, res) in others.items():
            findings = fresh[uri]
            if self.docs.version(uri) != version or _keys(findings) == _keys(res.findings):
                continue
            changed_any = True
            self._store(uri, version, res.text, findings)
            asyncio.ensure_future(self._add_fixes(uri, version, paths[uri], res.text, findings))
        if changed_any:
            self.refresh_pulls()

    def refresh_pulls(self) -> None:
        """Ask a pull client to pull again (workspace/diagnostic/refresh): results changed for documents it
        did not edit."""
        if self.pull and self.refresh_support:
            try:
                self.workspace_diagnostic_refresh(None)
            except Exception:
                pass

    async def result_for(self, uri: str) -> DocResult | None:
        """The current result of the unit `uri` belongs to (a cell's: its notebook's), once computed."""
        doc = self.docs.get(uri)
        if doc is None:
            return None
        res = self.results.get(doc.key)
        if res is None or res.version != doc.version:
            self.schedule(doc.key, delay=0)
            res = self.results.get(doc.key)
        try:
            await asyncio.wait_for(res.done.wait(), timeout=30)
        except asyncio.TimeoutError:
            return None
        return self.results.get(doc.key)

    def send_status(self) -> None:
        torch_v = str(self.config.torch())
        last = getattr(self.record, "finished", None) or getattr(self.record, "started", None)
        try:
            self.protocol.notify("fullgraph/status", {
                "torchVersion": torch_v,
                "torchSource": self.config.torch_source(),
                # the collected release whose Dynamo verdicts stand for it, and both in one phrase
                "knowledgeVersion": str(self.config.knowledge()) if self.config.knowledge() else None,
                "versions": versions_text(torch_v, self.config.torch_source()),
                "fullgraphVersion": __version__,
                "lastCapture": last,
            })
        except Exception:
            pass


def is_recompile_hazard(f: Finding) -> bool:
    """A static finding of a recompilation rule (FG6xx)."""
    from ..rules import registry

    return bool(getattr(registry.BY_CODE.get(f.code), "recompile", False))


def recompile_summary(r: Finding) -> str:
    """What a runtime recompile (a `recompile_finding`) says in a diagnostic: "Dynamo recompiled `step` 2
    times (guard `lr == 0.1` failed)", the limit added when it was hit."""
    d = r.data
    n = d.get("count") or 1
    guards = [g for g in d.get("guards") or [] if g] or [d.get("guard") or "?"]
    shown = f"`{guards[0]}`" + (f" ... `{guards[-1]}`" if len(guards) > 1 else "")
    text = f"Dynamo recompiled `{r.root.qualname if r.root else '?'}` {n} time{'s' if n != 1 else ''} (guard {shown} failed"
    if d.get("limit_hit"):
        lim = d.get("limit") or {}
        name = lim.get("name") or "recompile_limit"
        text += f"; hit {name}" + (f" ({lim['value']})" if lim.get("value") is not None else "")
    return text + ")"


def _fix_copy(f: Finding) -> Finding:
    """A copy whose fixes can be attached without touching the published finding."""
    g = copy.copy(f)
    g.data = dict(f.data)
    return g


def _keys(findings: list[Finding]):
    return [(f.code, f.span, f.severity, f.message, f.origin) for f in findings]

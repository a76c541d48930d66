"""Turning what Dynamo reported into a `Record`.

Three inputs, one model.  Each time Dynamo meets a graph break is a `Hit` (message + user stack +
the compile it happened in); hits at the same place under the same root become one `Break` with a
count.

* live capture and TORCH_TRACE folders: structured trace events (`feed_event`), per process:
  ``str`` (the string-intern table), ``dynamo_start`` (a frame starts compiling; its stack),
  ``artifact: dynamo_graph_break_reason`` (a graph break Dynamo handled: partial graph + resume, or
  frame skipped), ``artifact: dynamo_error`` and ``compilation_metrics`` with ``fail_type``
  (the frame failed to compile: a fullgraph=True error, or a frame skipped).  A failure in a
  compile that already reported a graph break is the same break (a skip) and is not counted again.
* TORCH_LOGS="graph_breaks" text logs (`parse_text_log`): the ``[__graph_breaks]`` records
  (full, "user stack suppressed due to duplicate graph break" and "cannot properly resume"), and
  uncaught Dynamo exceptions in the same stderr (fullgraph=True errors).
"""
from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .parse import (
    ENTRY_RE,
    Frame,
    GuardFailure,
    Message,
    is_library_path,
    last_exception,
    original_function,
    parse_frames,
    parse_guard_failure,
    parse_message,
    section,
    subject_parts,
)
from .record import Break, Recompile, Record, recompile_sort_key, sha1_file

USER_TRACEBACK = "User code traceback:"
SKIP_TRACEBACK = "The graph break occurred in the following user code:"
FROM_USER_CODE = "from user code:"
_STACK_END = ("Traceback (most recent call last):", "NoneType: None", "Set TORCHDYNAMO_VERBOSE")
_MSG_END = (USER_TRACEBACK, "Stack variable source attribution:")
_DYNAMO_EXC = re.compile(r"^torch\._dynamo\.exc\.(\w+)$|^(?:torch\.[\w.]+\.)?(GuardOnDataDependentSymNode)$")


@dataclass
class Hit:
    message: Message
    stack: list[Frame]
    fullgraph: bool | None = None
    compile_key: tuple | None = None  # (pid, frame_id, frame_compile_id)
    frame_loc: tuple[str, int] | None = None  # Dynamo's "in user code at FILE:LINE"
    fallback: tuple[str, int] | None = None  # where to point when there is no stack at all


@dataclass
class RecompileHit:
    """One recompilation: Dynamo's guard-failure reasons (one per cache entry, newest first)."""

    reasons: list[str]
    compile_key: tuple | None = None  # (pid, frame_id, frame_compile_id)
    frame: tuple[str, int, str] | None = None  # (co_filename, co_firstlineno, co_name), when the log says
    limit: dict | None = None  # {"name", "value"}: this compile hit the recompile limit
    caller: Frame | None = None  # the frame that called the compiled code (live capture)


_LIMIT_GB_TYPE = "Dynamo recompile limit exceeded"
_LIMIT_EXC = "FailOnRecompileLimitHit"
_LIMIT_TYPE_RE = re.compile(r"Limit type: (\w+)|exceeding the (\w+) cache size limit|hit config\.(\w+)")
_LIMIT_VALUE_RE = re.compile(r"currently set to (\d+)|hit config\.\w+ \((\d+)\)")


def limit_of(text: str) -> dict:
    """{"name": "recompile_limit", "value": 8} from Dynamo's limit message (value None if not given)."""
    name = value = None
    m = _LIMIT_TYPE_RE.search(text or "")
    if m:
        name = next(g for g in m.groups() if g)
    m = _LIMIT_VALUE_RE.search(text or "")
    if m:
        value = int(next(g for g in m.groups() if g))
    return {"name": name or "recompile_limit", "value": value}


def _is_limit(text: str, exc_class: str | None = None) -> bool:
    return (exc_class or "").endswith(_LIMIT_EXC) or _LIMIT_GB_TYPE in (text or "")


def reasons_of_payload(payload: str | None) -> list[str]:
    """A ``recompile_reasons`` payload: one reason as plain text, several as a JSON list."""
    if not payload:
        return []
    text = payload.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, list):
            return [str(v) for v in value if isinstance(v, str)]
    return [payload]


@dataclass
class Compile:
    path: str
    function: str  # original function name (resume functions mapped back)
    line: int  # co_firstlineno of the compiled code
    fullgraph: bool | None
    resume: bool


@dataclass
class Process:
    """What one process reported (one part file, or one TORCH_TRACE log file)."""

    pid: int | None = None
    cwd: str | None = None
    torch_version: str | None = None
    strings: dict[int, str] = field(default_factory=dict)
    compiles: dict[tuple, Compile] = field(default_factory=dict)
    broke: set = field(default_factory=set)  # compile keys that reported a graph break
    failed: set = field(default_factory=set)  # compile keys whose failure was recorded
    hits: list[Hit] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    touched: set[str] = field(default_factory=set)
    recompiles: list[RecompileHit] = field(default_factory=list)
    limits: dict[tuple, dict] = field(default_factory=dict)  # compile key -> its recompile limit hit
    stacks: dict[tuple, list[Frame]] = field(default_factory=dict)  # compile key -> dynamo_start stack
    by_frame: dict[tuple, tuple] = field(default_factory=dict)  # (pid, frame_id) -> the latest compile key

    # ---- structured trace events ---------------------------------------------------------------
    def feed_event(self, meta: dict, payload: str | None, fullgraph: bool | None = None,
                   caller: dict | None = None) -> None:
        if not isinstance(meta, dict) or not meta:
            return
        kind = next(iter(meta))
        key = (self.pid, meta.get("frame_id"), meta.get("frame_compile_id"))
        if kind == "str":
            v = meta.get("str")
            if isinstance(v, list) and len(v) == 2 and isinstance(v[1], int):
                self.strings[v[1]] = str(v[0])
        elif kind == "dynamo_start":
            stack = (meta.get("dynamo_start") or {}).get("stack") or []
            if stack:
                top = stack[-1]
                fn = top.get("filename")
                path = self._abs(self.strings.get(fn, str(fn)) if isinstance(fn, int) else str(fn))
                name = str(top.get("name"))
                orig = original_function(name)
                self.compiles[key] = Compile(path=path, function=orig, line=int(top.get("line") or 0),
                                             fullgraph=fullgraph, resume=orig != name)
                self.touched.add(path)
                self.by_frame[(self.pid, meta.get("frame_id"))] = key
                frames = []
                for fr in stack:
                    fn = fr.get("filename")
                    frames.append(Frame(path=self._abs(self.strings.get(fn, str(fn)) if isinstance(fn, int)
                                                       else str(fn)),
                                        line=int(fr.get("line") or 0), function=str(fr.get("name") or "")))
                self.stacks[key] = frames
        elif kind == "artifact":
            name = (meta.get("artifact") or {}).get("name")
            if name == "dynamo_graph_break_reason" and payload:
                hit = graph_break_hit(payload)
                if hit is not None:
                    hit.compile_key = key
                    c = self.compiles.get(key)
                    # Dynamo handled this break (resumed or skipped the frame): under fullgraph=True it
                    # would have raised instead, so the flag is False unless the capture saw otherwise.
                    hit.fullgraph = c.fullgraph if c is not None and c.fullgraph is not None else False
                    self.broke.add(key)
                    self._add(hit)
            elif name == "recompile_reasons":
                call = None
                if isinstance(caller, dict) and isinstance(caller.get("path"), str) and \
                        isinstance(caller.get("line"), int):
                    call = Frame(path=self._abs(caller["path"]), line=caller["line"],
                                 function=str(caller.get("function") or ""))
                self.recompiles.append(RecompileHit(reasons=reasons_of_payload(payload), compile_key=key,
                                                    caller=call))
            elif name == "dynamo_error" and payload:
                if key in self.broke or key in self.failed:
                    return
                exc_class, _ = last_exception(payload)
                if _is_limit(payload, exc_class):  # a recompile beyond the limit, not a graph break
                    self.failed.add(key)
                    self.limits[key] = limit_of(payload) if key not in self.limits else self.limits[key]
                    return
                hit = error_hit(payload)
                if hit is not None:
                    self.failed.add(key)
                    hit.compile_key = key
                    c = self.compiles.get(key)
                    hit.fullgraph = c.fullgraph if c is not None else None
                    if c is not None:
                        hit.fallback = (c.path, c.line)
                    self._add(hit)
        elif kind == "compilation_metrics":
            m = meta.get("compilation_metrics") or {}
            if m.get("co_filename"):
                self.touched.add(self._abs(str(m["co_filename"])))
            if m.get("fail_type") and _is_limit(str(m.get("fail_reason") or ""), str(m.get("fail_type"))):
                self.failed.add(key)
                found = limit_of(str(m.get("fail_reason") or ""))
                if key not in self.limits or found.get("value") is not None:
                    self.limits[key] = found
                return
            if not m.get("fail_type") or key in self.broke or key in self.failed:
                return
            if not _is_dynamo_exception(str(m.get("fail_type"))):
                return
            msg = parse_message(str(m.get("fail_reason") or ""), _short_exc(str(m.get("fail_type"))))
            if not msg.gb_type:
                return
            self.failed.add(key)
            c = self.compiles.get(key)
            path = m.get("fail_user_frame_filename")
            line = m.get("fail_user_frame_lineno")
            stack = [Frame(path=self._abs(str(path)), line=int(line), function=str(m.get("co_name") or ""))] \
                if path and line else []
            hit = Hit(message=msg, stack=stack, fullgraph=c.fullgraph if c else None, compile_key=key,
                      fallback=(c.path, c.line) if c else None)
            self._add(hit)

    def _abs(self, path: str) -> str:
        if not path or path.startswith("<") or os.path.isabs(path):
            return path
        return os.path.normpath(os.path.join(self.cwd or os.getcwd(), path))

    def _add(self, hit: Hit) -> None:
        for fr in hit.stack:
            fr.path = self._abs(fr.path)
        self.hits.append(hit)

    # ---- compiled functions -------------------------------------------------------------------------
    def compiled_functions(self) -> dict[tuple[str, str], int | None]:
        out: dict[tuple[str, str], int | None] = {}
        for c in self.compiles.values():
            k = (_real(c.path), c.function)
            if not c.resume:
                out[k] = c.line
            else:
                out.setdefault(k, None)
        return out


# ---- hits from texts ------------------------------------------------------------------------------
def graph_break_hit(payload: str) -> Hit | None:
    """A `dynamo_graph_break_reason` payload / graph_breaks log record -> Hit."""
    text = payload.replace("\r\n", "\n")
    head = text.lstrip().split("\n", 1)[0]
    m = re.match(r"Graph break(?: \(user stack suppressed due to duplicate graph break\))? in user code at (.+):(\d+)$",
                 head)
    frame_loc = (m.group(1), int(m.group(2))) if m else None
    if SKIP_TRACEBACK in text:  # "cannot properly resume from this graph break, which results in a skip"
        frames = parse_frames(section(text, SKIP_TRACEBACK, _STACK_END) or "")
        exc_class, msg_text = last_exception(text)
        if exc_class is None:
            return None
        msg = parse_message(msg_text, _short_exc(exc_class))
        return Hit(message=msg, stack=frames, frame_loc=(frames[-1].path, frames[-1].line) if frames else None)
    if "Graph Break Reason:" not in text:
        return None
    reason = text.split("Graph Break Reason:", 1)[1]
    for end in _MSG_END:
        reason = reason.split("\n" + end, 1)[0]
    msg = parse_message(reason, "Unsupported")
    frames = parse_frames(section(text, USER_TRACEBACK, _STACK_END) or "")
    if not msg.gb_type:
        return None
    return Hit(message=msg, stack=frames, frame_loc=frame_loc)


def error_hit(traceback_text: str) -> Hit | None:
    """A Dynamo exception's formatted traceback (`dynamo_error`, or stderr) -> Hit, if Dynamo's."""
    exc_class, msg_text = last_exception(traceback_text)
    if exc_class is None or not _is_dynamo_exception(exc_class):
        return None
    msg = parse_message(msg_text, _short_exc(exc_class))
    if not msg.gb_type:
        return None
    frames = parse_frames(section(msg_text, FROM_USER_CODE, _STACK_END) or "")
    return Hit(message=msg, stack=frames)


def _is_dynamo_exception(cls: str) -> bool:
    cls = cls.strip()
    if _DYNAMO_EXC.match(cls):
        return cls.rsplit(".", 1)[-1] not in ("BackendCompilerFailed", "InternalTorchDynamoError",
                                              "ResetRequired", "RecompileError", "SkipFrame")
    return cls in ("Unsupported", "UserError", "TorchRuntimeError", "UncapturedHigherOrderOpError")


def _short_exc(cls: str) -> str:
    return cls.strip().rsplit(".", 1)[-1]


# ---- structured trace files -----------------------------------------------------------------------------
TRACE_LINE = re.compile(r"^[VIWEDC]\d{4} [\d:.]+\s+(\d+) \S+\] (\{.*\})\s*$")


def iter_trace_file(path: str) -> Iterator[tuple[int | None, dict, str | None]]:
    """(pid, metadata, payload) of a TORCH_TRACE log file (tab-indented payload lines follow)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        pending: tuple[int | None, dict] | None = None
        payload: list[str] = []
        for raw in fh:
            line = raw.rstrip("\n")
            if line.startswith("\t"):
                if pending is not None:
                    payload.append(line[1:])
                continue
            m = TRACE_LINE.match(line)
            if pending is not None:
                yield pending[0], pending[1], "\n".join(payload) if payload else None
                pending, payload = None, []
            if not m:
                continue
            try:
                meta = json.loads(m.group(2))
            except ValueError:
                continue
            if isinstance(meta, dict):
                pending = (int(m.group(1)), meta)
        if pending is not None:
            yield pending[0], pending[1], "\n".join(payload) if payload else None


def process_from_trace_file(path: str) -> Process:
    proc = Process()
    for pid, meta, payload in iter_trace_file(path):
        if proc.pid is None:
            proc.pid = pid
        if "artifact" in meta and (meta.get("artifact") or {}).get("name") == "torch_version" and payload:
            try:
                proc.torch_version = json.loads(payload).get("pytorch_version")
            except (ValueError, AttributeError):
                pass
        if "dynamo_output_graph" in meta and payload:
            proc.touched.update(_graph_files(payload))
            continue
        proc.feed_event(meta, payload)
    return proc


def _graph_files(payload: str) -> set[str]:
    out = set()
    for m in re.finditer(r"# File: (.+?):\d+ in ", payload):
        out.add(m.group(1))
    return out


def process_from_part_file(path: str) -> Process:
    """A live-capture part file (`_hook.py` wrote it); a torn last line is ignored."""
    proc = Process()
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            if "process" in obj:
                p = obj["process"] or {}
                proc.pid = p.get("pid")
                proc.cwd = p.get("cwd")
                proc.torch_version = p.get("torch") or proc.torch_version
            elif "torch" in obj:
                proc.torch_version = obj["torch"]
            elif "file" in obj:
                f = obj["file"] or {}
                if isinstance(f.get("path"), str) and isinstance(f.get("sha1"), str):
                    old = proc.files.get(f["path"])
                    proc.files[f["path"]] = f["sha1"] if old in (None, f["sha1"]) else ""
            elif "touched" in obj:
                proc.touched.update(p for p in obj["touched"] or [] if isinstance(p, str))
            elif "meta" in obj:
                proc.feed_event(obj["meta"], obj.get("payload"), obj.get("fullgraph"), obj.get("caller"))
    return proc


# ---- TORCH_LOGS text logs --------------------------------------------------------------------------------
_LOG_PREFIX = re.compile(r"^(?P<lvl>[VIWEDC])(?P<date>\d{4}) (?P<time>[\d:.]+)\s+(?P<pid>\d+) (?P<src>\S+)\] "
                         r"(?:\[(?P<cid>[^\]]*)\] )?(?:\[(?P<art>__\w+)\] ?)?(?P<text>.*)$")


def parse_text_log(text: str) -> list[Process]:
    """Processes (by pid) of a TORCH_LOGS="graph_breaks,recompiles" log (stderr capture).  The warning
    Dynamo prints when a frame hits the recompile limit is read too (it is printed without TORCH_LOGS)."""
    procs: dict[int | None, Process] = {}
    records: list[tuple[int | None, str, str, str | None]] = []  # (pid, kind, text, compile id "0/1")
    cur_key = None
    cur_kind = None
    cur: list[str] = []
    plain: list[str] = []

    def flush_record():
        nonlocal cur_key, cur, cur_kind
        if cur_key is not None:
            body = "\n".join(cur)
            if cur_kind == "other" and body.lstrip().startswith("torch._dynamo hit config."):
                records.append((cur_key[0], "limit", body, cur_key[3]))
            elif cur_kind != "other":
                records.append((cur_key[0], cur_kind, body, cur_key[3]))
        cur_key, cur, cur_kind = None, [], None

    def flush_plain():
        nonlocal plain
        if plain:
            records.append((None, "plain", "\n".join(plain), None))
        plain = []

    for raw in text.splitlines():
        m = _LOG_PREFIX.match(raw)
        if m:
            kind = {"__graph_breaks": "log", "__recompiles": "recompiles"}.get(m.group("art") or "", "other")
            if kind != "other":
                flush_plain()
            key = (int(m.group("pid")), m.group("time"), m.group("src"), m.group("cid"))
            if key != cur_key or kind != cur_kind:
                flush_record()
                cur_key, cur_kind = key, kind
            cur.append(m.group("text"))
        else:
            flush_record()
            plain.append(raw)
    flush_record()
    flush_plain()

    for pid, kind, body, cid in records:
        proc = procs.setdefault(pid, Process(pid=pid))
        if kind in ("recompiles", "limit"):
            hit = recompile_log_hit(body, kind)
            if hit is None:
                continue
            key = (pid, *_compile_id(cid))
            hit.compile_key = key
            prev = next((h for h in proc.recompiles if h.compile_key == key), None)
            if prev is not None:  # the limit warning after its "Recompiling function" record
                prev.limit = prev.limit or hit.limit
                prev.frame = prev.frame or hit.frame
            else:
                proc.recompiles.append(hit)
            continue
        if kind == "log":
            if body.lstrip().startswith("Graph break (user stack suppressed"):
                hit = graph_break_hit(body)
                if hit is None:
                    continue
                prev = next((h for h in reversed(proc.hits) if h.frame_loc == hit.frame_loc
                             and h.message.gb_type == hit.message.gb_type), None)
                if prev is not None:
                    proc.hits.append(Hit(message=prev.message, stack=prev.stack, fullgraph=False,
                                         frame_loc=prev.frame_loc))
                else:
                    proc.hits.append(Hit(message=hit.message, stack=[], fullgraph=False, frame_loc=hit.frame_loc,
                                         fallback=hit.frame_loc))
                continue
            hit = graph_break_hit(body)
            if hit is not None:
                hit.fullgraph = False
                proc.hits.append(hit)
        else:
            for block in _split_tracebacks(body):
                hit = error_hit(block)
                if hit is not None:
                    hit.fullgraph = True  # it propagated to the top: fullgraph=True (or error_on_graph_break)
                    proc.hits.append(hit)
    return [p for p in procs.values() if p.hits or p.recompiles]


_RECOMPILING_RE = re.compile(r"^\s*Recompiling function (?P<fn>\S+) in (?P<path>.+):(?P<line>\d+)\s*$")
_LIMIT_FUNCTION_RE = re.compile(r"^\s*function: '(?P<fn>[^']+)' \((?P<path>.+):(?P<line>\d+)\)\s*$")


def _compile_id(cid: str | None) -> tuple:
    m = re.match(r"^(?:!\d+/)?(\d+)/(\d+)", cid or "")
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def recompile_log_hit(body: str, kind: str) -> RecompileHit | None:
    """A TORCH_LOGS=recompiles record ("Recompiling function f in p.py:3" and its "- " guard failures),
    or Dynamo's recompile-limit warning (its "last reason" is the reason)."""
    lines = body.splitlines()
    if not lines:
        return None
    if kind == "recompiles":
        m = _RECOMPILING_RE.match(lines[0])
        if not m:
            return None
        reasons: list[list[str]] = []
        for ln in lines[1:]:
            item = ln.strip()
            if not item.startswith("- ") and item != "-":
                continue
            item = ln.lstrip()[2:]
            if ENTRY_RE.match(item) or not reasons:
                reasons.append([item])
            else:
                reasons[-1].append(item)
        return RecompileHit(reasons=["\n".join(r) for r in reasons],
                            frame=(m.group("path"), int(m.group("line")), m.group("fn")))
    frame = None
    reason: list[str] = []
    for ln in lines[1:]:
        fm = _LIMIT_FUNCTION_RE.match(ln)
        if fm:
            frame = (fm.group("path"), int(fm.group("line")), fm.group("fn"))
        elif ln.strip().startswith("last reason:"):
            reason = [ln.strip()[len("last reason:"):].strip()]
        elif ln.strip().startswith(("To log all recompilation", "To diagnose recompilation")):
            break
        elif reason:
            reason.append(ln)
    return RecompileHit(reasons=["\n".join(reason)] if reason else [], frame=frame, limit=limit_of(lines[0]))


def _split_tracebacks(text: str) -> list[str]:
    """Each uncaught-exception report (with its chained causes) in a stderr capture."""
    out: list[str] = []
    cur: list[str] = []
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("Traceback (most recent call last):") and cur:
            prev = "\n".join(cur[-3:])
            if "The above exception was the direct cause" not in prev and "During handling of the above" not in prev:
                out.append("\n".join(cur))
                cur = []
        if ln.startswith("Traceback (most recent call last):") or cur:
            cur.append(ln)
    if cur:
        out.append("\n".join(cur))
    return out


# ---- building the record -----------------------------------------------------------------------------------
class RootResolver:
    """Compiled functions known from static analysis (for text logs, where Dynamo does not say which
    frame was compiled, and for the fullgraph flag when the capture could not see it)."""

    def __init__(self, paths: Iterable[str]):
        self._entries: list[tuple[str, str, int, int, bool | None]] = []  # (realpath, name, l0, l1, fullgraph)
        files = sorted({_real(p) for p in paths if p and os.path.isfile(p) and p.endswith(".py")})
        if not files:
            return
        try:
            from pathlib import Path

            from ..api import Workspace
            from ..config import discover

            ws = Workspace(discover(Path(files[0]).parent))
            ws.load_files(files, jobs=1)
            for rec in ws.project.roots():
                for fs, mod in rec.entries:
                    self._entries.append((_real(mod.path), fs.name, fs.span.start.line + 1, fs.span.end.line + 1,
                                          rec.decl.fullgraph))
        except Exception:  # noqa: BLE001 - static help is optional
            self._entries = []

    def match(self, fr: Frame) -> tuple[bool, bool | None]:
        rp = _real(fr.path)
        for path, name, l0, l1, fg in self._entries:
            if path == rp and name == fr.function and l0 <= fr.line <= l1:
                return True, fg
        return False, None


def build_record(procs: list[Process], *, source: str, command: list[str] | None = None,
                 exit_code: int | None = None, started: str | None = None, finished: str | None = None,
                 use_static_roots: bool = False) -> Record:
    compiled: dict[tuple[str, str], int | None] = {}
    for p in procs:
        for k, v in p.compiled_functions().items():
            if v is not None or k not in compiled:
                compiled[k] = v
    all_hits = [h for p in procs for h in p.hits]
    stack_paths = {fr.path for h in all_hits for fr in h.stack}
    resolver = RootResolver(p for p in stack_paths if not is_library_path(p)) \
        if (use_static_roots or any(h.fullgraph is None for h in all_hits)) else None
    sources = _SourceCache()

    merged: dict[tuple, Break] = {}
    order: list[tuple] = []
    for h in all_hits:
        b = _make_break(h, compiled, resolver if use_static_roots else None, resolver, sources)
        if b is None:
            continue
        key = (_real(b.path), b.line, b.column, b.gb_type,
               (_real(b.root["path"]), b.root["function"]) if b.root else None)
        if key in merged:
            old = merged[key]
            old.count += 1
            if b.root and b.root.get("fullgraph") and old.root is not None and not old.root.get("fullgraph"):
                old.root["fullgraph"] = True
        else:
            merged[key] = b
            order.append(key)

    # files: user files Dynamo reported on (breaks, compiled frames, code that produced graph ops)
    files: dict[str, str] = {}
    conflict: set[str] = set()
    recorded: dict[str, str] = {}
    for p in procs:
        for path, h in p.files.items():
            rp = _real(path)
            if rp in recorded and recorded[rp] != h:
                conflict.add(rp)
            recorded.setdefault(rp, h)
    wanted: set[str] = set()
    for b in merged.values():
        wanted.update(_real(fr["path"]) for fr in b.stack)
        wanted.add(_real(b.path))
        if b.root:
            wanted.add(_real(b.root["path"]))
    for p in procs:
        wanted.update(_real(t) for t in p.touched)
    recompiles = _recompiles(procs, sources)
    for r in recompiles:
        wanted.update(_real(x) for x in (r.path, r.frame.get("path")) if x)
    stale = {_real(b.path) for b in merged.values() if b.column is None and b.stack and sources.mismatch(b)}
    for rp in sorted(wanted):
        if is_library_path(rp) or rp in conflict:
            continue
        if source == "live":
            h = recorded.get(rp)
        else:  # imported logs: the file as it is now, if it still matches what Dynamo printed
            h = None if rp in stale or sources.printed_mismatch(rp) else sha1_file(rp)
        if h:
            files[rp] = h
    breaks = [merged[k] for k in order]
    breaks.sort(key=lambda b: (b.path, b.line, b.column or 0, b.gb_type))
    torch_version = next((p.torch_version for p in procs if p.torch_version), None)
    return Record(command=list(command or []), exit_code=exit_code, started=started, finished=finished,
                  torch_version=torch_version, files=files, breaks=breaks, source=source, recompiles=recompiles)


_MAX_GUARDS = 10
_VALUES_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|'[^']*'|\"[^\"]*\"|<[^>]*>")


def _recompiles(procs: list[Process], sources: _SourceCache) -> list[Recompile]:
    """Recompile hits -> Recompiles: one per compiled function, guard site and guarded value (the same
    guard failing with other values, `self.step == 0`, `self.step == 1`, ..., counts up)."""
    merged: dict[tuple, Recompile] = {}

    def fold(old: Recompile, r: Recompile) -> None:
        old.count += r.count
        old.resumed += r.resumed
        for g in r.guards:
            if g not in old.guards and len(old.guards) < _MAX_GUARDS:
                old.guards.append(g)
        if r.limit_hit:
            old.limit_hit, old.limit = True, r.limit
        if old.call_site is None:
            old.call_site = r.call_site
        if old.fullgraph is None:
            old.fullgraph = r.fullgraph

    for p in procs:
        for h in p.recompiles:
            r = _make_recompile(p, h, sources)
            if r is None:
                continue
            function = (_real(r.frame["path"]), r.frame.get("line"), r.function)
            if r.resumed:  # the code after a graph break: one entry per function, whatever the guard
                key = (*function, "resume")
            else:
                shape = (r.target or {}).get("expr") or _VALUES_RE.sub("?", r.guard)
                key = (*function, _real(r.path), r.line, shape)
            if key in merged:
                fold(merged[key], r)
            else:
                merged[key] = r
    # a resume function recompiles because its function did (the same new input): count it there
    for key in [k for k in merged if k[-1] == "resume"]:
        main = next((r for k, r in merged.items() if k[:3] == key[:3] and k[-1] != "resume"), None)
        if main is not None:
            fold(main, merged.pop(key))
    for r in merged.values():  # a log with only the limit warning: the limit says how many there were
        lim = r.limit or {}
        if r.limit_hit and lim.get("name") == "recompile_limit" and isinstance(lim.get("value"), int):
            r.count = max(r.count, lim["value"])
    return sorted(merged.values(), key=recompile_sort_key)


def _make_recompile(p: Process, h: RecompileHit, sources: _SourceCache) -> Recompile | None:
    key = h.compile_key
    c = p.compiles.get(key) if key else None
    stack = p.stacks.get(key, []) if key else []
    if c is None and key is not None:  # a compile that never started (the limit hit): the frame's last one
        prev = p.by_frame.get((key[0], key[1]))
        c = p.compiles.get(prev) if prev else None
        stack = p.stacks.get(prev, []) if prev else []
    if c is not None:
        first = sources.first_line(_real(c.path), c.function, c.line) if c.resume or c.line else None
        frame = {"path": _real(c.path), "line": first or c.line, "function": c.function}
    elif h.frame is not None:
        path = p._abs(h.frame[0])
        frame = {"path": _real(path), "line": h.frame[1], "function": original_function(h.frame[2])}
    else:
        return None
    failures = [parse_guard_failure(t) for t in h.reasons if t.strip()]
    first = failures[0] if failures else GuardFailure(guard="unknown guard (Dynamo found no reason)", text="")
    params = sources.params(frame["path"], frame["function"], frame["line"])
    target = _target(first, params)
    user = [fr for fr in first.frames if not is_library_path(fr.path)]
    if user:
        site, path, line = "stack", _real(p._abs(user[-1].path)), user[-1].line
    elif target and target.get("kind") in ("argument", "attribute") and target.get("root") in params:
        site, path, line = "parameter", frame["path"], params[target["root"]]
    else:
        site, path, line = "function", frame["path"], frame["line"]
    if target:
        target.pop("root", None)
    resume = c is not None and c.resume
    callers = [] if resume else [h.caller] if h.caller is not None and not is_library_path(h.caller.path) else \
        [fr for fr in stack[:-1] if not is_library_path(fr.path)]
    call_site = {"path": _real(callers[-1].path), "line": callers[-1].line,
                 "function": original_function(callers[-1].function)} if callers else None
    limit = h.limit or (p.limits.get(key) if key else None)
    return Recompile(path=path, line=line, function=frame["function"], frame=frame, guard=first.guard,
                     reason=first.text, guards=[first.guard], hint=first.hint, site=site, target=target,
                     stack=[{"path": _real(p._abs(fr.path)), "line": fr.line, "function": fr.function}
                            for fr in first.frames],
                     call_site=call_site, count=1, limit_hit=limit is not None, limit=limit,
                     fullgraph=c.fullgraph if c is not None else None, resumed=1 if resume else 0)


def _target(g: GuardFailure, params: dict[str, int]) -> dict | None:
    """What the guard checks: an argument of the compiled function, an attribute of one, a global..."""
    if g.guard.startswith("GLOBAL_STATE"):
        return {"kind": "global_state", "name": g.guard.split(":", 1)[-1].strip() or None, "expr": None}
    if not g.subject:
        return None
    scope, root, path = subject_parts(g.subject)
    if not root or root.startswith("___"):  # a value on Dynamo's stack ("___stack0"): no name in the source
        return None
    expr = root + "".join(x if x.startswith("[") else "." + x for x in path)
    if scope == "G":
        return {"kind": "global", "name": root, "expr": expr, "root": root}
    if root in params or (scope == "L" and not params):
        if path:
            attrs = [x for x in path if not x.startswith("[")]
            return {"kind": "attribute", "name": attrs[-1] if attrs else root, "expr": expr, "root": root}
        return {"kind": "argument", "name": root, "expr": expr, "root": root}
    if path and root == "self":
        attrs = [x for x in path if not x.startswith("[")]
        return {"kind": "attribute", "name": attrs[-1] if attrs else root, "expr": expr, "root": root}
    return {"kind": "name", "name": root, "expr": expr, "root": root}


def _make_break(h: Hit, compiled, static_roots: RootResolver | None, fg_resolver: RootResolver | None,
                sources: _SourceCache) -> Break | None:
    stack = h.stack
    user = [i for i, fr in enumerate(stack) if not is_library_path(fr.path)]
    if user:
        inner = stack[user[-1]]
    elif stack:
        inner = stack[-1]
    elif h.fallback:
        inner = Frame(path=h.fallback[0], line=h.fallback[1], function="")
    else:
        return None
    path = _real(inner.path)
    col = end_col = end_line = None
    if inner.code:
        src = sources.line(path, inner.line)
        if src is not None and src.strip() == inner.code:
            indent = len(src) - len(src.lstrip())
            end_line = inner.line
            if inner.marker:
                col, end_col = indent + inner.marker[0], indent + inner.marker[1]
            else:  # no markers: the whole line ran, or a statement that goes on over more lines
                col, end_col = indent, indent + len(inner.code)
                multi = sources.statement_end(path, inner.line, indent)
                if multi is not None:
                    end_line, end_col = multi
        else:
            sources.bad(path, inner.line)
    root = _root(h, stack, compiled, static_roots, sources)
    if root is not None and root.get("fullgraph") is None and fg_resolver is not None:
        rf = Frame(path=root["path"], line=root.get("_frame_line") or root["line"], function=root["function"])
        ok, fg = fg_resolver.match(rf)
        if ok:
            root["fullgraph"] = fg
    if root is not None:
        root.pop("_frame_line", None)
    m = h.message
    return Break(path=path, line=inner.line, column=col + 1 if col is not None else None,
                 end_line=end_line if col is not None else None,
                 end_column=end_col + 1 if end_col is not None else None,
                 gb_type=m.gb_type, gb_code=m.gb_code, explanation=m.explanation, hints=list(m.hints),
                 stack=[{"path": _real(fr.path) if not fr.path.startswith("<") else fr.path, "line": fr.line,
                         "function": fr.function} for fr in stack] or
                       [{"path": path, "line": inner.line, "function": inner.function}],
                 root=root, count=1, exc_class=m.exc_class)


def _root(h: Hit, stack: list[Frame], compiled, static_roots: RootResolver | None,
          sources: _SourceCache) -> dict | None:
    idx = None
    fullgraph = h.fullgraph
    for i, fr in enumerate(stack):
        key = (_real(fr.path), original_function(fr.function))
        if key in compiled:
            idx = i
            break
        if static_roots is not None:
            ok, fg = static_roots.match(fr)
            if ok:
                idx = i
                if fullgraph is None:
                    fullgraph = fg
                break
    if idx is not None:
        # a compiled library frame (Module._call_impl for module.compile()) -> the next user frame
        while idx < len(stack) - 1 and is_library_path(stack[idx].path):
            idx += 1
        fr = stack[idx]
        name = original_function(fr.function)
        first = sources.first_line(_real(fr.path), name, fr.line)
        if first is None:
            first = compiled.get((_real(fr.path), name)) or fr.line
        return {"path": _real(fr.path), "line": first, "function": name, "fullgraph": fullgraph,
                "_frame_line": fr.line}
    return None


def _real(path: str) -> str:
    if not path or path.startswith("<"):
        return path
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


class _SourceCache:
    """Current source lines of the files in the stacks (to turn ^^^ markers into columns)."""

    def __init__(self):
        self._lines: dict[str, list[str] | None] = {}
        self._trees: dict[str, ast.AST | None] = {}
        self._bad: set[str] = set()

    def _get(self, path: str) -> list[str] | None:
        if path not in self._lines:
            from ..positions import split_lines
            from .record import read_text

            text = read_text(path) if os.path.isfile(path) else None
            self._lines[path] = split_lines(text) if text is not None else None
        return self._lines[path]

    def line(self, path: str, line: int) -> str | None:
        lines = self._get(path)
        if lines is None or not (1 <= line <= len(lines)):
            return None
        return lines[line - 1]

    def _tree(self, path: str) -> ast.AST | None:
        if path not in self._trees:
            lines = self._get(path)
            try:
                self._trees[path] = ast.parse("\n".join(lines)) if lines is not None else None
            except (SyntaxError, ValueError):
                self._trees[path] = None
        return self._trees[path]

    def statement_end(self, path: str, line: int, col: int) -> tuple[int, int] | None:
        """(end line, end column) of a simple statement starting at (line, col) and spanning more
        lines (Python prints only its first line, without markers); None otherwise."""
        tree = self._tree(path)
        if tree is None:
            return None
        from ..positions import utf8_byte_to_col

        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and node.lineno == line and not hasattr(node, "body"):
                end = getattr(node, "end_lineno", None)
                src = self.line(path, line) or ""
                if end and end > line and utf8_byte_to_col(src, node.col_offset) == col:
                    end_src = self.line(path, end) or ""
                    return end, utf8_byte_to_col(end_src, node.end_col_offset or 0)
        return None

    def bad(self, path: str, line: int) -> None:
        self._bad.add(path)

    def mismatch(self, b: Break) -> bool:
        return _real(b.path) in self._bad

    def printed_mismatch(self, path: str) -> bool:
        return path in self._bad

    def params(self, path: str, name: str, first: int | None) -> dict[str, int]:
        """{parameter: line} of the function `name` whose definition starts at `first` (its
        co_firstlineno: the first decorator's line); {} when the file has no such function."""
        from .. import positions

        tree = self._tree(path)
        if tree is None:
            return {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and \
                    getattr(node, "name", "<lambda>") == name:
                start = positions.first_line(node)
                if first is not None and first not in (start, node.lineno):
                    continue
                a = node.args
                args = [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs,
                        *([a.kwarg] if a.kwarg else [])]
                return {x.arg: x.lineno for x in args}
        return {}

    def first_line(self, path: str, name: str, line: int) -> int | None:
        """co_firstlineno of the innermost function `name` whose body contains `line`."""
        from .. import positions

        tree = self._tree(path)
        if tree is None:
            return None
        best = None
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                start = positions.first_line(node)
                end = getattr(node, "end_lineno", None) or node.lineno
                if start <= line <= end and (best is None or start >= best):
                    best = start
        return best

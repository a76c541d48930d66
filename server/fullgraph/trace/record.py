"""The runtime record (`.fullgraph/breaks.json`) and what editors and the CLI read from it.

Format (version 1), one JSON object::

    {"version": 1, "source": "live" | "torch_logs" | "torch_trace", "torch_version": "2.13.0+cpu",
     "command": ["python", "train.py"], "exit_code": 0,
     "started": "2026-11-29T17:49:09Z", "finished": "2026-11-29T17:49:12Z",
     "files": {"/abs/path.py": "<sha1 of the file's bytes when Dynamo reported on it>"},
     "breaks": [{"path", "line", "column", "end_line", "end_column",     # 1-based, code points
                 "gb_type", "gb_code", "exc_class", "explanation", "hints",
                 "stack": [{"path", "line", "function"}, ...],          # outermost first, innermost last
                 "root": {"path", "line", "function", "fullgraph"} | null,
                 "count"}],
     "recompiles": [{"path", "line",                                   # where the guarded value is used
                     "function", "frame": {"path", "line", "function"},  # the compiled code object
                     "guard", "guards", "reason", "hint", "site",
                     "target": {"kind", "name", "expr"} | null,
                     "stack", "call_site": {"path", "line", "function"} | null,
                     "count", "resumed", "limit_hit", "limit": {"name", "value"} | null, "fullgraph"}]}

Version 2 added ``recompiles``; a version 1 record (no recompiles) still loads.

* ``path``/``line``/``column`` is the innermost frame in user code (not the standard library or an
  installed package); ``stack`` keeps every frame Dynamo reported, library frames included.
* ``column``/``end_column`` come from the ``^^^^`` markers Python prints under the running part of
  the line; without markers the whole line (first to last non-blank character) is given.  They
  are null when the file no longer matches what Dynamo printed.
* ``gb_code`` is the "GBnnnn" of Dynamo's documentation link, else the installed torch's
  ``graph_break_registry.json`` entry for ``gb_type``; null for data-dependent guard errors
  (``exc_class`` "UserError"), which have none.
* ``root`` is the compiled function the break happened under: the outermost function on the stack
  that Dynamo compiled (a resume function counts as the function it resumes).  ``line`` is where
  its definition starts (its first decorator, as ``co_firstlineno``).  ``fullgraph`` is the flag
  of the ``torch.compile`` call (captured from the running wrapper; for imported logs from the
  static analysis of the root, else null).
* ``count`` is how many times Dynamo met the break while compiling: the first compile, each
  recompile, and each frame that traced the same code again (a helper Dynamo inlined, then
  compiled on its own).  Running already-compiled code again does not trace, so it does not count.

Recompiles (each time Dynamo compiled a frame again because a guard of every earlier compile failed;
Dynamo's ``recompile_reasons``, TORCH_LOGS=recompiles):

* ``frame`` is the code object compiled again (``co_filename``, ``co_firstlineno``, ``co_name``;
  ``function`` is its name, a resume function mapped back to the function it resumes).
* ``guard`` is the first failing guard as Dynamo prints it (``lr == 0.1``, ``self.step == 3``,
  ``tensor 'x' size mismatch at index 0. expected 3, actual 4``, ``GLOBAL_STATE changed:
  grad_mode``); ``guards`` the distinct guards that failed at this place, in order (at most 10:
  ``self.step == 0``, ``self.step == 1``, ...); ``reason`` Dynamo's whole text of the first one
  (with its user stack), ``hint`` Dynamo's hint.  When several cache entries exist Dynamo gives one
  reason per entry, newest first; the first is the one recorded, as Dynamo's own log does.
* ``target``: what the guard checks, read from Dynamo's name for it: ``{"kind": "argument", "name":
  "lr"}`` (a parameter of the compiled function), ``"attribute"`` (``self.step``: name "step",
  expr "self.step"), ``"global"`` (``G['FLAG']``), ``"name"`` (any other name), ``"global_state"``
  (grad mode and the like); null when the guard's wording is not known.
* ``path``/``line`` and ``site`` (how they were found): ``"stack"``, the innermost user frame of
  Dynamo's user stack for the guard (the line that reads the value: reliable); ``"parameter"``,
  the line of the parameter the guard names (tensor guards have no stack); ``"function"``, the
  compiled function's first line (nothing better is known).
* ``call_site``: the innermost user frame that called the compiled code (from the compile's stack).
* ``count``: how many recompiles failed this way at this place; ``resumed``: how many of them were
  of the function's resume functions (Dynamo compiles the code after a graph break as a function of
  its own, which recompiles too when its function's input changed; counted with the function, whatever
  guard failed there); ``limit_hit``: the frame reached
  ``limit`` (``{"name": "recompile_limit", "value": 8}``; value null when Dynamo did not say) and
  runs without compiling from then on (or, under fullgraph=True, raised).

Editors use :func:`load_record` and :func:`runtime_findings`.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import json
import logging
import os
from dataclasses import dataclass, field
from typing import Any

from ..fsutil import write_bytes_atomic
from ..model import ERROR, WARNING, Finding, Location, RootInfo, Step
from ..positions import Span, split_lines

log = logging.getLogger("fullgraph.trace")

VERSION = 2
READABLE = (1, 2)  # version 1: no recompiles
RECORD_RELPATH = os.path.join(".fullgraph", "breaks.json")
DOCS_URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"


@dataclass
class Break:
    path: str
    line: int  # 1-based
    column: int | None  # 1-based code points
    end_line: int | None
    end_column: int | None  # 1-based, exclusive
    gb_type: str
    gb_code: str | None
    explanation: str = ""
    hints: list[str] = field(default_factory=list)
    stack: list[dict] = field(default_factory=list)
    root: dict | None = None
    count: int = 1
    exc_class: str | None = None

    @property
    def code(self) -> str:
        """The code findings carry: the GB code, else Dynamo's exception class (e.g. "UserError")."""
        return self.gb_code or self.exc_class or "Dynamo"

    @property
    def fullgraph(self) -> bool | None:
        return (self.root or {}).get("fullgraph")

    def to_json(self) -> dict:
        return {
            "path": self.path, "line": self.line, "column": self.column,
            "end_line": self.end_line, "end_column": self.end_column,
            "gb_type": self.gb_type, "gb_code": self.gb_code, "exc_class": self.exc_class,
            "explanation": self.explanation, "hints": list(self.hints),
            "stack": [dict(s) for s in self.stack], "root": dict(self.root) if self.root else None,
            "count": self.count,
        }

    @staticmethod
    def from_json(d: dict) -> Break:
        def opt_int(v):
            return v if isinstance(v, int) and not isinstance(v, bool) else None

        if not isinstance(d, dict):
            raise ValueError("break is not an object")
        path, line, gb_type = d.get("path"), d.get("line"), d.get("gb_type")
        if not isinstance(path, str) or opt_int(line) is None or not isinstance(gb_type, str):
            raise ValueError("break needs path, line and gb_type")
        stack = [s for s in d.get("stack") or [] if isinstance(s, dict) and isinstance(s.get("path"), str)
                 and opt_int(s.get("line")) is not None]
        root = d.get("root")
        if not (isinstance(root, dict) and isinstance(root.get("path"), str)):
            root = None
        hints = [h for h in d.get("hints") or [] if isinstance(h, str)]
        gb_code = d.get("gb_code") if isinstance(d.get("gb_code"), str) else None
        exc = d.get("exc_class") if isinstance(d.get("exc_class"), str) else None
        count = opt_int(d.get("count"))
        return Break(path=path, line=line, column=opt_int(d.get("column")), end_line=opt_int(d.get("end_line")),
                     end_column=opt_int(d.get("end_column")), gb_type=gb_type, gb_code=gb_code,
                     explanation=d.get("explanation") if isinstance(d.get("explanation"), str) else "",
                     hints=hints, stack=stack, root=root, count=count if count and count > 0 else 1,
                     exc_class=exc)


@dataclass
class Recompile:
    path: str  # where the guarded value is used (see `site`)
    line: int
    function: str
    frame: dict  # {"path", "line", "function"}: the compiled code object
    guard: str
    reason: str = ""
    guards: list[str] = field(default_factory=list)
    hint: str = ""
    site: str = "function"  # "stack" | "parameter" | "function"
    target: dict | None = None  # {"kind", "name", "expr"}
    stack: list[dict] = field(default_factory=list)
    call_site: dict | None = None
    count: int = 1
    limit_hit: bool = False
    limit: dict | None = None  # {"name": "recompile_limit", "value": 8}
    fullgraph: bool | None = None
    resumed: int = 0  # of `count`, the recompiles of its resume functions (the code after a graph break)

    CODE = "Recompile"
    LIMIT_CODE = "GB0039"  # Dynamo's "Dynamo recompile limit exceeded"

    @property
    def code(self) -> str:
        return self.LIMIT_CODE if self.limit_hit else self.CODE

    def lines(self) -> set[int]:
        """Lines of `path` this recompile stands for: its site, and the compiled function's first line
        when that is in the same file."""
        out = {self.line}
        if norm_path(self.frame.get("path", "")) == norm_path(self.path) and isinstance(self.frame.get("line"), int):
            out.add(self.frame["line"])
        return out

    def limit_text(self) -> str:
        if not self.limit_hit:
            return ""
        lim = self.limit or {}
        name = lim.get("name") or "recompile_limit"
        return f"{name} ({lim['value']})" if lim.get("value") is not None else name

    def to_json(self) -> dict:
        return {
            "path": self.path, "line": self.line, "function": self.function, "frame": dict(self.frame),
            "guard": self.guard, "guards": list(self.guards), "reason": self.reason, "hint": self.hint,
            "site": self.site, "target": dict(self.target) if self.target else None,
            "stack": [dict(s) for s in self.stack], "call_site": dict(self.call_site) if self.call_site else None,
            "count": self.count, "limit_hit": self.limit_hit, "limit": dict(self.limit) if self.limit else None,
            "fullgraph": self.fullgraph, "resumed": self.resumed,
        }

    @staticmethod
    def from_json(d: dict) -> Recompile:
        def opt_int(v):
            return v if isinstance(v, int) and not isinstance(v, bool) else None

        def s(v):
            return v if isinstance(v, str) else ""

        if not isinstance(d, dict):
            raise ValueError("recompile is not an object")
        path, line, frame = d.get("path"), opt_int(d.get("line")), d.get("frame")
        if not isinstance(path, str) or line is None or not isinstance(d.get("guard"), str):
            raise ValueError("recompile needs path, line and guard")
        if not (isinstance(frame, dict) and isinstance(frame.get("path"), str)):
            frame = {"path": path, "line": line, "function": s(d.get("function"))}
        target = d.get("target") if isinstance(d.get("target"), dict) else None
        call = d.get("call_site")
        call = call if isinstance(call, dict) and isinstance(call.get("path"), str) else None
        stack = [x for x in d.get("stack") or [] if isinstance(x, dict) and isinstance(x.get("path"), str)
                 and opt_int(x.get("line")) is not None]
        count = opt_int(d.get("count"))
        limit = d.get("limit") if isinstance(d.get("limit"), dict) else None
        fg = d.get("fullgraph")
        return Recompile(path=path, line=line, function=s(d.get("function")) or s(frame.get("function")),
                         frame=dict(frame), guard=d["guard"], reason=s(d.get("reason")),
                         guards=[g for g in d.get("guards") or [] if isinstance(g, str)], hint=s(d.get("hint")),
                         site=s(d.get("site")) or "function", target=target, stack=stack, call_site=call,
                         count=count if count and count > 0 else 1, limit_hit=d.get("limit_hit") is True,
                         limit=limit, fullgraph=fg if isinstance(fg, bool) else None,
                         resumed=min(opt_int(d.get("resumed")) or 0, count or 1))


@dataclass
class Record:
    command: list[str] = field(default_factory=list)
    exit_code: int | None = None
    started: str | None = None
    finished: str | None = None
    torch_version: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    breaks: list[Break] = field(default_factory=list)
    source: str = "live"
    version: int = VERSION
    recompiles: list[Recompile] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "version": self.version, "source": self.source, "torch_version": self.torch_version,
            "command": list(self.command), "exit_code": self.exit_code,
            "started": self.started, "finished": self.finished,
            "files": dict(sorted(self.files.items())),
            "breaks": [b.to_json() for b in self.breaks],
            "recompiles": [r.to_json() for r in self.recompiles],
        }

    @staticmethod
    def from_json(d: Any) -> Record:
        if not isinstance(d, dict):
            raise ValueError("record is not a JSON object")
        v = d.get("version")
        if v not in READABLE:
            raise ValueError(f"unsupported record version {v!r} (this fullgraph reads versions "
                             f"{', '.join(map(str, READABLE))})")
        breaks = []
        for i, b in enumerate(d.get("breaks") or []):
            try:
                breaks.append(Break.from_json(b))
            except ValueError as e:
                log.warning("fullgraph trace record: skipping break #%d: %s", i, e)
        recompiles = []
        for i, r in enumerate(d.get("recompiles") or []):
            try:
                recompiles.append(Recompile.from_json(r))
            except ValueError as e:
                log.warning("fullgraph trace record: skipping recompile #%d: %s", i, e)
        files = {k: v for k, v in (d.get("files") or {}).items() if isinstance(k, str) and isinstance(v, str)}
        cmd = d.get("command")
        return Record(command=[str(c) for c in cmd] if isinstance(cmd, list) else [],
                      exit_code=d.get("exit_code") if isinstance(d.get("exit_code"), int) else None,
                      started=d.get("started") if isinstance(d.get("started"), str) else None,
                      finished=d.get("finished") if isinstance(d.get("finished"), str) else None,
                      torch_version=d.get("torch_version") if isinstance(d.get("torch_version"), str) else None,
                      files=files, breaks=breaks, recompiles=recompiles,
                      source=d.get("source") if isinstance(d.get("source"), str) else "live")

    def breaks_for(self, path: str) -> list[Break]:
        key = norm_path(path)
        return [b for b in self.breaks if norm_path(b.path) == key]

    def recompiles_for(self, path: str) -> list[Recompile]:
        """Recompiles whose site or compiled function is in `path`."""
        key = norm_path(path)
        return [r for r in self.recompiles if key in (norm_path(r.path), norm_path(r.frame.get("path", "")))]

    def recompiles_at(self, path: str, line: int) -> list[Recompile]:
        """The recompiles observed at `path`:`line` (1-based): the line that reads the guarded value
        (`Recompile.path`/`line`), or the first line of the compiled function (`Recompile.frame`).
        What a static finding (FG6xx) attaches as "observed at runtime"."""
        key = norm_path(path)
        out = []
        for r in self.recompiles:
            if (norm_path(r.path) == key and r.line == line) or \
                    (norm_path(r.frame.get("path", "")) == key and r.frame.get("line") == line):
                out.append(r)
        return out


# ---- files ------------------------------------------------------------------------------------
def sha1_bytes(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def sha1_file(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return sha1_bytes(fh.read())
    except OSError:
        return None


def _text_hashes(text: str) -> set[str]:
    """Hashes the file could have had on disk for this editor text (UTF-8, with or without BOM)."""
    out = set()
    try:
        data = text.encode("utf-8", "surrogatepass")
    except UnicodeError:
        return out
    out.add(sha1_bytes(data))
    out.add(sha1_bytes(b"\xef\xbb\xbf" + data))
    import io
    import tokenize

    try:  # a PEP 263 coding cookie other than UTF-8
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if enc not in ("utf-8", "utf-8-sig"):
            out.add(sha1_bytes(text.encode(enc)))
    except (SyntaxError, LookupError, UnicodeError):
        pass
    return out


def norm_path(path: str) -> str:
    try:
        return os.path.normcase(os.path.realpath(path))
    except (OSError, ValueError):
        return path


def find_project_root(start: str | None = None) -> str:
    """The nearest directory with pyproject.toml or .git, from `start` (default: cwd) up; else `start`."""
    start = os.path.abspath(start or os.getcwd())
    d = start
    while True:
        if os.path.isfile(os.path.join(d, "pyproject.toml")) or os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return start
        d = parent


def default_record_path(start: str | None = None) -> str:
    return os.path.join(find_project_root(start), RECORD_RELPATH)


# ---- reading and writing ---------------------------------------------------------------------------
def load_record(path: str) -> Record | None:
    """The record at `path`, or None (logged on the "fullgraph.trace" logger) if it is missing,
    unreadable, truncated, not JSON or of another version.  Never raises."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        log.info("fullgraph trace record %s: cannot read (%s)", path, e.strerror or e)
        return None
    try:
        return Record.from_json(json.loads(data.decode("utf-8")))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        log.warning("fullgraph trace record %s: not a valid record (%s)", path, e)
        return None
    except Exception as e:  # noqa: BLE001 - a record must never take the editor down
        log.warning("fullgraph trace record %s: unexpected content (%s: %s)", path, type(e).__name__, e)
        return None


def save_record(record: Record, path: str) -> None:
    """Write atomically (temp file in the same directory, then rename)."""
    text = json.dumps(record.to_json(), indent=2, ensure_ascii=False) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"))


def merge_into_file(record: Record, path: str) -> Record:
    """Merge `record` into the record file at `path`: the breaks of the files this capture reported on
    are replaced, the breaks of other files are kept (the pytest plugin's session, a kernel's notebook).
    Returns what was written."""
    old = load_record(path) if os.path.exists(path) else None
    if old is not None:
        mine = {norm_path(p) for p in record.files} | {norm_path(b.path) for b in record.breaks} | \
            {norm_path(r.path) for r in record.recompiles}
        kept = [b for b in old.breaks if norm_path(b.path) not in mine]
        kept_rc = [r for r in old.recompiles if norm_path(r.path) not in mine]
        files = {p: h for p, h in old.files.items() if norm_path(p) not in mine}
        files.update(record.files)
        record = Record(command=record.command, exit_code=record.exit_code, started=record.started,
                        finished=record.finished, torch_version=record.torch_version or old.torch_version,
                        files=files, breaks=sorted(kept + record.breaks,
                                                   key=lambda b: (b.path, b.line, b.column or 0, b.gb_type)),
                        source=record.source,
                        recompiles=sorted(kept_rc + record.recompiles, key=recompile_sort_key))
    save_record(record, path)
    return record


def recompile_sort_key(r: Recompile) -> tuple:
    return (r.path, r.line, r.frame.get("path", ""), r.frame.get("line") or 0, r.guard)


def now() -> str:
    """A record's timestamps: UTC, to the second (`2026-12-01T22:00:00Z`)."""
    t = _dt.datetime.now(_dt.timezone.utc)  # noqa: UP017 - datetime.UTC needs Python 3.11
    return t.replace(microsecond=0).isoformat().replace("+00:00", "Z")


# ---- findings ----------------------------------------------------------------------------------------
def to_finding(b: Break, text: str | None = None) -> Finding:
    """A runtime break as a `Finding` (origin "runtime").

    code: the GB code, else the exception class ("UserError"); name: Dynamo's gb_type; message:
    gb_type and the first explanation line; severity: error under a fullgraph=True root, else
    warning; data: hints, stack, count, explanation, gb_type, exc_class.
    """
    lines = split_lines(text) if text is not None else None
    l0 = b.line - 1
    if b.column is not None:
        c0 = b.column - 1
        el = (b.end_line or b.line) - 1
        ec = (b.end_column - 1) if b.end_column is not None else c0
    else:
        src = lines[l0] if lines is not None and 0 <= l0 < len(lines) else ""
        c0 = len(src) - len(src.lstrip())
        el, ec = l0, len(src.rstrip())
    span = Span.of(l0, c0, el, max(ec, c0) if el == l0 else ec)
    first = b.explanation.strip().splitlines()[0] if b.explanation.strip() else ""
    message = f"{b.gb_type}: {first}" if first and first != b.gb_type else b.gb_type
    if b.count > 1:
        message += f" (hit {b.count} times)"
    root = None
    steps: list[Step] = []
    if b.root:
        r = b.root
        fg = r.get("fullgraph")
        label = "torch.compile" if fg is not None else "torch.compile (fullgraph flag unknown)"
        rline = max(int(r.get("line") or 1) - 1, 0)
        root = RootInfo(qualname=str(r.get("function") or "?"), label=label,
                        location=Location(r["path"], Span.of(rline, 0, rline, 0)), fullgraph=bool(fg))
        steps = _steps(b)
    severity = ERROR if b.fullgraph else WARNING
    return Finding(
        path=b.path, code=b.code, name=b.gb_type, message=message, severity=severity, span=span,
        root=root, call_path=steps, gb_codes=(b.gb_code,) if b.gb_code else (),
        url=DOCS_URL.format(b.gb_code.lower()) if b.gb_code else "",
        data={"hints": list(b.hints), "stack": [dict(s) for s in b.stack], "count": b.count,
              "explanation": b.explanation, "gb_type": b.gb_type, "exc_class": b.exc_class,
              "fullgraph": b.fullgraph},
        origin="runtime",
    )


def _steps(b: Break) -> list[Step]:
    """The call path from the root to the break, as the static findings show it."""
    if not b.root:
        return []
    frames = b.stack
    start = None
    for i, fr in enumerate(frames):
        if norm_path(fr["path"]) == norm_path(b.root["path"]) and fr.get("function") == b.root.get("function"):
            start = i
            break
    if start is None:
        return []
    # user frames from the root to the break (library frames in between, e.g. Module._call_impl, and
    # the library frames below the break are in data["stack"])
    from .parse import is_library_path

    chain = [fr for fr in frames[start:] if not is_library_path(fr["path"])]
    if not chain:  # the root itself is library code (Dynamo compiled a library frame on its own)
        chain = list(frames[start:])
    if not chain:
        return []
    inner = next((i for i in range(len(chain) - 1, -1, -1)
                  if norm_path(chain[i]["path"]) == norm_path(b.path) and chain[i]["line"] == b.line), len(chain) - 1)
    chain = chain[: inner + 1]
    out = [Step(qualname=str(chain[0].get("function")), call=None)]
    for prev, fr in itertools.pairwise(chain):
        pl = max(int(prev["line"]) - 1, 0)
        out.append(Step(qualname=str(fr.get("function")), call=Location(prev["path"], Span.of(pl, 0, pl, 0))))
    return out


def findings_of(record: Record) -> list[Finding]:
    """Every break of the record as a Finding (for the CLI formatters), sorted like `check`'s."""
    out = [to_finding(b, read_text(b.path)) for b in record.breaks]
    out.sort(key=Finding.sort_key)
    return out


def read_text(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    from ..api import SourceError, decode_source

    try:
        return decode_source(data)
    except SourceError:
        return None


def runtime_findings(record: Record | None, path: str, current_text: str) -> list[Finding]:
    """The record's breaks in `path`, as Findings, if `current_text` is what Dynamo saw.

    Returns [] when the record is None, does not know the file, or the file's content changed since
    the capture (the text's SHA-1, as UTF-8 with or without BOM, differs from the recorded one):
    runtime breaks are never shown at lines that may have moved.
    """
    key = _unchanged(record, path, current_text)
    if key is None:
        return []
    out = [to_finding(b, current_text) for b in record.breaks if norm_path(b.path) == key]
    out.sort(key=Finding.sort_key)
    return out


def _unchanged(record: Record | None, path: str, current_text: str) -> str | None:
    """The record's key for `path` when the record knows the file and `current_text` is what Dynamo saw
    (the text's SHA-1, as UTF-8 with or without BOM); else None."""
    if record is None:
        return None
    key = norm_path(path)
    recorded = next((h for p, h in record.files.items() if norm_path(p) == key), None)
    return key if recorded is not None and recorded in _text_hashes(current_text) else None


# ---- recompiles as findings ---------------------------------------------------------------------------
RECOMPILE_DOCS = "https://docs.pytorch.org/docs/main/user_guide/torch_compiler/compile/programming_model.recompilation.html"


def recompile_message(r: Recompile) -> str:
    """"step recompiled 2 times: guard `lr == 0.1` failed" (+ the limit when it was hit)."""
    times = f"{r.count} time{'s' if r.count != 1 else ''}"
    guards = f"`{r.guards[0]}`" + (f" ... `{r.guards[-1]}`" if len(r.guards) > 1 else "") if r.guards \
        else f"`{r.guard}`"
    if r.resumed:
        times += f" ({r.resumed} in the code after its graph breaks)" if r.resumed < r.count \
            else " (the code after its graph breaks)"
    msg = f"{r.function or '?'} recompiled {times}: guard {guards} failed"
    if r.limit_hit:
        msg += (f"; hit {r.limit_text()}: fullgraph=True raised" if r.fullgraph
                else f"; hit {r.limit_text()}: new inputs run without compiling (eager) from then on")
    return msg


def recompile_finding(r: Recompile, text: str | None = None) -> Finding:
    """A recompile as a `Finding` (origin "runtime", severity warning): code "Recompile" (GB0039 when the
    recompile limit was hit), the whole line of its site; data: guard, guards, reason, hint, target, site,
    frame, call_site, stack, count, limit_hit, limit, kind "recompile"."""
    lines = split_lines(text) if text is not None else None
    l0 = r.line - 1
    src = lines[l0] if lines is not None and 0 <= l0 < len(lines) else ""
    c0 = len(src) - len(src.lstrip())
    span = Span.of(l0, c0, l0, max(len(src.rstrip()), c0))
    fl = max(int(r.frame.get("line") or 1) - 1, 0)
    root = RootInfo(qualname=r.function or "?", label="torch.compile" if r.fullgraph is not None
                    else "torch.compile (fullgraph flag unknown)",
                    location=Location(r.frame.get("path") or r.path, Span.of(fl, 0, fl, 0)),
                    fullgraph=bool(r.fullgraph))
    return Finding(
        path=r.path, code=r.code, name="Dynamo recompile limit exceeded" if r.limit_hit else "Recompilation",
        message=recompile_message(r), severity=WARNING, span=span, root=root,
        call_path=[Step(qualname=r.function or "?", call=None)],
        gb_codes=(Recompile.LIMIT_CODE,) if r.limit_hit else (),
        url=DOCS_URL.format(Recompile.LIMIT_CODE.lower()) if r.limit_hit else RECOMPILE_DOCS,
        data={"kind": "recompile", "guard": r.guard, "guards": list(r.guards), "reason": r.reason,
              "hints": [r.hint] if r.hint else [], "target": dict(r.target) if r.target else None,
              "site": r.site, "frame": dict(r.frame), "call_site": dict(r.call_site) if r.call_site else None,
              "stack": [dict(s) for s in r.stack], "count": r.count, "limit_hit": r.limit_hit,
              "limit": dict(r.limit) if r.limit else None, "fullgraph": r.fullgraph,
              "resumed": r.resumed},
        origin="runtime",
    )


def recompile_lines(r: Recompile, base: str | None = None) -> list[str]:
    """What the text output adds under a recompile's finding line: the guards, Dynamo's hint, the
    compiled function and where it was called from."""
    from ..output import rel_path

    out = []
    if len(r.guards) > 1:
        shown = r.guards[:3] + (["..."] if len(r.guards) > 4 else []) + (r.guards[-1:] if len(r.guards) > 3 else [])
        out.append("    guards that failed: " + ", ".join(g if g == "..." else f"`{g}`" for g in shown))
    if r.target:
        t = r.target
        what = {"argument": f"argument `{t.get('name')}` of {r.function}",
                "attribute": f"attribute `{t.get('expr') or t.get('name')}`",
                "global": f"global `{t.get('name')}`", "name": f"`{t.get('expr') or t.get('name')}`",
                "global_state": "global state (grad mode, default dtype, ...)"}.get(t.get("kind"), "")
        if what:
            out.append(f"    guarded value: {what}")
    if r.hint:
        out.append(f"    hint: {r.hint}")
    fr = r.frame
    out.append(f"    compiled function: {fr.get('function') or r.function} at "
               f"{rel_path(fr.get('path') or r.path, base)}:{fr.get('line')}")
    if r.call_site:
        cs = r.call_site
        out.append(f"    called from: {rel_path(cs['path'], base)}:{cs.get('line')} in {cs.get('function') or '?'}")
    return out


def recompile_findings(record: Record | None, path: str, current_text: str) -> list[Finding]:
    """The record's recompiles in `path` as Findings, if `current_text` is what Dynamo saw ([] otherwise,
    like `runtime_findings`)."""
    key = _unchanged(record, path, current_text)
    if key is None:
        return []
    out = [recompile_finding(r, current_text) for r in record.recompiles if norm_path(r.path) == key]
    out.sort(key=Finding.sort_key)
    return out


def all_recompile_findings(record: Record) -> list[Finding]:
    out = [recompile_finding(r, read_text(r.path)) for r in record.recompiles]
    out.sort(key=Finding.sort_key)
    return out

# ruff: noqa: BLE001, S110, SIM115, UP031  -- runs inside the user's program: must never raise, any Python 3
"""The part of `fullgraph trace` that runs inside the traced program.

`fullgraph trace` copies this file into a temporary bootstrap directory (as
``_fullgraph_trace_hook.py``, next to a ``sitecustomize.py`` that imports it) and prepends that
directory to ``PYTHONPATH``.  It must therefore work on its own: standard library only, no import
of ``fullgraph`` (the traced program may run in another environment) and no import of ``torch``
(a process that never imports torch pays nothing but this module's import).

What it does: it adds one ``logging.Handler`` to the ``torch.__trace`` logger, the logger behind
``TORCH_TRACE`` / tlparse.  ``torch._logging.trace_structured`` emits there whenever the logger has
a handler, so from then on Dynamo reports to us every graph break (``dynamo_graph_break_reason``,
not de-duplicated), every failed frame compile including ``fullgraph=True`` errors (``dynamo_error``
and ``compilation_metrics``), every recompilation with its guard failures (``recompile_reasons``,
emitted whatever ``TORCH_LOGS`` says; a recompile-limit hit is a failed compile), and the stack of
every compiled frame (``dynamo_start``).  torch's
own log configuration (``TORCH_LOGS``, ``torch._logging.set_logs``) only removes torch's handlers,
never ours, and leaves ``torch.__trace`` at DEBUG, so user code cannot switch the capture off by
accident.

The handler keeps the few event kinds the parent needs and appends them, one JSON object per line,
to ``$FULLGRAPH_TRACE_PARTS/<pid>.jsonl``, flushing after every line: a crash, ``os._exit`` or a
signal loses nothing already reported.  Forked children notice the new pid and write their own part.
It never raises into the traced program.
"""
import hashlib
import json
import logging
import os
import sys
import threading
import time

ENV_PARTS = "FULLGRAPH_TRACE_PARTS"
TRACE_LOGGER = "torch.__trace"

_ARTIFACTS = ("dynamo_graph_break_reason", "dynamo_error", "recompile_reasons")
_METRICS = ("compile_id", "co_name", "co_filename", "co_firstlineno", "fail_type", "fail_reason",
            "fail_user_frame_filename", "fail_user_frame_lineno")
_GRAPH_FILE_MARK = "# File: "


def _fullgraph_of_current_compile():
    """fullgraph= of the torch.compile call whose compiled code is running (None if unknown).

    The nearest ``compile_wrapper`` frame of ``torch/_dynamo/eval_frame.py`` on the stack holds
    the ``_TorchDynamoContext`` as its free variable ``self``.  Resume functions and helpers that
    Dynamo compiles as frames of their own run below the wrapper of the function the user compiled.
    """
    try:
        f = sys._getframe(2)
    except ValueError:
        return None
    sep_path = os.path.join("_dynamo", "eval_frame.py")
    while f is not None:
        co = f.f_code
        if co.co_name == "compile_wrapper" and co.co_filename.endswith(sep_path):
            try:
                value = getattr(f.f_locals.get("self"), "fullgraph", None)
            except Exception:
                return None
            return value if isinstance(value, bool) else None
        f = f.f_back
    return None


def _caller_of_compiled_frame():
    """{"path", "line", "function"} of the frame that called the code Dynamo is compiling again (the
    compiled frame is not on the stack yet: Dynamo's callback runs before it), or None.  The first
    frame outward that is neither torch's nor the standard library's (logging, contextlib, ...)."""
    try:
        f = sys._getframe(2)
    except ValueError:
        return None
    torch_dir = _torch_dir()
    std = os.path.dirname(os.__file__) + os.sep
    here = os.path.abspath(__file__)
    while f is not None:
        path = f.f_code.co_filename
        std_lib = path.startswith(std) and "site-packages" not in path and "dist-packages" not in path
        if not (torch_dir and path.startswith(torch_dir)) and not std_lib and os.path.abspath(path) != here:
            return {"path": path, "line": f.f_lineno, "function": f.f_code.co_name}
        f = f.f_back
    return None


class Recorder(logging.Handler):
    def __init__(self, directory):
        logging.Handler.__init__(self, level=logging.DEBUG)
        self.directory = directory
        self._pid = None
        self._fh = None
        self._hashed = set()
        self._touched = set()
        self._strings = {}  # the trace's string-intern table (forked children inherit it)
        self._skip_prefix = None
        self._torch_seen = False

    # -- output -------------------------------------------------------------------------------
    def _out(self):
        pid = os.getpid()
        if self._fh is None or self._pid != pid:
            if self._fh is not None:  # forked: the parent's file object is not ours to write
                self._fh = None
            inherited = dict(self._strings)
            self._fh = open(os.path.join(self.directory, "%d.jsonl" % pid), "a", encoding="utf-8")
            self._pid = pid
            self._hashed = set()
            self._touched = set()
            self._torch_seen = bool(_torch_version())
            self._line({"process": {"pid": pid, "ppid": os.getppid(), "argv": list(sys.argv),
                                    "cwd": os.getcwd(), "python": sys.version.split()[0],
                                    "torch": _torch_version(), "time": time.time()}})
            for idx, s in sorted(inherited.items()):
                self._line({"meta": {"str": [s, idx]}})
        return self._fh

    def _line(self, obj):
        self._fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self._fh.flush()

    def start(self):
        """Write this process's header right away, so the parent knows the hook was loaded."""
        with self.lock:
            try:
                self._out()
            except Exception:
                pass

    def switch(self, directory):
        """Write what follows to a part file in `directory` (None: pause, keeping only the string
        table, which later parts need).  The pytest plugin gives each test a directory of its own."""
        with self.lock:
            if self._fh is not None:
                try:
                    self._fh.close()
                except Exception:
                    pass
            self._fh = None
            self._pid = None
            self.directory = directory

    # -- logging.Handler ----------------------------------------------------------------------
    def emit(self, record):
        try:
            if self.directory is None:  # paused: remember interned strings only
                meta = getattr(record, "metadata", None)
                if isinstance(meta, dict) and "str" in meta:
                    value = meta.get("str")
                    if isinstance(value, (list, tuple)) and len(value) == 2:
                        self._strings[value[1]] = value[0]
                return
            self._emit(record)
        except Exception:
            pass  # never disturb the traced program

    def handleError(self, record):  # pragma: no cover - emit() swallows everything
        pass

    def _emit(self, record):
        meta = getattr(record, "metadata", None)
        if not isinstance(meta, dict) or not meta:
            return
        kind = next(iter(meta))
        payload = getattr(record, "payload", None)
        if not self._torch_seen and self._pid == os.getpid():
            version = _torch_version()
            if version:
                self._torch_seen = True
                self._line({"torch": version})
        if kind == "str":
            value = meta.get("str")
            if isinstance(value, (list, tuple)) and len(value) == 2:
                self._strings[value[1]] = value[0]
            self._out()
            self._line({"meta": meta})
            return
        if kind == "dynamo_output_graph":
            self._out()
            self._touch_graph(payload)
            return
        if kind == "artifact":
            name = (meta.get("artifact") or {}).get("name")
            if name not in _ARTIFACTS:
                return
            self._out()
            line = {"meta": meta, "payload": payload if isinstance(payload, str) else None, "time": time.time()}
            if name == "recompile_reasons":
                line["caller"] = _caller_of_compiled_frame()
            self._line(line)
            if name == "recompile_reasons" and isinstance(payload, str):  # JSON (a list): quotes escaped
                payload = payload.replace('\\"', '"')
            self._hash_paths(_payload_paths(payload))
            return
        if kind == "dynamo_start":
            self._out()
            self._line({"meta": meta, "fullgraph": _fullgraph_of_current_compile(), "time": time.time()})
            paths = []
            for fr in (meta.get("dynamo_start") or {}).get("stack") or []:
                fn = fr.get("filename")
                paths.append(self._strings.get(fn, fn) if isinstance(fn, int) else fn)
            self._hash_paths(paths)
            return
        if kind == "compilation_metrics":
            m = meta.get("compilation_metrics") or {}
            keep = {k: m.get(k) for k in _METRICS}
            slim = {"compilation_metrics": keep}
            for k in ("frame_id", "frame_compile_id", "attempt"):
                if k in meta:
                    slim[k] = meta[k]
            self._out()
            self._line({"meta": slim, "time": time.time()})
            self._hash_paths([keep.get("co_filename"), keep.get("fail_user_frame_filename")])
            return

    # -- files ----------------------------------------------------------------------------------
    def _touch_graph(self, payload):
        """Files whose code produced graph ops (Dynamo traced them, even without a break)."""
        if not isinstance(payload, str):
            return
        paths = []
        for line in payload.splitlines():
            i = line.find(_GRAPH_FILE_MARK)
            if i < 0:
                continue
            rest = line[i + len(_GRAPH_FILE_MARK):]
            j = rest.find(" in ")
            loc = rest[:j] if j > 0 else rest
            path = loc.rsplit(":", 1)[0]
            if path and path not in self._touched:
                self._touched.add(path)
                paths.append(path)
        if paths:
            self._line({"touched": paths})
            self._hash_paths(paths)

    def _hash_paths(self, paths):
        for p in paths:
            if not isinstance(p, str) or not p or p in self._hashed:
                continue
            self._hashed.add(p)
            if self._skip_prefix is None:
                self._skip_prefix = _torch_dir() or ""
            if self._skip_prefix and p.startswith(self._skip_prefix):
                continue
            full = p if os.path.isabs(p) else os.path.abspath(p)
            try:
                with open(full, "rb") as fh:
                    digest = hashlib.sha1(fh.read()).hexdigest()
            except OSError:
                continue
            self._line({"file": {"path": full, "sha1": digest}})


def _payload_paths(payload):
    out = []
    if not isinstance(payload, str):
        return out
    start = 0
    key = 'File "'
    while True:
        i = payload.find(key, start)
        if i < 0:
            return out
        j = payload.find('"', i + len(key))
        if j < 0:
            return out
        out.append(payload[i + len(key):j])
        start = j + 1


def _torch_version():
    mod = sys.modules.get("torch")
    return getattr(mod, "__version__", None) if mod is not None else None


def _torch_dir():
    mod = sys.modules.get("torch")
    f = getattr(mod, "__file__", None) if mod is not None else None
    return os.path.dirname(f) + os.sep if f else None


_installed = None
_install_lock = threading.Lock()


def install(directory=None):
    """Attach the recorder (once per process). Returns it, or None when capture is not requested."""
    global _installed
    directory = directory or os.environ.get(ENV_PARTS)
    if not directory or not os.path.isdir(directory):
        return None
    with _install_lock:
        if _installed is None:
            rec = Recorder(directory)
            logging.getLogger(TRACE_LOGGER).addHandler(rec)
            rec.start()
            _installed = rec
    return _installed

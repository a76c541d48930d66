"""`fullgraph trace --from-log PATH`: records from logs users already have.

* a TORCH_TRACE directory (the tlparse input; one ``*.log`` per process, or a single such file);
* a TORCH_LOGS="graph_breaks" text log (a stderr capture; uncaught fullgraph=True errors printed
  in the same capture are read too; errors the program caught never reach stderr and are not in
  such a log).

Both give the same record format as a live capture.  What a log cannot tell is filled in from the
files as they are now: ``files`` hashes the current content only when every line Dynamo printed
still matches it, and for text logs, which do not say which function was compiled, the root is the
outermost function on the stack that the static analysis sees compiled.
"""
from __future__ import annotations

import os

from .collect import TRACE_LINE, build_record, parse_text_log, process_from_trace_file
from .record import Record


class LogError(Exception):
    pass


def _is_trace_file(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for _ in range(50):
                line = fh.readline()
                if not line:
                    return False
                if TRACE_LINE.match(line.rstrip("\n")):
                    return True
    except OSError:
        return False
    return False


def record_from_log(path: str) -> Record:
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path)
                       if os.path.isfile(os.path.join(path, f)) and _is_trace_file(os.path.join(path, f)))
        if not files:
            raise LogError(f"{path}: no TORCH_TRACE log files in this directory")
        procs = [process_from_trace_file(f) for f in files]
        return build_record(procs, source="torch_trace", command=[])
    if not os.path.isfile(path):
        raise LogError(f"{path}: no such file or directory")
    if _is_trace_file(path):
        return build_record([process_from_trace_file(path)], source="torch_trace", command=[])
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError as e:
        raise LogError(f"{path}: cannot read ({e.strerror or e})") from None
    procs = parse_text_log(text)
    return build_record(procs, source="torch_logs", command=[], use_static_roots=True)

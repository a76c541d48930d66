"""Runtime capture in a Jupyter kernel (or IPython): ``%load_ext fullgraph``.

`fullgraph trace -- python train.py` records the graph breaks Dynamo meets in a program; a notebook runs in a
kernel that fullgraph does not start.  Loading this extension in the kernel attaches the same recorder
(trace/_hook.py) to the kernel's process.  After every cell, the breaks met so far are written to the
project's `.fullgraph/breaks.json`, where the language server shows them like other runtime breaks.

Code of a cell runs from a file of the kernel's own (ipykernel's ``/tmp/ipykernel_<pid>/<hash>.py``, IPython's
``<ipython-input-N-…>``); its text is in `linecache`.  A frame in such a file is mapped to the notebook: the
code cell of the notebook file whose source is that text, at the line of the notebook's module (the code
cells as one module, notebook.py), which the editor shows in that cell.  Which notebook: VS Code's kernel
sets ``__vsc_ipynb_file__``, Jupyter Server sets ``JPY_SESSION_NAME``; elsewhere set ``FULLGRAPH_NOTEBOOK``
to its path before ``%load_ext fullgraph``.  A cell whose text is not in the saved notebook (edited since the
last save, or typed in a console) is not mapped: its breaks are left out rather than shown at wrong lines.
"""
from __future__ import annotations

import linecache
import os
import sys
import tempfile

from .trace.record import now

ENV_NOTEBOOK = "FULLGRAPH_NOTEBOOK"


def load_ipython_extension(ip) -> None:
    capture = KernelCapture(notebook_path(ip), getattr(ip, "transform_cell", None))
    ip.events.register("post_run_cell", capture.after_cell)
    where = capture.notebook or "an unknown notebook (set FULLGRAPH_NOTEBOOK to its path)"
    print(f"fullgraph: recording graph breaks of {where} into {capture.record_path}")


def notebook_path(ip) -> str | None:
    """The path of the notebook the kernel runs, as its front end tells it (None if it does not)."""
    for value in (os.environ.get(ENV_NOTEBOOK), (getattr(ip, "user_ns", None) or {}).get("__vsc_ipynb_file__"),
                  os.environ.get("JPY_SESSION_NAME")):
        if isinstance(value, str) and value.endswith(".ipynb"):
            return os.path.abspath(value)
    return None


class KernelCapture:
    def __init__(self, notebook: str | None, transform=None):
        from .trace import _hook
        from .trace.record import default_record_path

        self.notebook = notebook
        self.transform = transform  # IPython's: a cell's source -> the code that runs
        self.record_path = default_record_path(os.path.dirname(notebook) if notebook else None)
        self.parts = tempfile.mkdtemp(prefix="fullgraph-kernel-")
        self.started = now()
        recorder = _hook.install(self.parts)
        # one recorder per process: a second %load_ext (or `fullgraph trace` around the kernel) keeps the first
        self.parts = getattr(recorder, "directory", None) or self.parts

    def after_cell(self, result=None) -> None:
        try:
            self.save()
        except Exception as e:  # never break the user's kernel
            print(f"fullgraph: could not record graph breaks: {e}", file=sys.stderr)

    def save(self) -> None:
        from .trace.collect import build_record, process_from_part_file
        from .trace.record import merge_into_file

        part = os.path.join(self.parts, f"{os.getpid()}.jsonl")
        if not self.notebook or not os.path.isfile(part):
            return
        record = build_record([process_from_part_file(part)], source="kernel", started=self.started,
                              finished=now())
        mapped = map_to_notebook(record, self.notebook, self.transform)
        if mapped is not None:  # the notebook's breaks replace its earlier ones; other files' stay
            merge_into_file(mapped, self.record_path)


def map_to_notebook(record, notebook: str, transform=None):
    """The record's breaks whose place is a cell of `notebook` (read from disk), at the notebook's module
    lines, with the module's hash as the file's content (the editor drops them once the cells change).
    A cell is recognised by the code that ran: `transform` (IPython's transform_cell) of its source, which
    turns magics into calls and drops leading blank lines.  None if the notebook cannot be read."""
    from .notebook import NotebookError, cells_module, code_cells_of, parse_notebook, source_lines
    from .trace.record import Record, sha1_bytes

    try:
        with open(notebook, "rb") as fh:
            data = fh.read()
        nb = parse_notebook(data)[1]
        text, cells = cells_module(nb)
    except (OSError, NotebookError):
        return None
    start_of = dict((number, start) for start, number in cells.starts)
    by_source = {}
    for number, cell in code_cells_of(nb):
        source = "\n".join(source_lines(cell))
        ran = transform(source + "\n") if transform is not None else source
        dropped = _leading_blank(source) - _leading_blank(ran)  # lines IPython removed above the code
        by_source.setdefault(ran.rstrip(), start_of[number] + dropped)

    def place(path: str, line: int) -> int | None:
        """The 1-based module line of `line` in the cell file `path`, or None."""
        lines = linecache.cache.get(path)
        if not lines or not isinstance(lines[2], list):
            return None
        start = by_source.get("".join(lines[2]).replace("\r\n", "\n").rstrip())
        return None if start is None else start + line

    out = Record(source="kernel", torch_version=record.torch_version, started=record.started,
                 finished=record.finished, files={notebook: sha1_bytes(text.encode("utf-8"))})
    for b in record.breaks:
        line = place(b.path, b.line)
        if line is None:
            continue
        end = place(b.path, b.end_line) if b.end_line is not None else None
        b.path, b.line, b.end_line = notebook, line, end
        if end is None:
            b.end_column = None
        for frame in b.stack:
            moved = place(frame.get("path", ""), frame.get("line", 0))
            if moved is not None:
                frame["path"], frame["line"] = notebook, moved
        if b.root and isinstance(b.root.get("line"), int):
            moved = place(b.root.get("path", ""), b.root["line"])
            if moved is not None:
                b.root["path"], b.root["line"] = notebook, moved
        out.breaks.append(b)
    return out


def _leading_blank(text: str) -> int:
    n = 0
    for line in text.split("\n"):
        if line.strip():
            break
        n += 1
    return n

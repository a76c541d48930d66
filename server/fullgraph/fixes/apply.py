"""`fullgraph check --fix / --unsafe-fixes / --diff`: apply the preferred fix of every finding.

Per round, each finding's first offered fix that the flags allow (`suppress` is never applied, like
Ruff's noqa) is taken; in each file the fixes are applied in position order, skipping any whose edits
overlap an already accepted one.  The files are then re-analysed in memory and the loop repeats
(bounded), so overlapping fixes and fixes uncovered by earlier ones are applied in the same run.
Finally files are written atomically (temp file in the same directory + os.replace, permissions
and encoding kept), or a unified diff is printed and nothing is written.
"""
from __future__ import annotations

import ast
import difflib
import io
import os
import sys
import tokenize

from ..fsutil import write_bytes_atomic
from . import FIXES, TextEdit, text_of
from .base import apply_edits, line_starts

MAX_ROUNDS = 12
NEVER_APPLIED = frozenset({"suppress"})


def _choose(f, unsafe: bool):
    edits = f.data.get("fix_edits", {})
    for ref in f.fixes:
        if ref.id in NEVER_APPLIED or (not ref.safe and not unsafe) or ref.id not in edits:
            continue
        return ref.id, [TextEdit.from_data(d) for d in edits[ref.id]]
    return None


def _offsets(text: str, starts: list[int], e: TextEdit) -> tuple[int, int]:
    def off(p):
        if p.line >= len(starts):
            return len(text)
        return min(starts[p.line] + p.col, len(text))
    return off(e.range.start), off(e.range.end)


def plan_file(text: str, chosen: list[tuple]) -> tuple[list[TextEdit], list]:
    """Accept fixes in position order while their edits do not overlap accepted ones.

    `chosen` is [(finding, fix_id, edits)]; returns (edits to apply, accepted findings)."""
    starts = line_starts(text)
    items = []
    for f, fid, edits in chosen:
        spans = [(*_offsets(text, starts, e), e) for e in edits]
        if spans:
            items.append((min(s for s, _, _ in spans), f, fid, spans))
    items.sort(key=lambda t: t[0])
    accepted: list[tuple[int, int, TextEdit]] = []
    accepted_set = set()
    fixed = []
    for _, f, fid, spans in items:
        ok = True
        for s, e, ed in spans:
            if (ed.range, ed.new_text) in accepted_set:
                continue
            for a, b, _ in accepted:
                if s < b and a < e or (s == e == a == b) or (s == a and (s == e or a == b)):
                    ok = False
                    break
            if not ok:
                break
        if not ok:
            continue
        for s, e, ed in spans:
            if (ed.range, ed.new_text) not in accepted_set:
                accepted_set.add((ed.range, ed.new_text))
                accepted.append((s, e, ed))
        fixed.append(f)
    return [ed for _, _, ed in accepted], fixed


def fix_paths(ws, result, unsafe: bool = False, diff: bool = False, out=None) -> int:
    """Apply fixes to the files of `result`; returns the number of findings fixed."""
    out = out or sys.stdout
    if getattr(ws, "texts", None) is None:
        ws.texts = {}
    original: dict[str, str] = {}
    current: dict[str, str] = {}
    findings = list(result.findings)
    paths = {f.path for f in findings}
    fixed_in: dict[str, int] = {}  # findings fixed per file
    for _ in range(MAX_ROUNDS):
        by_path: dict[str, list] = {}
        for f in findings:
            c = _choose(f, unsafe)
            if c is not None:
                by_path.setdefault(f.path, []).append((f, *c))
        changed = False
        for path, chosen in sorted(by_path.items()):
            text = current.get(path)
            if text is None:
                text = text_of(ws, path)
                if text is None:
                    continue
                original.setdefault(path, text)
            edits, done = plan_file(text, chosen)
            if not edits:
                continue
            try:
                new = apply_edits(text, edits)
                ast.parse(new)
            except (SyntaxError, ValueError):
                # the combination does not parse: apply the first fix alone this round
                f, fid, eds = min(chosen, key=lambda c: _offsets(text, line_starts(text), c[2][0])[0])
                try:
                    new = apply_edits(text, eds)
                    ast.parse(new)
                except (SyntaxError, ValueError):
                    continue
                done = [f]
            if new == text:
                continue
            current[path] = new
            ws.texts[path] = new
            ws.set_text(path, new)
            fixed_in[path] = fixed_in.get(path, 0) + len(done)
            changed = True
        if not changed:
            break
        findings = ws.findings_for(sorted(paths | set(current)))
    for path in sorted(current):
        old, new = original[path], current[path]
        if old == new:
            continue
        if path.endswith(".ipynb"):
            if not _write_notebook(path, old, new, diff, out):
                fixed_in.pop(path, None)
        elif diff:
            out.write(unified_diff(path, old, new))
        else:
            write_atomic(path, new)
    if diff:
        # nothing was written: the workspace must not keep the in-memory texts
        for path in current:
            ws.texts.pop(path, None)
    return sum(fixed_in.values())


def _write_notebook(path: str, old: str, new: str, diff: bool, out) -> bool:
    """The fixed code cells back into the notebook (notebook.write_back), or their diffs, one per cell;
    False when the notebook cannot take them (it is left as it is, and says why)."""
    from ..notebook import NotebookError, write_back

    try:
        with open(path, "rb") as fh:
            data = fh.read()
        payload, cells = write_back(data, old, new)
    except (OSError, NotebookError) as e:
        print(f"fullgraph: {path}: not fixed: {e}", file=sys.stderr)
        return False
    if diff:
        for number, before, after in cells:
            out.write(unified_diff(f"{path}:cell {number}", before, after))
        return True
    st = os.stat(path)
    write_bytes_atomic(path, payload, st.st_mode & 0o7777)
    return True


def unified_diff(path: str, old: str, new: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = path
    rel = rel.replace(os.sep, "/")
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    lines = []
    for line in difflib.unified_diff(a, b, fromfile=f"a/{rel}", tofile=f"b/{rel}"):
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        lines.append(line)
    return "".join(lines)


def _encoding_of(data: bytes) -> tuple[str, bool]:
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        enc = "utf-8"
    if enc == "utf-8-sig":
        enc = "utf-8"
    return enc, bom


def write_atomic(path: str, text: str) -> None:
    """Write `text` with the file's own encoding (and BOM), via a temp file + os.replace."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        st = os.stat(path)
    except OSError:
        data, st = b"", None
    enc, bom = _encoding_of(data)
    payload = (b"\xef\xbb\xbf" if bom else b"") + text.encode(enc)
    write_bytes_atomic(path, payload, st.st_mode & 0o7777 if st is not None else None)


__all__ = ["fix_paths", "plan_file", "unified_diff", "write_atomic", "FIXES"]

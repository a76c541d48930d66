"""Reading what Dynamo prints: graph-break messages, exception texts and user-code tracebacks.

The layouts handled (torch 2.13; see /work/shared/reference/catalog/SUMMARY.md):

* a graph-break message (``torch._dynamo.exc.format_graph_break_message``)::

      <gb_type>
        Explanation: <text, continuation lines indented>
        Hint: <text>            (any number)

        Developer debug context: <text>

       For more details about this graph break, please visit: https://.../gb/gb0059.html

  possibly preceded by a reason line ("Encountered graph break when attempting to trace CALL: ..."),
  and chained with ``*** While handling this graph break, another graph break occurred: ***``;
* a data-dependent ``UserError`` ("Consider annotating your code using torch._check*(). Could not
  guard on data-dependent expression ...") that has no GB code: the first line is its type;
* tracebacks as ``traceback.format_list`` prints them: ``File "p", line n, in f``, the stripped
  source line, and, on Python 3.11+, a ``^^^^`` (or ``~~~^^^~~~``) marker line under the part of
  the line that was running.  The markers give the columns.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from dataclasses import dataclass, field

GB_LINK_RE = re.compile(r"gb/gb(\d{4})\.html")
FRAME_RE = re.compile(r'^(\s*)File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+))?$')
MARKER_RE = re.compile(r"^\s*[~^]+\s*$")
RESUME_RE = re.compile(r"^torch_dynamo_resume_in_(?P<name>.+)_at_(?P<line>\d+)$")
CHAIN_MARK = "*** While handling this graph break, another graph break occurred: ***"

# lines of a UserError message that are boilerplate, not explanation
_USER_ERROR_NOISE = ("For more information", "For extended logs", "If you suspect", "For more debugging help",
                     "For C++ stack trace", "Set TORCHDYNAMO_VERBOSE", "User Stack (most recent call last)",
                     "(snipped, see stack below")


@dataclass
class Frame:
    path: str
    line: int
    function: str
    code: str = ""  # the stripped source line as printed
    marker: tuple[int, int] | None = None  # [start, end) in the stripped line, from ^^^ markers

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "function": self.function}


@dataclass
class Message:
    gb_type: str
    explanation: str = ""
    hints: list[str] = field(default_factory=list)
    gb_code: str | None = None
    exc_class: str | None = None  # e.g. "Unsupported", "UserError"


# ---- tracebacks ------------------------------------------------------------------------------------
def parse_frames(text: str) -> list[Frame]:
    """Frames of a formatted traceback (outermost first). Lines that are not frames are skipped."""
    frames: list[Frame] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FRAME_RE.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        fr = Frame(path=m.group("path"), line=int(m.group("line")), function=(m.group("func") or "").strip())
        i += 1
        if i < len(lines) and not FRAME_RE.match(lines[i]) and lines[i].strip() and \
                _indent(lines[i]) > indent and not MARKER_RE.match(lines[i]):
            code_line = lines[i]
            code_start = _indent(code_line)
            fr.code = code_line.strip()
            i += 1
            if i < len(lines) and MARKER_RE.match(lines[i]) and lines[i].strip():
                mk = lines[i]
                first = min(p for p in (mk.find("^"), mk.find("~")) if p >= 0)
                last = max(mk.rfind("^"), mk.rfind("~"))
                start = first - code_start
                end = last + 1 - code_start
                if 0 <= start < end <= len(fr.code):
                    fr.marker = (start, end)
                i += 1
        frames.append(fr)
    return frames


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip())


def section(text: str, start_marker: str, end_markers: tuple[str, ...]) -> str | None:
    """The text after the last line equal to `start_marker` up to the first line starting an end marker."""
    lines = text.splitlines()
    idx = None
    for i, ln in enumerate(lines):
        if ln.strip() == start_marker:
            idx = i
    if idx is None:
        return None
    out = []
    for ln in lines[idx + 1:]:
        if any(ln.startswith(e) for e in end_markers):
            break
        out.append(ln)
    return "\n".join(out)


def last_exception(traceback_text: str) -> tuple[str | None, str]:
    """(exception class qualname, message) of the last exception in a formatted traceback.

    With chained exceptions ("During handling of the above exception, another exception
    occurred:"), the last one is the one that propagated.
    """
    lines = traceback_text.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last):")]
    if not starts:
        return None, traceback_text
    block = lines[starts[-1] + 1:]
    for i, ln in enumerate(block):
        if ln and not ln[0].isspace():
            head, sep, rest = ln.partition(": ")
            if not sep and ln.endswith(":"):
                head, rest = ln[:-1], ""
            elif not sep:
                head, rest = ln, ""
            msg = "\n".join([rest, *block[i + 1:]])
            return head.strip(), msg
    return None, ""


# ---- messages --------------------------------------------------------------------------------------
def parse_message(text: str, exc_class: str | None = None) -> Message:
    """A Dynamo graph-break / error message -> Message (gb_type, explanation, hints, GB code)."""
    text = text.replace("\r\n", "\n")
    parts = text.split(CHAIN_MARK)
    primary = _parse_one(parts[0], exc_class)
    for extra in parts[1:]:
        m = _parse_one(extra, exc_class)
        if not m.gb_type:
            continue
        note = m.gb_type + (f": {m.explanation}" if m.explanation else "")
        primary.explanation = (primary.explanation + "\n\n" + note).strip() if primary.explanation else note
        for h in m.hints:
            if h not in primary.hints:
                primary.hints.append(h)
        if primary.gb_code is None:
            primary.gb_code = m.gb_code
    if primary.gb_code is None and primary.gb_type:
        primary.gb_code = gb_code_for_type(primary.gb_type)
    return primary


def _parse_one(text: str, exc_class: str | None) -> Message:
    lines = [ln.rstrip() for ln in text.split("\n")]
    link = GB_LINK_RE.search(text)
    code = f"GB{link.group(1)}" if link else None
    exp_idx = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("Explanation:")), None)
    if exp_idx is None:
        return _parse_plain(lines, code, exc_class)
    # gb_type: the nearest meaningful line above "Explanation:"
    gb_type = ""
    for ln in reversed(lines[:exp_idx]):
        s = ln.strip()
        if not s or s.startswith("Higher Order Operator:"):
            continue
        gb_type = _strip_prefixes(s)
        break
    explanation: list[str] = []
    hints: list[str] = []
    current: list[str] | None = None
    base = None
    for ln in lines[exp_idx:]:
        s = ln.strip()
        if s.startswith("Explanation:"):
            base = _indent(ln)
            current = explanation
            current.append(s[len("Explanation:"):].strip())
        elif s.startswith("Hint:"):
            hints.append(s[len("Hint:"):].strip())
            current = hints
        elif s.startswith(("Developer debug context:", "For more details about this graph break")):
            current = None
        elif current is not None:
            if not s:
                if current is explanation:
                    explanation.append("")
                else:
                    current = None
                continue
            if base is not None and _indent(ln) <= base and current is explanation and not s.startswith("#"):
                # a line back at the message's own indentation ends the explanation
                current = None
                continue
            cont = ln[base + 4:] if base is not None and ln[: base + 4].strip() == "" else s
            if current is explanation:
                explanation.append(cont.rstrip())
            else:
                hints[-1] = hints[-1] + "\n" + cont.rstrip()
    return Message(gb_type=gb_type, explanation="\n".join(explanation).strip(), hints=hints, gb_code=code,
                   exc_class=exc_class)


def _parse_plain(lines: list[str], code: str | None, exc_class: str | None) -> Message:
    """A message without the Explanation/Hint layout (data-dependent UserError, other errors)."""
    body = [ln for ln in lines]
    while body and not body[0].strip():
        body.pop(0)
    if not body:
        return Message(gb_type="", gb_code=code, exc_class=exc_class)
    gb_type = _strip_prefixes(body[0].strip())
    explanation: list[str] = []
    hints: list[str] = []
    for ln in body[1:]:
        s = ln.strip()
        if s.startswith(("from user code:", "User Stack (most recent call last)", 'File "', "Set TORCHDYNAMO_VERBOSE")):
            break
        if not s or any(s.startswith(n) for n in _USER_ERROR_NOISE):
            continue
        if s.lower().startswith("consider "):
            hints.append(s)
        else:
            explanation.append(s)
    lead = "Consider annotating your code using torch._check*()."
    if gb_type.startswith(lead):  # the data-dependent guard error leads with its hint
        hints.insert(0, lead)
    return Message(gb_type=gb_type, explanation="\n".join(explanation).strip(), hints=hints, gb_code=code,
                   exc_class=exc_class)


def _strip_prefixes(s: str) -> str:
    for p in ("Graph Break Reason:",):
        if s.startswith(p):
            s = s[len(p):].strip()
    m = re.match(r"^(?:torch\.[\w.]+\.)?(\w+(?:Error|Exception|Unsupported)): (.*)$", s)
    if m:
        s = m.group(2).strip()
    return s


# ---- GB registry -----------------------------------------------------------------------------------
def _registry_path() -> str | None:
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        p = os.path.join(loc, "_dynamo", "graph_break_registry.json")
        if os.path.isfile(p):
            return p
    return None


@functools.lru_cache(maxsize=1)
def _registry() -> dict[str, str]:
    """gb_type -> GB code, from the installed torch's graph_break_registry.json (empty if absent)."""
    path = _registry_path()
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    out: dict[str, str] = {}
    ambiguous: set[str] = set()
    for code, entries in data.items() if isinstance(data, dict) else ():
        for e in entries if isinstance(entries, list) else [entries]:
            t = e.get("Gb_type") if isinstance(e, dict) else None
            if not t:
                continue
            if t in out and out[t] != code:
                ambiguous.add(t)
            out.setdefault(t, code)
    for t in ambiguous:
        del out[t]
    return out


def gb_code_for_type(gb_type: str) -> str | None:
    return _registry().get(gb_type)


# ---- frames: user code or library --------------------------------------------------------------------
_LIB_MARKERS = ("site-packages", "dist-packages")


@functools.lru_cache(maxsize=1)
def _stdlib_dirs() -> tuple[str, ...]:
    import sysconfig

    out = set()
    for key in ("stdlib", "platstdlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            out.add(os.path.realpath(p))
    return tuple(sorted(out))


def is_library_path(path: str) -> bool:
    """Installed packages, the standard library, torch itself, or generated code."""
    if not path or path.startswith("<"):
        return True
    parts = re.split(r"[\\/]", path)
    if any(p in _LIB_MARKERS for p in parts):
        return True
    if re.search(r"[\\/]lib[\\/]python\d+(\.\d+)?[\\/]", path):  # any CPython stdlib layout
        return True
    rp = os.path.realpath(path)
    return any(rp.startswith(d + os.sep) for d in _stdlib_dirs())


def original_function(name: str) -> str:
    """`torch_dynamo_resume_in_f_at_10` -> `f` (nested resumes too)."""
    while True:
        m = RESUME_RE.match(name)
        if not m:
            return name
        name = m.group("name")


# ---- recompilation reasons ------------------------------------------------------------------------------
# One guard failure, as `torch._dynamo.guards.get_guard_fail_reason` words it (2.13 to 2.15):
#
#     0/1: lr == 0.1                       # return x * lr  # src/t.py:22 in step (HINT: ...)
#     User stack trace:
#       File "/abs/src/t.py", line 22, in step
#         return x * lr
#
# "0/1" is the cache entry whose guards failed; the first line is the failing guard, then (for guards
# made from user code) the source line and a shortened "file:line in function", and Dynamo's hint;
# the "User stack trace" (when Dynamo kept one) is where the guarded value was used.  Tensor guards
# read "tensor 'x' size mismatch at index 0. expected 3, actual 4"; global state "GLOBAL_STATE
# changed: grad_mode".
ENTRY_RE = re.compile(r"^\s*(\d+/\d+): ")
_USER_STACK = "User stack trace:"
_HINT_RE = re.compile(r"\s*\(HINT: (?P<hint>.*)\)\s*$")
_COMMENT_RE = re.compile(r"\s{2,}# .*$|\s+# (?=.*# \S+:\d+ in \S+).*$")
_TENSOR_RE = re.compile(r"^tensor '(?P<name>[^']+)' (?P<what>.+)$")
_CHECK_CALL_RE = re.compile(r"^(?:not )?___\w+\((?P<expr>[^,()]+(?:\([^()]*\))?[^,()]*)[,)]")
_LEN_RE = re.compile(r"^len\((?P<expr>.+?)\) ?(?:==|!=|<=|>=|<|>) ")
_CMP_RE = re.compile(r"^(?P<expr>[\w.\[\]'\"]+?) (?:==|!=|is not|is|<=|>=|<|>|in|not in) ")
_TYPE_RE = re.compile(r"^type\((?P<expr>.+?)\) ?(?:==|is) ")
_SOURCE_RE = re.compile(r"^(?P<scope>[LG])\[['\"](?P<name>[^'\"]+)['\"]\]")
_ACCESS_RE = re.compile(r"\.(\w+)|\[([^\]]*)\]")


@dataclass
class GuardFailure:
    guard: str  # the failing guard as Dynamo prints it, e.g. "lr == 0.1" or "tensor 'x' size mismatch ..."
    text: str  # the whole reason without the cache entry id (guard, source comment, hint, user stack)
    entry: str | None = None  # "0/1": the cache entry whose guard failed
    hint: str = ""
    frames: list[Frame] = field(default_factory=list)  # Dynamo's "User stack trace" (outermost first)
    subject: str | None = None  # the guarded value in Python syntax: "lr", "self.step", "G['FLAG']"


def parse_guard_failure(text: str) -> GuardFailure:
    """One reason of a ``recompile_reasons`` payload or a TORCH_LOGS=recompiles record."""
    text = text.replace("\r\n", "\n").strip("\n")
    m = ENTRY_RE.match(text)
    entry = m.group(1) if m else None
    body = text[m.end():] if m else text.lstrip()
    head, _, rest = body.partition("\n")
    frames = parse_frames(rest.split(_USER_STACK, 1)[1]) if _USER_STACK in rest else []
    hint = ""
    hm = _HINT_RE.search(head)
    if hm:
        hint = hm.group("hint").strip()
        head = head[:hm.start()]
    guard = _COMMENT_RE.sub("", head).strip()
    return GuardFailure(guard=guard, text=body.strip(), entry=entry, hint=hint, frames=frames,
                        subject=guard_subject(guard))


def guard_subject(guard: str) -> str | None:
    """The value a guard checks, as Dynamo names it ("lr", "self.step", "G['FLAG']", "L['x'].shape[0]"),
    or None (global state, or a guard whose layout is not known)."""
    for rx in (_TENSOR_RE, _LEN_RE, _TYPE_RE, _CHECK_CALL_RE, _CMP_RE):
        m = rx.match(guard)
        if m:
            expr = (m.group("name") if rx is _TENSOR_RE else m.group("expr")).strip()
            return expr or None
    return None


def subject_parts(expr: str) -> tuple[str | None, str, list[str]]:
    """("G" | "L" | None, root name, attribute/key path) of a guard subject:
    "G['FLAG']" -> ("G", "FLAG", []); "L['self'].step" -> ("L", "self", ["step"]); "self.step" ->
    (None, "self", ["step"]); "len(xs)" is not a subject (the caller strips it)."""
    scope = None
    m = _SOURCE_RE.match(expr)
    if m:
        scope, root, rest = m.group("scope"), m.group("name"), expr[m.end():]
    else:
        m = re.match(r"^[A-Za-z_]\w*", expr)
        if not m:
            return None, "", []
        root, rest = m.group(0), expr[m.end():]
    path = []
    for am in _ACCESS_RE.finditer(rest):
        path.append(am.group(1) if am.group(1) is not None else f"[{am.group(2)}]")
    return scope, root, path

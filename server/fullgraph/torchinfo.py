"""What we know about the user's torch, read without importing it.

The version comes from the installed distribution's metadata (the interpreter that runs fullgraph),
overridable by config and ``--torch-version``; without torch, the newest collected release is assumed.

That version selects the collected knowledge (``data/knowledge-<version>.json``, made by
``python -m fullgraph.knowledge collect``): the same release, else the nearest collected one of its
minor, else the newest older one (a release newer than every collected one gets the newest, and the
summary says so).  Its Dynamo graph-break registry (GB code -> gb_type, explanation, hints) is what
hover quotes, and its ``apis`` say which torch names a fix may emit.  Each file is read once, when a
section of it is first asked for (JSON only; torch is never imported).
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

# The version every rule's examples are verified against in the tests.
VERIFIED_VERSION = "2.13"

DATA = Path(__file__).resolve().parent / "data"

GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{code}.html"


@functools.total_ordering
@dataclass(frozen=True)
class TorchVersion:
    major: int
    minor: int
    patch: int = 0

    @staticmethod
    def parse(text: str) -> "TorchVersion":
        m = re.match(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?", str(text))
        if not m:
            raise ValueError(f"not a torch version: {text!r} (expected e.g. 2.13 or 2.13.0)")
        return TorchVersion(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))

    def __lt__(self, other: "TorchVersion") -> bool:
        return (self.major, self.minor, self.patch) < (other.major, other.minor, other.patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


@dataclass(frozen=True)
class VersionRange:
    """Half-open range [since, until) of torch versions; None means unbounded."""

    since: str | None = None
    until: str | None = None

    def contains(self, v: TorchVersion) -> bool:
        if self.since and v < TorchVersion.parse(self.since):
            return False
        if self.until and not v < TorchVersion.parse(self.until):
            return False
        return True

    def describe(self) -> str:
        if self.since and self.until:
            return f"torch >= {self.since}, < {self.until}"
        if self.since:
            return f"torch >= {self.since}"
        if self.until:
            return f"torch < {self.until}"
        return "all torch versions"


ALL_VERSIONS = VersionRange()


def _torch_distribution():
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover
        return None
    try:
        return metadata.distribution("torch")
    except Exception:
        return None


@functools.lru_cache(maxsize=1)
def installed_torch_version() -> str | None:
    """The version string of the torch installed for this interpreter, or None."""
    dist = _torch_distribution()
    return dist.version if dist is not None else None


@functools.lru_cache(maxsize=1)
def installed_torch_dir() -> Path | None:
    dist = _torch_distribution()
    if dist is None:
        return None
    try:
        p = Path(dist.locate_file("torch"))
    except Exception:
        return None
    return p if p.is_dir() else None


@dataclass(frozen=True)
class GBEntry:
    code: str
    gb_type: str
    explanation: str
    hints: tuple[str, ...]

    @property
    def url(self) -> str:
        return gb_url(self.code)

    def filled(self, known: dict[str, str]) -> tuple[str, tuple[str, ...]]:
        """Explanation and hints as Dynamo would print them: the registry's `{placeholders}` filled
        with what the analysis knows (`known`: placeholder expression -> text, e.g. "fn.__name__" ->
        "print") and the phrases around the others dropped, so no `{...}` is left."""
        expl = self.explanation
        if re.fullmatch(r"\w+", expl.strip()):
            expl = ""  # the registry names a variable ("explanation"), not a text
        return fill_template(expl, known), tuple(h for h in (fill_template(h, known) for h in self.hints) if h)


_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def fill_template(text: str, known: dict[str, str]) -> str:
    def unknown(m: re.Match) -> bool:
        return m.group(1) not in known

    # phrases that only carry an unknown value: "(has_kwargs {x})", " with argument types {x}", ": {x}"
    for pat in (r"\s*\([^()]*\{(%s)\}[^()]*\)", r"\s+(?:with|of|for|in|on|at|from|to|as)\s+[\w\s]*?`?\{(%s)\}`?",
                r":?\s*`?\{(%s)\}`?"):
        text = re.sub(pat % r"[^{}]*", lambda m: "" if m.group(1) not in known else m.group(0), text)
    text = _PLACEHOLDER.sub(lambda m: known.get(m.group(1), ""), text)
    return re.sub(r"\s{2,}", " ", text).strip()


def gb_url(code: str) -> str:
    return GB_SITE.format(code=code.lower())


# ---- the collected knowledge of each release (data/knowledge-<version>.json) ------------------------
@functools.lru_cache(maxsize=1)
def knowledge_versions() -> tuple[TorchVersion, ...]:
    """The collected releases, oldest first (from the file names; nothing is read)."""
    out = []
    for p in DATA.glob("knowledge-*.json"):
        try:
            out.append(TorchVersion.parse(p.stem.split("-", 1)[1]))
        except ValueError:
            continue
    return tuple(sorted(out))


def newest_knowledge() -> TorchVersion | None:
    versions = knowledge_versions()
    return versions[-1] if versions else None


def knowledge_version(torch: TorchVersion) -> TorchVersion | None:
    """The collected release whose Dynamo verdicts stand for `torch`: the same release; else one of the
    same minor (the newest not after it, else the oldest); else the newest older one; else (older than
    every collected release) the oldest."""
    versions = knowledge_versions()
    if not versions:
        return None
    if torch in versions:
        return torch
    same = [v for v in versions if (v.major, v.minor) == (torch.major, torch.minor)]
    if same:
        return max((v for v in same if not torch < v), default=min(same))
    older = [v for v in versions if v < torch]
    return max(older) if older else versions[0]


def knowledge_of(torch_version: str) -> str | None:
    """`knowledge_version` of a version string ("2.16.0" -> "2.15.0"); None when nothing applies."""
    try:
        k = knowledge_version(TorchVersion.parse(torch_version))
    except ValueError:
        return None
    return str(k) if k is not None else None


def knowledge_relation(torch: TorchVersion, knowledge: TorchVersion | None) -> str:
    """How the knowledge chosen for `torch` relates to it: "" (its release or its minor), "the newest
    collected" (torch is newer than every collected release), "the oldest collected", or "the nearest
    older collected"."""
    versions = knowledge_versions()
    if knowledge is None or (knowledge.major, knowledge.minor) == (torch.major, torch.minor):
        return ""
    if knowledge == versions[-1] and versions[-1] < torch:
        return "the newest collected"
    if knowledge == versions[0] and torch < versions[0]:
        return "the oldest collected"
    return "the nearest older collected"


def versions_text(torch_version: str, torch_source: str) -> str:
    """The torch version checked against and whose Dynamo verdicts stand for it, for the summary line and
    the editor's status item: "torch 2.15.0 installed; Dynamo 2.15.0's verdicts"."""
    try:
        torch = TorchVersion.parse(torch_version)
    except ValueError:
        return f"torch {torch_version}, {torch_source}"
    if torch_source in ("installed", "configured"):
        head = f"torch {torch_version} {torch_source}"
    elif torch_source.startswith("assumed"):
        head = f"torch not installed, {torch_version} assumed"
    else:  # not a static check's version (a run recorded by `fullgraph trace`)
        return f"torch {torch_version}, {torch_source}"
    k = knowledge_version(torch)
    if k is None:
        return f"{head}; no Dynamo verdicts collected"
    rel = knowledge_relation(torch, k) or ("the newest collected" if head.startswith("torch not") else "")
    return f"{head}; Dynamo {k}'s verdicts" + (f", {rel}" if rel else "")


@functools.lru_cache(maxsize=None)
def _knowledge_file(version: str) -> dict:
    try:
        return json.loads((DATA / f"knowledge-{version}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def knowledge_section(torch: TorchVersion, section: str) -> dict:
    """One section (``registry``, ``apis``, ``calls``, ``catalog``, ...) of the knowledge chosen for
    `torch` (empty when none is collected)."""
    k = knowledge_version(torch)
    return _knowledge_file(str(k)).get(section, {}) if k is not None else {}


def api_exists(name: str, torch: TorchVersion) -> bool | None:
    """Whether `torch.<...>` name exists on that release (its collected ``apis``); None when the name
    was not probed (or nothing is collected)."""
    a = knowledge_section(torch, "apis").get(name)
    return None if a is None else bool(a.get("exists"))


@functools.lru_cache(maxsize=8)
def knowledge_registry(torch: TorchVersion) -> dict[str, GBEntry]:
    """GB code -> entry of Dynamo's graph-break registry on the release chosen for `torch`."""
    return {code: GBEntry(code=code, gb_type=str(e.get("gb_type", "")), explanation=str(e.get("explanation", "")),
                          hints=tuple(str(h) for h in e.get("hints") or []))
            for code, e in knowledge_section(torch, "registry").items()}


def gb_registry(torch: TorchVersion) -> dict[str, GBEntry]:
    """Dynamo's graph-break registry of the version checked against: the installed torch's own file when
    that is the version (exact, even a release newer than every collected one), else the collected
    release's chosen for it (a configured version, or no torch installed)."""
    installed = installed_torch_version()
    try:
        same = installed is not None and TorchVersion.parse(installed) == torch
    except ValueError:
        same = False
    return (load_gb_registry() if same else {}) or knowledge_registry(torch)


@functools.lru_cache(maxsize=4)
def load_gb_registry(torch_dir: str | None = None) -> dict[str, GBEntry]:
    """GB code -> first registry entry, from the installed torch (empty if unavailable)."""
    base = Path(torch_dir) if torch_dir else installed_torch_dir()
    if base is None:
        return {}
    path = base / "_dynamo" / "graph_break_registry.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, GBEntry] = {}
    for code, entries in raw.items():
        if not entries:
            continue
        e = entries[0]
        out[code] = GBEntry(
            code=code,
            gb_type=str(e.get("Gb_type", "")),
            explanation=str(e.get("Explanation", "")),
            hints=tuple(str(h) for h in e.get("Hints", []) or []),
        )
    return out

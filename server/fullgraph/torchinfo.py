"""What we know about the user's torch, read without importing it.

The version comes from the installed distribution's metadata (the interpreter that runs fullgraph),
overridable by config and ``--torch-version``.  The graph-break registry
(``torch/_dynamo/graph_break_registry.json``, GB code -> gb_type, explanation, hints) is read from the
same installation, so hover texts and codes match the user's torch.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

# The version every rule's examples are verified against in the tests.
VERIFIED_VERSION = "2.13"

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

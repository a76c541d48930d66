"""Configuration: ``[tool.fullgraph]`` in pyproject.toml, editor settings and CLI flags.

Precedence (lowest to highest): defaults, pyproject.toml, editor/initialisation settings, CLI flags.
Unknown keys never raise: they are collected in ``Config.warnings`` for the front-end to show.
"""
from __future__ import annotations

import dataclasses
import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ImportError:
        from pip._vendor import tomli as tomllib  # type: ignore

from .torchinfo import VERIFIED_VERSION, TorchVersion, installed_torch_version, knowledge_version, newest_knowledge

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", ".tox", ".nox", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", "__pycache__", "node_modules", "build", "dist", "site-packages",
    ".eggs", "*.egg-info",
)

# `conditional`: how conditional findings inside followed libraries are shown
CONDITIONAL_LEVELS = ("hint", "information", "off")

# Largest file analysed; bigger ones get one clear finding instead.
MAX_FILE_BYTES = 5 * 1024 * 1024


@functools.lru_cache(maxsize=4096)
def _code_enabled(code: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    def match(patterns: Iterable[str]) -> int:
        best = -1
        for p in patterns:
            p = p.strip().upper()
            if p == "ALL":
                best = max(best, 0)
            elif code.startswith(p):
                best = max(best, len(p))
        return best

    sel = match(select) if select else 0
    ign = match(ignore)
    # the more specific pattern wins; on a tie, ignore wins (as in Ruff)
    return sel >= 0 and sel > ign


@dataclass
class Config:
    select: list[str] = field(default_factory=list)  # codes or prefixes; empty = all
    ignore: list[str] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)  # "pkg.mod:Class.forward" (fullgraph=True unless "…:fn@graphbreaks")
    torch_version: str | None = None
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    follow: list[str] = field(default_factory=list)  # installed packages to analyse into
    src: list[str] = field(default_factory=list)  # source roots (default: project root and src/)
    # more directories imports are found in, after the source roots (Pyright's extraPaths); relative to
    # the project root
    extra_paths: list[str] = field(default_factory=list)
    custom_op_namespace: str | None = None
    # conditional findings inside followed libraries (conditional.py): one "hint" (or "information")
    # per compile call and library, or "off" (every conditional finding left out)
    conditional: str = "hint"
    # the pytest plugin's settings (fullgraph/pytest_plugin.py reads them; the analysis does not)
    graph_breaks: str | None = None
    graph_breaks_include: list[str] = field(default_factory=list)
    graph_breaks_baseline: str | None = None
    project_root: str | None = None
    warnings: list[str] = field(default_factory=list)

    # ---- derived ---------------------------------------------------------------------------
    def torch(self) -> TorchVersion:
        """The torch version rules are evaluated for (config > installed > the newest collected release)."""
        for candidate in (self.torch_version, installed_torch_version()):
            if candidate:
                try:
                    return TorchVersion.parse(candidate)
                except ValueError:
                    self.warnings.append(f"ignoring torch version {candidate!r}: not a version")
        return newest_knowledge() or TorchVersion.parse(VERIFIED_VERSION)

    def knowledge(self) -> TorchVersion | None:
        """The collected release whose Dynamo verdicts, GB texts and APIs stand for `torch()`
        (torchinfo.knowledge_version)."""
        return knowledge_version(self.torch())

    def torch_source(self) -> str:
        if self.torch_version:
            return "configured"
        if installed_torch_version():
            return "installed"
        return "assumed (torch is not installed here)"

    def code_enabled(self, code: str) -> bool:
        # (asked for every finding of every walk: the answer of each code and pattern list is kept)
        return _code_enabled(code, tuple(self.select), tuple(self.ignore))

    def all_excludes(self) -> list[str]:
        return list(self.exclude or DEFAULT_EXCLUDE) + list(self.extend_exclude)

    def merged(self, **overrides: Any) -> "Config":
        c = dataclasses.replace(self, warnings=list(self.warnings))
        for k, v in overrides.items():
            if v is not None:
                setattr(c, k, v)
        return c


_KEYS = {
    "select": list,
    "ignore": list,
    "extend-select": list,
    "extend-ignore": list,
    "roots": list,
    "torch-version": str,
    "exclude": list,
    "extend-exclude": list,
    "follow": list,
    "src": list,
    "extra-paths": list,
    "custom-op-namespace": str,
    "conditional": str,
    "graph-breaks": str,
    "graph-breaks-include": list,
    "graph-breaks-baseline": str,
}


def apply_settings(cfg: Config, settings: dict[str, Any], origin: str) -> Config:
    """Apply a settings table (pyproject keys; snake_case or camelCase accepted) to cfg."""
    for raw_key, value in (settings or {}).items():
        key = _normalise_key(raw_key)
        if key not in _KEYS:
            cfg.warnings.append(f"{origin}: unknown setting {raw_key!r} ignored")
            continue
        want = _KEYS[key]
        if want is list and isinstance(value, str):
            value = [value]
        if want is list and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            cfg.warnings.append(f"{origin}: setting {raw_key!r} must be a list of strings; ignored")
            continue
        if want is str and value is not None and not isinstance(value, str):
            cfg.warnings.append(f"{origin}: setting {raw_key!r} must be a string; ignored")
            continue
        if key == "conditional" and value not in CONDITIONAL_LEVELS:
            cfg.warnings.append(f"{origin}: setting {raw_key!r} must be one of {', '.join(CONDITIONAL_LEVELS)}; "
                                f"got {value!r}; ignored")
            continue
        if key == "extend-select":
            cfg.select = (cfg.select or ["ALL"]) + list(value)
        elif key == "extend-ignore":
            cfg.ignore = cfg.ignore + list(value)
        else:
            setattr(cfg, key.replace("-", "_"), value)
    if cfg.torch_version:
        try:
            TorchVersion.parse(cfg.torch_version)
        except ValueError as e:
            cfg.warnings.append(f"{origin}: {e}")
            cfg.torch_version = None
    return cfg


def _normalise_key(key: str) -> str:
    out = []
    for ch in key:
        if ch.isupper():
            out.append("-")
            out.append(ch.lower())
        else:
            out.append(ch)
    return "".join(out).replace("_", "-")


def find_pyproject(start: Path) -> Path | None:
    start = start.resolve()
    for d in [start, *start.parents] if start.is_dir() else [start.parent, *start.parent.parents]:
        p = d / "pyproject.toml"
        if p.is_file():
            return p
    return None


def load_pyproject(path: Path, cfg: Config | None = None) -> Config:
    cfg = cfg or Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        cfg.warnings.append(f"{path}: cannot read ({e})")
        return cfg
    except tomllib.TOMLDecodeError as e:
        cfg.warnings.append(f"{path}: invalid TOML ({e}); using defaults")
        return cfg
    table = data.get("tool", {}).get("fullgraph")
    if cfg.project_root is None:
        cfg.project_root = str(path.parent)
    if isinstance(table, dict):
        apply_settings(cfg, table, str(path))
    elif table is not None:
        cfg.warnings.append(f"{path}: [tool.fullgraph] must be a table")
    return cfg


def discover(start: Path) -> Config:
    """Config for the project containing `start` (defaults if there is no pyproject.toml)."""
    p = find_pyproject(start)
    if p is None:
        return Config(project_root=str(start.resolve() if start.is_dir() else start.resolve().parent))
    return load_pyproject(p)

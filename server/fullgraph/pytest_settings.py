"""What the pytest plugin (fullgraph.pytest_plugin) and its check (fullgraph.pytest_check) share: the
run's settings, a test's markers, and the warnings a break or a recompile that does not fail a test is
reported as.
Standard library only: the plugin is imported by every pytest run where fullgraph is installed."""
from __future__ import annotations

from dataclasses import dataclass, field


class GraphBreakWarning(UserWarning):
    """A graph break that does not fail the test (in a library, or --graph-breaks=warn)."""


class RecompileWarning(UserWarning):
    """A recompilation that does not fail the test (in a library, or --recompiles=warn)."""


@dataclass
class Settings:
    mode: str = "off"
    include: list[str] = field(default_factory=list)
    baseline: str | None = None
    update_baseline: bool = False
    recompiles: str = "off"  # --recompiles: fail | warn | off


@dataclass
class Marker:
    enabled: bool = True
    allow: list[str] = field(default_factory=list)
    max: int = 0


@dataclass
class RecompileMarker:
    enabled: bool = True
    max: int = 0

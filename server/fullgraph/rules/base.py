"""What a rule is.

A rule is one class: its code, name, Dynamo GB codes, the torch versions and compile modes it applies
to, its docs (What it does / Why it breaks the graph / Example / Use instead / Fixes), its breaking and
clean examples (verified against real torch in the tests), the fixes it offers, and how it matches.

Matching is declarative so the analyzer can dispatch in one pass: ``calls`` are qualified names of
callees (``"builtins.print"``, ``"time.*"``), ``methods`` are method names called on some receiver,
``hooks`` are syntactic events (``"condition"``, ``"subscript"``, ``"percent_format"``, ``"await"``,
``"with"``, ``"range"``).  The analyzer calls ``check(event)`` for each match; ``check`` returns a
message (or a ``Report``) to report, or None to stay silent.

What only the whole project can tell (the class of `self.lstm`, whether a callee is disabled, who
passes an iterator) reaches a rule as a project event, named in ``project_hooks``: ``"root"`` (the
compiled function itself), ``"edge"`` (a call reached from a root), ``"reached"`` (a function reached
from a root, with what its callers pass), ``"frame"`` (a reached function once all its breaks are
known) and ``"compile"`` (a module's compile calls and the loops calling what they compile).  The
walk calls ``at_<event>(event)`` (engine/walk_events.py), which yields ``Placed`` findings.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable

from ..engine.event import Event, Report
from ..engine.ruleset import BOTH, FULLGRAPH, PARTIAL
from ..engine.walk_events import CompileEvent, EdgeEvent, FrameEvent, Placed, ReachedEvent, RootEvent
from ..torchinfo import ALL_VERSIONS, TorchVersion, VersionRange, gb_url

__all__ = ["BOTH", "FULLGRAPH", "PARTIAL", "Event", "Example", "Placed", "Report", "Rule"]

# Where a rule's codeDescription points when it has no GB code of its own.
TORCH_DOCS_URL = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"


@dataclass(frozen=True)
class Example:
    """A module that is analysed by fullgraph and compiled by torch in the tests.

    ``code`` is a complete module (``import torch`` included).  Lines ending in ``# expect: FGnnn``
    are where the finding must be.  ``call`` is evaluated after the module to run the compiled root
    (torch.compile's backend is forced to "eager" by the test harness).  A breaking example must make
    the call raise (for a fullgraph=True root) or graph-break (for a plain root); a clean one must
    compile under fullgraph=True with no break.
    """

    code: str
    call: str = "f(torch.randn(4))"
    breaks: bool = True
    note: str = ""
    needs: tuple[str, ...] = ()  # importable modules needed to run it (e.g. "tqdm")
    eager_ok: bool = True  # the call also runs in plain Python (False: e.g. it would stop in pdb)


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line, for `fullgraph rules`
    gb_codes: ClassVar[tuple[str, ...]] = ()
    versions: ClassVar[VersionRange] = ALL_VERSIONS
    verified: ClassVar[str] = "verified on torch 2.13 CPU (tests/test_rules_dynamo.py)"
    # Docs
    what: ClassVar[str] = ""
    why: ClassVar[str] = ""
    instead: ClassVar[str] = ""
    examples: ClassVar[tuple[Example, ...]] = ()
    fixes: ClassVar[tuple[str, ...]] = ()  # fix ids, preferred first
    doc_url: ClassVar[str] = ""  # overrides the link for rules without a GB code
    # Matching
    calls: ClassVar[tuple[str, ...]] = ()
    methods: ClassVar[tuple[str, ...]] = ()
    hooks: ClassVar[tuple[str, ...]] = ()
    project_hooks: ClassVar[tuple[str, ...]] = ()  # "root" | "edge" | "reached" | "frame"
    # the break happens inside the called function's own frame (`optimizer.step()` calls graph_break()):
    # Dynamo compiles that frame on its own even when the caller runs uncompiled after an unresumable
    # break, so the caller's break does not hide it (engine/frames.py); for some of a rule's findings only, their
    # Report's data says so (`"breaks_in_callee": True`)
    breaks_in_callee: ClassVar[bool] = False
    # a recompilation hazard (FG6xx), not a graph break: reported with `severity` whatever the root's mode
    recompile: ClassVar[bool] = False
    severity: ClassVar[str | None] = None  # None: the root's (error under fullgraph=True, else warning)

    def modes(self, torch: TorchVersion) -> frozenset[str]:
        """Compile modes in which this pattern breaks, for that torch version."""
        return BOTH

    def check(self, ev: Event) -> str | Report | None:
        """A call, method call or syntactic event this rule matches (``calls``/``methods``/``hooks``):
        a message or a Report to report it, None to stay silent."""
        return None

    # ---- project events (``project_hooks``), on the walk from a compiled root -------------------
    def at_root(self, ev: RootEvent) -> Iterable[Placed]:
        """The compiled function itself (reported at the torch.compile call)."""
        return ()

    def at_edge(self, ev: EdgeEvent) -> Iterable[Placed]:
        """A call reached on a path from the root, with the functions it runs."""
        return ()

    def at_reached(self, ev: ReachedEvent) -> Iterable[Placed]:
        """A function reached from the root, with what its callers pass."""
        return ()

    def at_compile(self, ev: CompileEvent) -> Iterable[Placed]:
        """A user module's torch.compile calls and what happens around the calls of what they compile
        (engine/recompiles.py), resolved or not; `Placed.data["compile_span"]` names the compile call."""
        return ()

    def at_frame(self, ev: FrameEvent) -> Iterable[Placed]:
        """A reached function once the breaks of everything it calls are known (engine/frames.py)."""
        return ()

    def holds(self, data: dict, torch: TorchVersion) -> bool:
        """Whether a site this rule reported (its `data`) is a break on that torch version (for rules
        whose facts come from a per-version table, such as Dynamo's trace rules)."""
        return True

    def silenced_by(self, dynamo_config: set[tuple], data: dict) -> bool:
        """Whether the project's `torch._dynamo.config.<name> = <constant>` settings, as (name, value)
        pairs, make this finding go away (e.g. `capture_scalar_outputs = True` for `.item()`)."""
        return False

    # ---- derived ---------------------------------------------------------------------------
    @classmethod
    def url(cls) -> str:
        """The page the editor links the code to: Dynamo's page for the rule's GB code."""
        if cls.doc_url:
            return cls.doc_url
        if cls.gb_codes:
            return gb_url(cls.gb_codes[0])
        return TORCH_DOCS_URL

    @classmethod
    def gb_links(cls) -> list[tuple[str, str]]:
        return [(c, gb_url(c)) for c in cls.gb_codes]

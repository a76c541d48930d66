"""Fixes: the PyTorch guide's remedies as verified code transformations (see fixes/*.py)."""
from __future__ import annotations

# fix id -> title (the editor shows "fullgraph (FG101): <title>")
FIX_TITLES: dict[str, str] = {}


def attach_fixes(findings, workspace) -> None:
    """Attach the fixes offered for each finding (filled in by the fix engine)."""
    return None

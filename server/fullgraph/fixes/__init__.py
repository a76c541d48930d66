"""Fixes: the PyTorch guide's remedies as verified code transformations (see fixes/*.py).

One API for every front-end:

    attach_fixes(findings, workspace)     # sets finding.fixes and finding.data["fix_edits"]
    edits_for(workspace, finding, fix_id) # the TextEdits of one offered fix
    fixes.apply.fix_paths(...)            # the CLI's --fix / --unsafe-fixes / --diff

A fix is offered for a finding only when its rule lists it, the configured torch version has the
API it uses, and the transformation applies to that code (each fix gives up otherwise); the edited
module must parse.  Edits are ranges in code points against the exact text the workspace analysed.
"""
from __future__ import annotations

import os

from ..model import FixRef
from ..rules import registry
from . import (
    asserts,
    branch,
    callees,
    config,
    disabled,
    hoist,
    hop_print,
    iterargs,
    logging_fns,
    onehot,
    recompile,
    rng,
    simple,
    split,
)
from .base import Fix, FixContext, NotOffered, Offer, TextEdit, merge_edits, text_of

# fix id -> title (the editor shows "fullgraph (FG101): <title>")
FIX_TITLES: dict[str, str] = {}
FIXES: dict[str, Fix] = {}


def _register() -> None:
    for cls in (simple.Guard, simple.RemoveGraphBreak, callees.NonstrictTrace, callees.CustomOp,
                iterargs.ListArgument, hoist.HoistInit, split.Split, split.SplitModule, logging_fns.IgnoreLoggingFunction,
                logging_fns.ReorderableLogging, branch.TorchWhere, branch.TorchCond, simple.CloneRewrite,
                simple.TorchMath, simple.MinMaxList, simple.SortKey, simple.FString, hop_print.HopPrint, config.CaptureConfig,
                asserts.AssertAsync, asserts.TensorAssert, rng.TorchRand, rng.RandomWhere, rng.NumpyRandom,
                rng.SeedGuard, onehot.NumClasses, disabled.ReorderableDisabled, recompile.TensorArg,
                recompile.CounterBuffer, recompile.MarkDynamic, recompile.DynamicTrue, recompile.UnspecIntConfig,
                simple.Suppress):
        fix = cls()
        FIXES[fix.id] = fix
        FIX_TITLES[fix.id] = fix.title


_register()


def _strict() -> bool:
    return os.environ.get("FULLGRAPH_TESTING") == "1"


def compute_offer(ctx: FixContext, finding, fix_id: str) -> Offer | None:
    """The fix's offer for this finding (validated), or None."""
    fix = FIXES.get(fix_id)
    if fix is None or not fix.supported(ctx.version):
        return None
    try:
        offer = fix.offer(ctx, finding)
        if offer is None or not offer.edits:
            return None
        src = ctx.source(finding.path)
        offer.edits = merge_edits(offer.edits, src)
    except NotOffered:
        return None
    except Exception:  # a fix bug must never take the check down; the tests run strict
        if _strict():
            raise
        return None
    if not ctx.validate(src, offer.edits):
        return None
    return offer


def attach_fixes(findings, workspace) -> None:
    """Attach the fixes offered for each finding, preferred first, with their edits."""
    ctx = FixContext(workspace)
    # a split keeps the other breaks of the same root out of the graph too (a recompilation hazard is no break)
    ctx.findings = [f for f in findings if not getattr(registry.BY_CODE.get(f.code), "recompile", False)]
    for f in findings:
        rule = registry.BY_CODE.get(f.code)
        refs: list[FixRef] = []
        edits: dict[str, list[dict]] = {}
        for fid in (rule.fixes if rule is not None else ()):
            offer = compute_offer(ctx, f, fid)
            if offer is None:
                continue
            refs.append(FixRef(fid, offer.title, FIXES[fid].safe))
            edits[fid] = [e.to_data() for e in offer.edits]
        f.fixes = refs
        f.data["fix_edits"] = edits


def edits_for(workspace, finding, fix_id: str) -> list[TextEdit]:
    """The text edits of one offered fix (recomputed if the finding has none attached)."""
    cached = finding.data.get("fix_edits", {}).get(fix_id)
    if cached is not None:
        return [TextEdit.from_data(d) for d in cached]
    offer = compute_offer(FixContext(workspace), finding, fix_id)
    return list(offer.edits) if offer is not None else []


__all__ = ["FIX_TITLES", "FIXES", "TextEdit", "attach_fixes", "edits_for", "compute_offer", "text_of"]

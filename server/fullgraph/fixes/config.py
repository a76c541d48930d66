"""capture-config: the Dynamo setting that makes a break go away, where one does.

Under plain `torch.compile` (fullgraph=True implies both on torch 2.13), `.item()`/`float(t)` and ops
with data-dependent output shapes (`nonzero`, boolean masks, `unique`) split the graph unless
`torch._dynamo.config.capture_scalar_outputs` / `capture_dynamic_output_shape_ops` is on.  The fix
sets it at module level, after the imports, in the module that holds the break: it runs when that
module is imported, which is before anything from it is compiled.  The setting is process-wide, and
it has a price (unbacked symbolic values: a later data-dependent shape or branch can fail to
compile), so the fix is offered as unsafe, and the title says so.
"""
from __future__ import annotations

from .base import Fix, FixContext, Offer, give_up

SETTINGS = {
    "FG303": ("capture_scalar_outputs", "capture `.item()` values in the graph"),
    "FG304": ("capture_dynamic_output_shape_ops", "capture data-dependent output shapes in the graph"),
}


class CaptureConfig(Fix):
    id = "capture-config"
    title = "Set the Dynamo capture option that makes this traceable (program-wide)"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        setting = SETTINGS.get(f.code)
        if setting is None or not f.call_path:
            give_up("no capture setting for this break")
        name, what = setting
        src = ctx.source(f.path)
        tn, edits = ctx.torch_name(src)
        line = f"{tn}._dynamo.config.{name} = True"
        if any(ln.strip() == line for ln in src.lines):
            give_up("already set")
        at = src.imports_end_line()
        edits = edits + [src.line_insert(at, line + src.newline)]
        return Offer(f"Set `{line}` after the imports ({what}; program-wide, unbacked values may fail "
                     "later)", edits)

"""The compiled roots: what each `torch.compile` call, `@torch.compile` decorator, `.compile()` method
call and configured root compiles, as the functions that run when it is called; and the compile calls
whose target the analysis cannot see."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..config import Config
from ..model import Location, RootInfo
from ..positions import Span
from . import imported_names
from .arrivals import Arrivals
from .not_followed import IMPORTLIB, NOT_FOUND, UNRESOLVED
from .resolve import Resolver
from .summary import FunctionSummary, ModuleSummary, RootDecl


@dataclass
class RootRecord:
    decl: RootDecl
    mod: ModuleSummary
    entries: list[tuple[FunctionSummary, ModuleSummary]]
    info: RootInfo | None


def find_roots(r: Resolver, a: Arrivals, config: Config) -> list[RootRecord]:
    """Every compiled root: each module's torch.compile calls and decorators, then the configured roots."""
    out: list[RootRecord] = []
    for mod in list(r.c.modules.values()):
        for decl in mod.roots:
            out.append(root_record(r, a, decl, mod))
    for spec in config.roots:
        rec = config_root(r, spec)
        if rec is not None:
            out.append(rec)
    return out


def unresolved_roots(r: Resolver, roots: list[RootRecord]) -> list[tuple[str, str, Span, str]]:
    """torch.compile calls in user code whose target the analysis cannot see: (label, path, span,
    why), why UNRESOLVED (what is compiled is not visible), NOT_FOUND (named, not found) or IMPORTLIB (in a
    module `importlib.import_module` imports by a name the analysis cannot tell): engine/not_followed.py."""
    out = []
    for mod in r.c.modules.values():
        if getattr(mod, "library", False):
            continue
        out.extend((label, mod.path, span, UNRESOLVED) for label, span in mod.unresolved_roots)
    out.extend((rec.decl.label, rec.mod.path, rec.decl.span,
                IMPORTLIB if imported_names.is_imported_by_name(rec.decl.target) else NOT_FOUND) for rec in roots
               if not rec.entries and not getattr(rec.mod, "library", False))
    return sorted(out, key=lambda u: (u[1], u[2]))


def root_record(r: Resolver, a: Arrivals, decl: RootDecl, mod: ModuleSummary) -> RootRecord:
    """What a torch.compile call or decorator compiles: the functions that run when it is called."""
    near = mod.path
    if imported_names.is_imported_by_name(decl.target):
        # `torch.compile(model.get_model(...))`, `model = importlib.import_module(name)`: each module the calls name
        entries = []
        for t in imported_names.targets(r, decl.target, near) or ():
            entries.extend(e for e in root_record(r, a, replace(decl, target=t), mod).entries if e not in entries)
        info = RootInfo(qualname=entries[0][0].qualname, label=decl.label, location=Location(mod.path, decl.span),
                        fullgraph=decl.fullgraph) if entries else None
        return RootRecord(decl, mod, entries, info)
    entries: list[tuple[FunctionSummary, ModuleSummary]] = []
    if decl.kind == "function":
        hit = r.function(decl.target, near)
        if hit is not None:
            entries.append(hit)
        else:
            c = r.class_(decl.target, near)
            if c is not None:
                entries.extend(r.module_call(c[0].qualname, near))
            else:  # `torch.compile(netG)` with `netG` another module's module-level instance (`netG = dcgan.netG`)
                entries.extend(r.bound_call(decl.target, near) or ())
    elif decl.kind == "module":
        entries.extend(r.module_call(decl.target, near))
    elif decl.kind == "container":
        for t in decl.target.split("|"):
            entries.extend(e for e in r.module_call(t, near) if e not in entries)
    elif decl.kind == "factory":
        hit = r.function(decl.target, near)
        made = r.returned_classes(hit[0], hit[1], decl.attr) if hit is not None else []
        for q, qnear in made:
            entries.extend(x for x in r.module_call(q, qnear) if x not in entries)
        if not made and hit is None and r.class_(decl.target, near) is not None:
            entries.extend(r.module_call(decl.target, near))
    elif decl.kind == "method":
        hit = r.function(decl.target, near)  # `sam = build_sam(...)`: the object a factory made
        made = r.returned_classes(hit[0], hit[1], None) if hit is not None else []
        for cls, cnear in made or [(decl.target, near)]:
            m = r.find_method(cls, decl.attr or "", cnear)
            if m is not None:
                if m not in entries:
                    entries.append(m)
            else:  # `torch.compile(model.encoder)`: a module held in an attribute of the object
                for t in a.attr_classes(cls, decl.attr or "", cnear):
                    entries.extend(x for x in r.module_call(t, cnear) if x not in entries)
    elif decl.kind == "attr":
        for t in r.attr_types(decl.target, decl.attr or "", near):
            entries.extend(r.module_call(t, near))
        if not entries:  # `torch.compile(self._compute)`: a bound method
            m = r.find_method(decl.target, decl.attr or "", near)
            if m is not None:
                entries.append(m)
    info = None
    if entries:
        info = RootInfo(qualname=entries[0][0].qualname, label=decl.label,
                        location=Location(mod.path, decl.span), fullgraph=decl.fullgraph)
    return RootRecord(decl, mod, entries, info)


def config_root(r: Resolver, spec: str) -> RootRecord | None:
    """A root named in the configuration (`roots = ["pkg.mod:Model.forward"]`, `@graphbreaks`: plain mode)."""
    text = spec.strip()
    fullgraph = True
    if text.endswith("@graphbreaks"):
        text, fullgraph = text[: -len("@graphbreaks")], False
    modname, _, obj = text.partition(":")
    q = f"{modname}.{obj}" if obj else modname
    hit = r.lookup(q)
    if hit is None:
        return None
    entries = []
    if hit[0] == "function":
        entries.append((hit[1], hit[2]))
        mod = hit[2]
        span = hit[1].name_span
    elif hit[0] == "class":
        entries.extend(r.module_call(hit[1].qualname, hit[2].path))
        mod = hit[2]
        span = hit[1].name_span
    else:
        return None
    decl = RootDecl("config", q, None, fullgraph, f"roots = [\"{spec}\"] (config)", span)
    info = RootInfo(qualname=entries[0][0].qualname if entries else q, label=decl.label,
                    location=Location(mod.path, span), fullgraph=fullgraph) if entries else None
    return RootRecord(decl, mod, entries, info)

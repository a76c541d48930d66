"""RESULTS.md (above its hand-written part) from truth.json and static.json.
    python3 report.py"""
from __future__ import annotations

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = "<!-- hand-written below -->"


def found(site: dict, diags: list[dict]) -> bool:
    """A Dynamo site is found when a shown diagnostic is at its statement or lists it in its library sites."""
    a, b = site["stmt"]
    for d in diags:
        if d["conditional"]:
            continue
        for loc in [d, *d["library_sites"]]:
            if loc["path"] == site["path"] and a <= loc["line"] <= b:
                return True
    return False


def main() -> None:
    truth = json.load(open(os.path.join(HERE, "truth.json")))
    static = json.load(open(os.path.join(HERE, "static.json")))["runs"]
    v = truth["versions"]
    out = [f"# vision model zoo probe: Dynamo (torch {v['torch']}) vs fullgraph", "",
           f"timm {v['timm']}, torchvision {v['torchvision']}; `torch.compile(model, backend=\"eager\")`, "
           "eval (no_grad) and train calls on a (2, 3, H, W) input.  `direct`: the timm entrypoint called through its "
           "module (`timm.models.resnet.resnet18(...)`) instead of `timm.create_model(\"resnet18\", ...)`.", "",
           "| run | Dynamo sites (statement, gb_type) | form | shown | conditional | unresolved roots | unfollowed calls | library functions walked |",
           "|---|---|---|---|---|---|---|---|"]
    sites_total = sites_found = 0
    clean_runs = clean_shown = 0
    failed = []
    for key, t in truth["runs"].items():
        if not t["ok"]:
            failed.append(f"{key}: {t.get('error', '?')}")
        sites = t["sites"]
        desc = "<br>".join(f"`{s['path']}:{s['stmt'][0]}` {s['gb_type']}" for s in sites) or "none"
        for form in ("", "_direct"):
            s = static.get(key + form)
            if s is None:
                continue
            shown = [d for d in s["diagnostics"] if not d["conditional"]]
            cond = [d for d in s["diagnostics"] if d["conditional"]]
            if t["ok"]:
                sites_total += len(sites)
                sites_found += sum(found(x, s["diagnostics"]) for x in sites)
                if not sites:
                    clean_runs += 1
                    clean_shown += len(shown)

            def fmt(ds):
                return "<br>".join(f"{d['code']} `{d['path']}:{d['line']}`" for d in ds) or "0"
            out.append(f"| {key} | {desc} | {form.strip('_') or 'as written'} | {fmt(shown)} | {fmt(cond)} | "
                       f"{', '.join(s['unresolved_roots']) or '-'} | {len(s['unfollowed_calls'])} | {len(s['reached'])} |")
    out += ["", f"**Totals**: {len(truth['runs'])} runs ({len(failed)} failed under Dynamo), "
            f"Dynamo sites {sites_total} (counted per script form), found (shown) {sites_found}; "
            f"clean runs x forms {clean_runs}, shown findings on them {clean_shown}.", ""]
    if failed:
        out += ["Failed runs: " + "; ".join(failed), ""]
    path = os.path.join(HERE, "RESULTS.md")
    tail = ""
    if os.path.exists(path):
        text = open(path).read()
        if MARK in text:
            tail = text[text.index(MARK):]
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n" + (tail or MARK + "\n"))


if __name__ == "__main__":
    main()

"""The package's layers import one way (CONTRIBUTING.md, "Where things live"):

    base (positions, model, config, ...) -> engine -> rules -> fixes -> api -> front-ends (cli, lsp, ...)

A module imports its own layer and the layers below it, never one above; no two modules import each
other, directly or through others.  Imports inside functions count (they are imports all the same);
imports under `if TYPE_CHECKING:` do not (they never run).  Nor does a private name cross modules:
what another module needs is public.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "fullgraph"

# the layer of each module, by its name's first matching prefix (lowest first)
LAYERS = (
    ("base", ("fullgraph", "fullgraph.positions", "fullgraph.model", "fullgraph.config", "fullgraph.torchinfo",
              "fullgraph.fsutil", "fullgraph.tracetable", "fullgraph.modnames", "fullgraph.importpath", "fullgraph.notebook",
              "fullgraph.cache", "fullgraph.data")),
    ("engine", ("fullgraph.engine",)),
    ("rules", ("fullgraph.rules",)),
    ("fixes", ("fullgraph.fixes",)),
    ("api", ("fullgraph.api",)),
    ("front-ends", ("fullgraph.cli", "fullgraph.__main__", "fullgraph.output", "fullgraph.conditional", "fullgraph.baseline",
                    "fullgraph.lsp", "fullgraph.pytest_plugin", "fullgraph.pytest_settings",
                    "fullgraph.pytest_check", "fullgraph.trace", "fullgraph.kernel", "fullgraph.knowledge")),
)

# (importer, imported): the only imports allowed to go up, each with its reason
EXCEPTIONS = {
    # IPython loads an extension by the package's name (`%load_ext fullgraph`); the hook defers to kernel.py
    ("fullgraph", "fullgraph.kernel"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for p in PACKAGE.rglob("*.py"):
        parts = p.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _layer(name: str) -> int:
    best, level = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for pre in prefixes:
            if (name == pre or name.startswith(pre + ".")) and len(pre) > best:
                best, level = len(pre), i
    assert level is not None, f"{name} is in no layer: add it to LAYERS in {__file__}"
    return level


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for s in node.body for n in ast.walk(s))
    return skip


def _imports(mods: dict[str, Path]):
    """(importer, imported module, names imported from it, line) for every runtime import of the package."""
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_nodes(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "fullgraph":
                        yield name, _owner(a.name, mods), (), node.lineno
            elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != "fullgraph":
                    continue
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in mods]
                if len(subs) == len(node.names):  # `from . import values`: the modules themselves
                    for s in subs:
                        yield name, s, (), node.lineno
                else:
                    yield name, _owner(target, mods), tuple(a.name for a in node.names), node.lineno


def _owner(dotted: str, mods: dict[str, Path]) -> str:
    while dotted not in mods:
        dotted = dotted.rpartition(".")[0]
    return dotted


def test_every_module_has_a_layer():
    for name in _modules():
        _layer(name)


def test_no_module_imports_a_higher_layer():
    mods = _modules()
    up = [f"{a} ({LAYERS[_layer(a)][0]}) imports {b} ({LAYERS[_layer(b)][0]}) at line {line}"
          for a, b, _, line in _imports(mods)
          if _layer(b) > _layer(a) and (a, b) not in EXCEPTIONS]
    assert up == []


def test_no_import_circle():
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for a, b, _, _ in _imports(mods):
        if a != b and (a, b) not in EXCEPTIONS:
            graph[a].add(b)
    circles = [c for c in _strongly_connected(graph) if len(c) > 1]
    assert circles == []


def test_no_private_name_crosses_modules():
    mods = _modules()
    crossing = [f"{a}:{line} imports {', '.join(n for n in names if _private(n))} from {b}"
                for a, b, names, line in _imports(mods)
                if a != b and any(_private(n) for n in names)]
    assert crossing == []


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_checks_see_a_circle_and_an_upward_import(tmp_path):
    """The checks above can fail: a made-up pair of modules that import each other, one of them upward."""
    graph = {"fullgraph.engine.x": {"fullgraph.rules.y"}, "fullgraph.rules.y": {"fullgraph.engine.x"}}
    assert [c for c in _strongly_connected(graph) if len(c) > 1] == [["fullgraph.engine.x", "fullgraph.rules.y"]]
    assert _layer("fullgraph.rules.y") > _layer("fullgraph.engine.x")


def test_contributing_maps_every_layer():
    """CONTRIBUTING.md's map names each module and folder the layers above place (kept true with them)."""
    text = (PACKAGE.parents[1] / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Where things live", 1)[1].split("\n## ", 1)[0]
    missing = []
    for _, prefixes in LAYERS:
        for pre in prefixes:
            if pre in ("fullgraph", "fullgraph.data", "fullgraph.__main__",
                       "fullgraph.pytest_settings"):
                continue  # the package itself, its data files, `python -m fullgraph`, tools and helpers of a row
            rel = pre.removeprefix("fullgraph.").replace(".", "/")
            if f"`{rel}.py`" not in section and f"`{rel}/`" not in section:
                missing.append(rel)
    assert missing == []

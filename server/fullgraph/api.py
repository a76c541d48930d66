"""The engine's public API: what the CLI and the language server call.

    ws = Workspace(config)
    result = ws.check([Path("src")])          # CLI: files and folders
    ws.set_text(path, text); ws.findings_for(path)   # LSP: editor buffers

Both return the same `Finding`s; fixes are attached by `fullgraph.fixes`.
"""
from __future__ import annotations

import fnmatch
import gc
import hashlib
import importlib
import io
import os
import pickle
import re
import threading
import tokenize
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from . import __version__, cache
from .config import MAX_FILE_BYTES, Config
from .engine.module import ModuleAnalyzer, analyze, parse_module
from .engine.not_followed import NOT_ANALYSED, call_words, root_words
from .importpath import ModuleFinder, search_path
from .modnames import module_name_for, namespace_names
from .engine.project import Project
from .engine import garbage, incremental
from .engine import summary as _summary
from .engine.summary import ModuleSummary
from .model import ERROR, INFO, Finding
from .positions import LineShift, Span
from .rules import registry
from .torchinfo import knowledge_of

_STAR_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\*", re.M)
PARALLEL_THRESHOLD = 64  # files; below this, analysing in-process is faster than forking
# files; from this many on, a bulk load analyses function bodies when first read (engine/deferred.py): in a tree
# of thousands of modules (torch's) a check reads a handful's bodies; a project's own code, smaller, has most
# read (each call site is what arrives at a function a walk reaches), and would pay for two parses of each
DEFER_THRESHOLD = 512
SOURCE_CACHE = 3  # buffers whose syntax tree and parsed source are kept for fixes


@dataclass
class CheckResult:
    findings: list[Finding]
    files_checked: int
    torch_version: str
    torch_source: str
    warnings: list[str] = field(default_factory=list)
    unresolved_roots: list[tuple[str, str, Span, str]] = field(default_factory=list)  # Project.unresolved_roots
    unfollowed_calls: list[tuple[str, str, Span, str]] = field(default_factory=list)  # Project.unfollowed_calls

    def to_json(self) -> dict:
        return {
            "version": __version__,
            "torch_version": self.torch_version,
            "knowledge_version": knowledge_of(self.torch_version),  # whose Dynamo verdicts stand for it
            "files_checked": self.files_checked,
            "diagnostics": [f.to_json() for f in self.findings],
            "unresolved_roots": [{"label": label, "path": path, "range": span.to_json(), "reason": why}
                                 for label, path, span, why in self.unresolved_roots],
            "unfollowed_calls": [{"call": name, "path": path, "range": span.to_json(),
                                  "why": call_words(why).replace("`", "")}  # (plain text)
                                 for name, path, span, why in self.unfollowed_calls],
        }


class SourceError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def decode_source(data: bytes) -> str:
    """Bytes of a .py file -> text, as Python would read it (BOM, coding cookie); raises SourceError."""
    if len(data) > MAX_FILE_BYTES:
        raise SourceError("FG002", f"file is {len(data) // 1024} KiB, over the {MAX_FILE_BYTES // 1024} KiB limit; not analysed")
    if b"\x00" in data:
        raise SourceError("FG002", "file contains NUL bytes (binary?); not analysed")
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        raise SourceError("FG002", f"cannot determine the file's encoding: {e}") from None
    try:
        text = data.decode(enc)
    except (UnicodeDecodeError, LookupError) as e:
        raise SourceError("FG002", f"file is not valid {enc} text ({e.__class__.__name__}); not analysed") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_module(path: str, data: bytes) -> tuple[str, object | None]:
    """The module text of a file's bytes, and for a notebook the CellMap of its code cells (the cells as
    one module, notebook.py); raises SourceError."""
    if path.endswith(".ipynb"):
        from .notebook import NotebookError, read

        try:
            return read(data)
        except NotebookError as e:
            raise SourceError("FG002", str(e)) from None
    return decode_source(data), None


def _analyze_file(args: tuple, library: bool = False, defer: bool = False) -> tuple[str, ModuleSummary | None, tuple | None]:
    """(path, modname, is_pkg[, data]) -> (path, summary or None, error or None); `data`, the file's
    bytes when the caller has read them already (the cache key was computed from them); `library`, a followed
    library's module; `defer`, a bulk load's: function bodies analysed when first read (engine/deferred.py;
    not a notebook's)."""
    path, modname, is_pkg = args[:3]
    data = args[3] if len(args) > 3 else None
    try:
        if data is None:
            data = Path(path).read_bytes()
        text, cells = read_module(path, data)
    except SourceError as e:
        return path, None, (e.code, e.message)
    except OSError as e:
        return path, None, ("FG002", f"cannot read file: {e.strerror or e}")
    summary = analyze(path, text, modname, is_pkg, rules=registry.RULESET, library=library,
                      defer=defer and cells is None)
    summary.cells = cells
    return path, summary, None


def _full_analysis(path: str, modname: str, text_hash: str, deferred_as: tuple,
                   library: bool) -> ModuleSummary | None:
    """The full analysis of a bulk load's module (engine/deferred.py), from its file when that still holds the
    text analysed (else None), stored in the cache the load wrote to (a later check reads it whole)."""
    is_pkg, directory = deferred_as
    try:
        data = Path(path).read_bytes()
        text, _ = read_module(path, data)
    except (SourceError, OSError):
        return None
    full = analyze(path, text, modname, is_pkg, rules=registry.RULESET, library=library)
    if full.text_hash != text_hash:
        return None
    if directory is not None:
        cache.store(directory, cache.file_key(path, modname, is_pkg, data), cache.dumps(full))
    return full


def _analyze_body(summary: ModuleSummary) -> ModuleSummary | None:
    """A function body of a bulk load's module read (ModuleSummary._make_body)."""
    return _full_analysis(summary.path, summary.name, summary.text_hash, summary.deferred_as(),
                          getattr(summary, "library", False))


_summary.BODY_ANALYZER[:] = [_analyze_body]


def _body_job(args: tuple) -> bytes | None:
    """A worker process's job (Workspace._materialize): the BODY_FIELDS of a module's full analysis, pickled."""
    full = _full_analysis(*args)
    if full is None:
        return None
    return pickle.dumps({k: full.__dict__[k] for k in _summary.BODY_FIELDS}, protocol=pickle.HIGHEST_PROTOCOL)


def _analyze_to_cache(args: tuple[str, str | None, bool, str | None, bool]) -> tuple[str, bytes | None, tuple | None]:
    """A worker process's job: analyse a file (with `defer`, its function bodies as engine/deferred.py says),
    write its summary to the cache directory (if any) and return it pickled (what the process pool would
    send anyway: it is pickled once for both)."""
    path, modname, is_pkg, directory, defer = args
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return path, None, ("FG002", f"cannot read file: {e.strerror or e}")
    path, summary, err = _analyze_file((path, modname, is_pkg, data), defer=defer)
    if summary is None:
        return path, None, err
    if summary.body_deferred():
        summary.defer_to(directory)
    payload = cache.dumps(summary)
    if directory is not None:  # (the key hashes the file's bytes: not for nothing with --no-cache)
        cache.store(directory, cache.file_key(path, modname, is_pkg, data), payload)
    return path, payload, None


def _import_fixes() -> None:
    try:
        importlib.import_module(f"{__package__}.fixes")
    except Exception:  # (imported again where needed: its error is reported there)
        pass


def _patterns(pats: list[str]) -> re.Pattern:
    """One expression matching what any of the glob patterns `pats` matches (fnmatch.fnmatch's rules:
    case as the platform compares file names); one that matches nothing when there are none."""
    if not pats:
        return re.compile(r"(?!)")
    return re.compile("|".join(fnmatch.translate(os.path.normcase(p)) for p in pats))


def _remember(lru: dict, key, value: tuple) -> None:
    """Put key last in a small least-recently-used dict of (hash, object); an object dropped from it
    is released at once (a parsed source holds its file's syntax tree in a reference cycle with its
    fragments: left to the collector, dozens of trees would pile up between full collections)."""
    old = lru.pop(key, None)
    lru[key] = value
    dropped = [old] if old is not None and old[1] is not value[1] else []
    while len(lru) > SOURCE_CACHE:
        dropped.append(lru.pop(next(iter(lru))))
    for _, obj in dropped:
        release = getattr(obj, "release", None)
        if release is not None:
            release()


def _file_finding(path: str, code: str, message: str, span: Span | None = None) -> Finding:
    rule = registry.BY_CODE[code]
    return Finding(path=path, code=code, name=rule.name, message=message, severity=ERROR,
                   span=span or Span.of(0, 0, 0, 0), url=rule.url())


def syntax_findings(summary: ModuleSummary) -> list[Finding]:
    if summary.syntax_error is None:
        return []
    msg, span = summary.syntax_error
    return [_file_finding(summary.path, "FG001", f"{msg}; the file was not analysed", span)]


class Workspace:
    """Summaries of every known module, and the project tying them together."""

    def __init__(self, config: Config | None = None, use_cache: bool = True):
        self.config = config or Config()
        # module summaries on disk (fullgraph.cache); `fullgraph check --no-cache` passes False
        self.cache_dir = cache.summaries_dir() if use_cache else None
        self.cache_hits = 0  # files whose summary came from the cache / were analysed, since creation
        self.cache_misses = 0
        self._stored = 0  # entries written since the last pruning
        self._pruned = False
        self.project = Project(self.config, registry.RULESET)
        self.project.keep_sources(self.source_of, self._tree_of)
        self.project.name_aliases(self._aliases_of)
        self.project.find_imports(self._import)
        self.project.contents.materialize = self._materialize
        self._jobs: int | None = None  # the last bulk load's
        self.finder = ModuleFinder()
        self._imports: dict[tuple[str, str], str | None] = {}  # (name, importing path) -> file found
        self._search_paths: dict[tuple, tuple[str, ...]] = {}
        self._roots: dict[tuple, tuple[list[str], list[str]]] = {}  # Workspace._source_roots
        # (name, search path before and after the installed packages, project root) -> file found: the modules of
        # one package share a search path, and a program's import closure asks for every import of every module
        self._finds: dict[tuple, str | None] = {}
        self._near: dict[str, tuple] = {}  # importing path -> (its summary, search_path_of it)
        self._realpaths: dict[str, str] = {}  # file found by an import -> with its links resolved
        self._root_key: str | None = None
        self._root_real: str | None = None
        self._found: set[str] = set()  # files loaded because an import found them (outside the checked files)
        self._follow: dict[str, str] | None = None
        self._library_bytes: dict[str, bytes] = {}  # followed files read for _library_may_define
        self._may_define: dict[tuple[str, str], bool] = {}
        if self.config.follow:
            self.project.follow(self._load_library_module, self._library_may_define)
        self.file_errors: dict[str, tuple[str, str]] = {}
        self.texts: dict[str, str] = {}  # editor buffers (what the fixes edit); disk files are read on demand
        # the last few buffers' syntax trees and parsed sources for fixes: path -> (text hash, object)
        self._trees: dict[str, tuple[str, object]] = {}
        self._sources: dict[str, tuple[str, object]] = {}
        self._memos: dict[str, object] = {}  # editor buffer -> what its last analysis left (engine/incremental.py)

    # ---- editor buffers ------------------------------------------------------------------------
    def set_text(self, path: str, text: str, recover: bool = True) -> ModuleSummary:
        """Analyse (or re-analyse) an editor buffer; unchanged text reuses its summary.

        With `recover` (the default for buffers), a syntax error blanks only the top-level blocks
        that do not parse: the rest of the file keeps its findings while the user types."""
        path = os.path.abspath(path)
        old = self.project.modules.get(path)
        h = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        self.texts[path] = text
        if old is not None and old.text_hash == h:
            return old
        modname, is_pkg = module_name_for(path)
        previous = self._memos.get(path)
        an = ModuleAnalyzer(path, text, modname, is_pkg, recover, remember=True, previous=previous,
                            rules=registry.RULESET)
        summary = an.run()
        # blank lines added or removed (an Enter): the project moves its last results instead of walking again
        shift = None
        if previous is not None and an.memo is not None and old is not None and old.syntax_error is None \
                and summary.syntax_error is None and old.name == summary.name \
                and hashlib.sha1("".join(previous.lines).encode("utf-8", "surrogatepass")).hexdigest() == old.text_hash:
            shift = incremental.blank_lines_edit(previous.lines, an.memo.lines, an.memo.tree)
        if previous is not None and previous.spent:
            # the statements of the last tree were moved in place for this text: what holds that tree
            # for its own text (a fix source, the variants' base analysis) must not serve it again
            _, source = self._sources.pop(path, (None, None))
            if source is not None:
                source.release()
            self.project.forget_base(path)
        # the next version of this buffer re-analyses only what changed since the last version that parsed
        if an.memo is not None:
            if previous is not None:  # (its units: an Enter's moved copies replaced them all)
                garbage.later(previous.units, self._memos.pop(path, None))
            self._memos[path] = an.memo
            # the syntax trees of the buffers edited last only (a 2,000-line module's is ~5 MB): the
            # others keep their statements' analyses, and parse whole when they are edited again
            for memo in list(self._memos.values())[:-SOURCE_CACHE]:
                memo.tree = None
        summary.text_hash = h
        self._put(summary, shift)
        if an.base is not None:
            self.project.set_base(path, h, an.base)
        self.file_errors.pop(path, None)
        if an.analysed_tree is not None:
            # the fixes of this buffer will need it, and the variants' base analysis (which, for a text
            # recovered from a syntax error, would recover it again: two more parses per keystroke)
            _remember(self._trees, path, (h, an.analysed_tree))
        return summary

    def _put(self, summary: ModuleSummary, shift: LineShift | None = None) -> None:
        old = self.project.modules.get(summary.path)
        if old is None or old.sys_path != summary.sys_path or old.name != summary.name:
            self._forget_imports()  # a new file may be what an import finds; an edit may add a directory
            shift = None
        self.project.set_module(summary, shift)

    def _forget_imports(self) -> None:
        self._imports.clear()
        self._finds.clear()
        self._near.clear()
        self.finder.forget()

    # ---- imports as Python finds them ----------------------------------------------------------
    def _import(self, name: str, near: str) -> ModuleSummary | None:
        """The module Python imports as `name` from the module at `near` (Contents.module): found by
        Python's path finder on that module's search path (importpath.py), loaded when it is outside the
        checked files (then it is read-only library code: its breaks are reported at the user's call);
        None when the search path has no such file, or `near` is an installed library's module."""
        key = (name, near)
        if key in self._imports:
            path = self._imports[key]
        else:
            path = self._imports[key] = self._find_import(name, near)
        if path is None:
            return None
        mod = self.project.modules.get(path)
        if mod is None:
            if path in self._found or not self._load_found(path):
                return None
            mod = self.project.modules.get(path)
            if mod is None:
                return None
        if mod.name != name:
            self.project.contents.add_name(name, mod)  # for what is resolved later by name alone
        return mod

    def _real_root(self) -> str | None:
        """The project root with its symbolic links resolved (computed once per root)."""
        r = self.config.project_root
        if r != self._root_key:
            self._root_key, self._root_real = r, os.path.realpath(r) if r else None
        return self._root_real

    def _find_import(self, name: str, near: str) -> str | None:
        mod = self.project.modules.get(near)
        if mod is None or (getattr(mod, "library", False) and near not in self._found):
            return None
        got = self._near.get(near)
        if got is None or got[0] is not mod:
            got = self._near[near] = (mod, *self.search_path_of(mod))
        _, ahead, behind = got
        root = self._real_root()
        key = (name, ahead, behind, root)
        if key in self._finds:
            return self._finds[key]
        found = self._finds[key] = self._found_on(name, ahead, behind, root)
        return found

    def _found_on(self, name: str, ahead: tuple[str, ...], behind: tuple[str, ...], root: str | None) -> str | None:
        found = self.finder.find(name, ahead)
        if found is None:
            if self.finder.installed(name.partition(".")[0], root):
                return None  # the standard library's or an installed package's (followed ones load by name)
            found = self.finder.find(name, ahead + behind)
        if found is None:
            return None
        real = self._realpaths.get(found)
        if real is None:
            real = self._realpaths[found] = os.path.realpath(found)
        found = real
        if found not in self.project.modules and self.finder.installed(name.partition(".")[0], root):
            # found beside a checked package that lives among the installed ones (`fullgraph check
            # site-packages/torch`): an installed package is analysed only when followed
            return None
        return found

    def imports_not_found(self) -> list[tuple[str, str]]:
        """(module name, importing file) for the imports of the project's modules that name neither a module
        of the project, nor a file on the importing module's search path, nor an installed module."""
        root = self._real_root()
        by_name = self.project.contents.by_name

        def found(name: str, near: str) -> bool:
            return bool(by_name.get(name) or self._find_import(name, near) or
                        self.finder.installed(name.partition(".")[0], root))

        out = []
        for path, mod in list(self.project.modules.items()):
            if getattr(mod, "library", False):
                continue
            missing: list[str] = []
            for name in sorted(mod.imports):  # (`from a import b` lists a.b too: b may be a name in a)
                parent = name.rpartition(".")[0]
                if name and not any(name.startswith(m + ".") for m in missing) and not found(name, path) and \
                        not (parent and found(parent, path)):
                    missing.append(name)
            out.extend((name, path) for name in missing)
        return out

    def search_path_of(self, mod: ModuleSummary) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The directories the imports of `mod` are found in, before and after the installed packages
        (importpath.search_path): its sys.path edits, the source roots (`src`, default the project root
        and `src/`), `extra-paths`."""
        is_pkg = os.path.basename(mod.path) == "__init__.py"
        key = (mod.path, mod.name, is_pkg, tuple(mod.sys_path))
        hit = self._search_paths.get(key)
        if hit is None:
            root = self._real_root()
            roots, extra = self._source_roots(root)
            hit = search_path(mod.path, mod.name, is_pkg, mod.sys_path, roots, extra, root)
            self._search_paths[key] = hit
        return hit

    def _source_roots(self, root: str | None) -> tuple[list[str], list[str]]:
        """The source roots (`src`, default the project root and `src/`) and `extra-paths`, links resolved
        (once per configuration, not per module: two realpaths per module were a tenth of a second on torch/)."""
        cfg = self.config
        key = (root, tuple(cfg.src or ()), tuple(cfg.extra_paths), None if root else os.getcwd())
        hit = self._roots.get(key)
        if hit is None:
            roots = [os.path.join(root, d) for d in cfg.src] if root and cfg.src else \
                [root, os.path.join(root, "src")] if root else []
            extra = [os.path.join(root or os.getcwd(), os.path.expanduser(d)) for d in cfg.extra_paths]
            hit = self._roots[key] = ([os.path.realpath(d) for d in roots], [os.path.realpath(d) for d in extra])
        return hit

    def _aliases_of(self, summary: ModuleSummary) -> list[str]:
        """The names a project module is also imported by: under directories without `__init__.py`
        (namespace packages), up to the project root."""
        if getattr(summary, "library", False):
            return []
        return namespace_names(summary.path, summary.name, os.path.basename(summary.path) == "__init__.py",
                               self.config.project_root)

    def unfollowed(self, paths: Iterable[str]) -> list[Finding]:
        """The compile calls in `paths` whose target the analysis cannot follow, and the calls from compiled
        code there it could not follow, as information findings (FG003): the editor shows them on the call,
        so a file without findings is not taken for clean."""
        want = set(paths)
        rule = registry.BY_CODE["FG003"]
        out = []
        for label, path, span, why in self.project.unresolved_roots():
            if path not in want:
                continue
            out.append(Finding(path=path, code=rule.code, name=rule.name, severity=INFO, span=span,
                               message=f"fullgraph could not follow `{label}` ({root_words(why)}); the graph breaks "
                                       "behind it are not checked", url=rule.url()))
        for name, path, span, why in self.project.unfollowed_calls():
            if path in want:
                what = call_words(why) + ("; the `follow` setting analyses an installed package"
                                          if why == NOT_ANALYSED else "")
                out.append(Finding(path=path, code=rule.code, name=rule.name, severity=INFO, span=span,
                                   message=f"fullgraph could not follow `{name}` from compiled code ({what}); "
                                           "the graph breaks behind it are not checked", url=rule.url()))
        return out

    def source_of(self, path: str) -> str | None:
        """The text of a module as analysed: the editor's buffer, else the file (None if unreadable)."""
        text = self.texts.get(path)
        if text is not None:
            return text
        try:
            return read_module(path, Path(path).read_bytes())[0]
        except (OSError, SourceError):
            return None

    def _tree_of(self, path: str, text: str):
        """The syntax tree of `text` (the module at `path`): the one its analysis parsed when the workspace
        kept it (for a buffer with a syntax error: the tree of what its analysis recovered), else parsed now
        and kept (the last few, like the fixes' sources); None if it does not parse."""
        h = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        cached = self._trees.get(path)
        if cached is not None and cached[0] == h:
            return cached[1]
        try:
            tree = parse_module(text, path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        _remember(self._trees, path, (h, tree))
        return tree

    def set_error(self, path: str, code: str, message: str) -> None:
        path = os.path.abspath(path)
        if path in self.project.modules:
            self._forget_imports()
        self.project.remove_module(path)
        self.file_errors[path] = (code, message)

    def remove(self, path: str) -> None:
        path = os.path.abspath(path)
        if path in self.project.modules:
            self._forget_imports()
        self.project.remove_module(path)
        self.file_errors.pop(path, None)
        self.texts.pop(path, None)
        self._memos.pop(path, None)

    def forget_text(self, path: str) -> None:
        """An editor buffer closed: fall back to the file on disk (or drop it)."""
        path = os.path.abspath(path)
        self.texts.pop(path, None)
        self._memos.pop(path, None)
        if os.path.isfile(path):
            self.load_files([path])
        else:
            self.remove(path)

    # ---- installed libraries (`follow`) ---------------------------------------------------------
    def follow_roots(self) -> dict[str, str]:
        """Followed package -> its directory (or module file), found without importing it."""
        if self._follow is None:
            import importlib.util

            self._follow = {}
            for name in self.config.follow:
                top = name.split(".")[0]
                try:
                    spec = importlib.util.find_spec(top)  # locates a top-level package; runs none of it
                except (ImportError, ValueError):
                    spec = None
                if spec is None:
                    self.config.warnings.append(f"follow: package {top!r} is not installed for this interpreter")
                    continue
                if spec.submodule_search_locations:
                    self._follow[top] = list(spec.submodule_search_locations)[0]
                elif spec.origin and spec.origin.endswith(".py"):
                    self._follow[top] = spec.origin
        return self._follow

    def _library_file(self, modname: str) -> str | None:
        roots = self.follow_roots()
        top, _, rest = modname.partition(".")
        base = roots.get(top)
        if base is None:
            return None
        if base.endswith(".py"):
            candidates = [base] if not rest else []
        else:
            sub = os.path.join(base, *rest.split(".")) if rest else base
            candidates = [sub + ".py", os.path.join(sub, "__init__.py")]
        return next((c for c in candidates if os.path.isfile(c)), None)

    def _library_may_define(self, modname: str, name: str, _depth: int = 0) -> bool:
        key = (modname, name)
        hit = self._may_define.get(key)
        if hit is None:
            hit = self._may_define[key] = self._scan_may_define(modname, name, _depth)
        return hit

    def _scan_may_define(self, modname: str, name: str, _depth: int) -> bool:
        """False when the followed module's source cannot bind `name`: the name is not in its text nor
        in the text of what it star-imports (files read as bytes, not analysed: transformers'
        `from .models import *` chains name a thousand modules, of which a lookup needs one or two)."""
        path = self._library_file(modname)
        if path is None or _depth > 8:
            return True
        data = self._library_bytes.get(path)
        if data is None:
            try:
                data = self._library_bytes[path] = Path(path).read_bytes()
            except OSError:
                return True
        if name.encode() in data:
            return True
        package = modname if path.endswith("__init__.py") else modname.rpartition(".")[0]
        for m in _STAR_IMPORT.finditer(data):
            dots, rel = m.group(1).decode(), m.group(2).decode()
            if not dots:
                target = rel
            else:
                base = package.split(".")
                base = base[: len(base) - (len(dots) - 1)] if len(dots) > 1 else base
                target = ".".join([*base, rel] if rel else base)
            if self._library_may_define(target, name, _depth + 1):
                return True
        return False

    def _load_library_module(self, modname: str) -> bool:
        c = self._library_file(modname)
        if c is None:
            return False
        return self._load_library_file(os.path.abspath(c), modname, c.endswith("__init__.py"))

    def _load_found(self, path: str) -> bool:
        """Load a file an import found outside the checked files, as library code (read-only)."""
        self._found.add(path)
        modname, is_pkg = module_name_for(path)
        return self._load_library_file(path, modname, is_pkg)

    def _load_library_file(self, path: str, modname: str, is_pkg: bool) -> bool:
        try:
            data = Path(path).read_bytes()
        except OSError:
            return False
        key = cache.file_key(path, modname, is_pkg, data, library=True)
        summary = cache.load(self.cache_dir, key)
        if summary is None:
            path, summary, err = _analyze_file((path, modname, is_pkg, data), library=True)
            if summary is None:
                return False
            summary.library = True
            if cache.store(self.cache_dir, key, cache.dumps(summary)):
                self._stored += 1
        self._put(summary)
        return True

    def is_library(self, path: str) -> bool:
        mod = self.project.modules.get(path)
        return bool(mod is not None and getattr(mod, "library", False))

    def findings_for(self, paths: Iterable[str] | None = None, fixes: bool = True) -> list[Finding]:
        """Findings in `paths` (all files when None).  With `fixes`, each carries its offered fixes
        and their edits (the editor asks for them in a second step: `attach_fixes`)."""
        want = None if paths is None else {os.path.abspath(p) for p in paths}
        out = self.project.findings(want)
        for path, (code, msg) in self.file_errors.items():
            if (want is None or path in want) and self.config.code_enabled(code):
                out.append(_file_finding(path, code, msg))
        for path, mod in self.project.modules.items():
            if (want is None or path in want) and self.config.code_enabled("FG001"):
                out.extend(syntax_findings(mod))
        if fixes:
            self.attach_fixes(out)
        out.sort(key=Finding.sort_key)
        return out

    def attach_fixes(self, findings: list[Finding]) -> None:
        user = [f for f in findings if not self.is_library(f.path)]  # installed libraries are read-only
        if not user:
            return  # (importing the fixes, libcst with them, is a fifth of a clean warm check)
        from .fixes import attach_fixes

        attach_fixes(user, self)

    def fix_source(self, path: str):
        """The parsed text of `path` that fixes edit (fixes.base.Source), or None when the text is not
        the one analysed.  The editor asks for fixes a few findings at a time: the last few sources
        are kept (by content) so a file is not re-parsed for each."""
        from .fixes.base import Source

        mod = self.project.modules.get(path)
        if mod is None or mod.syntax_error is not None:
            return None
        text = self.source_of(path)
        if text is None:
            return None
        h = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        if h != mod.text_hash:
            return None  # the text changed since it was analysed: positions would be wrong
        cached = self._sources.get(path)
        if cached is None or cached[0] != h:
            tree = self._trees.get(path)
            cached = (h, Source(path, text, mod.name, tree=tree[1] if tree and tree[0] == h else None))
        _remember(self._sources, path, cached)
        return cached[1]

    # ---- files on disk -------------------------------------------------------------------------
    def discover(self, paths: Iterable[Path], notebooks: bool = False) -> list[str]:
        excludes = self.config.all_excludes()
        root = Path(self.config.project_root).resolve() if self.config.project_root else None
        out: list[str] = []
        seen: set[str] = set()

        # each pattern matches a file or directory name, and (with "/" or "*") the path relative to the
        # project root or anything under it: one regular expression for each, as fnmatch would match them
        by_name = _patterns(excludes)
        by_path = _patterns([q for pat in excludes if "/" in pat or "*" in pat for q in (pat, pat.rstrip("/") + "/*")])
        prefix = str(root).rstrip(os.sep) + os.sep if root is not None else None

        def excluded(name: str, resolved: str) -> bool:
            if by_name.match(os.path.normcase(name)):
                return True
            if prefix is not None and resolved.startswith(prefix):
                return by_path.match(os.path.normcase(Path(resolved[len(prefix):]).as_posix())) is not None
            return False

        for p in paths:
            p = Path(p)
            if p.is_file():
                ap = str(p.resolve())
                if ap not in seen:
                    seen.add(ap)
                    out.append(ap)
                continue
            if not p.is_dir():
                raise FileNotFoundError(str(p))
            # walked from its real path: os.walk does not enter linked directories, so every directory
            # it yields is a real path too, and only a linked file needs resolving (a realpath per file
            # took a fifth of a second on the torch tree, before any analysis could start)
            for dirpath, dirnames, filenames in os.walk(p.resolve()):
                dirnames[:] = sorted(n for n in dirnames
                                     if not excluded(n, os.path.realpath(os.path.join(dirpath, n))))
                for fn in sorted(filenames):
                    if not (fn.endswith(".py") or (notebooks and fn.endswith(".ipynb"))):
                        continue
                    fp = os.path.join(dirpath, fn)
                    ap = os.path.realpath(fp) if os.path.islink(fp) else fp
                    if excluded(fn, ap):
                        continue
                    if ap not in seen:
                        seen.add(ap)
                        out.append(ap)
        return out

    def load_files(self, files: list[str], jobs: int | None = None) -> None:
        """Analyse files from disk (in parallel for large sets); summaries of unchanged files come
        from the cache (fullgraph.cache), and those analysed go into it."""
        work = []
        for f in files:
            modname, is_pkg = module_name_for(f)
            work.append((f, modname, is_pkg))
        n_jobs = jobs if jobs is not None else (os.cpu_count() or 1)
        self._jobs = n_jobs
        directory = self.cache_dir
        # Summaries are kept alive for the whole run: the cyclic GC would rescan all of them at every
        # collection (a third of the time on the torch tree, bench/README.md), and they hold no cycles
        # worth collecting while loading.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            misses = []
            # an engine directory not made yet holds no entry (a first run, or the first after an upgrade):
            # no file is read and hashed here only to miss, before the workers can start
            probe = directory is not None and os.path.isdir(directory)
            parallel = len(work) >= PARALLEL_THRESHOLD and n_jobs > 1
            for w in work:
                data = None
                if directory is not None and (probe or not parallel):
                    try:
                        data = Path(w[0]).read_bytes()
                    except OSError:
                        data = None
                    else:
                        summary = cache.load(directory, cache.file_key(*w, data)) if probe else None
                        if summary is not None:
                            self._loaded(w[0], summary, None)
                            self.cache_hits += 1
                            continue
                misses.append((*w, data))
            self.cache_misses += len(misses)
            if len(misses) >= PARALLEL_THRESHOLD and n_jobs > 1:
                if directory is not None:
                    cache.engine_key()  # computed once here, inherited by the workers
                defer = len(misses) >= DEFER_THRESHOLD
                jobs_in = [(p, m, k, directory, defer) for p, m, k, _ in misses]
                # this process waits for the workers: the fixes (libcst with them), which the findings of a
                # large tree will want, are imported meanwhile rather than after
                threading.Thread(target=_import_fixes, daemon=True).start()
                # small chunks: with 142 files a chunk (a sixteenth of the torch tree per worker), one worker
                # ran alone for the last second of the run
                with ProcessPoolExecutor(max_workers=n_jobs) as ex:
                    for path, payload, err in ex.map(_analyze_to_cache, jobs_in,
                                                     chunksize=max(1, min(8, len(misses) // (n_jobs * 8)))):
                        self._loaded(path, pickle.loads(payload) if payload is not None else None, err)
                self._stored += len(misses) if directory is not None else 0
            else:
                for w in misses:
                    path, summary, err = _analyze_file(w if w[3] is not None else w[:3])
                    self._loaded(path, summary, err)
                    if summary is not None and w[3] is not None:
                        if cache.store(directory, cache.file_key(*w[:3], w[3]), cache.dumps(summary)):
                            self._stored += 1
        finally:
            if gc_was_enabled:
                gc.enable()
        self._prune()

    def _materialize(self, mods: list[ModuleSummary]) -> None:
        """The function bodies of a bulk load's modules (engine/deferred.py), when a walk reads every module's:
        analysed in worker processes as the load was, when they are many."""
        n_jobs = self._jobs or 1
        if len(mods) < PARALLEL_THRESHOLD or n_jobs < 2:
            return  # (each read in this process: Contents.all_bodies)
        jobs_in = [(m.path, m.name, m.text_hash, m.deferred_as(), getattr(m, "library", False)) for m in mods]
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            with ProcessPoolExecutor(max_workers=n_jobs) as ex:
                for m, payload in zip(mods, ex.map(_body_job, jobs_in,
                                                   chunksize=max(1, min(8, len(mods) // (n_jobs * 8))))):
                    m.set_body(pickle.loads(payload) if payload is not None else None)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _loaded(self, path: str, summary: ModuleSummary | None, err: tuple | None) -> None:
        if summary is not None:
            self._found.discard(path)
            self._put(summary)
            self.file_errors.pop(path, None)
        else:
            self.set_error(path, *err)

    def _prune(self) -> None:
        """Keep the cache under its size limit, once enough new entries were written (a scan of the
        cache directory is cheap, but not per file the language server reloads)."""
        if self._stored >= 64 or (self._stored and not self._pruned):
            self._stored = 0
            self._pruned = True
            try:
                cache.prune()
            except OSError:
                pass

    def check(self, paths: Iterable[Path], jobs: int | None = None) -> CheckResult:
        # One batch: the summaries of every file stay alive until the end, and each collection of the
        # cyclic GC would scan all of them again (on the torch tree it took a third of the run, in
        # whatever allocated when it struck: libcst's import, the function index).  A check makes
        # little cyclic garbage (released parsed sources break their own cycles, api._remember).
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._check(paths, jobs)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _check(self, paths: Iterable[Path], jobs: int | None) -> CheckResult:
        files = self.discover(paths, notebooks=True)
        self.load_files(files, jobs)
        findings = self.findings_for(files)
        # breaks of a root configured inside a followed library (`--root pkg.mod:Cls.forward`) have
        # no user line to be reported at: they are shown where they are
        findings += [f for f in self.project.findings() if f.data.get("shown_in_library")]
        findings.sort(key=Finding.sort_key)
        self._prune()  # followed library modules were loaded (and cached) on demand
        return CheckResult(findings=findings, files_checked=len(files), torch_version=str(self.config.torch()),
                           torch_source=self.config.torch_source(), warnings=list(self.config.warnings),
                           unresolved_roots=self.project.unresolved_roots(),
                           unfollowed_calls=self.project.unfollowed_calls())

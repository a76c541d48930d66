"""The summary cache (fullgraph.cache) as a user meets it: a second `fullgraph check` of the same tree
prints the same bytes without analysing again, an edited file alone is analysed again, `--no-cache`
and `fullgraph clean`, and a cache that is corrupt, foreign, shared by two runs at once or full never
changes what is reported."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harness import EXAMPLES

HITS = re.compile(r"fullgraph: cache: (\d+) of (\d+) files' summaries read from (.*)")


def run(cache_dir, *args, cwd=None):
    env = dict(os.environ, FULLGRAPH_CACHE_DIR=str(cache_dir))
    return subprocess.run([sys.executable, "-m", "fullgraph", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=300)


def check(cache_dir, tree, *extra):
    """JSON output of `fullgraph check -v`, and (summaries read from the cache, files)."""
    r = run(cache_dir, "check", tree, "--format", "json", "-v", *extra)
    assert r.returncode in (0, 1), r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    m = HITS.search(r.stderr)
    assert m, r.stderr
    return r.stdout, (int(m.group(1)), int(m.group(2)))


@pytest.fixture
def tree(tmp_path):
    dst = tmp_path / "proj"
    shutil.copytree(EXAMPLES, dst, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb_checkpoints"))
    return dst


def entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("summaries/*/*.fgs"))


def test_second_check_reads_every_summary_from_the_cache_and_prints_the_same_bytes(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    first, (hits, n) = check(cache_dir, tree)
    assert hits == 0 and n >= 7
    assert len(entries(cache_dir)) == n
    second, (hits, n2) = check(cache_dir, tree)
    assert (hits, n2) == (n, n)
    assert second == first
    assert json.loads(first)["diagnostics"]  # the examples have findings: the comparison means something
    uncached, (hits, _) = check(cache_dir, tree, "--no-cache")
    assert hits == 0 and uncached == first


def test_no_cache_neither_reads_nor_writes(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    _, (hits, _) = check(cache_dir, tree, "--no-cache")
    assert hits == 0
    assert not cache_dir.exists()


def test_an_edited_file_alone_is_analysed_again(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    first, (_, n) = check(cache_dir, tree)
    utils = tree / "nanogpt" / "utils.py"
    text = utils.read_text()
    assert "print(" in text
    utils.write_text(text.replace("print(", "pass  # print(", 1))
    edited, (hits, n2) = check(cache_dir, tree)
    assert (hits, n2) == (n - 1, n)
    assert edited != first
    assert edited == check(cache_dir, tree, "--no-cache")[0]
    # and the edit undone: the old entry is still there
    utils.write_text(text)
    assert check(cache_dir, tree) == (first, (n, n))


def test_cached_summaries_do_not_depend_on_the_settings(tree, tmp_path):
    """select/ignore, the torch version and roots apply after the summaries: a cache written with the
    defaults gives what a fresh analysis gives under other settings."""
    cache_dir = tmp_path / "cache"
    check(cache_dir, tree)
    for extra in (["--torch-version", "2.4"], ["--select", "FG1"], ["--ignore", "FG101"],
                  ["--root", "training_step:train"]):
        cached, (hits, n) = check(cache_dir, tree, *extra)
        assert hits == n
        assert cached == check(cache_dir, tree, "--no-cache", *extra)[0], extra


def test_clean_removes_the_cache_and_says_what_it_removed(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    _, (_, n) = check(cache_dir, tree)
    r = run(cache_dir, "clean")
    assert r.returncode == 0, r.stderr
    assert f"removed {cache_dir} ({n} files, " in r.stdout
    assert not cache_dir.exists()
    r = run(cache_dir, "clean")
    assert r.returncode == 0 and "nothing to remove" in r.stdout
    assert check(cache_dir, tree)[1][0] == 0


def test_clean_keeps_what_else_the_user_keeps_in_the_directory(tree, tmp_path):
    cache_dir = tmp_path / "mine"
    cache_dir.mkdir()
    (cache_dir / "notes.txt").write_text("mine\n")
    check(cache_dir, tree)
    assert run(cache_dir, "clean").returncode == 0
    assert [p.name for p in cache_dir.iterdir()] == ["notes.txt"]


def test_a_cache_inside_the_project_is_git_ignored(tree):
    cache_dir = tree / ".fullgraph" / "cache"
    check(cache_dir, tree)
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache_dir / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(tree)], check=True)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tree,
                                capture_output=True, text=True, check=True).stdout
        assert ".fullgraph" not in status and "nanogpt" in status


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped byte", "empty"])
def test_a_corrupt_entry_is_ignored_and_rewritten(tree, tmp_path, damage):
    cache_dir = tmp_path / "cache"
    first, (_, n) = check(cache_dir, tree)
    for p in entries(cache_dir):
        data = p.read_bytes()
        if damage == "garbage":
            data = os.urandom(len(data))
        elif damage == "truncated":
            data = data[: len(data) // 2]
        elif damage == "flipped byte":
            i = len(data) - 10
            data = data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:]
        else:
            data = b""
        p.write_bytes(data)
    assert check(cache_dir, tree) == (first, (0, n))
    assert check(cache_dir, tree) == (first, (n, n))  # rewritten whole


def test_entries_written_by_another_engine_are_ignored(tree, tmp_path):
    cache_dir = tmp_path / "cache"
    first, (_, n) = check(cache_dir, tree)
    (engine,) = (cache_dir / "summaries").iterdir()
    other = engine.with_name("0123456789abcdef")  # what an older fullgraph (or another Python) left
    engine.rename(other)
    assert check(cache_dir, tree) == (first, (0, n))
    # an entry names its engine: one that says another engine is not read, wherever it lies
    for p in entries(cache_dir):
        data = p.read_bytes()
        assert engine.name.encode() in data[:64]
        p.write_bytes(data.replace(engine.name.encode(), other.name.encode(), 1))
    assert check(cache_dir, tree) == (first, (0, n))
    assert check(cache_dir, tree) == (first, (n, n))


def test_two_runs_at_once_share_the_cache(tmp_path):
    cache_dir = tmp_path / "cache"
    tree = tmp_path / "many"
    tree.mkdir()
    for i in range(120):  # enough for the process pool (api.PARALLEL_THRESHOLD)
        (tree / f"m{i}.py").write_text(
            f"import torch\nfrom m{(i + 1) % 120} import g{(i + 1) % 120}\n\n\n"
            f"def g{i}(x):\n    print({i})\n    return x\n\n\n"
            f"@torch.compile(fullgraph=True)\ndef f{i}(x):\n    return g{(i + 1) % 120}(x) + {i}\n")
    expected, (_, n) = check(tmp_path / "reference", tree, "--no-cache")
    env = dict(os.environ, FULLGRAPH_CACHE_DIR=str(cache_dir))
    cmd = [sys.executable, "-m", "fullgraph", "check", str(tree), "--format", "json"]
    procs = [subprocess.Popen(cmd + ["-j", j], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for j in ("2", "1", "2")]
    outs = [p.communicate(timeout=300) for p in procs]
    for out, err in outs:
        assert out == expected and "Traceback" not in err
    assert len(entries(cache_dir)) == n
    assert not list(cache_dir.glob("summaries/*/.*fgtmp"))
    assert check(cache_dir, tree) == (expected, (n, n))


def test_the_cache_stays_under_its_size_limit(tree, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    first, (_, n) = check(cache_dir, tree)
    sizes = sorted(p.stat().st_size for p in entries(cache_dir))
    limit = sum(sizes[:3])
    monkeypatch.setenv("FULLGRAPH_CACHE_MAX_MB", str(limit / 1024 / 1024))
    shutil.rmtree(cache_dir)
    assert check(cache_dir, tree)[0] == first
    assert 0 < sum(p.stat().st_size for p in entries(cache_dir)) <= limit
    assert check(cache_dir, tree)[0] == first


def test_the_language_servers_index_reads_the_cache_the_cli_wrote(tree, tmp_path, monkeypatch):
    from fullgraph.api import Workspace
    from fullgraph.config import Config

    cache_dir = tmp_path / "cache"
    _, (_, n) = check(cache_dir, tree)
    monkeypatch.setenv("FULLGRAPH_CACHE_DIR", str(cache_dir))
    ws = Workspace(Config(project_root=str(tree)))
    files = ws.discover([tree])
    ws.load_files(files, jobs=1)  # what lsp/server.py's background index does
    assert (ws.cache_hits, ws.cache_misses) == (len(files), 0)
    fresh = Workspace(Config(project_root=str(tree)), use_cache=False)
    fresh.load_files(files, jobs=1)
    assert [f.to_json() for f in ws.findings_for(files)] == [f.to_json() for f in fresh.findings_for(files)]


def test_a_process_whose_engine_sources_changed_after_it_started_uses_no_cache(tree, tmp_path):
    """Someone editing fullgraph while a check starts: the process may run the older code, so its summaries
    must not be stored under the newer sources' key (a later check failed to read them back), nor read."""
    import fullgraph

    pkg = tmp_path / "pkg"
    shutil.copytree(Path(fullgraph.__file__).parent, pkg / "fullgraph",
                    ignore=shutil.ignore_patterns("__pycache__"))
    cache_dir = tmp_path / "cache"
    script = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(pkg)!r})\n"
        "import fullgraph\n"
        "from fullgraph import cli\n"
        "t = fullgraph.IMPORTED_AT + 0.5\n"
        "os.utime(os.path.join(os.path.dirname(fullgraph.__file__), 'engine', 'values.py'), (t, t))\n"
        f"sys.exit(cli.main(['check', {str(tree)!r}, '--format', 'json', '-v']))\n")
    env = dict(os.environ, FULLGRAPH_CACHE_DIR=str(cache_dir))
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    assert "read from nowhere (cache off)" in r.stderr
    assert not entries(cache_dir)
    expected, _ = check(tmp_path / "other", tree, "--no-cache")
    assert r.stdout == expected
    # the next process, started after the edit, uses the cache again
    r2 = subprocess.run([sys.executable, "-c", script.replace("os.utime", "(lambda *a: None)")],
                        capture_output=True, text=True, env=env, timeout=300)
    assert r2.stdout == expected and entries(cache_dir), r2.stderr

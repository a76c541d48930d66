"""What a keystroke's re-analysis takes from the last one instead of computing again: the diagnostics of
unchanged findings (lsp/convert.diagnostic_key) and the comparison of a module's interface
(project.same_interface).  Each must tell a change from no change exactly as computing again would."""
from __future__ import annotations

import textwrap

from fullgraph.api import Workspace
from fullgraph.config import Config
from fullgraph.engine.project import interface_of, same_interface
from fullgraph.lsp import convert as cv
from fullgraph.positions import LineIndex

SOURCE = textwrap.dedent("""\
    import torch


    def helper(x):
        print("x")
        return x


    @torch.compile(fullgraph=True)
    def step(x):
        return helper(x) + 1
""")


def _findings(tmp_path, text):
    ws = Workspace(Config(project_root=str(tmp_path)), use_cache=False)
    path = str(tmp_path / "mod.py")
    ws.set_text(path, text)
    return ws, path, ws.findings_for([path], fixes=False)


def test_a_diagnostic_is_kept_only_while_what_it_shows_is_the_same(tmp_path):
    _, path, found = _findings(tmp_path, SOURCE)
    (f,) = [f for f in found if f.code == "FG101"]
    uri = (tmp_path / "mod.py").as_uri()
    idx = LineIndex(SOURCE)
    key = cv.diagnostic_key(f, idx, "utf-16", uri)
    assert key is not None and key == cv.diagnostic_key(f, LineIndex(SOURCE), "utf-16", uri)
    # a keystroke on the finding's line (its suppression comment goes elsewhere), another encoding, a non-ASCII
    # document: another diagnostic
    typed = SOURCE.replace('print("x")', 'print("x")  ')
    assert cv.diagnostic_key(f, LineIndex(typed), "utf-16", uri) != key
    assert cv.diagnostic_key(f, idx, "utf-8", uri) != key
    assert cv.diagnostic_key(f, LineIndex(SOURCE + "# é\n"), "utf-16", uri) is None
    # a keystroke elsewhere: the same diagnostic, and what it would be made again
    elsewhere = SOURCE.replace("return x", "return x ")
    assert cv.diagnostic_key(f, LineIndex(elsewhere), "utf-16", uri) == key
    made = cv.to_diagnostic(f, LineIndex(elsewhere), "utf-16", lambda p: uri, lambda p: LineIndex(elsewhere),
                            suppress_edit=cv.suppression_edit(f, elsewhere, LineIndex(elsewhere), "utf-16", uri))
    kept = cv.to_diagnostic(f, idx, "utf-16", lambda p: uri, lambda p: idx,
                            suppress_edit=cv.suppression_edit(f, SOURCE, idx, "utf-16", uri))
    assert made == kept
    # an Enter below everything the diagnostic shows: the same diagnostic, though the document has a line more
    below = SOURCE + "\n"
    assert cv.diagnostic_key(f, LineIndex(below), "utf-16", uri) == key
    assert cv.to_diagnostic(f, LineIndex(below), "utf-16", lambda p: uri, lambda p: LineIndex(below),
                            suppress_edit=cv.suppression_edit(f, below, LineIndex(below), "utf-16", uri)) == kept
    # a position past the last line is clamped to it: then the number of lines is part of the key
    short = "\n".join(SOURCE.splitlines()[:4]) + "\n"
    assert cv.diagnostic_key(f, LineIndex(short), "utf-16", uri) != cv.diagnostic_key(f, LineIndex(short + "\n"),
                                                                                      "utf-16", uri)


def test_the_interface_comparison_agrees_with_the_interfaces(tmp_path):
    ws, path, _ = _findings(tmp_path, SOURCE)
    before = ws.project.modules[path]
    for text, same in [(SOURCE.replace('print("x")', 'print("y")'), True),  # a body: the same interface
                       (SOURCE.replace("def helper(x):", "def helper(x, y=1):"), False),  # a signature
                       (SOURCE + "\n\ndef more():\n    pass\n", False),  # a function more
                       # an Enter above both functions: moved copies, the same interface; and above a changed one
                       (SOURCE.replace("import torch\n", "import torch\n\n"), True),
                       (SOURCE.replace("import torch\n", "import torch\n\n").replace("def step(x):", "def step(x, k):"),
                        False)]:
        ws.set_text(path, text)
        after = ws.project.modules[path]
        assert same_interface(before, after) == (interface_of(before) == interface_of(after)) == same
        ws.set_text(path, SOURCE)
        before = ws.project.modules[path]

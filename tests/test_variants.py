"""A function whose callers pass tensors to unannotated parameters is analysed again with them read as
tensors (Project._with_tensor_params).  That re-analysis must cost that function, not the module: one
parse and one top-level pass per module text serve all of them (a 2,000-line module with a hundred such
functions took 30 s per keystroke when each re-analysed the whole module)."""
from __future__ import annotations

import fullgraph.engine.module as module
from fullgraph.api import Workspace

BLOCK = '''
class Block{i}(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def scale(self, h, k):
        if (h > 0).any():
            print("block {i}")
        return h * k

    def forward(self, x):
        return self.scale(self.lin(x), 2)
'''


def _module(n: int) -> str:
    head = "import torch\nimport torch.nn as nn\n"
    blocks = "".join(BLOCK.format(i=i) for i in range(n))
    roots = "".join(f"m{i} = torch.compile(Block{i}(), fullgraph=True)\n" for i in range(n))
    return head + blocks + roots


def test_variants_share_one_parse_and_find_every_break(tmp_path, monkeypatch):
    n = 25
    path = str(tmp_path / "blocks.py")
    ws = Workspace()
    text = _module(n)
    ws.set_text(path, text)
    parses = []
    real = module.parse_module
    monkeypatch.setattr(module, "parse_module", lambda text, p: parses.append(p) or real(text, p))
    findings = ws.findings_for([path], fixes=False)
    # every block's tensor branch (`h` is a tensor only because forward passes one) and its print
    branches = [i for i, line in enumerate(text.splitlines()) if "if (h > 0).any():" in line]
    assert len(branches) == n
    assert sorted(f.span.start.line for f in findings if f.code == "FG301") == branches
    assert len(parses) <= 1, parses  # the edited buffer's tree is reused, or parsed once for all variants
    # a keystroke: the new text's variants again share one parse
    parses.clear()
    ws.set_text(path, _module(n) + "\n")
    ws.findings_for([path], fixes=False)
    assert len(parses) <= 1, parses

"""alxndrTL/mamba.py: the README's two usages with the model compiled (`model = Mamba(config)`, `y = model(x)`;
`model = LM(config, vocab_size=...)`, `logits = model(x)`), a training step on the LM (cross-entropy,
backward, AdamW) and LM.generate() from a prompt of token ids, all on CPU in pscan mode.
einops is not installed (mambapy/mamba2.py, imported by lm.py, imports it at the top): a stand-in.
"""
import sys
import types

import torch
import torch.nn.functional as F

# --- stand-ins: einops is not installed (only Mamba-2, not used here, calls it)
_einops = types.ModuleType("einops")
_einops.rearrange = lambda *args, **kwargs: None
_einops.repeat = lambda *args, **kwargs: None
sys.modules["einops"] = _einops
# --- end of stand-ins

from mambapy.lm import LM  # noqa: E402
from mambapy.mamba import Mamba, MambaConfig  # noqa: E402


def main():
    torch.manual_seed(0)
    config = MambaConfig(d_model=16, n_layers=2)
    model = torch.compile(Mamba(config))
    B, L, D = 2, 64, 16
    x = torch.randn(B, L, D)
    y = model(x)
    assert y.shape == x.shape

    config = MambaConfig(d_model=16, n_layers=2)
    lm = LM(config, vocab_size=256)
    model = torch.compile(lm)
    optim = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens = torch.randint(high=256, size=(2, 32))
    for _ in range(2):
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optim.zero_grad()
        loss.backward()
        optim.step()
    out = model.generate(tokens[:1, :4], num_tokens=4, sample=False)
    return y, loss.detach(), out


if __name__ == "__main__":
    main()

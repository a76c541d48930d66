"""Eager smoke test: every model builds and runs on its input (no compile)."""
import torch, timm, torchvision  # noqa: F401
from models import MODELS
for name, lib, ctor, size in MODELS:
    try:
        m = eval(ctor)
        m.eval()
        with torch.no_grad():
            m(torch.randn(2, 3, size, size))
        m.train(); m(torch.randn(2, 3, size, size))
        print("ok", name, flush=True)
    except Exception as e:
        print("FAIL", name, type(e).__name__, str(e)[:200], flush=True)

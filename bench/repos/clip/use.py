"""openai/CLIP: the README's zero-shot example with the model compiled
(`text = clip.tokenize([...])`, `model(image, text)`, `model.encode_image`), for a tiny ViT and a tiny
ModifiedResNet CLIP: random weights saved as a state-dict checkpoint and loaded with build_model(), what
clip.load() does for a checkpoint path (clip.load() itself fails on a state-dict file with torch 2.13: its
failed torch.jit.load leaves the file at its end, EOFError), a random image instead of preprocess(Image.open(...)).
PIL and torchvision are not installed, and the BPE vocabulary file (1.3 MB) is not copied: stand-ins for
PIL, torchvision.transforms and clip.simple_tokenizer.
"""
import os
import sys
import tempfile
import types

import torch

# --- stand-ins: PIL, torchvision.transforms, and the tokenizer whose vocabulary file is not copied
class _Transform:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, x):
        return x


_pil = types.ModuleType("PIL")
_pil.Image = types.SimpleNamespace(BICUBIC=3, Image=object)
sys.modules["PIL"] = _pil
_tv = types.ModuleType("torchvision")
_tvt = types.ModuleType("torchvision.transforms")
for _name in ("Compose", "Resize", "CenterCrop", "ToTensor", "Normalize"):
    setattr(_tvt, _name, _Transform)
_tvt.InterpolationMode = types.SimpleNamespace(BICUBIC=3)
_tv.transforms = _tvt
sys.modules["torchvision"] = _tv
sys.modules["torchvision.transforms"] = _tvt
_tok = types.ModuleType("clip.simple_tokenizer")


class SimpleTokenizer:
    encoder = {"<|startoftext|>": 98, "<|endoftext|>": 99}

    def encode(self, text):
        return [ord(c) % 90 for c in text]


_tok.SimpleTokenizer = SimpleTokenizer
sys.modules["clip.simple_tokenizer"] = _tok
# --- end of stand-ins

import clip  # noqa: E402
from clip.model import CLIP, build_model  # noqa: E402


def main():
    torch.manual_seed(0)
    outs = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, vision_layers in (("vit", 1), ("rn", (1, 1, 1, 1))):
            ckpt = os.path.join(tmp, f"{name}.pt")
            torch.save(CLIP(embed_dim=32, image_resolution=32 if name == "vit" else 64, vision_layers=vision_layers,
                            vision_width=64, vision_patch_size=16, context_length=77, vocab_size=100,
                            transformer_width=64, transformer_heads=1, transformer_layers=1).state_dict(), ckpt)
            model = build_model(torch.load(ckpt, map_location="cpu")).float().eval()
            model = torch.compile(model)
            image = torch.randn(1, 3, model.visual.input_resolution, model.visual.input_resolution)
            text = clip.tokenize(["a diagram", "a dog", "a cat"])
            with torch.no_grad():
                image_features = model.encode_image(image)
                text_features = model.encode_text(text)
                logits_per_image, logits_per_text = model(image, text)
                probs = logits_per_image.softmax(dim=-1)
            outs.append(probs)
    return outs


if __name__ == "__main__":
    main()

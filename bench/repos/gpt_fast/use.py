"""pytorch-labs/gpt-fast: generate.py's main() as the README runs it
(`python generate.py --compile --compile_prefill --checkpoint_path checkpoints/$MODEL_REPO/model.pth --prompt ...`),
which compiles decode_one_token (and prefill) itself with fullgraph=True, on the smallest config
(stories15M) with random weights saved as the checkpoint, a synthetic prompt (an int), CPU, a few tokens.
sentencepiece and tiktoken are not installed: stand-ins (the tokenizer only decodes the output here).
"""
import os
import sys
import tempfile
import types
from pathlib import Path

import torch

# --- stand-ins: sentencepiece and tiktoken are not installed (tokenizer.py imports both)
_spm = types.ModuleType("sentencepiece")


class SentencePieceProcessor:
    def __init__(self, *args, **kwargs):
        pass

    def EncodeAsIds(self, text):
        return [ord(c) % 256 for c in text]

    def DecodeIds(self, tokens):
        return " ".join(str(t) for t in tokens)

    def bos_id(self):
        return 1

    def eos_id(self):
        return 2


_spm.SentencePieceProcessor = SentencePieceProcessor
sys.modules["sentencepiece"] = _spm
_tk = types.ModuleType("tiktoken")
_tk_load = types.ModuleType("tiktoken.load")
_tk_load.load_tiktoken_bpe = lambda path: {}
_tk.load = _tk_load
_tk.Encoding = object
sys.modules["tiktoken"] = _tk
sys.modules["tiktoken.load"] = _tk_load
# --- end of stand-ins

import generate  # noqa: E402
from model import Transformer  # noqa: E402


def main():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = Path(tmp) / "stories15M" / "model.pth"
        ckpt.parent.mkdir()
        torch.save(Transformer.from_name("stories15M").state_dict(), ckpt)
        (ckpt.parent / "tokenizer.model").write_bytes(b"")
        generate.main(prompt=8, interactive=False, num_samples=1, max_new_tokens=3, batch_size=1, top_k=200,
                      temperature=0.8, checkpoint_path=ckpt, compile=True, compile_prefill=True, device="cpu")


if __name__ == "__main__":
    main()

"""openai/whisper: a tiny Whisper with the encoder and decoder compiled the way users speed it up
(`model.encoder = torch.compile(model.encoder)`, same for the decoder), then what model.decode() does
per step: the encoder on a log-mel spectrogram, and the decoder through decoding.PyTorchInference (its
kv-cache hooks) for a few greedy tokens; and the full forward `model(mel, tokens)`.
numba and tiktoken are not installed: stand-ins (whisper/timing.py and whisper/tokenizer.py import them).
"""
import sys
import types

import torch

# --- stand-ins: numba and tiktoken are not installed
_numba = types.ModuleType("numba")
_numba.jit = lambda *args, **kwargs: (lambda f: f)
sys.modules["numba"] = _numba
_tk = types.ModuleType("tiktoken")
_tk.Encoding = object
sys.modules["tiktoken"] = _tk
# --- end of stand-ins

import whisper  # noqa: E402
from whisper.decoding import PyTorchInference  # noqa: E402
from whisper.model import ModelDimensions, Whisper  # noqa: E402


def main():
    torch.manual_seed(0)
    dims = ModelDimensions(n_mels=80, n_audio_ctx=8, n_audio_state=32, n_audio_head=2, n_audio_layer=2,
                           n_vocab=64, n_text_ctx=16, n_text_state=32, n_text_head=2, n_text_layer=2)
    model = Whisper(dims).eval()
    model.encoder = torch.compile(model.encoder)
    model.decoder = torch.compile(model.decoder)
    mel = torch.randn(1, 80, 16)
    with torch.no_grad():
        audio_features = model.embed_audio(mel)
        tokens = torch.tensor([[1, 2, 3]])
        inference = PyTorchInference(model, tokens.shape[-1])
        for _ in range(3):
            logits = inference.logits(tokens, audio_features)
            next_token = logits[:, -1].argmax(dim=-1, keepdim=True)
            tokens = torch.cat([tokens, next_token], dim=-1)
        inference.cleanup_caching()
        out = model(mel, tokens)
    return out


if __name__ == "__main__":
    main()

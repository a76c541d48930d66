import math

import numpy as np
import torch
import torch.nn as nn


def mel_filterbank(n_fft: int, n_mels: int, sr: int) -> np.ndarray:
    def hz_to_mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel_to_hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    mels = np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2)
    bins = np.floor((n_fft + 1) * mel_to_hz(mels) / sr).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1), dtype=np.float32)
    for m in range(1, n_mels + 1):
        l, c, r = bins[m - 1], bins[m], bins[m + 1]
        for k in range(l, c):
            fb[m - 1, k] = (k - l) / max(c - l, 1)
        for k in range(c, r):
            fb[m - 1, k] = (r - k) / max(r - c, 1)
    return fb


class LogMel(nn.Module):
    def __init__(self, n_fft=64, hop=16, n_mels=8, sr=8000):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.from_numpy(np.hanning(n_fft).astype(np.float32)))
        self.register_buffer("fb", torch.from_numpy(mel_filterbank(n_fft, n_mels, sr)))
        self.db_scale = 10.0 / math.log(10.0)

    def forward(self, wav):
        frames = wav.unfold(-1, self.n_fft, self.hop) * self.window
        spec = torch.fft.rfft(frames, dim=-1).abs().pow(2)
        mel = spec @ self.fb.t()
        return self.db_scale * torch.log(mel.clamp_min(1e-10)) / np.sqrt(self.n_fft)


def main():
    torch.manual_seed(0)
    fe = torch.compile(LogMel(), fullgraph=True)
    t = torch.arange(1024) / 8000.0
    wav = torch.sin(2 * math.pi * 440 * t)[None] + 0.01 * torch.randn(2, 1024)
    return fe(wav)


if __name__ == "__main__":
    main()

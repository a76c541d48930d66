"""sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning: the training and validation steps of train.py's train() and
validate() with the encoder and the attention decoder compiled (`encoder = torch.compile(Encoder())`,
`decoder = torch.compile(DecoderWithAttention(...))`), as main() builds them (encoder not fine-tuned); small
sizes, random images and captions.  The steps are written here: train.py unpacks `pack_padded_sequence(...)`
into two values, which fails on torch >= 1.1 (a PackedSequence has four fields), so they take `.data`, the usual
fix.  torchvision is not installed (models.py builds resnet101 from it): a stand-in resnet101, a small
convolutional stack with the same children layout (the encoder keeps all but the last two children).
"""
import sys
import types

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence


# --- stand-ins: torchvision is not installed
def _resnet101(pretrained=False):
    return nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, 1, 1), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Linear(64, 10))


_tv = types.ModuleType("torchvision")
_tv.models = types.SimpleNamespace(resnet101=_resnet101)
sys.modules["torchvision"] = _tv
# --- end of stand-ins

from models import DecoderWithAttention, Encoder  # noqa: E402

alpha_c = 1.  # regularization parameter for 'doubly stochastic attention', as in train.py
grad_clip = 5.


def batch(n, vocab, max_len=8):
    imgs = torch.randn(n, 3, 64, 64)
    caplens = torch.randint(3, max_len, (n, 1))
    caps = torch.randint(4, vocab, (n, max_len))
    caps[:, 0] = 1
    return imgs, caps, caplens


def main():
    torch.manual_seed(0)
    vocab = 30
    decoder = DecoderWithAttention(attention_dim=16, embed_dim=16, decoder_dim=16, vocab_size=vocab, dropout=0.5,
                                   encoder_dim=64)
    decoder_optimizer = torch.optim.Adam(params=filter(lambda p: p.requires_grad, decoder.parameters()), lr=4e-4)
    encoder = Encoder(encoded_image_size=4)
    encoder.fine_tune(False)
    encoder = torch.compile(encoder)
    decoder = torch.compile(decoder)
    criterion = nn.CrossEntropyLoss()
    decoder.train()
    encoder.train()
    for _ in range(2):  # train()
        imgs, caps, caplens = batch(4, vocab)
        imgs = encoder(imgs)
        scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(imgs, caps, caplens)
        targets = caps_sorted[:, 1:]
        scores = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
        targets = pack_padded_sequence(targets, decode_lengths, batch_first=True).data
        loss = criterion(scores, targets)
        loss += alpha_c * ((1. - alphas.sum(dim=1)) ** 2).mean()
        decoder_optimizer.zero_grad()
        loss.backward()
        for group in decoder_optimizer.param_groups:  # utils.clip_gradient
            for param in group['params']:
                if param.grad is not None:
                    param.grad.data.clamp_(-grad_clip, grad_clip)
        decoder_optimizer.step()
    decoder.eval()  # validate()
    encoder.eval()
    with torch.no_grad():
        imgs, caps, caplens = batch(4, vocab)
        scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(encoder(imgs), caps, caplens)
        _, preds = torch.max(scores, dim=2)
    return loss.detach(), preds


if __name__ == "__main__":
    main()

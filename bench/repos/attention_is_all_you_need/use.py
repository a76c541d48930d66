"""jadore801120/attention-is-all-you-need-pytorch: train.py's train_epoch() and eval_epoch() with the Transformer
compiled (`transformer = torch.compile(Transformer(...))`, ScheduledOptim, label smoothing), then translate.py's
beam search with `translate_sentence` compiled (`translator.translate_sentence = torch.compile(...)`); a small
Transformer, random token batches shaped as torchtext's BucketIterator yields them (seq-first `src` / `trg`).
torchtext (legacy API) and dill are not installed (train.py imports them at the top): stand-ins.
"""
import argparse
import sys
import types

import torch
import torch.optim as optim

# --- stand-ins: torchtext's legacy data API and dill are not installed
_tt = types.ModuleType("torchtext")
_tt_data = types.ModuleType("torchtext.data")
_tt_data.Field = _tt_data.Dataset = _tt_data.BucketIterator = object
_tt_datasets = types.ModuleType("torchtext.datasets")
_tt_datasets.TranslationDataset = object
for _name, _mod in (("torchtext", _tt), ("torchtext.data", _tt_data), ("torchtext.datasets", _tt_datasets),
                    ("dill", types.ModuleType("dill"))):
    sys.modules[_name] = _mod
# --- end of stand-ins

import train  # noqa: E402
from transformer.Models import Transformer  # noqa: E402
from transformer.Optim import ScheduledOptim  # noqa: E402
from transformer.Translator import Translator  # noqa: E402


def batches(n, vocab, pad, bos, eos, src_len=7, trg_len=6, bsz=3):
    out = []
    for _ in range(n):
        src = torch.randint(4, vocab, (src_len, bsz))
        trg = torch.randint(4, vocab, (trg_len, bsz))
        trg[0], trg[-1], src[-1, 0] = bos, eos, pad
        out.append(types.SimpleNamespace(src=src, trg=trg))
    return out


def main():
    torch.manual_seed(0)
    vocab, pad, unk, bos, eos = 40, 1, 0, 2, 3
    opt = argparse.Namespace(src_pad_idx=pad, trg_pad_idx=pad, d_model=32, n_warmup_steps=10, lr_mul=2.0)
    device = torch.device("cpu")
    transformer = Transformer(vocab, vocab, src_pad_idx=pad, trg_pad_idx=pad, d_k=8, d_v=8, d_model=32,
                              d_word_vec=32, d_inner=64, n_layers=2, n_head=4, dropout=0.1, n_position=50,
                              scale_emb_or_prj='prj')
    model = torch.compile(transformer)
    optimizer = ScheduledOptim(optim.Adam(model.parameters(), betas=(0.9, 0.98), eps=1e-09), opt.lr_mul,
                               opt.d_model, opt.n_warmup_steps)
    for epoch_i in range(2):
        train_loss, train_accu = train.train_epoch(model, batches(2, vocab, pad, bos, eos), optimizer, opt, device,
                                                   smoothing=True)
        valid_loss, valid_accu = train.eval_epoch(model, batches(1, vocab, pad, bos, eos), device, opt)

    translator = Translator(model=transformer, beam_size=3, max_seq_len=8, src_pad_idx=pad, trg_pad_idx=pad,
                            trg_bos_idx=bos, trg_eos_idx=eos).to(device)
    translator.translate_sentence = torch.compile(translator.translate_sentence)
    pred_seq = translator.translate_sentence(torch.LongTensor([[5, 6, 7, 8, 9]]).to(device))
    return torch.tensor([train_loss, valid_loss]), pred_seq


if __name__ == "__main__":
    main()

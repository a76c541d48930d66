"""karpathy/makemore: the training loop of makemore.py's __main__ (`python makemore.py -i names.txt -o names
--type TYPE`) for every model type, with the model compiled, plus print_samples' generate() on the
compiled model.  tensorboard is not installed: SummaryWriter is a stand-in.
"""
import sys
import types

import torch

# --- stand-ins: tensorboard is not installed (makemore.py imports torch.utils.tensorboard at the top)
_tb = types.ModuleType("torch.utils.tensorboard")


class SummaryWriter:
    def __init__(self, *args, **kwargs):
        pass

    def add_scalar(self, *args, **kwargs):
        pass

    def flush(self):
        pass


_tb.SummaryWriter = SummaryWriter
sys.modules["torch.utils.tensorboard"] = _tb
# --- end of stand-ins

import makemore  # noqa: E402
from makemore import RNN, BoW, Bigram, CharDataset, InfiniteDataLoader, MLP, ModelConfig, Transformer, generate  # noqa: E402

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper", "evelyn"]


def main():
    torch.manual_seed(3407)
    chars = sorted(list(set(''.join(WORDS))))
    max_word_length = max(len(w) for w in WORDS)
    train_dataset = CharDataset(WORDS, chars, max_word_length)
    vocab_size = train_dataset.get_vocab_size()
    block_size = train_dataset.get_output_length()
    config = ModelConfig(vocab_size=vocab_size, block_size=block_size, n_layer=2, n_head=2, n_embd=16, n_embd2=16)
    losses = []
    for kind in ("transformer", "bigram", "mlp", "rnn", "gru", "bow"):
        if kind == 'transformer':
            model = Transformer(config)
        elif kind == 'bigram':
            model = Bigram(config)
        elif kind == 'mlp':
            model = MLP(config)
        elif kind == 'rnn':
            model = RNN(config, cell_type='rnn')
        elif kind == 'gru':
            model = RNN(config, cell_type='gru')
        else:
            model = BoW(config)
        model = torch.compile(model)
        optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01, betas=(0.9, 0.99), eps=1e-8)
        batch_loader = InfiniteDataLoader(train_dataset, batch_size=4, pin_memory=False, num_workers=0)
        for step in range(2):
            batch = batch_loader.next()
            X, Y = batch
            logits, loss = model(X, Y)
            model.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        # print_samples(): generate from the (compiled) model
        makemore.args = types.SimpleNamespace(device="cpu", top_k=-1)
        X_init = torch.zeros(2, 1, dtype=torch.long)
        generate(model, X_init, 3, top_k=None, do_sample=True)
    return torch.tensor(losses)


if __name__ == "__main__":
    main()

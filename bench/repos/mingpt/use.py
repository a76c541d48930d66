"""karpathy/minGPT: the README's GPT + Trainer (demo.ipynb's sorting task), with the model compiled.

    model = GPT(model_config); trainer = Trainer(train_config, model, train_dataset); trainer.run()
"""
import torch
from torch.utils.data import Dataset

from mingpt.model import GPT
from mingpt.trainer import Trainer


class SortDataset(Dataset):
    """demo.ipynb's task: sort a short sequence of digits (random here)."""

    def __init__(self, length=6, num_digits=3):
        self.length, self.num_digits = length, num_digits

    def __len__(self):
        return 10000

    def get_vocab_size(self):
        return self.num_digits

    def get_block_size(self):
        return self.length * 2 - 1

    def __getitem__(self, idx):
        inp = torch.randint(self.num_digits, size=(self.length,), dtype=torch.long)
        sol = torch.sort(inp)[0]
        cat = torch.cat((inp, sol), dim=0)
        x = cat[:-1].clone()
        y = cat[1:].clone()
        y[:self.length - 1] = -1
        return x, y


def main():
    torch.manual_seed(0)
    train_dataset = SortDataset()
    model_config = GPT.get_default_config()
    model_config.model_type = 'gpt-nano'
    model_config.vocab_size = train_dataset.get_vocab_size()
    model_config.block_size = train_dataset.get_block_size()
    model = GPT(model_config)
    model = torch.compile(model)

    train_config = Trainer.get_default_config()
    train_config.learning_rate = 5e-4
    train_config.max_iters = 3
    train_config.batch_size = 8
    train_config.num_workers = 0
    train_config.device = 'cpu'
    trainer = Trainer(train_config, model, train_dataset)
    trainer.run()
    return trainer.loss.detach()


if __name__ == "__main__":
    main()

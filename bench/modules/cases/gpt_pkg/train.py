import torch

from .model import GPT, GPTConfig


def get_batch(data, block_size, batch_size, gen):
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=gen)
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x, y


def main():
    torch.manual_seed(1337)
    config = GPTConfig()
    model = GPT(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    compiled = torch.compile(model)
    gen = torch.Generator().manual_seed(0)
    data = torch.randint(0, config.vocab_size, (200,), generator=gen)
    losses = []
    for it in range(3):
        x, y = get_batch(data, config.block_size, 4, gen)
        _, loss = compiled(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    return torch.tensor(losses)


if __name__ == "__main__":
    print(main())

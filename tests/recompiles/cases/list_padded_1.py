"""Near-miss: per-sample lengths are packed into a padded tensor of fixed batch size before the call."""
import torch


def lengths_mask(lengths, max_len):
    return (torch.arange(max_len)[None, :] < lengths[:, None]).float()


def main():
    torch.manual_seed(0)
    fn = torch.compile(lengths_mask, backend="eager")
    outs = []
    for batch in range(1, 11):
        lengths = [(3 * i) % 7 + 1 for i in range(batch)]
        padded = torch.zeros(10, dtype=torch.long)
        padded[:batch] = torch.tensor(lengths)
        outs.append(fn(padded, 8))
    return outs


if __name__ == "__main__":
    main()

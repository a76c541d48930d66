"""A list of per-sample lengths (Python ints) is passed; its length is the batch size, which varies."""
import torch


def lengths_mask(lengths, max_len):
    rows = [torch.arange(max_len) < n for n in lengths]
    return torch.stack(rows).float()


def main():
    torch.manual_seed(0)
    fn = torch.compile(lengths_mask, backend="eager")
    outs = []
    for batch in range(1, 11):
        lengths = [(3 * i) % 7 + 1 for i in range(batch)]
        outs.append(fn(lengths, 8))  # recompile: list-length-varies
    return outs


if __name__ == "__main__":
    main()

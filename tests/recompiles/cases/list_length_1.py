"""Feature maps collected in a Python list whose length grows each step are summed by the compiled head."""
import torch


def fuse(features):
    out = features[0]
    for f in features[1:]:
        out = out + f
    return out / len(features)


def main():
    torch.manual_seed(0)
    fn = torch.compile(fuse, backend="eager")
    feats = []
    outs = []
    for step in range(10):
        feats.append(torch.randn(4, 4))
        outs.append(fn(feats))  # recompile: list-length-varies
    return outs


if __name__ == "__main__":
    main()

import torch
import torch.nn as nn


class Node:
    def __init__(self, word, children=()):
        self.word = word
        self.children = list(children)


class ChildSumTreeLSTM(nn.Module):
    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.iou = nn.Linear(2 * dim, 3 * dim)
        self.f = nn.Linear(2 * dim, dim)
        self.dim = dim

    def node_forward(self, node):
        x = self.emb(torch.tensor([node.word]))
        if node.children:
            states = [self.node_forward(c) for c in node.children]
            hs = torch.cat([h for h, _ in states])
            cs = torch.cat([c for _, c in states])
            h_sum = hs.sum(0, keepdim=True)
        else:
            hs = cs = torch.zeros(1, self.dim)
            h_sum = hs
        i, o, u = self.iou(torch.cat([x, h_sum], 1)).chunk(3, 1)
        f = torch.sigmoid(self.f(torch.cat([x.expand(hs.shape[0], -1), hs], 1)))
        c = torch.sigmoid(i) * torch.tanh(u) + (f * cs).sum(0, keepdim=True)
        return torch.sigmoid(o) * torch.tanh(c), c

    def forward(self, root):
        return self.node_forward(root)[0]


def main():
    torch.manual_seed(0)
    tree = Node(1, [Node(2, [Node(4), Node(5)]), Node(3)])
    model = torch.compile(ChildSumTreeLSTM())
    return model(tree)


if __name__ == "__main__":
    print(main())

"""Mean-aggregation GNN over mini-batches of graphs whose node and edge counts differ per batch."""
import torch
import torch.nn as nn


class MeanConv(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.lin_self = nn.Linear(dim_in, dim_out)
        self.lin_nbr = nn.Linear(dim_in, dim_out)

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = torch.zeros_like(x).index_add_(0, dst, x[src])
        deg = torch.zeros(x.shape[0]).index_add_(0, dst, torch.ones(dst.shape[0])).clamp(min=1)
        return self.lin_self(x) + self.lin_nbr(agg / deg[:, None])


class GraphNet(nn.Module):
    def __init__(self, dim=8, hidden=16, classes=3):
        super().__init__()
        self.conv1 = MeanConv(dim, hidden)
        self.conv2 = MeanConv(hidden, hidden)
        self.cls = nn.Linear(hidden, classes)

    def forward(self, x, edge_index, batch, num_graphs):
        h = torch.relu(self.conv1(x, edge_index))
        h = torch.relu(self.conv2(h, edge_index))
        pooled = torch.zeros(num_graphs, h.shape[1]).index_add_(0, batch, h)
        return self.cls(pooled)


def random_batch(g, graphs=4):
    xs, edges, batch, offset = [], [], [], 0
    for i in range(graphs):
        n = int(torch.randint(3, 9, (1,), generator=g))
        e = int(torch.randint(n, 3 * n, (1,), generator=g))
        xs.append(torch.randn(n, 8, generator=g))
        edges.append(torch.randint(0, n, (2, e), generator=g) + offset)
        batch.append(torch.full((n,), i))
        offset += n
    return torch.cat(xs), torch.cat(edges, 1), torch.cat(batch)


def main():
    torch.manual_seed(0)
    model = GraphNet()
    step = torch.compile(model, backend="eager")
    g = torch.Generator().manual_seed(7)
    outs = []
    for _ in range(8):
        x, edge_index, batch = random_batch(g)  # recompile: dynamic-dim-unmarked
        outs.append(step(x, edge_index, batch, 4))
    return outs


if __name__ == "__main__":
    main()

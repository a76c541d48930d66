"""A VAE trained with KL annealing; beta is kept as a tensor, so the compiled loss never sees a new constant."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, dim=20, latent=4, hidden=32):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, x, noise):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + noise * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def elbo_loss(model, x, noise, beta):
    recon, mu, logvar = model(x, noise)
    rec = F.mse_loss(recon, x, reduction="sum") / x.shape[0]
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
    return rec + beta * kl


@torch.no_grad()
def reconstruction_error(model, data):
    recon, _, _ = model(data, torch.zeros(data.shape[0], 4))
    return F.mse_loss(recon, data)


def main():
    torch.manual_seed(0)
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.compile(elbo_loss, backend="eager")
    data = torch.randn(80, 20)
    beta = torch.zeros(())
    losses = []
    for step, x in enumerate(data.split(8)):
        beta.fill_(min(1.0, step / 5))
        noise = torch.randn(x.shape[0], 4)
        loss = loss_fn(model, x, noise, beta)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return losses + [reconstruction_error(model, data[:16])]


if __name__ == "__main__":
    main()

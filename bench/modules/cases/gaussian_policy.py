import torch
import torch.nn as nn
from torch.distributions import Normal

LOG_STD_MIN, LOG_STD_MAX = -5.0, 2.0


class SquashedGaussianActor(nn.Module):
    """SAC actor: tanh-squashed Gaussian with the log-prob correction."""

    def __init__(self, obs_dim=6, act_dim=2, hidden=32, act_limit=1.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, act_dim)
        self.log_std = nn.Linear(hidden, act_dim)
        self.act_limit = act_limit

    def forward(self, obs, deterministic=False, with_logprob=True):
        h = self.net(obs)
        mu = self.mu(h)
        log_std = torch.clamp(self.log_std(h), LOG_STD_MIN, LOG_STD_MAX)
        dist = Normal(mu, log_std.exp())
        u = mu if deterministic else dist.rsample()
        logp = None
        if with_logprob:
            logp = dist.log_prob(u).sum(-1)
            logp = logp - (2 * (torch.log(torch.tensor(2.0)) - u - nn.functional.softplus(-2 * u))).sum(-1)
        return self.act_limit * torch.tanh(u), logp


def main():
    torch.manual_seed(0)
    actor = torch.compile(SquashedGaussianActor())
    obs = torch.randn(4, 6)
    a_det, lp_det = actor(obs, deterministic=True)
    torch.manual_seed(1)
    a, lp = actor(obs)
    return a_det, lp_det, a, lp


if __name__ == "__main__":
    main()

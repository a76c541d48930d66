"""PPO's clipped update compiled once outside the rollout loop; the clip range and coefficients are constants."""
import torch
import torch.nn as nn
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs=6, actions=3, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


def ppo_loss(model, obs, actions, old_logp, advantages, returns, clip=0.2, vf_coef=0.5, ent_coef=0.01):
    logits, values = model(obs)
    logp_all = torch.log_softmax(logits, -1)
    logp = logp_all.gather(-1, actions[:, None]).squeeze(-1)
    ratio = torch.exp(logp - old_logp)
    adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    pg = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
    vf = (values - returns).pow(2).mean()
    entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
    return pg + vf_coef * vf - ent_coef * entropy


def rollout(model, g, steps=32):
    obs = torch.randn(steps, 6, generator=g)
    with torch.no_grad():
        logits, values = model(obs)
        dist = Categorical(logits=logits)
        actions = dist.sample()
        logp = dist.log_prob(actions)
    rewards = torch.randn(steps, generator=g)
    returns = torch.flip(torch.cumsum(torch.flip(rewards, [0]), 0), [0])
    return obs, actions, logp, returns - values, returns


def main():
    torch.manual_seed(0)
    model = ActorCritic()
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    update = torch.compile(ppo_loss, backend="eager")
    g = torch.Generator().manual_seed(9)
    losses = []
    for iteration in range(4):
        batch = rollout(model, g)
        for epoch in range(3):
            loss = update(model, *batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    return losses


if __name__ == "__main__":
    main()

"""A DQN-style actor recompiled at the start of every episode with that episode's exploration horizon."""
import torch
import torch.nn as nn


class QNet(nn.Module):
    def __init__(self, obs=4, actions=3, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, hidden), nn.ReLU(), nn.Linear(hidden, actions))

    def forward(self, obs):
        return self.net(obs)


class ToyEnv:
    def __init__(self, seed=0):
        self.g = torch.Generator().manual_seed(seed)
        self.state = torch.zeros(4)

    def reset(self):
        self.state = torch.randn(4, generator=self.g) * 0.1
        return self.state

    def step(self, action):
        self.state = self.state + 0.05 * (action - 1) + 0.01 * torch.randn(4, generator=self.g)
        reward = float(-self.state.abs().sum())
        return self.state, reward


def make_actor(qnet, lookahead):
    def act(obs):
        # a crude model-predictive refinement: unroll the Q estimates `lookahead` times
        q = qnet(obs)
        for _ in range(lookahead):
            q = 0.5 * q + 0.5 * qnet(obs + 0.01 * q.mean())
        return q.argmax(-1)

    return act


def main():
    torch.manual_seed(0)
    qnet = QNet().eval()
    env = ToyEnv()
    returns = []
    with torch.no_grad():
        for episode in range(10):
            lookahead = 1 + episode  # longer planning as training goes on
            actor = torch.compile(make_actor(qnet, lookahead), backend="eager")  # recompile: compile-in-loop
            obs = env.reset()
            total = 0.0
            for t in range(3):
                action = actor(obs)
                obs, reward = env.step(action)
                total += reward
            returns.append(total)
    return returns


if __name__ == "__main__":
    main()

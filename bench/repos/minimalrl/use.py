"""seungeunrho/minimalRL: the main() loops of ppo.py and dqn.py with their updates compiled the way users try to
speed them up: `model.train_net = torch.compile(model.train_net)` (PPO: make_batch, GAE in numpy, K epochs of
Adam steps) and `train = torch.compile(dqn.train)` plus `q.sample_action = torch.compile(q.sample_action)` (DQN:
replay-buffer sampling with random.sample, epsilon-greedy); an environment of random 4-d observations instead
of CartPole, a few short episodes.  gym is not installed: a stand-in whose make() returns that environment.
"""
import random
import sys
import types

import numpy as np
import torch
import torch.optim as optim
from torch.distributions import Categorical


# --- stand-ins: gym is not installed (ppo.py and dqn.py import it at the top)
class _RandomCartPole:
    def __init__(self):
        self.rng, self.t = np.random.default_rng(0), 0

    def reset(self):
        self.t = 0
        return self.rng.standard_normal(4).astype(np.float32), {}

    def step(self, a):
        self.t += 1
        return self.rng.standard_normal(4).astype(np.float32), 1.0, self.t >= 12, False, {}

    def close(self):
        pass


_gym = types.ModuleType("gym")
_gym.make = lambda *args, **kwargs: _RandomCartPole()
sys.modules["gym"] = _gym
# --- end of stand-ins

import dqn  # noqa: E402
import ppo  # noqa: E402


def run_ppo():
    env = ppo.gym.make('CartPole-v1')
    model = ppo.PPO()
    model.train_net = torch.compile(model.train_net)
    for n_epi in range(2):
        s, _ = env.reset()
        done = False
        while not done:
            for t in range(ppo.T_horizon):
                prob = model.pi(torch.from_numpy(s).float())
                m = Categorical(prob)
                a = m.sample().item()
                s_prime, r, done, truncated, info = env.step(a)
                model.put_data((s, a, r / 100.0, s_prime, prob[a].item(), done))
                s = s_prime
                if done:
                    break
            model.train_net()
    return model.fc_pi.weight.detach()


def run_dqn():
    env = dqn.gym.make('CartPole-v1')
    q = dqn.Qnet()
    q_target = dqn.Qnet()
    q_target.load_state_dict(q.state_dict())
    memory = dqn.ReplayBuffer()
    optimizer = optim.Adam(q.parameters(), lr=dqn.learning_rate)
    q.sample_action = torch.compile(q.sample_action)
    train = torch.compile(dqn.train)
    for n_epi in range(8):
        epsilon = max(0.01, 0.08 - 0.01 * (n_epi / 200))
        s, _ = env.reset()
        done = False
        while not done:
            a = q.sample_action(torch.from_numpy(s).float(), epsilon)
            s_prime, r, done, truncated, info = env.step(a)
            done_mask = 0.0 if done else 1.0
            memory.put((s, a, r / 100.0, s_prime, done_mask))
            s = s_prime
            if done:
                break
        if memory.size() > dqn.batch_size:
            train(q, q_target, memory, optimizer)
    return q.fc3.weight.detach()


def main():
    torch.manual_seed(0)
    random.seed(0)  # dqn.py's epsilon-greedy and replay sampling use the random module
    return run_ppo(), run_dqn()


if __name__ == "__main__":
    main()

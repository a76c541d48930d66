"""vwxyzjn/cleanrl: ppo_continuous_action.py's rollout and PPO update, with the agent's methods compiled the way
LeanRL speeds up CleanRL (`agent.get_action_and_value = torch.compile(agent.get_action_and_value)`, same for
get_value); a vector env of random observations instead of MuJoCo, small sizes (num_steps 16, 4 minibatches).
gymnasium, tyro and tensorboard are not installed: stand-ins (imports only; the env is written here).
"""
import os
import sys
import types

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

# --- stand-ins: gymnasium, tyro and tensorboard are not installed (the script imports them at the top)
for _name in ("gymnasium", "tyro"):
    sys.modules[_name] = types.ModuleType(_name)
_tb = types.ModuleType("torch.utils.tensorboard")
_tb.SummaryWriter = lambda *args, **kwargs: types.SimpleNamespace(add_scalar=lambda *a, **k: None,
                                                                  add_text=lambda *a, **k: None)
sys.modules["torch.utils.tensorboard"] = _tb
# --- end of stand-ins

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "cleanrl"))
from ppo_continuous_action import Agent, Args  # noqa: E402


class RandomEnvs:
    """What the script reads of gym.vector.SyncVectorEnv: spaces, reset(), step()."""

    def __init__(self, num_envs, obs_dim=17, act_dim=6):
        self.num_envs = num_envs
        self.single_observation_space = types.SimpleNamespace(shape=(obs_dim,))
        self.single_action_space = types.SimpleNamespace(shape=(act_dim,))
        self.rng = np.random.default_rng(0)

    def reset(self, seed=None):
        return self.rng.standard_normal((self.num_envs,) + self.single_observation_space.shape), {}

    def step(self, action):
        obs = self.rng.standard_normal((self.num_envs,) + self.single_observation_space.shape)
        reward = self.rng.standard_normal(self.num_envs)
        done = self.rng.random(self.num_envs) < 0.05
        return obs, reward, done, np.zeros_like(done), {}


def main():
    args = Args(num_envs=2, num_steps=16, num_minibatches=4, update_epochs=2, total_timesteps=64)
    args.batch_size = int(args.num_envs * args.num_steps)
    args.minibatch_size = int(args.batch_size // args.num_minibatches)
    args.num_iterations = args.total_timesteps // args.batch_size
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    envs = RandomEnvs(args.num_envs)
    agent = Agent(envs).to(device)
    agent.get_action_and_value = torch.compile(agent.get_action_and_value)
    agent.get_value = torch.compile(agent.get_value)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs) + envs.single_observation_space.shape).to(device)
    actions = torch.zeros((args.num_steps, args.num_envs) + envs.single_action_space.shape).to(device)
    logprobs = torch.zeros((args.num_steps, args.num_envs)).to(device)
    rewards = torch.zeros((args.num_steps, args.num_envs)).to(device)
    dones = torch.zeros((args.num_steps, args.num_envs)).to(device)
    values = torch.zeros((args.num_steps, args.num_envs)).to(device)
    next_obs, _ = envs.reset(seed=args.seed)
    next_obs = torch.Tensor(next_obs).to(device)
    next_done = torch.zeros(args.num_envs).to(device)
    for iteration in range(1, args.num_iterations + 1):
        for step in range(0, args.num_steps):
            obs[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs, reward, terminations, truncations, infos = envs.step(action.cpu().numpy())
            next_done = np.logical_or(terminations, truncations)
            rewards[step] = torch.tensor(reward).to(device).view(-1)
            next_obs, next_done = torch.Tensor(next_obs).to(device), torch.Tensor(next_done).to(device)
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards).to(device)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values
        b_obs = obs.reshape((-1,) + envs.single_observation_space.shape)
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape((-1,) + envs.single_action_space.shape)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)
        b_inds = np.arange(args.batch_size)
        for epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                end = start + args.minibatch_size
                mb_inds = b_inds[start:end]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()
                mb_advantages = b_advantages[mb_inds]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()
                newvalue = newvalue.view(-1)
                v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
    return loss.detach()


if __name__ == "__main__":
    main()

"""ikostrikov/pytorch-a2c-ppo-acktr-gail: main.py's PPO loop with a recurrent policy
(`python main.py --algo ppo --recurrent-policy ...`): Policy, algo.PPO, RolloutStorage, act() per step,
get_value(), compute_returns(), agent.update(); with the policy's methods compiled (`actor_critic.act =
torch.compile(actor_critic.act)`, same for evaluate_actions and get_value; PPO.update calls the instance's
evaluate_actions).  A vector env of random observations (what make_vec_envs' VecPyTorch returns: tensors)
and a Discrete action space, small sizes.  gym and stable_baselines3 are not installed (envs.py, imported by
utils.py, imports them at the top): stand-in modules whose every name is a placeholder class.
"""
import sys
import types

import torch


# --- stand-ins: gym and stable_baselines3 are not installed (imports only; the env is written below)
def _placeholder(attr):
    if attr.startswith("__"):
        raise AttributeError(attr)
    return type(attr, (), {})


def _module(name):
    mod = types.ModuleType(name)
    mod.__getattr__ = _placeholder
    sys.modules[name] = mod
    return mod


for _name in ("gym", "gym.spaces", "gym.spaces.box", "gym.wrappers", "gym.wrappers.clip_action",
              "stable_baselines3", "stable_baselines3.common", "stable_baselines3.common.atari_wrappers",
              "stable_baselines3.common.monitor", "stable_baselines3.common.vec_env",
              "stable_baselines3.common.vec_env.vec_normalize"):
    _module(_name)
# --- end of stand-ins

from a2c_ppo_acktr import algo  # noqa: E402
from a2c_ppo_acktr.model import Policy  # noqa: E402
from a2c_ppo_acktr.storage import RolloutStorage  # noqa: E402


class Discrete:
    def __init__(self, n):
        self.n = n


class RandomVecEnv:
    """What make_vec_envs() returns (VecPyTorch): spaces, reset() and step() on tensors."""

    def __init__(self, num_processes, obs_dim=8, n_actions=3):
        self.num_processes = num_processes
        self.observation_space = types.SimpleNamespace(shape=(obs_dim,))
        self.action_space = Discrete(n_actions)
        self.t = 0

    def reset(self):
        return torch.randn(self.num_processes, *self.observation_space.shape)

    def step(self, action):
        self.t += 1
        done = [self.t % 5 == 0] * self.num_processes
        infos = [{"episode": {"r": 1.0}} if d else {} for d in done]
        return (torch.randn(self.num_processes, *self.observation_space.shape),
                torch.randn(self.num_processes, 1), done, infos)


def main():
    torch.manual_seed(1)
    num_processes, num_steps = 4, 8
    envs = RandomVecEnv(num_processes)
    actor_critic = Policy(envs.observation_space.shape, envs.action_space, base_kwargs={'recurrent': True})
    actor_critic.act = torch.compile(actor_critic.act)
    actor_critic.evaluate_actions = torch.compile(actor_critic.evaluate_actions)
    actor_critic.get_value = torch.compile(actor_critic.get_value)
    agent = algo.PPO(actor_critic, 0.2, 2, 2, 0.5, 0.01, lr=7e-4, eps=1e-5, max_grad_norm=0.5)
    rollouts = RolloutStorage(num_steps, num_processes, envs.observation_space.shape, envs.action_space,
                              actor_critic.recurrent_hidden_state_size)
    obs = envs.reset()
    rollouts.obs[0].copy_(obs)
    for j in range(2):
        for step in range(num_steps):
            with torch.no_grad():
                value, action, action_log_prob, recurrent_hidden_states = actor_critic.act(
                    rollouts.obs[step], rollouts.recurrent_hidden_states[step], rollouts.masks[step])
            obs, reward, done, infos = envs.step(action)
            masks = torch.FloatTensor([[0.0] if done_ else [1.0] for done_ in done])
            bad_masks = torch.FloatTensor([[0.0] if 'bad_transition' in info.keys() else [1.0] for info in infos])
            rollouts.insert(obs, recurrent_hidden_states, action, action_log_prob, value, reward, masks, bad_masks)
        with torch.no_grad():
            next_value = actor_critic.get_value(rollouts.obs[-1], rollouts.recurrent_hidden_states[-1],
                                                rollouts.masks[-1]).detach()
        rollouts.compute_returns(next_value, True, 0.99, 0.95, True)
        value_loss, action_loss, dist_entropy = agent.update(rollouts)
        rollouts.after_update()
    return torch.tensor([value_loss, action_loss, dist_entropy])


if __name__ == "__main__":
    main()

"""sfujim/TD3: main.py's loop (`policy = TD3.TD3(**kwargs)`, a utils.ReplayBuffer, `policy.train(replay_buffer,
args.batch_size)` per step) with the policy's networks compiled in place (`policy.actor = torch.compile(policy.actor)`,
same for the critic); random transitions instead of a MuJoCo environment.  (Compiling the whole update,
`policy.train = torch.compile(policy.train)`, does not run under torch 2.13: Dynamo raises a TorchRuntimeError on
`torch.FloatTensor(self.state[ind])` in ReplayBuffer.sample, a float64 array; it is not a graph break.)
"""
import numpy as np
import torch

import TD3
import utils


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    state_dim, action_dim, max_action = 11, 3, 1.0
    kwargs = {"state_dim": state_dim, "action_dim": action_dim, "max_action": max_action, "discount": 0.99,
              "tau": 0.005, "policy_noise": 0.2 * max_action, "noise_clip": 0.5 * max_action, "policy_freq": 2}
    policy = TD3.TD3(**kwargs)
    policy.actor = torch.compile(policy.actor)
    policy.critic = torch.compile(policy.critic)
    replay_buffer = utils.ReplayBuffer(state_dim, action_dim)
    state = np.random.randn(state_dim)
    for t in range(64):
        action = (policy.select_action(np.array(state)) + np.random.normal(0, max_action * 0.1, size=action_dim)
                  ).clip(-max_action, max_action)
        next_state, reward, done = np.random.randn(state_dim), float(np.random.rand()), t % 20 == 19
        replay_buffer.add(state, action, next_state, reward, float(done))
        state = next_state
    for _ in range(4):
        policy.train(replay_buffer, 32)
    return policy.select_action(np.zeros(state_dim))


if __name__ == "__main__":
    main()

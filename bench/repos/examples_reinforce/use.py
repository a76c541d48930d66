"""pytorch/examples reinforcement_learning/reinforce.py: `python reinforce.py` (main() until the running reward
passes the threshold) with the per-step function compiled in the script's module
(`reinforce.select_action = torch.compile(reinforce.select_action)`; main() looks it up as a global); an environment of random observations instead of CartPole, episodes of 20 steps.
gymnasium is not installed: a stand-in whose make() returns that environment.  (Compiling finish_episode too
does not run under torch 2.13: `torch.tensor(returns)` on a deque raises InternalTorchDynamoError.)
"""
import os
import sys
import types

import numpy as np
import torch


# --- stand-ins: gymnasium is not installed (reinforce.py calls gym.make at import)
class _RandomCartPole:
    spec = types.SimpleNamespace(reward_threshold=12.0)

    def __init__(self):
        self.rng, self.t = np.random.default_rng(0), 0

    def reset(self, seed=None):
        self.t = 0
        return self.rng.standard_normal(4), {}

    def step(self, action):
        self.t += 1
        return self.rng.standard_normal(4), 1.0, self.t >= 20, False, {}


_gym = types.ModuleType("gymnasium")
_gym.make = lambda *args, **kwargs: _RandomCartPole()
sys.modules["gymnasium"] = _gym
# --- end of stand-ins

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reinforcement_learning"))
_argv, sys.argv = sys.argv, ["reinforce.py", "--log-interval", "1"]
try:
    import reinforce  # noqa: E402  (parses its arguments and makes its environment at import)
finally:
    sys.argv = _argv


def main():
    reinforce.select_action = torch.compile(reinforce.select_action)
    reinforce.main()
    return reinforce.policy.affine2.weight.detach()


if __name__ == "__main__":
    main()

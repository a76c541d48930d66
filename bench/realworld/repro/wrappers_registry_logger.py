"""A decorator's wrapper body, a registry-dispatched function, a logger from a factory.

runtime: 4 breaks: print in `wrapper` (line 25), print in `sdpa` (32), `logger.warning` (48),
`stdlogger.warning` (49).
static today: 1 (49, the logging.getLogger logger).
"""
import functools
import logging

import torch
from torch import nn


def get_logger(name):  # transformers.utils.logging.get_logger does this
    return logging.getLogger(name)


logger = get_logger(__name__)
stdlogger = logging.getLogger(__name__)


def capture(f):  # like transformers' @capture_outputs / @deprecate_kwarg
    @functools.wraps(f)
    def wrapper(self, *args, **kwargs):
        print("in wrapper")  # missed: wrapper bodies are not analysed
        return f(self, *args, **kwargs)

    return wrapper


def sdpa(x):
    print("sdpa")  # missed: called through FUNCS[...]
    return x


def eager(x):
    return x


FUNCS = {"sdpa": sdpa, "eager": eager}  # like ALL_ATTENTION_FUNCTIONS


class M(nn.Module):
    impl = "sdpa"

    @capture
    def forward(self, x):
        logger.warning("factory logger")  # missed: logger from a factory function
        stdlogger.warning("stdlib logger")  # found (FG102)
        fn = FUNCS[self.impl]
        return fn(x)


m = torch.compile(M(), backend="eager")
m(torch.ones(2))

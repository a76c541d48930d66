from .net import *  # noqa: F401,F403

import torch


def compiling() -> bool:
    return torch.compiler.is_compiling()


def eager_only() -> bool:
    return not compiling()

"""fullgraph: find, explain and fix torch.compile graph breaks from source, before anything runs."""

__version__ = "0.1.0"


def load_ipython_extension(ip) -> None:
    """`%load_ext fullgraph` in a Jupyter kernel: record the graph breaks its cells meet (kernel.py)."""
    from .kernel import load_ipython_extension as load

    load(ip)

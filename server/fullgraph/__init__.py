"""fullgraph: find, explain and fix torch.compile graph breaks from source, before anything runs."""

import time as _time

__version__ = "0.1.0"
# when this process imported fullgraph, before any module of the analysis: a source file changed after it may
# not be what runs here (cache.engine_key)
IMPORTED_AT = _time.time()


def load_ipython_extension(ip) -> None:
    """`%load_ext fullgraph` in a Jupyter kernel: record the graph breaks its cells meet (kernel.py)."""
    from .kernel import load_ipython_extension as load

    load(ip)

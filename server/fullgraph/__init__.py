"""fullgraph: find, explain and fix torch.compile graph breaks from source, before anything runs."""

__version__ = "0.1.0"

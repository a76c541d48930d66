__version__ = "20250625"

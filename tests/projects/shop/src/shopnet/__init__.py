"""A realistic multi-package project: a src/ layout, re-exports, relative imports, inheritance."""
from .models import Net

__all__ = ["Net"]

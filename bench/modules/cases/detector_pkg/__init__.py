"""Tiny detection post-processing package."""

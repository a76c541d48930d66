"""Helpers and input modules for the fix tests (tests/test_fixes_*.py)."""

"""Test and benchmark helpers that ship with the package (no test framework imported here)."""

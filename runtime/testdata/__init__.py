"""Test programs for the runtime, made at build time."""

"""Finding the runtime's shared libraries (``libpte_runtime.so``, ``libpte_npu_model.so``) from Python.

An environment variable names the library outright; otherwise it is looked up where Bazel puts it in
runfiles, beside ``arm/`` under the workspace root. One lookup for every ctypes binding here.
"""

from __future__ import annotations

import os
from pathlib import Path

# This file sits at <workspace or runfiles root>/arm/host_runtime/library.py.
_ROOT = Path(os.path.abspath(__file__)).parents[2]


def find_library(runfiles_path: str, env: str, how_to_get_it: str) -> Path:
    """``$env`` if set, else ``<root>/<runfiles_path>``; the error says ``how_to_get_it`` and names ``env``."""
    if override := os.environ.get(env):
        return Path(override)
    candidate = _ROOT / runfiles_path
    if candidate.exists():
        return candidate
    raise FileNotFoundError(f"cannot find {runfiles_path}: {how_to_get_it}, or build it and set {env} to its path")

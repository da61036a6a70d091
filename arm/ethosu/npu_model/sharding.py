"""Bazel test sharding for pytest parametrizations: shard i of n runs every n-th item."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence, TypeVar

T = TypeVar("T")


def this_shard(items: Sequence[T]) -> list[T]:
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    index = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    if status_file := os.environ.get("TEST_SHARD_STATUS_FILE"):
        Path(status_file).touch()  # tells Bazel the test honours sharding
    return list(items[index::total])

"""Which of the peer's test cases a replay runs: a fixed-seed sample, stratified by test file and target."""

from __future__ import annotations

import collections
import random
import re
from typing import Callable, Sequence, TypeVar

T = TypeVar("T")

# The peer names each test after its target (test_add_tensor_tosa_INT, test_add_u55_INT_not_delegated,
# test_add_tensor_vgf_quant); the first pattern that matches the test's function name decides.
_TARGET_PATTERNS = (
    ("u55_INT", re.compile(r"u55", re.IGNORECASE)),
    ("u85_INT", re.compile(r"u85", re.IGNORECASE)),
    ("u65_INT", re.compile(r"u65", re.IGNORECASE)),
    ("vgf", re.compile(r"vgf", re.IGNORECASE)),
    ("tosa_FP", re.compile(r"tosa_fp|_fp(_|$)", re.IGNORECASE)),
    ("tosa_INT", re.compile(r"tosa_int|_int(_|$)", re.IGNORECASE)),
)


def case_target(function_name: str) -> str | None:
    """The target a peer test is for, from its function name; None for a test named after no target."""
    for target, pattern in _TARGET_PATTERNS:
        if pattern.search(function_name):
            return target
    return None


def stratified_sample(items: Sequence[T], stratum: Callable[[T], tuple[str, str]], per_stratum: int | None,
                      seed: int) -> list[T]:  # fmt: skip
    """Up to ``per_stratum`` items of each stratum (all with None), drawn with a seed of their own per
    stratum so that adding a test file does not change the others' draw; original order kept."""
    groups: dict[tuple[str, str], list[T]] = collections.defaultdict(list)
    for item in items:
        groups[stratum(item)].append(item)
    chosen: set[int] = set()
    for key, members in groups.items():
        picked = members if per_stratum is None or len(members) <= per_stratum else (
            random.Random(f"{seed}/{key[0]}/{key[1]}").sample(members, per_stratum)
        )
        chosen.update(id(item) for item in picked)
    return [item for item in items if id(item) in chosen]

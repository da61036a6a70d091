"""What one of the peer's test pipelines asks for, in our terms: the target, the quantization, the checks.

A stand-in pipeline (stand_ins.py) records the peer's constructor arguments and the test's later edits
(popped stages, changed tolerances, quantizer settings); ``ReplayRequest`` is that record, frozen when the
test calls ``run()``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

# Our op-test target names (arm/ops/testing/harness.py) -> the flow's target names.
FLOW_TARGETS = {
    "tosa_FP": "tosa-FP",
    "tosa_INT": "tosa-INT",
    "u55_INT": "ethos-u55-128",
    "u85_INT": "ethos-u85-256",
}
# Targets a sample may ask for: the four replayed ones, and VGF, whose cases are counted as not replayed
# (its numbers need lavapipe, which Bazel sets up; see arm/vgf).
REPLAY_TARGETS = (*FLOW_TARGETS, "vgf")


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """The peer's output comparison: |ours - reference| <= atol + qtol * output_scale + rtol * |reference|.

    The reference is the quantized torch module on integer targets and the float module on float ones,
    as in the peer's ``run_method_and_compare_outputs``.
    """

    atol: float = 1e-3
    rtol: float = 1e-3
    qtol: int = 0
    inputs: Any = None  # the test's own comparison inputs; None means the pipeline's test data


@dataclasses.dataclass(frozen=True)
class QuantizerCall:
    """One call a test made on ``pipeline.quantizer`` (``set_global``, ``set_io``, ...), with the peer's config."""

    method: str
    args: tuple[Any, ...]


@dataclasses.dataclass(frozen=True)
class ReplayRequest:
    """One peer pipeline to replay.

    ``target`` is one of FLOW_TARGETS, or None when the pipeline is not replayed (``not_replayed`` says why).
    ``expect_cpu`` holds, for OpNotSupportedPipeline, the edge ops the peer expects on the CPU
    (``executorch_exir_dialects_edge__ops_aten_..`` -> count); ``None`` for pipelines that expect the
    module delegated. ``require_delegation`` is False when the test popped the peer's delegation checks.
    ``tolerance`` is None when the test compares no numbers (its comparison stage popped or never added).
    """

    pipeline: str
    target: str | None
    module: torch.nn.Module | None
    test_data: Any
    tosa_extensions: tuple[str, ...] = ()
    a16w8: bool = False
    per_channel: bool = True
    symmetric_io: bool = False
    quantizer_calls: tuple[QuantizerCall, ...] = ()
    expect_cpu: dict[str, int] | None = None
    n_expected_delegates: int = 1
    require_delegation: bool = True
    tolerance: Tolerance | None = None
    not_replayed: str = ""
    calibration: Any = None  # samples a test set on the peer's Quantize stage; None: the test data

"""How closely a delegated TOSA graph computes what the float and the quantized torch models compute.

The graph runs in the TOSA reference model on the calibration inputs, quantized and dequantized on
the grids the .pte's CPU side uses around the delegate, exactly as a device would run it.

The quantized torch model is evaluated twice: in float32, as torch runs it, and in float64
(bench.float64_reference). In float32 its convolutions and sums land on the other side of a rounding
tie now and then and deep graphs amplify each such step, so the float32 figure carries torch's rounding
as well as the lowering's; in float64 the reference is the quantized graph's exact arithmetic, and a
delegate that computes that graph exactly scores 0 steps. Errors against a quantized model are also
counted in whole steps of the .pte's output grid (both the delegate's output and the quantized model's
end on that grid's dequantize), which compares two sides whose grids differ in their last digits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from typing import Iterator

import numpy as np
import torch
import tosa_reference_model

from bench.float64_reference import inputs_in_float64, quantized_in_float64
from bench.pte_program import Quantization

_QDQ = torch.ops.quantized_decomposed


@dataclasses.dataclass(frozen=True)
class Agreement:
    """One comparison of the delegate's outputs with a reference, over all samples.

    ``cosine`` and ``max_abs_error`` are over all output elements; ``top1`` counts the samples whose
    arg-max over the last output dimension matches. Against a quantized reference, ``max_steps`` is the
    largest error in steps of the output grid (rounded: both sides are on that grid) and ``elements_off``
    how many output elements differ by at least one step; ``None`` against the float model, and in
    figures saved before these fields existed.
    """

    cosine: float
    max_abs_error: float
    top1: int
    samples: int
    max_steps: int | None = None
    elements_off: int | None = None


@dataclasses.dataclass(frozen=True)
class Agreements:
    vs_float: Agreement
    vs_quantized: Agreement  # the quantized model evaluated in float32
    quantized_vs_float: Agreement  # the torch quantized model itself: the quantizer's own error
    vs_quantized_float64: Agreement | None = None  # None in figures saved before the float64 measure


def measure_agreement(
    tosa: bytes,
    inputs: tuple[Quantization | None, ...],
    outputs: tuple[Quantization, ...],
    float_module: torch.nn.Module,
    quantized_module: torch.nn.Module,
    samples: list[tuple[torch.Tensor, ...]],
) -> Agreements:
    integers = torch.from_numpy(np.stack([_run_tosa(tosa, inputs, sample) for sample in samples]))
    grid = outputs[0]
    # The .pte's own float32 dequantize, and the same integers on the grid in float64, where the float64
    # reference's final dequantize puts its values.
    delegate = _QDQ.dequantize_per_tensor(integers, grid.scale, grid.zero_point, -128, 127, torch.int8).numpy()
    delegate64 = (integers.to(torch.float64) - grid.zero_point).numpy() * grid.scale
    exact = quantized_in_float64(quantized_module)
    with torch.no_grad():
        real = np.stack([_first_output(float_module(*sample)) for sample in samples])
        quantized = np.stack([_first_output(quantized_module(*sample)) for sample in samples])
        quantized64 = np.stack([_first_output(exact(*inputs_in_float64(sample)), np.float64) for sample in samples])
    return Agreements(
        vs_float=_compare(delegate, real),
        vs_quantized=_compare(delegate, quantized, grid.scale),
        quantized_vs_float=_compare(quantized, real),
        vs_quantized_float64=_compare(delegate64, quantized64, grid.scale),
    )


def _run_tosa(tosa: bytes, inputs: tuple[Quantization | None, ...], sample: tuple[torch.Tensor, ...]) -> np.ndarray:
    """The delegate's first output, as the integers it computes."""
    # The same quantize/dequantize kernels the .pte's CPU side runs around the delegate.
    tosa_inputs = [_delegate_input(tensor, grid) for tensor, grid in zip(sample, inputs, strict=True)]
    with _native_stdout_silenced():
        results, status = tosa_reference_model.run(tosa, tosa_inputs)
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise RuntimeError(f"the TOSA reference model rejected the graph: {status}")
    return np.asarray(results[0])


def _delegate_input(tensor: torch.Tensor, grid: Quantization | None) -> np.ndarray:
    if grid is None:
        # Integer ids go in as they are; TOSA 1.0's INT profile carries them as int32 (no int64).
        return tensor.to(torch.int32).numpy()
    return _QDQ.quantize_per_tensor(tensor, grid.scale, grid.zero_point, -128, 127, torch.int8).numpy()


@contextlib.contextmanager
def _native_stdout_silenced() -> Iterator[None]:
    # The reference model's C++ side prints a TOSA version notice per run straight to file descriptor 1.
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _first_output(value: torch.Tensor | tuple[torch.Tensor, ...], dtype: type = np.float32) -> np.ndarray:
    tensor = value if isinstance(value, torch.Tensor) else value[0]
    return tensor.detach().numpy().astype(dtype)


def _compare(actual: np.ndarray, expected: np.ndarray, step: float | None = None) -> Agreement:
    """``step``: the output grid's scale, where ``expected`` is a quantized model's output on that grid."""
    a, e = actual.reshape(-1).astype(np.float64), expected.reshape(-1).astype(np.float64)
    cosine = float(a @ e / (np.linalg.norm(a) * np.linalg.norm(e) or 1.0))
    same_class = actual.argmax(axis=-1) == expected.argmax(axis=-1)
    top1 = int(same_class.reshape(len(actual), -1).all(axis=1).sum())
    errors = np.abs(a - e)
    steps = None if step is None else np.rint(errors / step).astype(np.int64)
    return Agreement(
        cosine=cosine,
        max_abs_error=float(errors.max()),
        top1=top1,
        samples=len(actual),
        max_steps=None if steps is None else int(steps.max()),
        elements_off=None if steps is None else int(np.count_nonzero(steps)),
    )

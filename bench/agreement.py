"""How closely a delegated TOSA graph computes what the float and the quantized torch models compute.

The graph runs in the TOSA reference model on the calibration inputs, quantized and dequantized on
the grids the .pte's CPU side uses around the delegate, exactly as a device would run it.
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

from bench.pte_program import Quantization

_QDQ = torch.ops.quantized_decomposed


@dataclasses.dataclass(frozen=True)
class Agreement:
    """One comparison of the delegate's outputs with a reference, over all samples.

    ``cosine`` and ``max_abs_error`` are over all output elements; ``top1`` counts the samples whose
    arg-max over the last output dimension matches.
    """

    cosine: float
    max_abs_error: float
    top1: int
    samples: int


@dataclasses.dataclass(frozen=True)
class Agreements:
    vs_float: Agreement
    vs_quantized: Agreement
    quantized_vs_float: Agreement  # the torch quantized model itself: the quantizer's own error


def measure_agreement(
    tosa: bytes,
    inputs: tuple[Quantization | None, ...],
    outputs: tuple[Quantization, ...],
    float_module: torch.nn.Module,
    quantized_module: torch.nn.Module,
    samples: list[tuple[torch.Tensor, ...]],
) -> Agreements:
    delegate = np.stack([_run_tosa(tosa, inputs, outputs, sample) for sample in samples])
    with torch.no_grad():
        real = np.stack([_first_output(float_module(*sample)) for sample in samples])
        quantized = np.stack([_first_output(quantized_module(*sample)) for sample in samples])
    return Agreements(
        vs_float=_compare(delegate, real),
        vs_quantized=_compare(delegate, quantized),
        quantized_vs_float=_compare(quantized, real),
    )


def _run_tosa(
    tosa: bytes,
    inputs: tuple[Quantization | None, ...],
    outputs: tuple[Quantization, ...],
    sample: tuple[torch.Tensor, ...],
) -> np.ndarray:
    # The same quantize/dequantize kernels the .pte's CPU side runs around the delegate.
    tosa_inputs = [_delegate_input(tensor, grid) for tensor, grid in zip(sample, inputs, strict=True)]
    with _native_stdout_silenced():
        results, status = tosa_reference_model.run(tosa, tosa_inputs)
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise RuntimeError(f"the TOSA reference model rejected the graph: {status}")
    first, grid = torch.from_numpy(np.asarray(results[0])), outputs[0]
    return _QDQ.dequantize_per_tensor(first, grid.scale, grid.zero_point, -128, 127, torch.int8).numpy()


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


def _first_output(value: torch.Tensor | tuple[torch.Tensor, ...]) -> np.ndarray:
    tensor = value if isinstance(value, torch.Tensor) else value[0]
    return tensor.detach().numpy().astype(np.float32)


def _compare(actual: np.ndarray, expected: np.ndarray) -> Agreement:
    a, e = actual.reshape(-1).astype(np.float64), expected.reshape(-1).astype(np.float64)
    cosine = float(a @ e / (np.linalg.norm(a) * np.linalg.norm(e) or 1.0))
    same_class = actual.argmax(axis=-1) == expected.argmax(axis=-1)
    top1 = int(same_class.reshape(len(actual), -1).all(axis=1).sum())
    return Agreement(cosine=cosine, max_abs_error=float(np.abs(a - e).max()), top1=top1, samples=len(actual))

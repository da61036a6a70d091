"""int8 program inputs and outputs: the caller quantizes and dequantizes, not the device's CPU.

A quantized program normally takes float inputs and returns float outputs: its first CPU op quantizes
each input onto the delegate's int8 grid and its last one dequantizes each result. On a Cortex-M that
float work costs more than the NPU's share for an image model (150,528 input elements for MobileNetV2).
A camera or microphone pipeline that already holds int8 data can skip it: with int8 I/O the program
takes and returns the int8 tensors themselves, and the .pte records each one's scale and zero point
(ExecuTorch's config methods, e.g. ``forward_input0_scale``), so the caller knows the grid.

Only boundaries the quantizer put on a grid change: an input whose one use is a quantize, an output a
dequantize produces. Anything else (an int64 token id, a float output of a CPU op) stays as it is, and
``IoQuantization.reason`` says why.
"""

from __future__ import annotations

import dataclasses

import torch
from executorch.exir import EdgeProgramManager
from executorch.exir.passes.quantize_io_pass import QuantizeInputs, QuantizeOutputs
from torch.export import ExportedProgram
from torch.fx import Node

from arm.tosa.quantization import is_dequantize, is_quantize


@dataclasses.dataclass(frozen=True)
class IoQuantization:
    """One program input or output: its int8 grid, or why it stays as it was."""

    side: str  # "input" or "output"
    index: int
    scale: float | None = None
    zero_point: int | None = None
    dtype: torch.dtype | None = None
    reason: str | None = None  # set when the boundary keeps its original dtype

    @property
    def is_quantized(self) -> bool:
        return self.reason is None

    def describe(self) -> str:
        if not self.is_quantized:
            return f"{self.side} {self.index}: unchanged ({self.reason})"
        dtype = str(self.dtype).removeprefix("torch.")
        return f"{self.side} {self.index}: {dtype}, scale {self.scale!r}, zero point {self.zero_point}"


def _input_boundary(program: ExportedProgram, index: int, name: str) -> IoQuantization:
    placeholder = next(node for node in program.graph.nodes if node.op == "placeholder" and node.name == name)
    users = list(placeholder.users)
    if len(users) != 1 or not is_quantize(users[0]) or "per_tensor" not in str(users[0].target):
        return IoQuantization("input", index, reason="not consumed by one per-tensor quantize")
    _, scale, zero_point, _, _, dtype = users[0].args[:6]
    return IoQuantization("input", index, float(scale), int(zero_point), dtype)


def _output_boundary(index: int, producer: object) -> IoQuantization:
    if not (isinstance(producer, Node) and is_dequantize(producer) and "per_tensor" in str(producer.target)):
        return IoQuantization("output", index, reason="not produced by a per-tensor dequantize")
    _, scale, zero_point, _, _, dtype = producer.args[:6]
    return IoQuantization("output", index, float(scale), int(zero_point), dtype)


def io_boundaries(program: ExportedProgram) -> tuple[IoQuantization, ...]:
    """Each user input and output of ``program``, with its grid where int8 I/O can take it."""
    inputs = [_input_boundary(program, i, name) for i, name in enumerate(program.graph_signature.user_inputs)]
    results = program.graph.output_node().args[0]
    outputs = [_output_boundary(i, producer) for i, producer in enumerate(results)]
    return tuple(inputs + outputs)


def apply_int8_io(edge: EdgeProgramManager) -> tuple[IoQuantization, ...]:
    """Makes ``edge``'s forward method take and return int8 where it can; returns every boundary."""
    boundaries = io_boundaries(edge.exported_program())
    inputs = [b.index for b in boundaries if b.side == "input" and b.is_quantized]
    outputs = [b.index for b in boundaries if b.side == "output" and b.is_quantized]
    if inputs or outputs:
        # executorch's own passes: they drop the boundary q/dq and record each grid as config methods.
        edge.transform([QuantizeInputs(edge, inputs, "forward"), QuantizeOutputs(edge, outputs, "forward")])
    return boundaries

"""Support checks shared by the op modules; each returns None or a reason that names the node."""

from __future__ import annotations

from typing import Iterable

import torch
from torch.fx import Node

from arm.ops.common import registry
# Every support rule writes its reason with these; op files take them from here with the rules.
from arm.ops.common.node_info import describe, dtype_of, tensor_args  # noqa: F401
from arm.tosa.quantization import is_dequantize, is_quantize, output_quantize
from arm.tosa.specification import TosaSpecification


# TOSA 1.0 level 8K caps tensor rank at 6 (Vela takes rank 6 for elementwise and data movement too).
MAX_RANK = 6


def profile_reason(node: Node, spec: TosaSpecification, inputs: Iterable[Node] | None = None) -> str | None:
    """The profile rule every op shares: float32 tensors for FP, quantized int8 in and out for INT.

    ``inputs`` defaults to all tensor arguments. In the INT profile an input must come through a
    dequantize (a quantized activation or weight), from an activation-fusing producer, or be a
    placeholder (constants that to_edge lifted, e.g. scalars, are quantized by the lowering).
    """
    inputs = tensor_args(node) if inputs is None else list(inputs)
    if spec.is_fp:
        for tensor in [*inputs, node]:
            if dtype_of(tensor) != torch.float32:
                return f"{describe(node)}: {tensor.name} is {dtype_of(tensor)}; {spec} lowers float32 only"
        return None
    for tensor in inputs:
        if not (is_dequantize(tensor) or tensor.op == "placeholder" or _fuses_into(tensor, node)):
            return (
                f"{describe(node)}: input {tensor.name} is not quantized; {spec} needs int8 inputs "
                "(quantize the model with the Arm quantizer, or use the FP profile)"
            )
    output = output_quantize(node, registry.is_fused_activation)
    if output is None:
        return (
            f"{describe(node)}: output is not quantized; {spec} needs an int8 output "
            "(quantize the model with the Arm quantizer, or use the FP profile)"
        )
    int16 = [tensor.name for tensor in [*inputs, output] if _quantized_dtype(tensor) == torch.int16]
    if int16 and not spec.has("int16"):
        return (
            f"{describe(node)}: {', '.join(int16)} is int16 (a16w8), which {spec} lacks; "
            "target a spec with the int16 extension (every Ethos-U has it) or quantize to int8"
        )
    return None


def _quantized_dtype(node: Node) -> torch.dtype | None:
    """The integer type of a quantize/dequantize node (its dtype argument); None for other nodes."""
    if not (is_dequantize(node) or is_quantize(node)):
        return None
    return next((arg for arg in node.args if isinstance(arg, torch.dtype)), None)


def rank_reason(node: Node, shape: tuple[int, ...]) -> str | None:
    if len(shape) > MAX_RANK:
        return f"{describe(node)}: rank {len(shape)} exceeds TOSA's maximum rank {MAX_RANK}"
    return None


def first_reason(*reasons: str | None) -> str | None:
    return next((reason for reason in reasons if reason is not None), None)


def _fuses_into(producer: Node, activation: Node) -> bool:
    return (
        registry.is_fused_activation(activation)
        and producer.op == "call_function"
        and list(producer.users) == [activation]
        and (registry.for_edge_node(producer) or registry.for_aten_node(producer)) is not None
    )

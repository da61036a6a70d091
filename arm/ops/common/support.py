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

# The float types of the TOSA 1.0 FP profile: fp32 and fp16 are the profile's own; bf16 comes with the
# EXT-BF16 extension. The FP8 extensions (EXT-FP8E4M3/E5M2) define only CONV, MATMUL, CAST and data
# movement, and the TOSA reference model we check against (tosa-tools 2026.8) runs none of their
# arithmetic, so float8 tensors stay on the CPU whatever the specification names (arm/ops/to_copy.py
# lowers the casts to and from them, which it runs), except where an op only moves them: the reference
# model moves float8 (RESHAPE, TRANSPOSE, SLICE, CONCAT, TILE, PAD and GATHER on FP8E4M3, checked).
_PROFILE_FLOAT_TYPES = (torch.float32, torch.float16)
_EXTENSION_FLOAT_TYPES = {"bf16": torch.bfloat16}
_FLOAT8_EXTENSIONS = {torch.float8_e4m3fn: "fp8e4m3", torch.float8_e5m2: "fp8e5m2"}


def float_types(spec: TosaSpecification) -> tuple[torch.dtype, ...]:
    """The float tensor types ``spec`` lowers: every op lowers its float tensors in their own type."""
    extra = tuple(dtype for extension, dtype in _EXTENSION_FLOAT_TYPES.items() if spec.has(extension))
    return (*_PROFILE_FLOAT_TYPES, *extra)


def float_type_reason(node: Node, spec: TosaSpecification, tensors: Iterable[Node]) -> str | None:
    """None when every tensor of ``tensors`` has one float type that ``spec`` lowers; otherwise why not.

    Mixed float types (a float16 input of a float32 op) stay on the CPU: TOSA operators take operands of
    one type, and the casts between them are their own nodes (aten._to_copy).
    """
    types = float_types(spec)
    dtypes = []
    for tensor in tensors:
        dtype = dtype_of(tensor)
        if dtype not in types:
            return f"{describe(node)}: {tensor.name} is {dtype}; {spec} lowers {_names(types)}{_extension_hint(dtype)}"
        dtypes.append(dtype)
    if len(set(dtypes)) > 1:
        return f"{describe(node)}: its tensors mix {_names(dict.fromkeys(dtypes))}; cast them to one float type first"
    return None


def _names(dtypes: Iterable[torch.dtype]) -> str:
    return "/".join(str(dtype).removeprefix("torch.") for dtype in dtypes)


def _extension_hint(dtype: torch.dtype | None) -> str:
    extension = next((name for name, typ in _EXTENSION_FLOAT_TYPES.items() if typ == dtype), None)
    if extension is not None:
        return f" (add the {extension} extension to the TOSA specification, e.g. TOSA-1.0+FP+{extension})"
    if dtype is not None and dtype.is_floating_point:
        return " (no TOSA reference model runs its arithmetic; cast to float16 or float32)"
    return ""


def profile_reason(node: Node, spec: TosaSpecification, inputs: Iterable[Node] | None = None) -> str | None:
    """The profile rule every op shares: float tensors of one type for FP (float32, float16, and bfloat16
    with the bf16 extension: ``float_types``), quantized int8 in and out for INT.

    ``inputs`` defaults to all tensor arguments. In the INT profile an input must come through a
    dequantize (a quantized activation or weight), from an activation-fusing producer, or be a
    placeholder (constants that to_edge lifted, e.g. scalars, are quantized by the lowering).
    """
    inputs = tensor_args(node) if inputs is None else list(inputs)
    if spec.is_fp:
        return float_type_reason(node, spec, [*inputs, node])
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


def movement_reason(node: Node, spec: TosaSpecification, inputs: Iterable[Node] | None = None) -> str | None:
    """``profile_reason`` for ops that only move elements (TILE, SLICE, CONCAT, TRANSPOSE, RESHAPE, PAD,
    GATHER): in the FP profile bool tensors move too, as TOSA 1.0 moves bool in every profile (a mask
    expanded or sliced before a ``where``), and so do float8 ones with their extension. The INT profile
    keeps its rule: its lowerings requantize what they move.
    """
    inputs = tensor_args(node) if inputs is None else list(inputs)
    if spec.is_fp and all(dtype_of(tensor) == torch.bool for tensor in [*inputs, node]):
        return None
    if spec.is_fp and float8_moved(spec, [*inputs, node]):
        return None
    return profile_reason(node, spec, inputs)


def float8_moved(spec: TosaSpecification, tensors: Iterable[Node]) -> bool:
    """True when every tensor is of one float8 type whose extension ``spec`` names: data movement
    (and only that) takes float8 on the FP profile."""
    dtypes = {dtype_of(tensor) for tensor in tensors}
    if len(dtypes) != 1:
        return False
    extension = _FLOAT8_EXTENSIONS.get(next(iter(dtypes)))
    return extension is not None and spec.has(extension)


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

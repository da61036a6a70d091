"""Tensor.to(dtype) (aten._to_copy; to_edge makes it dim_order_ops._to_dim_order_copy) -> TOSA CAST.

The pairs TOSA 1.0 defines are in arm/tosa/cast.py: casts touching a float type on the FP profile
(float16 <-> float32, integer <-> float; bfloat16 with the bf16 extension), integer and bool casts on
the INT profile. PyTorch truncates a float toward zero where CAST rounds to nearest, so a float to
integer cast first takes FLOOR or CEIL by the sign. A copy that keeps the type (a dim-order-only copy)
is the identity, on the input's grid when quantized; one that changes the dim order stays on the CPU
(the delegate writes contiguous tensors). Float casts of quantized tensors are not lowered.
"""

from __future__ import annotations

import numpy as np
import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common import registry
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.unary import fixed_int8_output
from arm.ops.common.support import describe, dtype_of, first_reason, float_type_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate, shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.cast import cast, cast_extensions
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import numpy_dtype, output_quantize
from arm.tosa.rescale import requantize, rescale
from arm.tosa.specification import TosaSpecification


def _dim_order_reason(node: Node) -> str | None:
    dim_order = node.kwargs.get("dim_order")
    memory_format = node.kwargs.get("memory_format")
    contiguous = list(range(len(shape_of(node))))
    if dim_order is not None and list(dim_order) != contiguous:
        return f"{describe(node)}: changes the dim order to {list(dim_order)}; the delegate writes contiguous tensors"
    if memory_format not in (None, torch.contiguous_format, torch.preserve_format):
        return f"{describe(node)}: changes the memory format to {memory_format}; the delegate writes contiguous tensors"
    return None


def _cast_reason(node: Node, spec: TosaSpecification) -> str | None:
    source, target = dtype_of(node.args[0]), dtype_of(node)
    if source == target:
        if source is not None and source.is_floating_point:
            return profile_reason(node, spec, [node.args[0]])
        return None
    if spec.is_int and source is not None and source.is_floating_point:
        return f"{describe(node)}: casts {source} to {target}; float casts of quantized tensors are not lowered"
    if spec.is_int and _integer_to_float(node):
        if output_quantize(node, registry.is_fused_activation) is None:
            return (
                f"{describe(node)}: casts {source} to {target}, which nothing quantizes; {spec} runs it only "
                "when the float result is quantized (quantize the model with the Arm quantizer)"
            )
        return None
    try:
        defined, extensions = cast_extensions(numpy_dtype(source), numpy_dtype(target), fp=spec.is_fp)
    except (TypeError, RuntimeError):  # a type numpy cannot hold (complex, float64 here): no TOSA type
        defined, extensions = False, ()
    if not defined:
        other = "INT" if spec.is_fp else "FP"
        return (
            f"{describe(node)}: {spec} has no CAST from {source} to {target} (TOSA 1.0 defines integer and bool "
            f"casts in the INT profile, float ones in the FP profile, none for int64/float64/float8 here; "
            f"the {other} profile may have it)"
        )
    missing = [extension for extension in extensions if not spec.has(extension)]
    if missing:
        return f"{describe(node)}: casting {source} to {target} needs the {'+'.join(missing)} extension; {spec} lacks it"
    if _narrows(source, target) and (spec.has("u55") or spec.has("u85")):
        return (
            f"{describe(node)}: narrows {source} to {target}; Vela 5.2.0 saturates where TOSA CAST and PyTorch "
            "keep the low bits (checked on the NPU model)"
        )
    # float8 sides are allowed by the extension checked above (CAST is all float8 is lowered for).
    floats = [tensor for tensor in (node.args[0], node) if dtype_of(tensor).is_floating_point and dtype_of(tensor).itemsize > 1]
    # Each side on its own: mixing two float types is what a cast is for.
    return first_reason(*(float_type_reason(node, spec, [tensor]) for tensor in floats))


def _narrows(source: torch.dtype, target: torch.dtype) -> bool:
    integers = not source.is_floating_point and not target.is_floating_point and torch.bool not in (source, target)
    return integers and torch.iinfo(target).bits < torch.iinfo(source).bits


def support(node: Node, spec: TosaSpecification) -> str | None:
    return first_reason(_dim_order_reason(node), _cast_reason(node, spec), rank_reason(node, shape_of(node)))


def _integer_to_float(node: Node) -> bool:
    source, target = dtype_of(node.args[0]), dtype_of(node)
    integer = source is not None and not source.is_floating_point and source != torch.bool
    return integer and target is not None and target.is_floating_point


# int8 and uint8 integers are exact codes of an int8 grid of step 1: -128..127 themselves, 0..255 moved by
# -128. Observed instead, a calibration set that misses an extreme (-124..125) gave a step of 0.976, on
# which the integers sat up to half a step off, and a floor behind the cast (int8 // 9.5) then moved
# across a multiple.
_EXACT_INT8_GRIDS = {torch.int8: fixed_int8_output(1.0, 0), torch.uint8: fixed_int8_output(1.0, -128)}


def annotate_to_copy(node: Node, config: QuantizationConfig) -> None:
    """A copy that keeps a float type moves the quantized value as it is; an integer tensor cast to float
    is quantized at its output (one RESCALE of the integers onto that grid: exact for 8-bit integers on an
    int8 config); other casts are not."""
    source, target = dtype_of(node.args[0]), dtype_of(node)
    if source == target and source is not None and source.is_floating_point:
        shared_with_input(node, node.args[0], config.activation)
    elif _integer_to_float(node):
        exact = _EXACT_INT8_GRIDS.get(source) if config.activation.dtype == torch.int8 else None
        annotate(node, {}, exact or config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    target = numpy_dtype(dtype_of(node))
    if value.dtype == target:
        if value.qparams is not None:
            return requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
        return value
    if ctx.spec.is_int and value.qparams is None and _integer_to_float(node):
        # The integers are reals already: the quantized result is round(x / scale) + zero point.
        grid = ctx.output_qparams(node)
        return rescale(ctx.graph, value, name=node.name, scales=[1.0 / grid.scale], output_dtype=grid.dtype,
                       input_zp=0, output_zp=grid.zero_point, output_qparams=grid)  # fmt: skip
    if np.issubdtype(target, np.integer) and dtype_of(node.args[0]).is_floating_point:
        value = _truncated(ctx, value, name=f"{node.name}_truncated")
    return cast(ctx.graph, value, target, name=node.name)


def _truncated(ctx: LoweringContext, value: TosaValue, *, name: str) -> TosaValue:
    """Rounds toward zero (PyTorch's float to integer conversion): CEIL below zero, FLOOR above."""
    math = FloatMath(ctx, name, value.rank, value.dtype)
    return math.select(math.greater(0.0, value), math.ceil(value), math.floor(value))


def _cast_to(dtype: torch.dtype) -> FunctionModule:
    def cast_to(x: torch.Tensor) -> torch.Tensor:
        return x.to(dtype)

    cast_to.__name__ = f"to_{str(dtype).removeprefix('torch.')}"
    return FunctionModule(cast_to)


def _add_in(dtype: torch.dtype) -> FunctionModule:
    """A cast between two delegated adds: the cast runs inside the partition."""

    def add_cast_add(x: torch.Tensor) -> torch.Tensor:
        return (x + x).to(dtype) + 1

    return FunctionModule(add_cast_add)


def integers_plus_reals(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x.to(torch.float32) + y


def to_channels_last(x: torch.Tensor) -> torch.Tensor:
    return x.to(memory_format=torch.channels_last)


def _integers(seed: int, shape: tuple[int, ...], dtype: torch.dtype, low: int, high: int) -> tuple[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randint(low, high, shape, generator=generator).to(dtype),)


_FLOAT_ONLY = ("tosa_INT", "u55_INT", "u85_INT", "vgf_INT")
_INT_ONLY = ("tosa_FP", "vgf_FP")
_FLOAT_CHECKS = ("tosa_FP", "vgf_FP", "tosa_INT", "vgf_INT")

TEST_CASES = {
    # float32 -> float16 -> add in float16: the INT targets quantize the adds and keep the cast outside.
    "float32_to_float16": OpTestCase(_add_in(torch.float16), random_inputs(0, (2, 3, 4)), targets=("tosa_FP", "vgf_FP")),
    "float16_to_float32": OpTestCase(_cast_to(torch.float32), tuple(t.half() for t in random_inputs(1, (2, 8))),
                                     targets=("tosa_FP", "vgf_FP")),  # fmt: skip
    # Values with fractions of both signs, so rounding to nearest and truncation differ.
    # Float casts: the INT rejection is one rule, checked on one INT target (CI time).
    "float32_to_int32_truncates": OpTestCase(
        _cast_to(torch.int32), (torch.tensor([[-2.5, -1.7, -0.4, 0.4, 1.5, 2.7, 3.5, -3.5]]),),
        targets=_FLOAT_CHECKS, cpu_targets=_FLOAT_ONLY,
    ),
    "int8_to_float32": OpTestCase(_cast_to(torch.float32), _integers(2, (2, 6), torch.int8, -128, 128),
                                  targets=_FLOAT_CHECKS, cpu_targets=_FLOAT_ONLY),  # fmt: skip
    # An integer tensor cast to float and added to a float one: FP casts; INT quantizes the cast's result,
    # one RESCALE of the integers onto the add's input grid.
    "int8_to_float32_quantized": OpTestCase(
        FunctionModule(integers_plus_reals),
        (*_integers(7, (2, 6), torch.int8, -20, 20), *random_inputs(8, (2, 6))),
        targets=("tosa_FP", "tosa_INT", "u55_INT", "u85_INT"),
    ),
    # Integer casts are the INT profile's: the FP targets keep them on the CPU.
    "int8_to_int32": OpTestCase(_cast_to(torch.int32), _integers(3, (2, 6), torch.int8, -128, 128), cpu_targets=_INT_ONLY),
    # Out-of-range values wrap in PyTorch and TOSA; Vela saturates them, so the Ethos-U targets keep it.
    "int32_to_int8_wraps": OpTestCase(_cast_to(torch.int8), _integers(4, (12,), torch.int32, -400, 400),
                                      targets=("tosa_FP", "tosa_INT", "u85_INT", "vgf_FP", "vgf_INT"),
                                      cpu_targets=(*_INT_ONLY, "u85_INT")),  # fmt: skip
    "float32_to_bfloat16": OpTestCase(
        _cast_to(torch.bfloat16), random_inputs(5, (2, 5)), targets=("tosa_FP", "vgf_FP"), cpu_targets=("vgf_FP",),
        tosa_extensions=("bf16",),
    ),
    # float8 with its extension (TOSA 1.0 EXT-FP8E4M3): CAST only; values inside its range.
    "float32_to_float8": OpTestCase(
        _cast_to(torch.float8_e4m3fn), (torch.tensor([[0.3, -1.26, 3.1, 100.0, -0.01, 448.0]]),),
        targets=("tosa_FP",), tosa_extensions=("fp8e4m3",),
    ),
    "channels_last_stays": OpTestCase(FunctionModule(to_channels_last), random_inputs(6, (1, 3, 2, 2)),
                                      targets=("tosa_FP",), cpu_targets=("tosa_FP",)),  # fmt: skip
}

OP = ArmOp(
    name="to_copy",
    edge_targets=(exir_ops.edge.dim_order_ops._to_dim_order_copy.default, exir_ops.edge.aten._to_copy.default),
    aten_targets=(torch.ops.aten._to_copy.default,),
    support=support,
    annotate=annotate_to_copy,
    lower=lower,
    test_cases=TEST_CASES,
)

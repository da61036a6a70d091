"""aten.var.correction (Tensor.var, torch.var; to_edge turns var.dim into it) -> sum((x - mean)^2) / (N - correction).

INT: split before annotation into mean, sub, mul (the square), mean and, for a correction, a mul by
N / (N - correction), each quantized and lowered by its own op file (so a16w8 and the U55 come with
them). FP: lowered whole, as REDUCE_SUMs and a MUL by 1/N for the mean, SUB, MUL, REDUCE_SUMs and a MUL
by 1 / (N - correction), in the input's own float type.
"""

from __future__ import annotations

import dataclasses
import math

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.aten_rewrite import AtenBuilder, shape
from arm.ops.common.axis_reduction import reduce
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import EVERY_TARGET, FunctionModule, OpTestCase, half_precision_cases, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.specification import TosaSpecification

aten = torch.ops.aten


@dataclasses.dataclass(frozen=True)
class VarCall:
    x: Node
    dims: tuple[int, ...]  # normalized, sorted
    correction: float
    keepdim: bool

    @property
    def count(self) -> int:
        """N: how many elements each variance is taken over."""
        return math.prod(shape(self.x)[dim] for dim in self.dims)


def var_call(node: Node) -> VarCall:
    """The arguments of var.correction (``dim``, ``correction=``, ``keepdim=``) or, before to_edge turns it into
    that, of var.dim (``dim``, ``unbiased``, ``keepdim``)."""
    x = node.args[0]
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    if node.target == aten.var.dim:
        unbiased = node.args[2] if len(node.args) > 2 else node.kwargs.get("unbiased", True)
        correction = 1.0 if unbiased else 0.0
        keepdim = node.args[3] if len(node.args) > 3 else node.kwargs.get("keepdim", False)
    else:
        given = node.kwargs.get("correction")
        correction = 1.0 if given is None else float(given)
        keepdim = node.kwargs.get("keepdim", False)
    rank = len(shape(x))
    if dims is None or (isinstance(dims, (list, tuple)) and not dims):
        normalized = tuple(range(rank))
    else:
        normalized = tuple(sorted({dim % rank for dim in ([dims] if isinstance(dims, int) else dims)}))
    return VarCall(x, normalized, correction, bool(keepdim))


def support(node: Node, spec: TosaSpecification) -> str | None:
    call = var_call(node)
    return first_reason(
        f"{describe(node)}: {spec} lowers var after EthosUQuantizer has split it into mean, sub and mul; "
        "quantize the model with the Arm quantizer"
        if spec.is_int
        else None,
        None if shape(call.x) else f"{describe(node)}: the variance of a 0-d tensor is not lowered",
        None
        if call.count > call.correction
        else f"{describe(node)}: correction {call.correction} leaves no degrees of freedom over {call.count} "
        "elements (PyTorch gives inf/NaN)",
        profile_reason(node, spec, [call.x]),
        rank_reason(node, shape(call.x)),
    )


def decompose(node: Node) -> None:
    call = var_call(node)
    if not shape(call.x) or call.count <= call.correction:
        return  # the support rule keeps it on the CPU, with its reason
    build = AtenBuilder(node)
    mean = build.call(aten.mean.dim, call.x, list(call.dims), True)
    centered = build.call(aten.sub.Tensor, call.x, mean)
    square = build.call(aten.mul.Tensor, centered, centered)
    if call.correction != 0:
        # Scaled before the mean, not after: mean writes onto its input's grid, and a MUL after it would
        # magnify that grid's rounding onto its own finer output grid (7 output steps in a test).
        square = build.call(aten.mul.Tensor, square, call.count / (call.count - call.correction))
    node.replace_all_uses_with(build.call(aten.mean.dim, square, list(call.dims), call.keepdim))


def annotate_var(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the node was split before annotation."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    """FP only."""
    call = var_call(node)
    x = ctx.value(call.x)
    math_ = FloatMath(ctx, node.name, x.rank, x.dtype)
    mean = math_.mul(_sum(ctx, x, call.dims, name=f"{node.name}_sum"), 1.0 / call.count)
    centered = math_.sub(x, mean)
    squares = _sum(ctx, math_.mul(centered, centered), call.dims, name=f"{node.name}_squares")
    result = math_.mul(squares, 1.0 / (call.count - call.correction))
    output_shape = shape(node)
    return result if result.shape == output_shape else reshape(ctx.graph, result, output_shape, name=node.name)


def _sum(ctx: LoweringContext, value: TosaValue, dims: tuple[int, ...], *, name: str) -> TosaValue:
    for dim in dims:
        value = reduce(ctx.graph, ts.Op.REDUCE_SUM, value, dim, name=f"{name}{dim}")
    return value


def everything_keepdim(x: torch.Tensor) -> torch.Tensor:
    return x.var(keepdim=True, correction=0)


def everything(x: torch.Tensor) -> torch.Tensor:
    return x.var()


def channels_unbiased(x: torch.Tensor) -> torch.Tensor:
    return x.var(dim=1)


def last_two_half_correction(x: torch.Tensor) -> torch.Tensor:
    return x.var(dim=(-1, -2), keepdim=True, correction=0.5)


def last_dim_all_correction(x: torch.Tensor) -> torch.Tensor:
    return x.var(dim=-1, correction=4)


_EVERYTHING = OpTestCase(FunctionModule(everything_keepdim), random_inputs(0, (1, 4, 3, 5)))

TEST_CASES = {
    "everything_keepdim": _EVERYTHING,
    # The default correction over one axis: the INT split is the same on every INT target, so the
    # float and the two integer reference paths (TOSA, U85's NPU model) suffice (CI time).
    "channels_unbiased": OpTestCase(
        FunctionModule(channels_unbiased), random_inputs(1, (2, 6, 4)), targets=("tosa_FP", "tosa_INT", "u85_INT")
    ),
    # Cases whose difference from the ones above is the support rule or the correction's MUL, which
    # every INT target lowers the same way: the TOSA targets only, to keep CI cheap.
    "last_two_half_correction": OpTestCase(
        FunctionModule(last_two_half_correction), random_inputs(2, (1, 3, 4, 6)), targets=("tosa_FP", "tosa_INT")
    ),
    # A 0-d result: the INT split's last mean reduces every dim without keepdim (a RESHAPE to []).
    "everything_scalar": OpTestCase(
        FunctionModule(everything), random_inputs(5, (2, 3, 4)), targets=("tosa_FP", "tosa_INT", "u55_INT", "u85_INT")
    ),
    # correction = N: no degrees of freedom left, PyTorch divides by zero; stays on the CPU everywhere.
    "no_degrees_of_freedom": OpTestCase(
        FunctionModule(last_dim_all_correction), random_inputs(3, (3, 4)), targets=("tosa_FP", "tosa_INT"),
        cpu_targets=EVERY_TARGET,
    ),
    # int16 activations run on the Ethos-U targets only (TOSA-1.0+INT has no int16); the U85 checks the
    # split the U55 runs too. Split before annotation, no var node is left there to name in a reason,
    # so the case runs where it delegates.
    "a16w8": OpTestCase(
        FunctionModule(channels_unbiased),
        random_inputs(4, (1, 8, 6)),
        targets=("u85_INT",),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
    **half_precision_cases(_EVERYTHING),
}

OP = ArmOp(
    name="var",
    edge_targets=(exir_ops.edge.aten.var.correction,),
    aten_targets=(aten.var.correction, aten.var.dim),
    support=support,
    annotate=annotate_var,
    lower=lower,
    test_cases=TEST_CASES,
    decompose_for_quantization=decompose,
)

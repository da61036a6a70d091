"""aten.clamp, clamp.Tensor (one-element constant bounds) and hardtanh (relu6) -> TOSA CLAMP.

int32 data (not quantized: ``torch.clamp(ids, 0, 9)``) is MAXIMUM then MINIMUM, as TOSA 1.0's CLAMP
takes no int32; its bounds may then be any tensors that broadcast (common/integer_arithmetic.py).

In the INT profile the bounds become codes of the output grid. Like relu, a clamp right after a
convolution, linear or add folds into its producer's output grid (conv + relu6 in MobileNetV2): the
producer writes onto the clamp's grid, which covers only [min, max], and the CLAMP clips in place.
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.elementwise import emit
from arm.ops.common.integer_arithmetic import integer_operands, integer_support, is_integer_arithmetic
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.relu import clamp
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import annotate_unary
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import QParams
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

Bound = float | Node | None

_HARDTANH = (exir_ops.edge.aten.hardtanh.default, torch.ops.aten.hardtanh.default)
_RELU6 = torch.ops.aten.relu6.default  # ATen only: to_edge turns it into hardtanh(0, 6)
# ATen only: to_edge writes them as clamp(x, min) and clamp(x, None, max). F.normalize divides by
# ``norm.clamp_min(eps)``: left unannotated, that clamp and the division after it ran float on the CPU.
_ONE_SIDED = {torch.ops.aten.clamp_min.default: "min", torch.ops.aten.clamp_max.default: "max"}


def _bounds(node: Node) -> tuple[Bound, Bound]:
    """(min, max) as given: a number, a constant tensor node (clamp.Tensor) or None (unbounded)."""
    if node.target == _RELU6:
        return 0.0, 6.0
    if node.target in _HARDTANH:
        args = dict(zip(("min_val", "max_val"), node.args[1:]), **node.kwargs)
        return args.get("min_val", -1.0), args.get("max_val", 1.0)
    if node.target in _ONE_SIDED:
        side = _ONE_SIDED[node.target]
        bound = node.args[1] if len(node.args) > 1 else node.kwargs[side]
        return (bound, None) if side == "min" else (None, bound)
    args = dict(zip(("min", "max"), node.args[1:]), **node.kwargs)
    return args.get("min"), args.get("max")


def _clamps_integers(node: Node) -> bool:
    """clamp of int32 data (hardtanh and relu6 are float functions)."""
    return node.target not in (*_HARDTANH, _RELU6) and is_integer_arithmetic(node)


def _bound_reason(node: Node, bound: Bound) -> str | None:
    if not isinstance(bound, Node):
        return None
    value = bound.meta.get("val")
    if bound.op == "placeholder" and isinstance(value, torch.Tensor) and value.numel() == 1:
        return None
    return (
        f"{describe(node)}: bound {bound.name} is not a one-element constant tensor; "
        "TOSA CLAMP takes its bounds as attributes (use a scalar or a one-element buffer)"
    )


def support(node: Node, spec: TosaSpecification) -> str | None:
    if _clamps_integers(node):
        return integer_support(node, spec)
    low, high = _bounds(node)
    # Not unary_support: CLAMP and RESCALE take int16 as well as int8.
    return first_reason(
        profile_reason(node, spec, [node.args[0]]),
        rank_reason(node, shape_of(node)),
        _bound_reason(node, low),
        _bound_reason(node, high),
    )


def _real(ctx: LoweringContext, bound: Bound) -> float | None:
    if isinstance(bound, Node):
        return float(ctx.constant(bound).item())
    return None if bound is None else float(bound)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if _clamps_integers(node):
        return _clamp_integers(node, ctx)
    low, high = (_real(ctx, bound) for bound in _bounds(node))
    if ctx.spec.is_fp:
        largest = np.finfo(np.float32).max
        return clamp(
            ctx,
            ctx.value(node.args[0]),
            np.float32(-largest if low is None else low),
            np.float32(largest if high is None else high),
            name=node.name,
        )
    output = ctx.output_qparams(node)
    # Fused after a producer, the input already sits on the output grid and requantize is a no-op.
    value = requantize(ctx.graph, ctx.value(node.args[0]), name=f"{node.name}_rescaled", output=output)
    return clamp(ctx, value, _code(low, output, -1), _code(high, output, +1), name=node.name)


def _clamp_integers(node: Node, ctx: LoweringContext) -> TosaValue:
    """max(x, low), then min(., high): torch.clamp's order, so low > high gives high as in PyTorch."""
    value = ctx.value(node.args[0], rank=len(shape_of(node)))
    steps = (
        ("low", ts.Op.MAXIMUM, ts.TosaSerializerAttribute.MaximumAttribute),
        ("high", ts.Op.MINIMUM, ts.TosaSerializerAttribute.MinimumAttribute),
    )
    bounds = _bounds(node)
    last = max(index for index, bound in enumerate(bounds) if bound is not None)
    for index, ((side, op, set_attribute), bound) in enumerate(zip(steps, bounds)):
        if bound is None:
            continue
        (limit,) = integer_operands(node, ctx, [bound])
        name = node.name if index == last else f"{node.name}_{side}"
        value = emit(
            ctx,
            op,
            lambda attribute, setter=set_attribute: setter(attribute, ts.NanPropagationMode.PROPAGATE),
            [value, limit],
            name=name,
            shape=shape_of(node),
            dtype=np.dtype(np.int32),
        )
    return value


def _code(bound: float | None, grid: QParams, unbounded_side: int) -> np.generic:
    """The output code of a bound (rounded as the quantized module rounds the clamped value)."""
    info = np.iinfo(grid.dtype)
    if bound is None:
        return grid.dtype.type(info.min if unbounded_side < 0 else info.max)
    code = np.round(bound / grid.scale) + grid.zero_point
    return grid.dtype.type(np.clip(code, info.min, info.max))


def hardtanh(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.hardtanh(x, -0.5, 1.0)


def clamp_min(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, min=-0.25)


def clamp_max(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, max=0.5)


def normalize_rows(x: torch.Tensor) -> torch.Tensor:
    # x / ||x||.clamp_min(eps).expand_as(x): EdgeNeXt's cross-covariance attention normalizes q and k so;
    # the clamp_max after it is the other one-sided ATen clamp.
    return torch.nn.functional.normalize(x, dim=-1).clamp_max(0.25)


class _ClampByBuffers(torch.nn.Module):
    """clamp.Tensor with one-element buffers as bounds."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("low", torch.tensor(-0.75))
        self.register_buffer("high", torch.tensor(0.25))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, self.low, self.high)


class _ConvRelu6(torch.nn.Module):
    """MobileNetV2's pattern: relu6 folds into the convolution's output grid."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.relu6 = torch.nn.ReLU6()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu6(self.conv(x))


class _ClampInt32ByRows(torch.nn.Module):
    """clamp.Tensor of int32 data with int32 bounds that broadcast: a lower bound per column, an upper one."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("low", torch.tensor([-30, -5, 0, 10, -100, 7], dtype=torch.int32))
        self.register_buffer("high", torch.tensor(40, dtype=torch.int32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, self.low, self.high)


def _int32_values(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor]:
    return (torch.randint(-60, 60, shape, generator=torch.Generator().manual_seed(seed), dtype=torch.int32),)


# int32 data: no integer arithmetic in TOSA's FP profile.
_NO_INTEGERS = ("tosa_FP", "vgf_FP")

TEST_CASES = {
    # Normal inputs times 3 reach both bounds.
    "relu6": OpTestCase(
        FunctionModule(torch.nn.functional.relu6), tuple(3 * x for x in random_inputs(0, (1, 8, 16, 16)))
    ),
    "hardtanh": OpTestCase(FunctionModule(hardtanh), random_inputs(1, (4, 100))),
    "min_only": OpTestCase(FunctionModule(clamp_min), random_inputs(2, (2, 5, 32))),
    "max_only": OpTestCase(FunctionModule(clamp_max), random_inputs(3, (2, 5, 32))),
    "tensor_bounds": OpTestCase(_ClampByBuffers(), random_inputs(4, (3, 40))),
    "normalize": OpTestCase(FunctionModule(normalize_rows), random_inputs(10, (1, 2, 4, 16))),
    "conv_relu6": OpTestCase(seeded(5, _ConvRelu6), random_inputs(6, (1, 8, 12, 12))),
    "int32_tensor_bounds": OpTestCase(_ClampInt32ByRows(), _int32_values(8, (4, 6)), cpu_targets=_NO_INTEGERS),
}

OP = ArmOp(
    name="clamp",
    edge_targets=(
        exir_ops.edge.aten.clamp.default,
        exir_ops.edge.aten.clamp.Tensor,
        exir_ops.edge.aten.hardtanh.default,
    ),
    aten_targets=(
        torch.ops.aten.clamp.default,
        torch.ops.aten.clamp.Tensor,
        torch.ops.aten.hardtanh.default,
        _RELU6,
        *_ONE_SIDED,
    ),
    support=support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
    fuses_into_producer=True,
)

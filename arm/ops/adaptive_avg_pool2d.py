"""aten.adaptive_avg_pool2d -> TOSA AVG_POOL2D when the output size divides the input size.

Then every adaptive window has the same size and stride (input / output). Otherwise the windows
differ in size and overlap unevenly, which one AVG_POOL2D cannot express: such pools stay on the
CPU. The op is kept whole in the edge dialect where it is delegated: decomposed, a 1x1 output of a
channels-last input (ConvNeXt's head, after its permuted blocks) becomes mean over (H, W) followed by
an as_strided_copy restoring the strides, which leaves the mean's output unquantized.

A quantized pool over windows of an even count of values takes the exact form of
arm/ops/common/ties_to_even.py (two convolutions for a global pool of a power-of-two count up to 64, an int16
AVG_POOL2D of the scaled codes for other windows of up to 128 values,
else, to 1x1, REDUCE_SUM over H and W; both round half steps to even as the quantized model does,
where the int8 AVG_POOL2D rounds them up): MobileViT-XXS's 2x2 global pool had 12% of its outputs a
step off. Windows of more than 128 values to outputs larger than 1x1 still round half up (open).
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common import registry
from arm.ops.common.aten_rewrite import AtenBuilder
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.tie_inputs import half_step_averages
from arm.ops.common.ties_to_even import lower_average, lower_pooled_average
from arm.ops.common.pooling import PoolWindow, lower_pool, u55_reason
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def _window(node: Node) -> PoolWindow | None:
    """The equivalent fixed window, or None when the output size does not divide the input size."""
    height, width = shape_of(node.args[0])[-2:]
    out_h, out_w = shape_of(node)[-2:]
    if height % out_h or width % out_w:
        return None
    step = (height // out_h, width // out_w)
    return PoolWindow(kernel=step, stride=step)


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if len(shape_of(x)) != 4:
        return f"{describe(node)}: only rank-4 (NCHW) inputs are lowered, got shape {shape_of(x)}"
    window = _window(node)
    if window is None:
        return (
            f"{describe(node)}: output size {shape_of(node)[-2:]} does not divide input size {shape_of(x)[-2:]}, "
            f"so the adaptive windows differ in size and no single AVG_POOL2D computes them; {spec} gets the "
            "node whole (the INT profile's quantizer rewrites it into one pool per bin)"
        )
    return first_reason(profile_reason(node, spec, [x]), u55_reason(node, spec, window, padded_avg=False))


def annotate_adaptive_avg_pool2d(node: Node, config: QuantizationConfig) -> None:
    """A pool whose output divides its input keeps the input's grid; another is rewritten here into the
    pools of its bins (``pooled_by_bins``), each node annotated by its own op."""
    if _window(node) is not None or len(shape_of(node.args[0])) != 4:
        shared_with_input(node, node.args[0], config.activation)
        return
    build = AtenBuilder(node)
    node.replace_all_uses_with(pooled_by_bins(build, node.args[0], shape_of(node)[-2:]))
    node.graph.erase_node(node)
    for piece in build.inserted:
        registry.for_aten_node(piece).annotate(piece, config)


def _bins(size: int, outputs: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive windows along one axis: [floor(i * size / outputs), ceil((i + 1) * size / outputs))."""
    return [((i * size) // outputs, -((-(i + 1) * size) // outputs)) for i in range(outputs)]


def pooled_by_bins(build: AtenBuilder, x: Node, output_size: tuple[int, int]) -> Node:
    """The adaptive pool of the NCHW ``x`` as ATen calls: per output row its rows sliced and averaged by one
    (k, 1) avg_pool2d, concatenated, then the same per output column with (1, k) pools. The mean of a
    window is the mean of its rows' means (every row holds the same columns), so this is exact in reals;
    in INT each stage rounds onto the input's grid (the quantized model holds the same two roundings). A
    pool over a whole slice strides by one: the U55 pools with strides up to 3."""
    aten = torch.ops.aten
    pooled = x
    for axis, outputs in ((2, output_size[0]), (3, output_size[1])):
        pieces = []
        for start, end in _bins(shape_of(pooled)[axis], outputs):
            piece = build.call(aten.slice.Tensor, pooled, axis, start, end)
            kernel = [end - start, 1] if axis == 2 else [1, end - start]
            pieces.append(build.call(aten.avg_pool2d.default, piece, kernel, [1, 1]))
        pooled = pieces[0] if len(pieces) == 1 else build.call(aten.cat.default, pieces, axis)
    return pooled


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window = _window(node)
    exact = lower_pooled_average(node, ctx, window.kernel)
    if exact is None and shape_of(node)[-2:] == (1, 1):
        exact = lower_average(node, ctx, [2, 3])
    if exact is not None:
        return exact
    return lower_pool(ctx, node, ts.Op.AVG_POOL2D, _window(node), pad_inside=True)


def to_2x2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 2)


def to_1x1(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 1)


def to_3x4(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, (3, 4))


def to_uneven_3x3(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 3)


def to_5x5(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 5)


def to_10x10(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 10)


def channels_last_to_1x1(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x.permute(0, 3, 1, 2), 1)


_FLOAT_TARGETS = ("tosa_FP", "vgf_FP")

TEST_CASES = {
    "6x6_to_2x2": OpTestCase(FunctionModule(to_2x2), random_inputs(0, (1, 8, 6, 6))),
    "9x8_to_3x4": OpTestCase(FunctionModule(to_3x4), random_inputs(1, (1, 4, 9, 8))),
    # Windows of 4 step by 4: beyond the U55's pooling stride limit of 3.
    "8x8_to_2x2": OpTestCase(FunctionModule(to_2x2), random_inputs(3, (1, 8, 8, 8)), cpu_targets=("u55_INT",)),
    # A channels-last input (a permuted tensor) pooled to 1x1, as in ConvNeXt's head.
    "channels_last_to_1x1": OpTestCase(FunctionModule(channels_last_to_1x1), random_inputs(4, (1, 2, 2, 16))),
    # A global pool whose averages sit on half steps (tie_inputs.py), rounded to even as in the
    # quantized model (MobileViT-XXS's head: 2x2 to 1x1). No output may be a step off.
    "2x2_to_1x1_ties_to_even": OpTestCase(
        FunctionModule(to_1x1), (half_step_averages(5, (1, 16, 2, 2), [2, 3], zero_point=0),),
        differing_from_quantized=0.0,
    ),
    # Bins [0, 3), [2, 6), [5, 8) along both axes: in INT one pool per bin (the quantizer's rewrite);
    # FP keeps the node whole, which one AVG_POOL2D cannot compute.
    "8x8_to_3x3_uneven": OpTestCase(
        FunctionModule(to_uneven_3x3), random_inputs(2, (1, 4, 8, 8)), cpu_targets=_FLOAT_TARGETS
    ),
    # The peer's non-dividing cases: 17 -> 5 (bins of 4 and 5) and an output larger than the input (7 -> 10:
    # bins of 1 and 2 that overlap).
    "17x17_to_5x5": OpTestCase(FunctionModule(to_5x5), random_inputs(6, (1, 3, 17, 17)), cpu_targets=_FLOAT_TARGETS),
    "7x7_to_10x10": OpTestCase(FunctionModule(to_10x10), random_inputs(7, (1, 2, 7, 7)), cpu_targets=_FLOAT_TARGETS),
}

OP = ArmOp(
    name="adaptive_avg_pool2d",
    edge_targets=(exir_ops.edge.aten._adaptive_avg_pool2d.default, exir_ops.edge.aten.adaptive_avg_pool2d.default),
    aten_targets=(torch.ops.aten.adaptive_avg_pool2d.default,),
    support=support,
    annotate=annotate_adaptive_avg_pool2d,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.adaptive_avg_pool2d.default,),
)

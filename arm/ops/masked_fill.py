"""aten.masked_fill.Scalar -> TOSA SELECT(mask, fill, x); hiding softmax keys, fused into the softmax.

Two uses, told apart by ``arm.ops.common.masked_scores.hides_keys``:

* Hiding keys: ``softmax(masked_fill(scores, hidden, -inf))``, how causal and padding masks reach a
  softmax (scaled_dot_product_attention's INT decomposition writes them this way). In INT the
  masked_fill emits nothing: its output is not quantized (see masked_scores), and the softmax lowering
  reads the scores and the constant mask and gives hidden keys exactly zero probability. Every target,
  the Ethos-U55 too (no SELECT needed).
* Any other fill: the output keeps the input's grid (the fill is rounded onto it) and SELECT picks the
  fill where the mask is set. Ethos-U55/U65 have no SELECT: there it stays on the CPU.
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.elementwise import emit
from arm.ops.common.masked_scores import hides_keys
from arm.ops.common.op_test_case import OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate, input_spec, shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import is_dequantize
from arm.tosa.specification import TosaSpecification

aten = torch.ops.aten

# -inf as a float32 SELECT fill: exp(fill - max) is 0 all the same, and a fully hidden row stays finite.
_FLOAT_FILL_FLOOR = float(np.finfo(np.float32).min)


def support(node: Node, spec: TosaSpecification) -> str | None:
    scores, mask, fill = node.args[:3]
    if not isinstance(mask, Node) or dtype_of(mask) != torch.bool:
        return f"{describe(node)}: the mask must be a bool tensor"
    if not isinstance(fill, (int, float)):
        return f"{describe(node)}: the fill must be a number (a tensor fill is not lowered)"
    rank = rank_reason(node, shape_of(node))
    if hides_keys(node):
        return first_reason(rank, _hiding_reason(node, scores, mask, spec))
    return first_reason(
        f"{describe(node)}: Ethos-U55/U65 have no SELECT; a masked_fill that does not hide softmax keys runs on "
        "the CPU"
        if spec.has("u55")
        else None,
        profile_reason(node, spec, [scores]),
        rank,
    )


def _hiding_reason(node: Node, scores: Node, mask: Node, spec: TosaSpecification) -> str | None:
    if spec.is_fp:
        return profile_reason(node, spec, [scores])
    if not is_dequantize(scores):
        return (
            f"{describe(node)}: input {scores.name} is not quantized; {spec} needs int8 scores "
            "(quantize the model with the Arm quantizer, or use the FP profile)"
        )
    if mask.op != "placeholder":
        return (
            f"{describe(node)}: the mask {mask.name} is computed at run time; {spec} lowers a masked softmax "
            "with a constant mask only (build it from shapes alone, e.g. torch.ones(n, n).tril(), so it folds)"
        )
    return None


def annotate_masked_fill(node: Node, config: QuantizationConfig) -> None:
    """Hiding keys: the scores are observed, the output stays float for the softmax; else a shared grid."""
    scores = node.args[0]
    if hides_keys(node):
        annotate(node, {scores: input_spec(scores, config.activation)}, None)
    else:
        shared_with_input(node, scores, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    scores, mask, fill = node.args[:3]
    if hides_keys(node) and ctx.spec.is_int:
        return ctx.value(scores)  # the softmax applies the mask (arm/ops/softmax.py)
    rank = len(shape_of(node))
    x = ctx.value(scores, rank=rank)
    ones = (1,) * rank
    if ctx.spec.is_fp:
        fill_value = ctx.graph.add_const(f"{node.name}_fill", np.full(ones, max(float(fill), _FLOAT_FILL_FLOOR), np.float32))
    else:
        grid = x.qparams
        info = np.iinfo(grid.dtype)
        raw = np.clip(np.round(float(fill) / grid.scale) + grid.zero_point, info.min, info.max)
        fill_value = ctx.graph.add_const(f"{node.name}_fill", np.full(ones, raw, grid.dtype), grid)
    return emit(
        ctx,
        ts.Op.SELECT,
        ts.TosaSerializerAttribute.SelectAttribute,
        [ctx.value(mask, rank=rank), fill_value, x],
        name=node.name,
        shape=shape_of(node),
        dtype=x.dtype,
    ).with_qparams(x.qparams)


class CausalSoftmax(torch.nn.Module):
    """Scores with the future hidden, as a decoder's attention writes them by hand."""

    def __init__(self, rows: int):
        super().__init__()
        self.register_buffer("hidden", torch.ones(rows, rows, dtype=torch.bool).triu(1))

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return scores.masked_fill(self.hidden, float("-inf")).softmax(-1)


class PaddingFill(torch.nn.Module):
    """A constant fill of the last three columns (a padding mask over features), not before a softmax."""

    def __init__(self, columns: int, fill: float):
        super().__init__()
        hidden = torch.zeros(columns, dtype=torch.bool)
        hidden[-3:] = True
        self.register_buffer("hidden", hidden)
        self.fill = fill

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.masked_fill(self.hidden, self.fill)


_U55 = ("u55_INT",)
# TOSA-1.0+INT (the tosa_INT and vgf_INT targets) has no int16; the U55 has no SELECT.
_NO_INT16_SELECT = ("tosa_INT", "vgf_INT", "u55_INT")

TEST_CASES = {
    "causal_softmax": OpTestCase(CausalSoftmax(8), random_inputs(0, (1, 2, 8, 8))),
    "padding_fill": OpTestCase(PaddingFill(12, 0.5), random_inputs(1, (2, 5, 12)), cpu_targets=_U55),
    "padding_fill_a16w8": OpTestCase(
        PaddingFill(12, -1.0),
        random_inputs(2, (2, 5, 12)),
        cpu_targets=_NO_INT16_SELECT,
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="masked_fill",
    edge_targets=(exir_ops.edge.aten.masked_fill.Scalar,),
    aten_targets=(aten.masked_fill.Scalar,),
    support=support,
    annotate=annotate_masked_fill,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(aten.masked_fill.Scalar,),
)

"""aten.masked_fill(x, mask, value) (value a number) -> x with masked elements replaced.

Two uses, told apart by ``arm.ops.common.masked_scores.hides_keys``:

* Hiding softmax keys: ``softmax(masked_fill(scores, hidden, -inf))``, how causal and padding masks
  reach a softmax (scaled_dot_product_attention's INT decomposition writes them this way). In INT the
  masked_fill emits nothing: its output is not quantized (see masked_scores), and the softmax lowering
  reads the scores and the constant mask and gives hidden keys exactly zero probability, on every
  target, the U55 too.
* Any other fill (arm/ops/common/masked_fill.py): SELECT in FP; in INT the fill's code on x's grid, by
  int32 arithmetic for a constant mask (every target: no SELECT, and no bool tensor in the graph) or
  SELECT for a mask computed at run time (not on the U55/U65, which have no SELECT). A fill outside
  x's range (-inf, -1e9) saturates to the grid's end, exactly as the quantized module saturates it.

Kept whole through to_edge, which would make it a where of a scalar_tensor. A constant bool mask may
enter an Ethos-U partition (arm/partitioner.py): it becomes constants of the TOSA graph, never a bool
graph input. tril and triu, whose masks never exist as tensors, use the constant-mask arithmetic.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.masked_fill import fill_masked
from arm.ops.common.masked_scores import hides_keys
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate, input_spec, shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import is_dequantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, mask, value = node.args[:3]
    if isinstance(value, Node):
        return f"{describe(node)}: the fill value is a tensor; only a number is lowered (use torch.where)"
    if not isinstance(mask, Node) or dtype_of(mask) != torch.bool:
        return f"{describe(node)}: the mask must be a bool tensor"
    rank = rank_reason(node, shape_of(node))
    if hides_keys(node):
        return first_reason(rank, _hiding_reason(node, x, mask, spec))
    if spec.has("u55") and not _is_constant_mask(mask):
        return (
            f"{describe(node)}: the mask {mask.name} is computed at run time, which takes a SELECT; Ethos-U55/U65 "
            "have none (a constant mask is lowered without one)"
        )
    return first_reason(profile_reason(node, spec, [x]), rank)


def _hiding_reason(node: Node, scores: Node, mask: Node, spec: TosaSpecification) -> str | None:
    if spec.is_fp:
        return profile_reason(node, spec, [scores])
    if not is_dequantize(scores):
        return (
            f"{describe(node)}: input {scores.name} is not quantized; {spec} needs int8 scores "
            "(quantize the model with the Arm quantizer, or use the FP profile)"
        )
    if mask.op != "placeholder" and not _folds_before_partitioning(mask):
        return (
            f"{describe(node)}: the mask {mask.name} is computed at run time; {spec} lowers a masked softmax "
            "with a constant mask only (build it from shapes alone, e.g. torch.ones(n, n).tril(), so it folds)"
        )
    return None


def _folds_before_partitioning(mask: Node) -> bool:
    """An ATen mask computed from constants alone (DeBERTa's ``~(ones * ones)`` padding mask).

    The partitioner asks this rule on the ATen graph too, to choose which masked_fills to_edge keeps
    whole; there such a mask is not yet a placeholder, but arm/passes/fold_constants.py makes it one
    before partitioning, where this rule is asked again on the edge node (a mask that did not fold is
    refused there). Refusing it here had to_edge split the masked_fill into a float where, which left
    the softmax behind it and the where on the CPU (DeBERTa-v2: 3 partitions on tosa-INT).
    """
    return isinstance(mask.target, torch._ops.OpOverload) and _is_constant_mask(mask)


def _is_constant_mask(mask: Node) -> bool:
    """A placeholder (a lifted or folded constant) or computed from no placeholder at all (ones().triu())."""
    pending, seen = [mask], set()
    while pending:
        node = pending.pop()
        if node.op == "placeholder" and node is not mask:
            return False
        seen.add(node)
        pending.extend(arg for arg in node.all_input_nodes if arg not in seen)
    return True


def annotate_masked_fill(node: Node, config: QuantizationConfig) -> None:
    """Hiding keys: the scores are observed, the output stays float for the softmax; else x's grid.
    The bool mask is never quantized."""
    scores = node.args[0]
    if hides_keys(node):
        annotate(node, {scores: input_spec(scores, config.activation)}, None)
    else:
        shared_with_input(node, scores, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, mask, value = node.args[:3]
    if hides_keys(node) and ctx.spec.is_int:
        return ctx.value(x)  # the softmax applies the mask (arm/ops/softmax.py)
    return fill_masked(ctx, node, x, mask, float(value), name=node.name)


def causal(x: torch.Tensor) -> torch.Tensor:
    """Scores above the diagonal set to -1 (a finite fill the float comparison can check)."""
    future = torch.ones(x.shape[-2], x.shape[-1], dtype=torch.bool).triu(1)
    return x.masked_fill(future, -1.0)


def below_minus_one_to_minus_one(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return y.masked_fill(x < -1.0, 1.5)


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


class KeyPaddingBuiltFromShapes(torch.nn.Module):
    """A key-padding mask the model builds from shapes at run time (DeBERTa-v2's ``~(ones * ones)``):
    no constant in the exported graph until arm/passes/fold_constants.py folds it."""

    def __init__(self, padding: int):
        super().__init__()
        self.padding = padding

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        keys = scores.shape[-1]
        kept = torch.arange(keys) < keys - self.padding
        return scores.masked_fill(~kept, torch.finfo(scores.dtype).min).softmax(-1)


# TOSA-1.0+INT (the tosa_INT and vgf_INT targets) has no int16.
_NO_INT16 = ("tosa_INT", "vgf_INT")

TEST_CASES = {
    # The mask folds to a constant (arm/passes/fold_constants.py): int32 arithmetic on the INT targets.
    "causal_constant_mask": OpTestCase(FunctionModule(causal), random_inputs(0, (2, 5, 5))),
    "runtime_mask_from_input": OpTestCase(
        FunctionModule(below_minus_one_to_minus_one), random_inputs(1, (3, 8), (3, 8)), cpu_targets=("u55_INT",)
    ),
    "causal_softmax": OpTestCase(CausalSoftmax(8), random_inputs(0, (1, 2, 8, 8))),
    "key_padding_built_from_shapes": OpTestCase(KeyPaddingBuiltFromShapes(3), random_inputs(3, (1, 2, 4, 12))),
    "padding_fill": OpTestCase(PaddingFill(12, 0.5), random_inputs(1, (2, 5, 12))),
    "padding_fill_a16w8": OpTestCase(
        PaddingFill(12, -1.0),
        random_inputs(2, (2, 5, 12)),
        cpu_targets=_NO_INT16,
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="masked_fill",
    edge_targets=(exir_ops.edge.aten.masked_fill.Scalar,),
    aten_targets=(torch.ops.aten.masked_fill.Scalar,),
    support=support,
    annotate=annotate_masked_fill,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.masked_fill.Scalar,),
)

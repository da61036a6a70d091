"""aten.where.self -> TOSA SELECT; in INT both choices are first moved onto the output grid.

Integer choices (int32 ids: BART's ``masked_fill(ids == -100, pad)`` on its shifted decoder ids) are
selected as they are, in the INT profile. Ethos-U55/U65 have no SELECT: there where stays on the CPU
(and so do the comparisons feeding it).

A where that hides softmax keys is a masked_fill: GPT-Neo writes its causal (and local window) mask as
``where(kept, scores, finfo(float32).min)`` and then adds transformers' additive mask (0 or the same
minimum) before the softmax. Quantized as written, the where's and the add's grids span 3.4e38 and every
score rounds to zero. Before annotation, such a where (a constant condition, a constant fill at or below
masked_scores.HIDING_FILL), with any constant additive hiding masks between it and a last-axis softmax,
becomes one ``masked_fill(scores, hidden, -inf)``: the masked softmax the softmax lowering applies
exactly (arm/ops/masked_fill.py), on the U55 too. A mask that depends on the inputs, a finite fill above
HIDING_FILL or an additive mask with other values than 0 and the hiding fill is left as written.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.aten_constant import evaluate_constant
from arm.ops.common.aten_rewrite import AtenBuilder
from arm.ops.common.masked_scores import HIDING_FILL, is_softmax
from arm.ops.compare import away_from
from arm.ops.common.elementwise import emit
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import integer_data_support
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate_with_fused_activation
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    if spec.has("u55"):
        return f"{describe(node)}: Ethos-U55/U65 have no SELECT; where runs on the CPU"
    condition, *choices = node.args[:3]
    if not all(isinstance(choice, Node) for choice in choices):
        return f"{describe(node)}: both choices must be tensors"
    return first_reason(
        None if dtype_of(condition) == torch.bool else f"{describe(node)}: condition {condition.name} is not bool",
        integer_data_support(node, spec, [*choices, node]) if _selects_integers(node) else profile_reason(node, spec, choices),
        rank_reason(node, shape_of(node)),
    )


def _selects_integers(node: Node) -> bool:
    """Integer choices and result: data the quantizer leaves alone, selected as it is."""
    return all(dtype_of(tensor) in _INTEGERS for tensor in [*node.args[1:3], node] if isinstance(tensor, Node))


_INTEGERS = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def annotate_where(node: Node, config: QuantizationConfig) -> None:
    """Observed int8 choices and output; the bool condition is not quantized."""
    _, *choices = node.args[:3]
    annotate_with_fused_activation(node, {choice: config.activation for choice in choices}, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    condition, *choices = node.args[:3]
    rank = len(shape_of(node))
    output = None if ctx.spec.is_fp or _selects_integers(node) else ctx.output_qparams(node)
    if output is None:
        values = [ctx.value(choice, rank=rank) for choice in choices]
    else:
        values = [
            requantize(ctx.graph, ctx.quantized_value(choice, rank=rank), name=f"{node.name}_{side}", output=output)
            for side, choice in zip(("true", "false"), choices)
        ]
    inputs = [ctx.value(condition, rank=rank), *values]
    return emit(
        ctx,
        ts.Op.SELECT,
        ts.TosaSerializerAttribute.SelectAttribute,
        inputs,
        name=node.name,
        shape=shape_of(node),
        dtype=values[0].dtype,
    ).with_qparams(output)


def hide_keys_as_masked_fill(node: Node) -> None:
    """``where(kept, scores, fill)`` [+ additive hiding masks] -> softmax, with constant ``kept`` and a hiding
    ``fill``: the where and the adds become ``masked_fill(scores, hidden, -inf)`` (see the module's docstring)."""
    condition, on_true, on_false = node.args[:3]
    if not all(isinstance(arg, Node) for arg in (condition, on_true, on_false)):
        return
    kept = evaluate_constant(condition)
    if kept is None or kept.dtype != torch.bool:
        return
    if _is_hiding_fill(on_false):
        scores, hidden = on_true, ~kept
    elif _is_hiding_fill(on_true):
        scores, hidden = on_false, kept
    else:
        return
    scores_shape = tuple(scores.meta["val"].shape)
    if tuple(node.meta["val"].shape) != scores_shape or not scores.meta["val"].is_floating_point():
        return
    last = node
    while len(last.users) == 1 and (added := _added_hiding_mask(next(iter(last.users)), last, scores_shape)) is not None:
        hidden = hidden | added
        last = next(iter(last.users))
    hidden = torch.broadcast_to(hidden, scores_shape)
    # A row with every key hidden is uniform in torch (all scores equal the fill) but not after -inf: keep it.
    if not _is_last_axis_softmax_of(last) or bool(torch.any(torch.all(hidden, dim=-1))):
        return
    build = AtenBuilder(last)
    hidden_node = build.constant("hidden_keys", hidden.clone())
    last.replace_all_uses_with(build.call(torch.ops.aten.masked_fill.Scalar, scores, hidden_node, float("-inf")))


def _is_hiding_fill(choice: Node) -> bool:
    """A constant every value of which hides a key: -inf, or at or below HIDING_FILL (finfo(float32).min)."""
    value = evaluate_constant(choice)
    return value is not None and value.is_floating_point() and value.numel() > 0 and bool(torch.all(value <= HIDING_FILL))


def _added_hiding_mask(add: Node, source: Node, scores_shape: tuple[int, ...]) -> torch.Tensor | None:
    """Where ``add`` = ``source`` + a constant of 0 and hiding values only (an additive attention mask)
    hides keys: that mask as bool, else None."""
    if add.target != torch.ops.aten.add.Tensor or add.kwargs.get("alpha", 1) != 1 or len(add.args) != 2:
        return None
    other = add.args[1] if add.args[0] is source else add.args[0]
    if not isinstance(other, Node) or other is source or tuple(add.meta["val"].shape) != scores_shape:
        return None
    mask = evaluate_constant(other)
    if mask is None or not mask.is_floating_point():
        return None
    hiding = mask <= HIDING_FILL
    return hiding if bool(torch.all(hiding | (mask == 0))) else None


def _is_last_axis_softmax_of(node: Node) -> bool:
    users = list(node.users)
    if len(users) != 1 or not is_softmax(users[0]):
        return False
    rank = len(node.meta["val"].shape)
    return rank > 0 and users[0].args[1] % rank == rank - 1


def larger(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(x > y, x, y)


def positive_or_other(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0.0, x, y)


def pick(condition: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(condition, x, y)


def _bool_and_reals(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    condition = torch.rand(shape, generator=torch.Generator().manual_seed(seed)) < 0.5
    return (condition, *random_inputs(seed, shape, shape))


class WindowedCausalScores(torch.nn.Module):
    """GPT-Neo's attention mask: a causal (or local window) bool buffer selects the scores or float32's
    minimum, then an additive mask of 0 and that minimum built from shapes (transformers' causal mask,
    here also hiding the first key from the last query) is added before the softmax."""

    def __init__(self, keys: int, window: int | None):
        super().__init__()
        kept = torch.ones(keys, keys, dtype=torch.bool).tril()
        if window is not None:
            kept = kept & ~torch.ones(keys, keys, dtype=torch.bool).tril(-window)
        self.register_buffer("kept", kept.view(1, 1, keys, keys))

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        minimum = torch.finfo(scores.dtype).min
        keys = scores.shape[-1]
        positions = torch.arange(keys)
        additive_hidden = (positions.view(-1, 1) == keys - 1) & (positions.view(1, -1) == 0)
        additive = torch.where(additive_hidden, minimum, 0.0).view(1, 1, keys, keys)
        kept_scores = torch.where(self.kept, scores, torch.tensor(minimum, dtype=scores.dtype))
        return torch.softmax(kept_scores + additive, dim=-1)


class FillFirstThenSoftmax(torch.nn.Module):
    """``where(hidden, -inf, scores)``: the fill as the first choice, no additive mask."""

    def __init__(self, keys: int):
        super().__init__()
        self.register_buffer("hidden", torch.ones(keys, keys, dtype=torch.bool).triu(1))

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return torch.where(self.hidden, torch.tensor(float("-inf")), scores).softmax(-1)


_U55 = ("u55_INT",)

TEST_CASES = {
    "compare": OpTestCase(FunctionModule(larger), random_inputs(0, (1, 8, 16, 16), (1, 8, 16, 16)), cpu_targets=_U55),
    "broadcast": OpTestCase(FunctionModule(larger), random_inputs(1, (2, 6, 32), (1, 1, 32)), cpu_targets=_U55),
    # y's range is three times x's, so each choice has its own grid; x is kept 0.1 away from the
    # threshold, so quantizing it cannot flip the condition.
    "different_grids": OpTestCase(
        FunctionModule(positive_or_other),
        (away_from(0.0, 2, (4, 50))[0], 3.0 * random_inputs(3, (4, 50))[0]),
        cpu_targets=_U55,
    ),
    # The condition is a bool model input: it enters the partition as it is (on the U85 too).
    "bool_condition_input": OpTestCase(FunctionModule(pick), _bool_and_reals(4, (3, 24)), cpu_targets=_U55),
    # A constant hiding where before a softmax is a masked softmax in INT (hide_keys_as_masked_fill), so on
    # the U55 too; SELECT on the float targets.
    "gpt_neo_causal_mask": OpTestCase(WindowedCausalScores(8, window=None), random_inputs(5, (1, 2, 8, 8))),
    "gpt_neo_local_window_mask": OpTestCase(WindowedCausalScores(8, window=3), random_inputs(6, (1, 2, 8, 8))),
    "hiding_fill_first": OpTestCase(FillFirstThenSoftmax(6), random_inputs(7, (2, 6, 6))),
}

OP = ArmOp(
    name="where",
    edge_targets=(exir_ops.edge.aten.where.self,),
    aten_targets=(torch.ops.aten.where.self,),
    support=support,
    annotate=annotate_where,
    lower=lower,
    test_cases=TEST_CASES,
    decompose_for_quantization=hide_keys_as_masked_fill,
)

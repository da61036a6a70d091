"""``ArmOp``: everything the flow knows about one operator, as each op file under arm/ops/ declares it."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

import torch
from torch.fx import Node

from arm.ops.common.op_test_case import OpTestCase
from arm.tosa.specification import TosaSpecification

if TYPE_CHECKING:
    from arm.quantizer.quantization_config import QuantizationConfig
    from arm.tosa.context import LoweringContext
    from arm.tosa.graph import TosaValue

SupportRule = Callable[[Node, TosaSpecification], "str | None"]
Annotator = Callable[[Node, "QuantizationConfig"], None]
Lowering = Callable[[Node, "LoweringContext"], "TosaValue"]
Decomposition = Callable[[Node], None]
QuantizationRule = Callable[[Node, TosaSpecification], bool]


@dataclasses.dataclass(frozen=True)
class ArmOp:
    """Everything the flow knows about one operator.

    Attributes:
        name: short name used by tests and reports, e.g. ``"conv2d"``.
        edge_targets: edge-dialect operators this op lowers.
        aten_targets: ATen operators (as seen by pt2e before to_edge) this op annotates for quantization.
        support: returns None when a node can be lowered for a TOSA spec, else a reason naming the node.
        annotate: marks a node (and, for fusions, its activation) with quantization specs.
        lower: emits TOSA for a node and returns the value holding its result.
        test_cases: named examples, run by the harness for every target.
        keep_in_edge: ATen operators to_edge must not decompose so this op sees them whole.
        fuses_into_producer: an activation whose clamp the producer's output quantization absorbs.
        decompose_for_quantization: rewrites an ATen node, before pt2e annotation, into ops that are
            annotated and lowered one by one (scaled_dot_product_attention into matmul and softmax,
            unbind into selects), so every intermediate tensor gets its own observed int8 grid.
        quantized_on: whether the quantizer annotates an ATen node for a TOSA spec (default: always). A
            node that runs on the CPU on that target whatever its quantization keeps float there, so no
            CPU quantize meets a value no grid holds (floor_divide's infinite quotient by zero on the U55).
    """

    name: str
    edge_targets: tuple[object, ...]
    aten_targets: tuple[torch._ops.OpOverload, ...]
    support: SupportRule
    annotate: Annotator
    lower: Lowering
    test_cases: dict[str, OpTestCase]
    keep_in_edge: tuple[torch._ops.OpOverload, ...] = ()
    fuses_into_producer: bool = False
    decompose_for_quantization: Decomposition | None = None
    quantized_on: QuantizationRule | None = None


def decomposed_op(
    name: str,
    aten_targets: tuple[torch._ops.OpOverload, ...],
    decompose: Decomposition,
    test_cases: dict[str, OpTestCase],
) -> ArmOp:
    """An op that lives only until annotation: ``decompose`` replaces its ATen node by ops that are annotated
    and lowered one by one (roll into slices and a concat, unbind into selects), so it has no edge operator
    to support or lower and nothing of its own to annotate. A node ``decompose`` leaves whole (a form it
    does not take) is to_edge's to decompose."""

    def support(node: Node, spec: TosaSpecification) -> str | None:
        return None  # never reached: no edge operator is lowered here

    def annotate(node: Node, config: QuantizationConfig) -> None:
        """Nothing: the node was decomposed before annotation."""

    def lower(node: Node, ctx: LoweringContext) -> TosaValue:
        raise NotImplementedError(f"{node.name}: {name} is decomposed before lowering")

    return ArmOp(
        name=name, edge_targets=(), aten_targets=aten_targets, support=support, annotate=annotate, lower=lower,
        test_cases=test_cases, decompose_for_quantization=decompose,
    )  # fmt: skip

"""The registry of lowered operators: each op module under arm/ops/ contributes one ``ArmOp``.

Callers ask the registry, never a chain of ifs: the partitioner for support rules, the quantizer for
annotations, the lowering for TOSA emitters and the test harness for example cases.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from typing import TYPE_CHECKING, Callable

import torch
from torch.fx import Node

from arm.ops.op_test_case import OpTestCase
from arm.tosa.quantization import is_dequantize, is_quantize
from arm.tosa.specification import TosaSpecification

if TYPE_CHECKING:
    from arm.quantizer.quantization_config import QuantizationConfig
    from arm.tosa.context import LoweringContext
    from arm.tosa.graph import TosaValue

SupportRule = Callable[[Node, TosaSpecification], "str | None"]
Annotator = Callable[[Node, "QuantizationConfig"], None]
Lowering = Callable[[Node, "LoweringContext"], "TosaValue"]

# Modules of arm/ops/ that define an ``OP``; the order is the order op_names() reports.
_OP_MODULES = ("add", "sub", "mul", "relu", "conv2d", "linear", "view", "permute", "softmax", "batch_norm", "getitem", "layer_norm", "log_softmax", "sigmoid", "avg_pool2d", "max_pool2d", "cat", "pad", "slice", "select", "squeeze", "unsqueeze", "mean", "sum", "tanh", "hardsigmoid", "hardswish", "silu", "gelu", "clamp", "div", "reciprocal", "neg", "abs", "log", "exp", "compare", "where", "rsqrt", "leaky_relu", "maximum", "minimum", "adaptive_avg_pool2d", "upsample_nearest2d", "upsample_bilinear2d", "embedding", "index_select", "matmul", "transpose_conv2d", "split", "clone")


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


@functools.cache
def _ops() -> tuple[ArmOp, ...]:
    # Imported lazily: op modules import helpers that themselves consult the registry.
    return tuple(importlib.import_module(f"arm.ops.{module}").OP for module in _OP_MODULES)


@functools.cache
def _by_edge_target() -> dict[object, ArmOp]:
    return {target: op for op in _ops() for target in op.edge_targets}


def _inplace_variant(target: torch._ops.OpOverload) -> torch._ops.OpOverload | None:
    """``aten.relu_.default`` for ``aten.relu.default``: the same operator writing into its input."""
    packet = getattr(torch.ops.aten, f"{target._schema.name.split('::')[-1]}_", None)
    overload = target._overloadname
    return getattr(packet, overload, None) if packet is not None and overload in packet.overloads() else None


@functools.cache
def _by_aten_target() -> dict[object, ArmOp]:
    # pt2e sees the graph before functionalization, so a module's in-place calls (ReLU6(inplace=True) is
    # hardtanh_, a residual `out += x` is add_) reach the quantizer as such; they annotate and fuse like
    # their functional forms, into which to_edge turns them.
    by_target: dict[object, ArmOp] = {}
    for op in _ops():
        for target in op.aten_targets:
            by_target[target] = op
            inplace = _inplace_variant(target)
            if inplace is not None:
                by_target.setdefault(inplace, op)
    return by_target


def op_names() -> list[str]:
    return [op.name for op in _ops()]


def op(name: str) -> ArmOp:
    for candidate in _ops():
        if candidate.name == name:
            return candidate
    raise KeyError(f"no Arm op named {name!r}; known ops: {', '.join(op_names())}")


def test_cases(op_name: str) -> dict[str, OpTestCase]:
    return op(op_name).test_cases


def for_edge_node(node: Node) -> ArmOp | None:
    return _by_edge_target().get(node.target) if node.op == "call_function" else None


def for_aten_node(node: Node) -> ArmOp | None:
    return _by_aten_target().get(node.target) if node.op == "call_function" else None


def is_fused_activation(node: Node) -> bool:
    """True for an activation (edge or ATen node) that may fold into its producer's output grid."""
    arm_op = for_edge_node(node) or for_aten_node(node)
    return arm_op is not None and arm_op.fuses_into_producer


def ops_to_not_decompose() -> list[torch._ops.OpOverload]:
    return [target for op in _ops() for target in op.keep_in_edge]


def unsupported_reason(node: Node, tosa_spec: TosaSpecification) -> str | None:
    """None when ``node`` can be lowered on its own for ``tosa_spec``; otherwise why not.

    Quantize/dequantize nodes are lowerable in the INT profile (the lowering folds them); whether one
    belongs inside a partition is the partitioner's boundary rule.
    """
    from arm.ops.support import describe  # support consults this registry

    if is_quantize(node) or is_dequantize(node):
        if tosa_spec.is_int:
            return None
        return f"{describe(node)}: quantize/dequantize ops cannot be lowered for {tosa_spec}"
    arm_op = for_edge_node(node)
    if arm_op is None:
        return f"{describe(node)}: no Arm TOSA lowering exists for this operator"
    return arm_op.support(node, tosa_spec)

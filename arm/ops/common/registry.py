"""The registry of lowered operators: every module directly under arm/ops/ is one op and ends in ``OP = ArmOp(...)``.

The folder is the list: adding ``arm/ops/<name>.py`` registers the op here, and BUILD.bazel globs the same
files for its tests, so there is no second list to keep in step. Callers ask the registry, never a chain of
ifs: the partitioner for support rules, the quantizer for annotations, the lowering for TOSA emitters and
the test harness for example cases.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

import torch
from torch.fx import GraphModule, Node

import arm.ops
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.aten_rewrite import contiguous_before_views_downstream, reshape_views_downstream
from arm.ops.common.node_info import describe
from arm.ops.common.op_test_case import OpTestCase
from arm.tosa.quantization import is_dequantize, is_quantize
from arm.tosa.specification import TosaSpecification


def op_module_names() -> list[str]:
    """The op files of arm/ops/ (without ``.py``), sorted: sub-packages such as ``common`` hold no ops."""
    return sorted(info.name for info in pkgutil.iter_modules(arm.ops.__path__) if not info.ispkg)


@functools.cache
def _ops() -> tuple[ArmOp, ...]:
    # Imported lazily: op modules import the support rules, which consult this registry.
    ops = []
    for module_name in op_module_names():
        module = importlib.import_module(f"arm.ops.{module_name}")
        arm_op = getattr(module, "OP", None)
        if not isinstance(arm_op, ArmOp):
            raise TypeError(
                f"arm/ops/{module_name}.py defines no `OP = ArmOp(...)`; shared code belongs in arm/ops/common/"
            )
        if arm_op.name != module_name:
            # Test ids, --test_filter and the README's op table all use the file name.
            raise ValueError(f"arm/ops/{module_name}.py declares an op named {arm_op.name!r}; name it {module_name!r}")
        ops.append(arm_op)
    return tuple(ops)


@functools.cache
def _by_edge_target() -> dict[object, ArmOp]:
    by_target: dict[object, ArmOp] = {}
    for op in _ops():
        for target in op.edge_targets:
            if target in by_target:
                raise ValueError(f"{target} is lowered by two ops, {by_target[target].name} and {op.name}")
            by_target[target] = op
    return by_target


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


def decompose_for_quantization(model: GraphModule) -> GraphModule:
    """Applies every op's ``decompose_for_quantization`` to its ATen nodes (before pt2e annotation)."""
    changed = False
    for node in list(model.graph.nodes):
        arm_op = for_aten_node(node)
        if arm_op is not None and arm_op.decompose_for_quantization is not None:
            reshape_views_downstream(node)  # the pieces' layout is not the op's: see there
            arm_op.decompose_for_quantization(node)
            changed = True
    if changed:
        model.graph.eliminate_dead_code()
        model.recompile()
    return model


def contiguous_views_behind_decompositions(model: GraphModule) -> GraphModule:
    """For a program lowered float: the views behind ops with a decomposition read a contiguous clone.

    The float path quantizes nothing, so ``decompose_for_quantization`` never runs, and to_edge traces
    the program again with sdpa's layout changed (its decomposition, or its kept node's fake value, lays
    the result out [B, H, S, D] where export's CPU sdpa gave [B, S, H, D]): a view of sdpa's transposed
    result traced at export then fails inside to_edge (BART, which merges heads that way).
    """
    changed = [
        reshaped
        for node in list(model.graph.nodes)
        if (arm_op := for_aten_node(node)) is not None and arm_op.decompose_for_quantization is not None
        for reshaped in contiguous_before_views_downstream(node)
    ]
    if changed:
        model.recompile()
    return model


def unsupported_reason(node: Node, tosa_spec: TosaSpecification) -> str | None:
    """None when ``node`` can be lowered on its own for ``tosa_spec``; otherwise why not.

    Quantize/dequantize nodes are lowerable in the INT profile (the lowering folds them); whether one
    belongs inside a partition is the partitioner's boundary rule.
    """
    if is_quantize(node) or is_dequantize(node):
        if tosa_spec.is_int:
            return None
        return f"{describe(node)}: quantize/dequantize ops cannot be lowered for {tosa_spec}"
    arm_op = for_edge_node(node)
    if arm_op is None:
        return f"{describe(node)}: no Arm TOSA lowering exists for this operator"
    return arm_op.support(node, tosa_spec)

"""Partitioners that hand the nodes the Arm flow can lower to the TOSA, Ethos-U or VGF delegate.

A node is delegated when its op module's support rule accepts it and, in the INT profile, the
partition keeps int8 at its edges: a partition starts at the dequantize of an int8 input and ends at
the quantize that produces an int8 output, so the first quantize and last dequantize of a model stay
on the CPU. Every call_function left on the CPU is logged and kept in ``rejected`` with its reason.
"""

from __future__ import annotations

import logging
from typing import Callable, Mapping

import torch
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data
from torch.export import ExportedProgram
from torch.fx import Graph, Node
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from arm.compile_spec import ArmCompileSpec, EthosUCompileSpec, VgfCompileSpec
from arm.ops.common import registry
from arm.ops.common.support import describe
from arm.passes.int64_to_int32 import narrow_int64
# executorch finds a delegate among the loaded BackendDetails subclasses, so load them all here.
from arm.ethosu import backend as _ethosu_backend  # noqa: F401
from arm.tosa import backend as _tosa_backend  # noqa: F401
from arm.vgf import backend as _vgf_backend  # noqa: F401
from arm.tosa.quantization import is_dequantize, is_quantize
from arm.tosa.specification import TosaSpecification

logger = logging.getLogger(__name__)


class TOSAPartitioner(Partitioner):
    """Delegates supported subgraphs to ``compile_spec.backend_id`` (``TOSABackend`` for TosaCompileSpec)."""

    def __init__(self, compile_spec: ArmCompileSpec):
        super().__init__()
        self.compile_spec = compile_spec
        self.delegation_spec = DelegationSpec(compile_spec.backend_id, compile_spec.to_list())
        self.rejected: list[tuple[str, str]] = []

    def ops_to_not_decompose(
        self, ep: ExportedProgram
    ) -> tuple[list[torch._ops.OpOverload], Callable[[Node], bool] | None]:
        """Ops such as linear lower better whole; each is kept only where it will be delegated, as
        executorch has no CPU kernel for the undecomposed form."""
        spec = self.compile_spec.tosa_spec

        def will_be_delegated(node: Node) -> bool:
            arm_op = registry.for_aten_node(node)
            return arm_op is not None and arm_op.support(node, spec) is None

        kept = registry.ops_to_not_decompose()
        if all(will_be_delegated(node) for node in ep.graph.nodes if node.target in kept):
            # No per-node filter needed: executorch then decomposes once instead of three times (a third
            # of MobileNetV2's compile time).
            return kept, None
        return kept, will_be_delegated

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        graph_module = exported_program.graph_module
        # TOSA has no int64: indices and int64 results of delegated ops become int32 first.
        narrowing = narrow_int64(exported_program, lambda node: registry.for_edge_node(node) is not None)
        selected, self.rejected = select_nodes(graph_module.graph, self.compile_spec.tosa_spec)
        self.rejected = narrowing.kept + self.rejected
        for name, reason in self.rejected:
            logger.info("%s stays on the CPU: %s", name, reason)
        proposer = CapabilityBasedPartitioner(graph_module, _InSet(selected), allows_single_node_partition=True)
        partition_tags: dict[str, DelegationSpec] = {}
        for partition in proposer.propose_partitions():
            if not any(registry.for_edge_node(node) for node in partition.nodes):
                continue  # only q/dq nodes: nothing for the NPU to compute
            tag = f"{self.compile_spec.backend_id}_{len(partition_tags)}"
            for node in partition.nodes:
                node.meta["delegation_tag"] = tag
            partition_tags[tag] = self.delegation_spec
        tag_constant_data(exported_program)
        return PartitionResult(tagged_exported_program=exported_program, partition_tags=partition_tags)


class EthosUPartitioner(TOSAPartitioner):
    """Delegates to ``EthosUBackend``, which lowers to TOSA and compiles with Vela."""

    def __init__(self, compile_spec: EthosUCompileSpec):
        super().__init__(compile_spec)


class VgfPartitioner(TOSAPartitioner):
    """Delegates to ``VgfBackend``, which lowers to TOSA and converts it to VGF."""

    def __init__(self, compile_spec: VgfCompileSpec):
        super().__init__(compile_spec)


def select_nodes(graph: Graph, spec: TosaSpecification) -> tuple[set[Node], list[tuple[str, str]]]:
    """The call_function nodes to delegate, and (name, reason) for every one left on the CPU."""
    selected: set[Node] = set()
    reasons: dict[Node, str] = {}
    for node in graph.nodes:
        if node.op != "call_function":
            continue
        reason = registry.unsupported_reason(node, spec)
        if reason is None:
            selected.add(node)
        else:
            reasons[node] = reason
    if spec.is_int:
        _trim_to_int8_boundaries(selected, reasons, spec)
    rejected = [(node.name, reasons[node]) for node in graph.nodes if node in reasons]
    return selected, rejected


def _trim_to_int8_boundaries(selected: set[Node], reasons: dict[Node, str], spec: TosaSpecification) -> None:
    """Drops nodes until every edge entering or leaving the selection carries int8."""
    changed = True
    while changed:
        changed = False
        for node in sorted(selected, key=lambda n: n.name):
            reason = _boundary_reason(node, selected) or _ethos_u_bool_reason(node, selected, spec)
            if reason is not None:
                selected.discard(node)
                reasons[node] = reason
                changed = True


def _boundary_reason(node: Node, selected: set[Node]) -> str | None:
    where = describe(node)
    if is_quantize(node):
        producer = node.args[0]
        if producer not in selected:
            return f"{where}: quantizes {producer.name}, a float from outside; its int8 result enters the partition"
        return None
    if is_dequantize(node):
        outside = [user.name for user in node.users if user not in selected]
        if outside:
            return f"{where}: dequantizes for {', '.join(outside)} outside the partition; its int8 input leaves it"
        return None
    for producer in node.all_input_nodes:
        if producer.op == "call_function" and producer not in selected:
            return f"{where}: its input {producer.name} stays on the CPU, so it would receive a float tensor"
    if not _carries_reals(node):
        return None  # integer and bool results (bitwise, logical ops) leave the partition as they are
    for user in node.users:
        if user not in selected:
            return f"{where}: its int8 result feeds {user.name} outside the partition without a quantize"
    return None


def _ethos_u_bool_reason(node: Node, selected: set[Node], spec: TosaSpecification) -> str | None:
    """Vela 5.2.0 fails (in its own report writer) on a bool tensor entering or leaving the NPU graph;
    bool intermediates (compare -> logical -> where) compile and run."""
    if not (spec.has("u55") or spec.has("u85")) or is_quantize(node) or is_dequantize(node):
        return None
    crossing = [arg.name for arg in node.all_input_nodes if _is_bool(arg) and arg not in selected]
    if _is_bool(node) and any(user not in selected for user in node.users):
        crossing.append(node.name)
    if not crossing:
        return None
    return (
        f"{describe(node)}: bool tensor {', '.join(crossing)} would cross the Ethos-U partition's boundary, "
        "which Vela 5.2.0 fails to compile; it runs on the CPU"
    )


def _is_bool(node: Node) -> bool:
    value = node.meta.get("val")
    return isinstance(value, torch.Tensor) and value.dtype == torch.bool


def _carries_reals(node: Node) -> bool:
    """True unless the node's result is an integer or bool tensor, which no quantize stands for."""
    value = node.meta.get("val")
    return not isinstance(value, torch.Tensor) or value.dtype.is_floating_point


class _InSet(OperatorSupportBase):
    def __init__(self, nodes: set[Node]):
        super().__init__()
        self._nodes = nodes

    def is_node_supported(self, submodules: Mapping[str, torch.nn.Module], node: Node) -> bool:
        return node in self._nodes

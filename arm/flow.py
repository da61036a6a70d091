"""The Arm flow from a PyTorch model to an ExecuTorch .pte, shared by the CLI, Bazel, tests and benchmarks.

    export -> quantize (pt2e: prepare, calibrate, convert) -> re-export
           -> edge program (executorch's to_edge, or arm.edge_in_place without its re-trace)
           -> partition and lower (TOSA, Vela) -> serialize to .pte

A target name picks the compile spec, partitioner and quantizer from one registry, so adding a target
is one entry there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import sys
import time
from typing import Callable, Iterator

import executorch.kernels.quantized  # noqa: F401 (out variants of the q/dq ops a quantized .pte runs on the CPU)
import torch
from executorch.exir import EdgeCompileConfig, EdgeProgramManager, to_edge_transform_and_lower
from executorch.exir.program._program import (
    _remove_invalid_ops_for_not_decompose,
    _sanity_check_graph_for_non_decomp_ops,
    lift_constant_tensor_pass,
)
from executorch.exir.tracer import _default_decomposition_table
from executorch.exir.delegate import executorch_call_delegate
from executorch.exir.backend.partitioner import Partitioner
from torchao.quantization.pt2e import quantize_pt2e as quantize_pt2e_module
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from torchao.quantization.pt2e.quantizer import Quantizer

from arm.artifacts import Artifacts, collect_artifacts
from arm import edge_in_place
from arm.compile_spec import ETHOS_U_TARGETS, ArmCompileSpec, EthosUCompileSpec, TosaCompileSpec, VgfCompileSpec
from arm.fallback import FallbackPlan, lowering_error_in
from arm.int8_io import IoQuantization, apply_int8_io
from arm.model_spec import ModelSpec
from arm.ops.common import registry
from arm.ops.common.control_flow import target_gap
from arm.ops.common.node_info import describe
from arm.partitioner import EthosUPartitioner, TOSAPartitioner, VgfPartitioner
from arm.passes import EDGE_TRANSFORM_PASSES
from arm.passes.convolution_spelled_out import spell_out_convolutions
from arm.passes.inline_mode_regions import inline_mode_regions
from arm.passes.quantized_table_lookup import look_up_quantized_rows
from arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from arm.shared_provenance import sharing_node_provenance
from arm.tosa.quantization import is_dequantize, is_quantize

logger = logging.getLogger(__name__)

STAGES = ("export", "quantize", "re-export", "lower", "serialize")

# How the quantized ATen program becomes the edge program the partitioner sees: arm.edge_in_place (the
# default: rewrites it node by node, falling back to to_edge, with the reason, for what it cannot rewrite
# exactly as to_edge would) or executorch's to_edge (re-traces the whole program).
EDGE_ROUTES = ("in_place", "to_edge")
DEFAULT_EDGE_ROUTE = "in_place"

# executorch's edge verifier re-checks every operator's dtypes against its kernel table (a fifth of
# MobileNetV2's lowering time); the graph comes from executorch's own decompositions and the delegated
# part from our lowering, so the check buys nothing here. ExecuTorch's own Arm flow turns it off too.
_EDGE_CONFIG = EdgeCompileConfig(_check_ir_validity=False)


class FlowError(RuntimeError):
    """The flow cannot run as asked: an unknown target, options that do not fit it, ..."""


class StageError(RuntimeError):
    """A stage failed; the original error is the ``__cause__``."""

    def __init__(self, stage: str, target: str, cause: BaseException):
        super().__init__(f"{stage} failed for target {target}: {cause}")
        self.stage = stage
        self.target = target


@dataclasses.dataclass(frozen=True)
class EthosUOptions:
    """Vela settings a user may override for an Ethos-U target; ``None`` keeps the target's default.
    ``lookups``: where the NPU's table lookups run, by cost or on the NPU (EthosUCompileSpec)."""

    system_config: str | None = None
    memory_mode: str | None = None
    vela_flags: tuple[str, ...] = ()
    lookups: str | None = None

    @property
    def is_default(self) -> bool:
        return self == EthosUOptions()


@dataclasses.dataclass(frozen=True)
class _TargetKind:
    make_spec: Callable[[str, EthosUOptions], ArmCompileSpec]
    make_partitioner: Callable[[ArmCompileSpec], Partitioner]
    make_quantizer: Callable[[ArmCompileSpec], Quantizer] | None


@dataclasses.dataclass(frozen=True)
class Target:
    """A resolved target: its name and the three pieces of the flow it selects."""

    name: str
    compile_spec: ArmCompileSpec
    kind: _TargetKind

    @property
    def is_quantized(self) -> bool:
        return self.kind.make_quantizer is not None

    @property
    def is_ethos_u(self) -> bool:
        return isinstance(self.compile_spec, EthosUCompileSpec)

    @property
    def is_vgf(self) -> bool:
        return isinstance(self.compile_spec, VgfCompileSpec)

    def partitioner(self) -> Partitioner:
        return self.kind.make_partitioner(self.compile_spec)

    def quantizer(self) -> Quantizer:
        if self.kind.make_quantizer is None:
            raise FlowError(f"target {self.name} runs float and has no quantizer")
        return self.kind.make_quantizer(self.compile_spec)


def _symmetric_int8_quantizer(spec: ArmCompileSpec) -> Quantizer:
    quantizer = EthosUQuantizer(spec)
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    return quantizer


def _without_vela(
    make_spec: Callable[[str], ArmCompileSpec], spec_text: str
) -> Callable[[str, EthosUOptions], ArmCompileSpec]:
    def make(name: str, options: EthosUOptions) -> ArmCompileSpec:
        if not options.is_default:
            raise FlowError(
                "Ethos-U options (system config, memory mode, Vela flags, lookups) only apply to Ethos-U targets, "
                f"not {name}"
            )
        return make_spec(spec_text)

    return make


def _ethos_u_spec(name: str, options: EthosUOptions) -> ArmCompileSpec:
    return EthosUCompileSpec(name, options.system_config, options.memory_mode, options.vela_flags,
                             lookups=options.lookups)  # fmt: skip


_TOSA_INT = _TargetKind(_without_vela(TosaCompileSpec, "TOSA-1.0+INT"), TOSAPartitioner, _symmetric_int8_quantizer)
_TOSA_FP = _TargetKind(_without_vela(TosaCompileSpec, "TOSA-1.0+FP"), TOSAPartitioner, None)
_ETHOS_U = _TargetKind(_ethos_u_spec, EthosUPartitioner, _symmetric_int8_quantizer)
_VGF_INT = _TargetKind(_without_vela(VgfCompileSpec, "TOSA-1.0+INT"), VgfPartitioner, _symmetric_int8_quantizer)
_VGF_FP = _TargetKind(_without_vela(VgfCompileSpec, "TOSA-1.0+FP"), VgfPartitioner, None)

TARGETS: dict[str, _TargetKind] = {
    "tosa-INT": _TOSA_INT,
    "tosa-FP": _TOSA_FP,
    **{name: _ETHOS_U for name in ETHOS_U_TARGETS},
    "vgf-INT": _VGF_INT,
    "vgf-FP": _VGF_FP,
}


def resolve_target(name: str, options: EthosUOptions = EthosUOptions()) -> Target:
    if name not in TARGETS:
        raise FlowError(f"unknown target {name!r}; choose one of {', '.join(TARGETS)}")
    kind = TARGETS[name]
    return Target(name, kind.make_spec(name, options), kind)


@dataclasses.dataclass
class FlowResult:
    """What one run of the flow produced.

    ``quantized_module`` is the converted pt2e module (``None`` when nothing was quantized): the
    torch-side reference an integer delegate should match. ``rejected`` lists the (node, reason)
    pairs the partitioner kept on the CPU. ``delegate_ids`` names the backend of each delegate in the
    .pte's execution plan. ``delegate_inputs`` says, for each delegate call in program order and each of
    its inputs, which model input it is (the index into the model's arguments, reached through CPU-side
    quantize nodes) or ``None`` when the CPU computes it: delegates take their inputs in the order of
    first use, not in the model's argument order. ``delegated`` names the delegated nodes that compute
    (q/dq folded at partition edges not counted); ``delegated_share`` relates them to the computing
    nodes left on the CPU. ``io`` describes each program input and output's int8 grid when the flow ran
    with ``int8_io`` (arm.int8_io), and is empty otherwise. ``float_program`` (the export before
    quantization) and ``edge_graph`` (the partitioned edge graph, delegate calls in place, its lowered
    modules as submodules) are what arm.report reads to place and compare every node; ``edge_graph`` is
    copied before serialization, which rewrites the graph in place into out-variants and allocations.
    ``edge_route`` says how the edge program was made: ``"in_place"`` (arm.edge_in_place), or
    ``"to_edge"``, with the reason in brackets when the in-place route was asked for and not taken.
    """

    target: Target
    pte: bytes
    artifacts: Artifacts
    quantized_module: torch.fx.GraphModule | None
    stage_seconds: dict[str, float]
    rejected: list[tuple[str, str]]
    delegate_ids: tuple[str, ...]
    delegate_inputs: tuple[tuple[int | None, ...], ...] = ()
    delegated: tuple[str, ...] = ()
    io: tuple[IoQuantization, ...] = ()
    float_program: torch.export.ExportedProgram | None = None
    edge_graph: torch.fx.GraphModule | None = None
    edge_route: str = "to_edge"

    @property
    def cpu_compute_nodes(self) -> list[str]:
        """Nodes left on the CPU that compute: not quantize/dequantize, not a getitem selecting a result."""
        return [
            name
            for name, _ in self.rejected
            if not name.startswith(("quantized_decomposed_", "getitem", "<"))
        ]

    @property
    def delegated_share(self) -> float:
        total = len(self.delegated) + len(self.cpu_compute_nodes)
        return len(self.delegated) / total if total else 0.0


def run_flow(
    model: ModelSpec,
    target: Target,
    *,
    quantize: bool = True,
    calibration_samples: int | None = None,
    progress: bool = True,
    num_threads: int | None = 1,
    int8_io: bool = False,
    edge_route: str = DEFAULT_EDGE_ROUTE,
) -> FlowResult:
    """Compiles ``model`` for ``target`` into .pte bytes.

    Args:
        quantize: run pt2e quantization when the target is an integer one; turn it off for a model
            that is already quantized.
        calibration_samples: how many of ``model.calibration_inputs`` to observe; ``None`` means all.
        progress: write one line per stage (and the partitioning) to stderr.
        num_threads: torch's intra-op thread count; ``None`` leaves it alone.
        int8_io: the program takes and returns int8 where the quantizer put its inputs and outputs on a
            grid, with each grid recorded in the .pte (see arm.int8_io); needs a quantized target.
        edge_route: ``"in_place"`` (arm.edge_in_place: the same edge program as to_edge's without its
            re-trace where it can be built so; executorch's otherwise, with the reason in
            ``FlowResult.edge_route``) or ``"to_edge"`` (executorch's re-trace only).
    """
    if edge_route not in EDGE_ROUTES:
        raise FlowError(f"unknown edge_route {edge_route!r}; choose one of {', '.join(EDGE_ROUTES)}")
    if int8_io and not (quantize and target.is_quantized):
        raise FlowError(f"int8 inputs and outputs need a quantized program; {target.name} with quantize={quantize} is float")
    if calibration_samples is not None and calibration_samples < 1:
        raise FlowError(f"calibration_samples must be at least 1, got {calibration_samples}")
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    with sharing_node_provenance():
        return _run_stages(model, target, quantize, calibration_samples, progress, int8_io, edge_route)


def _run_stages(
    model: ModelSpec,
    target: Target,
    quantize: bool,
    calibration_samples: int | None,
    progress: bool,
    int8_io: bool,
    edge_route: str,
) -> FlowResult:
    stages = _StageReporter(target.name, progress)
    module = model.module.eval()
    example_inputs = _in_default_dim_order(model.example_inputs)

    with stages.run("export"):
        exported = torch.export.export(module, example_inputs)
        # Before the control-flow checks and quantization: a region that only turns autocast or grad mode
        # off is no control flow, and pt2e would leave its ops float (arm/passes/inline_mode_regions.py).
        inline_mode_regions(exported.graph_module)
    loops = _loops_executorch_cannot_run(exported.graph_module)
    if loops and (gap := target_gap(target.compile_spec.tosa_spec, "WHILE_LOOP")) is not None:
        raise FlowError(_loop_refusal(loops, gap))
    float_program = exported

    quantized_module = None
    unquantized_reason = None
    if quantize and target.is_quantized:
        samples = model.calibration_inputs[:calibration_samples]
        nested = _nested_control_flow(exported.graph_module)
        if nested:
            # pt2e's convert loses the branches of a cond inside a cond (torch 2.13, torchao 0.18:
            # "references nonexistent attribute true_graph_0"); such a model runs float on the CPU.
            unquantized_reason = (
                f"nested control flow ({', '.join(nested)}): pt2e cannot quantize a cond inside a cond, "
                "so the model stays float and runs on the CPU (lift the inner cond out of the branch to delegate)"
            )
            stages.skip("quantize", unquantized_reason)
            stages.skip("re-export", unquantized_reason)
        else:
            with stages.run("quantize", f"{len(samples)} calibration samples"):
                quantized_module = _quantize(exported, target.quantizer(), samples)
            with stages.run("re-export"):
                exported = torch.export.export(quantized_module, example_inputs)
    else:
        reason = f"{target.name} runs float" if not target.is_quantized else "quantization turned off"
        stages.skip("quantize", reason)
        stages.skip("re-export", reason)

    # A retry needs the program as it was before the failed attempt's decompositions rewrote it; export
    # again from the module then, rather than deep-copying the program before every attempt.
    traced_module = quantized_module if quantized_module is not None else module
    prepare = _float_program if quantized_module is None else (lambda program: program)
    programs = _ProgramSource(
        prepare(exported), lambda: prepare(torch.export.export(traced_module, example_inputs))
    )
    with stages.run("lower"):
        edge, partitioner, artifacts, plan, route = _lower_with_fallback(programs, target, stages, edge_route)
        edge = look_up_quantized_rows(edge)
    if loops_on_cpu := _loops_executorch_cannot_run(edge.exported_program().graph_module):
        # The target runs loops (TOSA FP with cf), but this one was not delegated whole.
        reasons = dict(partitioner.rejected)
        raise FlowError(_loop_refusal(loops_on_cpu, "; ".join(reasons.get(name, "it was not delegated") for name in _loop_names(edge))))
    if kernelless := _custom_operators_without_kernels(edge.exported_program().graph_module):
        # The CPU would have to run them, and ExecuTorch's serializer refuses an operator it has no out
        # variant for ("Missing out variants"): say which node and why, before serializing.
        reasons = dict(partitioner.rejected)
        raise FlowError(_kernelless_refusal(kernelless, target.name, reasons))
    io = apply_int8_io(edge) if int8_io else ()
    # Read before serialization rewrites the graph into out-variants with allocations.
    edge_graph = _snapshot(edge.exported_program())
    delegate_inputs = _delegate_input_sources(edge.exported_program())
    with stages.run("serialize"):
        program = edge.to_executorch()
        pte = program.buffer

    # Entries named in angle brackets are about the model, not about one node; int8 I/O removes the
    # boundary quantize/dequantize nodes the partitioner had left on the CPU.
    # Named from the snapshot: serialization renames the CPU nodes it turns into out-variants.
    remaining = {node.name for node in edge_graph.graph.nodes}
    rejected = [("<quantize>", unquantized_reason)] if unquantized_reason else []
    rejected += [(name, reason) for name, reason in partitioner.rejected if name in remaining] + [
        (f"<decomposed {op}>", f"{op}: kept whole for the delegate but left on the CPU, so decomposed: {reason}")
        for op, reason in plan.decomposed.items()
    ]
    rejected += _unexplained_cpu_nodes(edge_graph, rejected)
    delegate_ids = tuple(d.id for plan in program.executorch_program.execution_plan for d in plan.delegates)
    if progress:
        _report_partitioning(target, rejected, delegate_ids)
        _report_io(io)
    return FlowResult(
        target,
        pte,
        artifacts,
        quantized_module,
        stages.seconds,
        rejected,
        delegate_ids,
        delegate_inputs,
        delegated=tuple(partitioner.delegated),
        io=io,
        float_program=float_program,
        edge_graph=edge_graph,
        edge_route=route,
    )


def _unexplained_cpu_nodes(graph: torch.fx.GraphModule, rejected: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A reason for each CPU node the partitioner did not name: executorch leaves the quantize or
    dequantize at a delegate's edge outside it even when the partition held it."""
    explained = {name for name, _ in rejected}
    reasons = []
    for node in graph.graph.nodes:
        if node.op != "call_function" or node.name in explained:
            continue
        if node.target is executorch_call_delegate or getattr(node.target, "__name__", "") == "getitem":
            continue
        what = "quantizes or dequantizes at a delegate's edge" if is_quantize(node) or is_dequantize(node) else (
            "was left outside every partition by executorch's lowering"
        )
        reasons.append((node.name, f"{describe(node)}: {what}; it runs on the CPU"))
    return reasons


def _in_default_dim_order(inputs: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """The example inputs with their dims in the default (contiguous) order.

    An exported program takes each input in its example's dim order, and a channels-last example would
    give the program a channels-last input (ExecuTorch dim order 0, 2, 3, 1). A TOSA or Ethos-U delegate
    reads and writes its tensors' bytes in the default order, so the delegate read such an input's NHWC
    bytes as NCHW: the peer's rand_4d_channels_last cases gave wrong numbers (pixel_shuffle, relu, conv
    alike). The program takes its inputs contiguous instead; the values are the same.
    """
    return tuple(x.contiguous() if isinstance(x, torch.Tensor) else x for x in inputs)


def _snapshot(program: torch.export.ExportedProgram) -> torch.fx.GraphModule:
    """A copy of ``program``'s graph over the same submodules (the lowered delegates), safe from serialization."""
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(program.graph, {}))
    return torch.fx.GraphModule(program.graph_module, graph)


# Each failed attempt moves at least one node or operator to the CPU; this only bounds a pathological graph.
_MAX_LOWERING_ATTEMPTS = 16


class _ProgramSource:
    """The exported program for each lowering attempt: the one in hand first, a fresh export after.

    executorch's decompositions rewrite the program they are given, so an attempt cannot reuse the one
    before it. Exporting the same module again gives the same graph with the same node names (which the
    fallback plan refers to); most models lower at the first attempt and never pay for it.
    """

    def __init__(self, first: torch.export.ExportedProgram, export_again: Callable[[], torch.export.ExportedProgram]):
        self._first: torch.export.ExportedProgram | None = first
        self._export_again = export_again

    def next(self) -> torch.export.ExportedProgram:
        program, self._first = self._first, None
        program = program if program is not None else self._export_again()
        # conv2d as the convolution it decomposes to: to_edge then skips a whole re-trace (see the pass).
        spell_out_convolutions(program.graph_module)
        return program


def _lower_with_fallback(
    programs: _ProgramSource, target: Target, stages: _StageReporter, edge_route: str
) -> tuple[EdgeProgramManager, Partitioner, Artifacts, FallbackPlan, str]:
    """Partitions and lowers; when a delegate cannot lower what was proposed, lowers again with it on the
    CPU (see arm.fallback), so what a model contains never ends the compile. Also returns the route the
    edge program took: ``"in_place"``, or ``"to_edge"`` with the reason the in-place one was not taken."""
    plan = FallbackPlan()
    for _ in range(_MAX_LOWERING_ATTEMPTS):
        partitioner = target.partitioner()
        partitioner.fallback = dataclasses.replace(plan, cpu_nodes=dict(plan.cpu_nodes), decomposed=dict(plan.decomposed))
        with collect_artifacts() as artifacts:
            try:
                program = programs.next()
                route = "to_edge"
                if edge_route == "in_place":
                    try:
                        edge = _edge_in_place(program, partitioner)
                        return _lower_in_place(edge, partitioner), partitioner, artifacts, plan, "in_place"
                    except edge_in_place.NotConvertible as why:
                        route = f"to_edge ({why})"
                        stages.note(f"edge program by to_edge: {why}")
                        logger.info("edge program by executorch's to_edge: %s", why)
                        if why.graph_changed:
                            program = programs.next()
                edge = to_edge_transform_and_lower(
                    program,
                    transform_passes=list(EDGE_TRANSFORM_PASSES),
                    partitioner=[partitioner],
                    compile_config=_EDGE_CONFIG,
                )
                return edge, partitioner, artifacts, plan, route
            except Exception as error:
                learned = _what_to_keep_on_cpu(error, partitioner, plan)
                if learned is None:
                    raise
                stages.note(f"retrying with {learned} on the CPU")
    raise FlowError(f"lowering for {target.name} still failed after {_MAX_LOWERING_ATTEMPTS} attempts: {plan}")


def _edge_in_place(program: torch.export.ExportedProgram, partitioner: Partitioner) -> EdgeProgramManager:
    """The edge program (after our edge passes) that ``to_edge_transform_and_lower`` would build, made by
    arm.edge_in_place. Where the partitioner keeps operators whole only on the nodes it will delegate
    (any model with SDPA), this follows executorch's per-node EDGE_DO_NOT_DECOMP path: decompose all but
    the kept operators, ask the filter about each kept node, decompose the declined ones. Raises
    NotConvertible where only executorch's re-trace makes the program, and when the conversion itself
    fails: a model's content never ends the compile, executorch's route takes it then."""
    kept, keep_only_where = partitioner.ops_to_not_decompose(program)
    table = _default_decomposition_table()
    kept_where = None
    if keep_only_where is None:
        preserved = [op for op in kept if table.pop(op, None) is not None]
    else:
        # executorch's filtered path: every valid kept operator leaves the first table, whether or not
        # the table holds it; the ones the filter accepts on some node are preserved in the end.
        preserved = _remove_invalid_ops_for_not_decompose(list(kept))
        full_table = dict(table)
        for op in preserved:
            table.pop(op, None)
        kept_where = edge_in_place.KeptWhereDelegated(keep_only_where, full_table)
    try:
        converted, preserved = edge_in_place.edge_program(program, table, preserved, _EDGE_CONFIG, kept_where)
        config = dataclasses.replace(_EDGE_CONFIG)
        config._core_aten_ops_exception_list = list(set(config._core_aten_ops_exception_list) | set(preserved))
        edge = EdgeProgramManager({"forward": converted}, None, config, preserved)
        edge = edge.transform(list(EDGE_TRANSFORM_PASSES))
        lift_constant_tensor_pass(edge.exported_program())
    except edge_in_place.NotConvertible:
        raise
    except Exception as error:
        raise edge_in_place.NotConvertible(
            f"arm.edge_in_place failed ({type(error).__name__}: {error})", graph_changed=True
        ) from error
    return edge


def _lower_in_place(edge: EdgeProgramManager, partitioner: Partitioner) -> EdgeProgramManager:
    """What ``to_edge_transform_and_lower`` does after building the edge program: partition and lower,
    then the same check that no operator kept whole for the delegate is left on the CPU."""
    edge = edge.to_backend({"forward": partitioner})
    kept_after, keep_only_where = partitioner.ops_to_not_decompose(edge.exported_program())
    if keep_only_where is not None:
        kept_after = _remove_invalid_ops_for_not_decompose(list(kept_after))
    # A kept operator left on the CPU has no kernel there; the error is the one arm.fallback recognizes,
    # and the flow lowers again with that operator decomposed.
    _sanity_check_graph_for_non_decomp_ops(
        "forward",
        edge.exported_program(),
        set(kept_after),
        keep_only_where,
        generate_error=True,
        partitioner_name=type(partitioner).__name__,
    )
    return edge


def _what_to_keep_on_cpu(error: Exception, partitioner: Partitioner, plan: FallbackPlan) -> str | None:
    """Adds what ``error`` says must stay on the CPU to ``plan``; None when it is no such error."""
    failure = lowering_error_in(error)
    if failure is not None:
        new = [name for name in failure.nodes if name not in plan.cpu_nodes]
        if not new:
            return None
        plan.cpu_nodes.update({name: _naming(name, failure.reason_for(name)) for name in new})
        return f"{len(new)} node(s) that failed to lower"
    undecomposed = {op: reason for op, reason in partitioner.undecomposed_on_cpu.items() if op not in plan.decomposed}
    if undecomposed and "was not decomposed or delegated" in str(error):
        plan.decomposed.update(undecomposed)
        return ", ".join(str(op) for op in undecomposed) + " decomposed"
    return None


def _naming(node_name: str, reason: str) -> str:
    """A reason that names ``node_name`` (a failing partition's reason names none of its nodes)."""
    return reason if f"node {node_name} " in reason else f"node {node_name}: {reason}"


def _delegate_input_sources(program: torch.export.ExportedProgram) -> tuple[tuple[int | None, ...], ...]:
    """For each delegate call, the model input behind each of its arguments (see ``FlowResult``)."""
    user_inputs = list(program.graph_signature.user_inputs)

    def source(node: torch.fx.Node) -> int | None:
        # A boundary quantize is the one CPU op between a model input and an integer delegate.
        while node.op == "call_function" and len(node.all_input_nodes) == 1:
            node = node.all_input_nodes[0]
        return user_inputs.index(node.name) if node.op == "placeholder" and node.name in user_inputs else None

    calls = [
        node
        for node in program.graph.nodes
        if node.op == "call_function" and node.target is executorch_call_delegate
    ]
    return tuple(tuple(source(argument) for argument in call.args[1:]) for call in calls)


def _loops_executorch_cannot_run(graph_module: torch.fx.GraphModule) -> list[str]:
    """``while_loop`` nodes anywhere in the program (executorch 1.5.1's emitter raises on them only
    after the whole compile): refused up front."""
    return [
        f"torch.while_loop ({node.name})"
        for module in graph_module.modules()
        if isinstance(module, torch.fx.GraphModule)
        for node in module.graph.nodes
        if node.target is torch.ops.higher_order.while_loop
    ]


def _loop_refusal(loops: list[str], why_not_delegated: str) -> str:
    return (
        f"{', '.join(loops)}: ExecuTorch's program format has no while loop (its emitter runs cond, map and "
        f"scan), so a loop runs only inside a delegate, and here it cannot ({why_not_delegated}); this model "
        "cannot become a .pte: unroll the loop or write it with torch.scan"
    )


def _custom_operators_without_kernels(graph_module: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """CPU nodes of a library's own operator (not ATen's) that has no out variant: ExecuTorch can run none
    of them (transformers' ``grouped_mm_fallback``, the experts of its default MoE implementation)."""
    from executorch.exir.dialects.edge._ops import EdgeOpOverload
    from executorch.exir.operator.convert import to_out_variant

    kernelless = []
    for node in graph_module.graph.nodes:
        target = node.target._op if isinstance(node.target, EdgeOpOverload) else node.target
        if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload) or target.namespace == "aten":
            continue
        try:
            to_out_variant(target)
        except (RuntimeError, AssertionError):
            kernelless.append(node)
    return kernelless


def _kernelless_refusal(nodes: list[torch.fx.Node], target: str, reasons: dict[str, str]) -> str:
    def why(node: torch.fx.Node) -> str:
        reason = reasons.get(node.name, "not delegated")
        return reason.split(": ", 1)[1] if reason.startswith(f"node {node.name}") else reason

    described = "; ".join(
        f"node {node.name} ({getattr(node.target, '_op', node.target).name()}) stays on the CPU: {why(node)}"
        for node in nodes
    )
    return (
        f"{described}. On {target} ExecuTorch has no kernel (out variant) for these custom operators, so "
        "the model cannot become a .pte: register the operator's out variant with ExecuTorch, or write the "
        "model without it (for a transformers mixture of experts: model.set_experts_implementation("
        "'batched_mm'), as transformers' own ExecuTorch exporter does)"
    )


def _loop_names(edge: object) -> list[str]:
    graph = edge.exported_program().graph
    return [node.name for node in graph.nodes if node.target is torch.ops.higher_order.while_loop]


def _nested_control_flow(graph_module: torch.fx.GraphModule) -> list[str]:
    """Names of control-flow branches that themselves hold control flow (a cond inside a cond)."""
    nested = []
    for name, module in graph_module.named_modules():
        if name and isinstance(module, torch.fx.GraphModule):
            if any(isinstance(node.target, torch._ops.HigherOrderOperator) for node in module.graph.nodes):
                nested.append(name)
    return nested


def _float_program(exported: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """A program lowered without quantization, its views behind decomposable ops made safe for to_edge's
    trace (registry.contiguous_views_behind_decompositions; the quantizing path makes them reshapes)."""
    registry.contiguous_views_behind_decompositions(exported.graph_module)
    return exported


def _quantize(
    exported: torch.export.ExportedProgram, quantizer: Quantizer, samples: list[tuple[torch.Tensor, ...]]
) -> torch.fx.GraphModule:
    exported = _functional_view_writes(exported)
    # Guards on the exported module would reject pt2e's own graph rewrites (torch 2.13).
    prepared = prepare_pt2e(exported.module(check_guards=False), quantizer)
    with torch.no_grad():
        for sample in samples:
            prepared(*sample)
    with _no_qat_conv_bn_folding():
        return convert_pt2e(prepared)


@contextlib.contextmanager
def _no_qat_conv_bn_folding() -> Iterator[None]:
    """convert_pt2e without its search for quantization-aware-training conv + batch-norm patterns.

    Whenever a batch norm is left in the graph, convert_pt2e exports 96 pattern graphs to look for the
    form prepare_qat_pt2e builds (torchao 0.18): about 60 CPU seconds for a lone BatchNorm2d, every compile.
    The flow prepares with prepare_pt2e (post-training), which has folded every conv + batch-norm pair into
    its convolution already, so that search cannot match; a batch norm still in the graph is lowered on its
    own. The flow exports in eval mode, so the training-statistics counter the search also removes is absent.
    """
    original = quantize_pt2e_module._fold_conv_bn_qat
    quantize_pt2e_module._fold_conv_bn_qat = lambda graph_module: graph_module
    try:
        yield
    finally:
        quantize_pt2e_module._fold_conv_bn_qat = original


def _functional_view_writes(exported: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """Functionalizes a program that writes into views (``x[i] = v``: select, then copy_).

    pt2e observes the view's result and quantizes a copy of it, so the in-place copy_ writes into that
    copy and the write is lost (torch 2.13, torchao 0.18: the quantized module returns x unchanged).
    Functional, the write is copy + select_scatter / slice_scatter, which the quantizer annotates.
    """
    if not any(node.target is torch.ops.aten.copy_.default for node in exported.graph.nodes):
        return exported
    return exported.run_decompositions({})


class _StageReporter:
    """Times stages and writes one progress line per stage."""

    def __init__(self, target: str, enabled: bool):
        self.target = target
        self.enabled = enabled
        self.seconds: dict[str, float] = {}

    def _prefix(self, stage: str, detail: str) -> str:
        label = f"{stage} ({detail})" if detail else stage
        return f"[{STAGES.index(stage) + 1}/{len(STAGES)}] {label}"

    @contextlib.contextmanager
    def run(self, stage: str, detail: str = "") -> Iterator[None]:
        self._write(f"{self._prefix(stage, detail)} ...")
        start = time.perf_counter()
        try:
            yield
        except Exception as error:
            self._write(" failed\n")
            raise StageError(stage, self.target, error) from error
        self.seconds[stage] = time.perf_counter() - start
        self._write(f" {self.seconds[stage]:.1f} s\n")

    def note(self, text: str) -> None:
        """A remark inside the running stage (its line is still open)."""
        self._write(f" {text} ...")

    def skip(self, stage: str, reason: str) -> None:
        self._write(f"{self._prefix(stage, '')} skipped: {reason}\n")

    def _write(self, text: str) -> None:
        if self.enabled:
            sys.stderr.write(text)
            sys.stderr.flush()


def _report_io(io: tuple[IoQuantization, ...]) -> None:
    if io:
        sys.stderr.write("".join(f"{boundary.describe()}\n" for boundary in io))


def _report_partitioning(target: Target, rejected: list[tuple[str, str]], delegate_ids: tuple[str, ...]) -> None:
    backend = target.compile_spec.backend_id
    delegated = sum(1 for d in delegate_ids if d == backend)
    lines = [f"{delegated} {backend} partition(s) for {target.name}"]
    if rejected:
        lines.append(f"{len(rejected)} node(s) stay on the CPU:")
        lines.extend(f"  {reason}" for _, reason in rejected)  # reasons name their node
    sys.stderr.write("".join(f"{line}\n" for line in lines))

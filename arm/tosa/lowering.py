"""Lowers a delegated edge sub-program to a TOSA 1.0 flatbuffer.

The walk is the same for both profiles: user inputs become TOSA inputs, constants become CONST
tensors when first read, each call_function goes to its op module through the registry. In the INT
profile the q/dq nodes inside the partition are folded instead of emitted: a dequantize attaches
quantization parameters to an int8 tensor, a quantize checks (or rescales to) the grid its producer
wrote. The graph's inputs and outputs keep PyTorch's shapes (NCHW); convolutions transpose to NHWC
and back, and arm.tosa.layout cancels the round trips between consecutive convolutions. Control flow
(cond, while_loop) lowers its graphs into regions of their own with ``lower_region``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import tosa_serializer as ts
from torch.export import ExportedProgram
from torch.fx import GraphModule, Node

from arm.artifacts import TensorIo, TosaArtifact
from arm.fallback import LoweringError
from arm.ops.common import registry
from arm.ops.common.node_info import describe
from arm.tosa.channel_block_convolutions import split_channel_block_convolutions
from arm.tosa.constant_matmuls import constant_matmuls_as_convolutions
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import BFLOAT16, TosaGraph, TosaValue
from arm.tosa.high_rank_slice_copies import copy_high_rank_slices
from arm.tosa.few_rows_on_channels import run_few_rows_on_channels
from arm.tosa.identity_clamp_removal import remove_identity_clamps
from arm.tosa.layout import cancel_round_trips
from arm.tosa.matmul_operand_copies import copy_windowed_matmul_operands
from arm.tosa.one_element_first_operands import run_one_element_first_operands_at_rank4
from arm.tosa.quantization import QParams, is_dequantize, is_quantize, numpy_dtype, qparams_of
from arm.tosa.rescale import requantize
from arm.tosa.rotary_halves import rotate_halves_in_constants
from arm.tosa.reshape_sinking import fold_reshapes
from arm.tosa.slice_hoisting import hoist_slices_below_transposes
from arm.tosa.specification import TosaSpecification
from arm.tosa.sum_as_convolution import sums_as_convolutions
from arm.tosa.table_prologue_folding import fold_prologues_into_tables
from arm.tosa.table_rescale_folding import fold_rescales_into_tables
from arm.tosa.ties_to_even_convolutions import ties_to_even_averages_as_convolutions
from arm.tosa.transpose_collapsing import (
    change_input_layouts,
    collapse_transposes_after_convolutions,
    pointwise_convolutions_of_channels_first,
)
from arm.tosa.unequal_add_sub_scales import keep_unequal_add_sub_scales_apart
from arm.tosa.unordered_sums import sum_without_transposes
from arm.tosa.widened_window_copies import copy_widened_windows


def lower_to_tosa(edge_program: ExportedProgram, spec: TosaSpecification) -> TosaArtifact:
    return lower_to_tosa_graph(edge_program, spec)[1]


def lower_to_tosa_graph(edge_program: ExportedProgram, spec: TosaSpecification) -> tuple[TosaGraph, TosaArtifact]:
    """``lower_to_tosa``, with the graph the flatbuffer was written from (arm.ethosu.vela_refusals
    compiles parts of it to find the operators Vela refuses)."""
    ctx = LoweringContext(TosaGraph(), spec, edge_program, registry.is_fused_activation)
    user_inputs = set(edge_program.graph_signature.user_inputs)
    inputs: list[Node] = []
    outputs: list[TosaValue] = []
    for node in edge_program.graph.nodes:
        if node.op == "placeholder" and node.name in user_inputs:
            ctx.define(node, ctx.graph.add_input(node.name, shape_of(node), numpy_dtype(node.meta["val"].dtype)))
            inputs.append(node)
        elif node.op == "call_function" and not _is_constant_dequantize(node, ctx):
            ctx.define(node, _lower_call_or_fall_back(node, ctx))
        elif node.op == "output":
            outputs = [ctx.value(arg) for arg in node.args[0]]
    for value in outputs:
        ctx.graph.mark_output(value)
    _rewrite(ctx.graph, spec)
    return ctx.graph, TosaArtifact(
        flatbuffer=ctx.graph.serialize(),
        inputs=tuple(_tensor_io(ctx.values[node].with_qparams(_input_qparams(node, ctx))) for node in inputs),
        outputs=tuple(_tensor_io(value) for value in outputs),
        spec=str(spec),
    )


def lower_region(
    graph_module: GraphModule, operands: Sequence[TosaValue], ctx: LoweringContext, region: str, *, passed_through: int = 0
) -> TosaGraph:
    """Lowers a control-flow graph (a cond branch, a loop's condition or body) into its own TOSA region.

    Its placeholders take ``operands`` in order (the TOSA values the calling operator passes in), its
    outputs are the region's, followed by its last ``passed_through`` inputs; the region is added to the
    main graph, which writes it after itself.
    """
    region_ctx = LoweringContext(TosaGraph(region), ctx.spec, ctx.program, ctx.is_fused_activation, root_graph=ctx.root)
    placeholders = [node for node in graph_module.graph.nodes if node.op == "placeholder"]
    if len(placeholders) != len(operands):
        raise ValueError(f"region {region} takes {len(placeholders)} inputs, {len(operands)} given")
    for node, operand in zip(placeholders, operands):
        region_ctx.define(node, region_ctx.graph.add_input(node.name, operand.shape, operand.dtype).with_qparams(operand.qparams))
    for node in graph_module.graph.nodes:
        if node.op == "call_function" and not _is_constant_dequantize(node, region_ctx):
            region_ctx.define(node, _lower_call_or_fall_back(node, region_ctx))
        elif node.op == "output":
            results = node.args[0] if isinstance(node.args[0], (list, tuple)) else [node.args[0]]
            for result in results:
                region_ctx.graph.mark_output(region_ctx.value(result))
    for node in placeholders[len(placeholders) - passed_through :]:
        region_ctx.graph.mark_output(region_ctx.value(node))
    _rewrite(region_ctx.graph, ctx.spec)
    ctx.root.add_region(region_ctx.graph)
    return region_ctx.graph


def _rewrite(graph: TosaGraph, spec: TosaSpecification) -> None:
    """The graph passes every lowered region goes through before it is serialized."""
    # The U85 writes a convolution's output transposed when a TRANSPOSE follows it, slowly (arm/tosa/layout.py).
    fused = spec.has("u85")
    cancel_round_trips(graph, transposes_fuse_into_convolutions=fused)
    fold_reshapes(graph)
    cancel_round_trips(graph, transposes_fuse_into_convolutions=fused)  # folded reshapes may let inverses meet
    hoist_slices_below_transposes(graph)
    rotate_halves_in_constants(graph)
    fold_rescales_into_tables(graph)
    fold_prologues_into_tables(graph)
    remove_identity_clamps(graph)
    if spec.has("u55") or spec.has("u85"):  # Vela 5.2.0's cheaper forms and departures (see the modules)
        constant_matmuls_as_convolutions(graph)
        split_channel_block_convolutions(graph)
        sums_as_convolutions(graph)
        ties_to_even_averages_as_convolutions(graph)  # reads the convolutions' sums
        copy_high_rank_slices(graph)  # first: a copied slice is no window for the MATMUL pass either
        copy_windowed_matmul_operands(graph)
    if spec.has("u55"):  # Vela 5.2.0's U55 departures (see the modules)
        keep_unequal_add_sub_scales_apart(graph)  # first: a widening it unfolds may read a window to copy
        copy_widened_windows(graph)
        run_one_element_first_operands_at_rank4(graph)
    if spec.has("u55") or spec.has("u85"):  # Vela 5.2.0 runs [R <= 16, 1] per-row chains 8-16x slower
        run_few_rows_on_channels(graph)
    if spec.has("u85"):  # last: the passes above read transposes by their perms
        sum_without_transposes(graph)
        collapse_transposes_after_convolutions(graph)
        pointwise_convolutions_of_channels_first(graph)
    if spec.has("u55") or spec.has("u85"):
        change_input_layouts(graph, by_convolution=spec.has("u85"))


def _lower_call_or_fall_back(node: Node, ctx: LoweringContext) -> TosaValue:
    """Lowers ``node``; any failure becomes a LoweringError naming it, so the flow keeps it on the CPU."""
    try:
        return _lower_call(node, ctx)
    except LoweringError:
        raise
    except Exception as error:  # an emitter's gap must not end the compile: the node falls back
        raise LoweringError(
            (node.name,), f"{describe(node)}: its TOSA lowering failed ({type(error).__name__}: {error})"
        ) from error


def _lower_call(node: Node, ctx: LoweringContext) -> TosaValue:
    if is_dequantize(node):
        return ctx.value(node.args[0]).with_qparams(qparams_of(node, ctx.constant))
    if is_quantize(node):
        # The producer already wrote onto this grid (it read it via output_qparams); this only
        # rescales if a producer chose another grid.
        return requantize(ctx.graph, ctx.value(node.args[0]), name=node.name, output=qparams_of(node, ctx.constant))
    arm_op = registry.for_edge_node(node)
    if arm_op is None:
        raise NotImplementedError(
            f"node {node.name} ({node.target}) reached the TOSA lowering but no Arm op lowers it; "
            "the partitioner should have left it on the CPU"
        )
    first_operator = len(ctx.graph.operators)
    value = arm_op.lower(node, ctx)
    if ctx.spec.is_fp:
        _check_one_float_type(node, ctx, value, ctx.graph.operators[first_operator:])
    return value


# CAST converts between types; MATMUL may give float32 products of half-precision operands (bfloat16
# ones have no other); every other TOSA 1.0 operator takes and gives floats of one type.
_TYPE_CONVERTING = frozenset({ts.Op.CAST})
_WIDENING_OUTPUT = frozenset({ts.Op.MATMUL})


def _check_one_float_type(node: Node, ctx: LoweringContext, value: TosaValue, operators: list) -> None:
    """Raises a LoweringError (the node stays on the CPU) if its FP lowering left the node's float type.

    The support rules let float16 and bfloat16 nodes through for every op (arm/ops/common/support.py,
    ``float_types``); a lowering that still makes a float32 constant or intermediate would give an
    invalid graph, so the type is checked here once, for every op, rather than trusted per op.
    """
    want = numpy_dtype(node.meta["val"].dtype) if _is_float_node(node) else None
    if want is not None and value.dtype != want:
        raise LoweringError((node.name,), f"{describe(node)}: its lowering gives {value.dtype}, not {want}; "
                            f"it lowers float32 only so far")  # fmt: skip
    for operator in operators:
        if operator.op in _TYPE_CONVERTING:
            continue
        checked = operator.inputs if operator.op in _WIDENING_OUTPUT else [*operator.inputs, *operator.outputs]
        floats = {ctx.graph.tensors[name].dtype for name in checked} & _FLOAT_DTYPES
        if len(floats) > 1:
            names = "/".join(sorted(str(dtype) for dtype in floats))
            raise LoweringError(
                (node.name,), f"{describe(node)}: its lowering mixes {names} in one {operator.op.name}; it lowers float32 only so far"
            )


_FLOAT_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float16), BFLOAT16})


def _is_float_node(node: Node) -> bool:
    value = node.meta.get("val")
    return hasattr(value, "dtype") and value.dtype.is_floating_point


def _is_constant_dequantize(node: Node, ctx: LoweringContext) -> bool:
    """Dequantized weights are read by their consumers (conv wants them re-laid out), not emitted here."""
    return is_dequantize(node) and ctx.is_constant(node.args[0])


def _input_qparams(node: Node, ctx: LoweringContext) -> QParams | None:
    return next((qparams_of(user, ctx.constant) for user in node.users if is_dequantize(user)), None)


def _tensor_io(value: TosaValue) -> TensorIo:
    qparams = value.qparams
    return TensorIo(
        name=value.name,
        shape=value.shape,
        dtype=value.dtype,
        scale=None if qparams is None else qparams.scale,
        zero_point=None if qparams is None else qparams.zero_point,
    )

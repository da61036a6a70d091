"""What an op lowering sees: the TOSA graph under construction and the TOSA value of each FX node."""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import torch
from torch.export import ExportedProgram
from torch.fx import Node

from arm.passes.program_constants import constant_value, is_stored
from arm.tosa.graph import TosaGraph, TosaValue, reshape
from arm.tosa.quantization import QParams, is_dequantize, numpy_dtype, output_quantize, qparams_of
from arm.tosa.specification import TosaSpecification


@dataclasses.dataclass
class LoweringContext:
    """Shared state of one lowering; op lowerings read values through it and add operators to ``graph``.

    ``is_fused_activation`` tells whether a node is an activation folded into its producer's output
    quantization (conv + relu): the producer then writes straight onto the activation's int8 grid.
    """

    graph: TosaGraph
    spec: TosaSpecification
    program: ExportedProgram
    is_fused_activation: Callable[[Node], bool]
    values: dict[Node, TosaValue] = dataclasses.field(default_factory=dict)
    _ranked: dict[tuple[Node, int], TosaValue] = dataclasses.field(default_factory=dict)
    # The results of a node that gives several (cond, while_loop), which its getitem users select.
    results: dict[Node, tuple[TosaValue, ...]] = dataclasses.field(default_factory=dict)
    # The main region's graph, which holds every region a control-flow operator calls; None: ``graph``.
    root_graph: TosaGraph | None = None

    @property
    def root(self) -> TosaGraph:
        return self.root_graph if self.root_graph is not None else self.graph

    def define(self, node: Node, value: TosaValue) -> None:
        self.values[node] = value

    def value(self, arg: Node, *, rank: int | None = None) -> TosaValue:
        """The TOSA tensor holding ``arg``; constants become TOSA CONST tensors on first use.

        ``rank`` asks for the value with leading 1-dims added, as TOSA's elementwise broadcasting
        needs operands of equal rank.
        """
        if arg not in self.values:
            self.values[arg] = self._constant_value(arg)
        value = self.values[arg]
        if rank is None or rank == value.rank:
            return value
        if (arg, rank) not in self._ranked:
            self._ranked[(arg, rank)] = self._with_rank(arg, value, rank)
        return self._ranked[(arg, rank)]

    def quantized_value(self, arg: Node, *, rank: int | None = None, dtype: np.dtype = np.dtype(np.int8)) -> TosaValue:
        """Like ``value``, but float constants (e.g. scalars lifted by to_edge) are quantized on the fly,
        symmetrically to ``dtype`` (codes -max..max, so every negation is representable; int16 beside
        int16 activations, whose steps an int8 grid would miss)."""
        if arg not in self.values and self.is_constant(arg) and self.constant(arg).is_floating_point():
            data = self.constant(arg).numpy().astype(np.float32)
            largest = np.iinfo(dtype).max
            scale = float(np.abs(data).max()) / largest or 1.0
            quantized = np.clip(np.round(data / scale), -largest, largest).astype(dtype)
            self.values[arg] = self.graph.add_const(arg.name, quantized, QParams((scale,), 0, np.dtype(dtype)))
        value = self.value(arg, rank=rank)
        if value.qparams is None:
            raise ValueError(
                f"{arg.name} ({arg.target}) feeds a quantized op but is not quantized; annotate its producer "
                "with the Arm quantizer or run the FP profile"
            )
        return value

    def _constant_value(self, arg: Node) -> TosaValue:
        if self.is_constant(arg):
            return self.graph.add_const(arg.name, tensor_to_numpy(self.constant(arg)))
        if is_dequantize(arg) and self.is_constant(arg.args[0]):
            data, qparams = self.quantized_constant(arg)
            return self.graph.add_const(arg.name, data, qparams)
        raise ValueError(
            f"node {arg.name} ({arg.op} {arg.target}) has no TOSA value yet: it is neither lowered "
            "before its users nor a constant; the partition it belongs to is malformed"
        )

    def _with_rank(self, arg: Node, value: TosaValue, rank: int) -> TosaValue:
        if value.rank > rank:
            raise ValueError(f"{arg.name} has rank {value.rank}, cannot be broadcast to rank {rank}")
        shape = (1,) * (rank - value.rank) + value.shape
        name = f"{value.name}_rank{rank}"
        if self.is_constant(arg) or (is_dequantize(arg) and self.is_constant(arg.args[0])):
            # Reshape constants at compile time rather than leaving a RESHAPE for the NPU compiler.
            data = self.graph.const_data(value.name).reshape(shape)
            return self.graph.add_const(name, data, value.qparams)
        return reshape(self.graph, value, shape, name=name)

    # Constants --------------------------------------------------------------------------------------

    def is_constant(self, node: object) -> bool:
        # Only the program's own placeholders are stored: a control-flow region's inputs may share a name.
        # A control-flow graph holds its constants (a branch's `t + 1.0`) as tensor attributes instead.
        if not isinstance(node, Node):
            return False
        if node.op == "get_attr":
            return isinstance(_attribute(node), torch.Tensor)
        return node.graph is self.program.graph and is_stored(self.program, node)

    def constant(self, node: Node) -> torch.Tensor:
        if node.op == "get_attr" and isinstance(_attribute(node), torch.Tensor):
            return _attribute(node).detach().contiguous()
        if not is_stored(self.program, node):
            raise ValueError(f"{node.name} ({node.op}) is not a parameter, buffer or lifted constant")
        return constant_value(self.program, node).detach().contiguous()

    def quantized_constant(self, dequantize: Node) -> tuple[np.ndarray, QParams]:
        """Integer data and parameters of ``dequantize(constant)``, e.g. a folded int8 weight."""
        return self.constant(dequantize.args[0]).numpy(), qparams_of(dequantize, self.constant)

    def real_constant(self, node: Node) -> np.ndarray:
        """The float values of a constant, dequantizing it when ``node`` is a dequantize of a constant."""
        if not is_dequantize(node):
            return tensor_to_numpy(self.constant(node)).astype(np.float32)
        data, qparams = self.quantized_constant(node)
        scales = np.array(qparams.scales, dtype=np.float64)
        if qparams.is_per_channel:
            scales = scales.reshape([-1 if d == qparams.axis else 1 for d in range(data.ndim)])
        return ((data.astype(np.float64) - qparams.zero_point) * scales).astype(np.float32)

    # Quantization -----------------------------------------------------------------------------------

    def output_qparams(self, node: Node) -> QParams:
        """The int8 grid ``node`` must write to: its quantize user's, or its fused activation's."""
        quantize = output_quantize(node, self.is_fused_activation)
        if quantize is not None:
            return qparams_of(quantize, self.constant)
        raise ValueError(
            f"{node.name} ({node.target}) is lowered for {self.spec} but its output is not quantized; "
            "annotate the model with the Arm quantizer before lowering, or use the FP profile"
        )


def _attribute(node: Node) -> object:
    module = node.graph.owning_module
    return getattr(module, str(node.target), None) if module is not None else None


def tensor_to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """``tensor.numpy()``, also for bfloat16 and float8, which numpy knows only through ml_dtypes."""
    if tensor.dtype == torch.bfloat16:
        return tensor.float().numpy().astype(numpy_dtype(torch.bfloat16))
    if tensor.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):  # the same bits, read as ml_dtypes' type
        return tensor.contiguous().view(torch.uint8).numpy().view(numpy_dtype(tensor.dtype))
    return tensor.numpy()


def shape_of(node: Node) -> tuple[int, ...]:
    return tuple(int(d) for d in node.meta["val"].shape)


def numpy_dtype_of(node: Node) -> np.dtype:
    """The node's tensor type as the TOSA graph holds it (float16 and bfloat16 nodes lower in their own type)."""
    return numpy_dtype(node.meta["val"].dtype)

"""A small recorded TOSA graph that the op lowerings write into and ``tosa_serializer`` serializes.

Every tensor gets a name chosen by the lowering (derived from FX node names), never an id or an
address, so lowering the same program twice gives byte-identical flatbuffers.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import ml_dtypes
import numpy as np
import tosa_serializer as ts

from arm.tosa.quantization import QParams

# TOSA has no int64, and numpy no int48: int64 arrays stand for INT48, the accumulator (and bias) type
# of int16 x int8 convolutions. Shape operands are int64 too but are written as SHAPE constants.
INT48 = np.dtype(np.int64)
# numpy has no bfloat16; ml_dtypes' is the one tosa_serializer and the reference model use.
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
# The float8 types of the EXT-FP8E4M3/FP8E5M2 extensions (only CAST uses them here).
FLOAT8_E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
FLOAT8_E5M2 = np.dtype(ml_dtypes.float8_e5m2)

_TOSA_DTYPES: dict[np.dtype, ts.DType] = {
    np.dtype(np.bool_): ts.DType.BOOL,
    np.dtype(np.int8): ts.DType.INT8,
    np.dtype(np.int16): ts.DType.INT16,
    np.dtype(np.int32): ts.DType.INT32,
    INT48: ts.DType.INT48,
    np.dtype(np.float16): ts.DType.FP16,
    BFLOAT16: ts.DType.BF16,
    FLOAT8_E4M3: ts.DType.FP8E4M3,
    FLOAT8_E5M2: ts.DType.FP8E5M2,
    np.dtype(np.float32): ts.DType.FP32,
}


@dataclasses.dataclass(frozen=True)
class TosaValue:
    """A tensor of the TOSA graph; ``qparams`` is set when its integers stand for quantized reals."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    qparams: QParams | None = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    def with_qparams(self, qparams: QParams | None) -> TosaValue:
        return dataclasses.replace(self, qparams=qparams)


def tosa_dtype(dtype: np.dtype) -> ts.DType:
    try:
        return _TOSA_DTYPES[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"no TOSA 1.0 tensor type for numpy dtype {np.dtype(dtype)}") from None


@dataclasses.dataclass
class TosaTensor:
    """A tensor as the graph records it; ``data`` is set for constants (``kind`` "const" or "shape")."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    kind: str  # "input", "intermediate", "const" or "shape"
    data: np.ndarray | None = None


@dataclasses.dataclass
class TosaOperator:
    """One recorded operator.

    ``perms`` is set for TRANSPOSE; ``elementwise_unary`` marks operators that apply one function to
    every element of their first input independently of its position (CLAMP, per-tensor RESCALE),
    which layout passes may move across transposes. ``axis`` is the axis attribute of CONCAT and
    REDUCE_*, which a layout pass rewrites when it moves the operator into another layout.
    """

    op: ts.Op
    inputs: list[str]
    outputs: list[str]
    attribute: ts.TosaSerializerAttribute
    perms: tuple[int, ...] | None = None
    elementwise_unary: bool = False
    axis: int | None = None


MAIN_REGION = "main"


class TosaGraph:
    """One TOSA 1.0 basic block under construction, with the regions its control flow calls.

    Operators and tensors are recorded and only handed to ``tosa_serializer`` by ``serialize``, so
    passes (see arm.tosa.layout) can rewrite the graph first. A COND_IF or WHILE_LOOP names other
    regions (its branches, its condition and body): each is a TosaGraph of its own, added with
    ``add_region`` and written after this one. Tensor names carry the region's name as a suffix, so
    names stay unique across the whole flatbuffer.
    """

    def __init__(self, region: str = MAIN_REGION) -> None:
        self.region = region
        self.tensors: dict[str, TosaTensor] = {}
        self.operators: list[TosaOperator] = []
        self.inputs: list[str] = []
        self.outputs: list[str] = []
        self.regions: list[TosaGraph] = []

    def _claim(self, name: str) -> str:
        """Returns ``name``, or ``name_<n>`` with the smallest free n (suffixed ``@<region>`` off main)."""
        if self.region != MAIN_REGION:  # a name derived from another of this region's keeps one suffix
            name = name.replace(f"@{self.region}", "") + f"@{self.region}"
        candidate, n = name, 1
        while candidate in self.tensors:
            candidate, n = f"{name}_{n}", n + 1
        return candidate

    def add_region(self, region: TosaGraph) -> None:
        """A region the operators of this graph (or of its regions) name; its name must be new."""
        taken = {graph.region for graph in self.all_regions()}
        if region.region in taken:
            raise ValueError(f"TOSA region {region.region!r} is defined twice")
        self.regions.append(region)

    def all_regions(self) -> list[TosaGraph]:
        """This graph and every region below it, depth first: the order they are written in."""
        return [self, *(graph for region in self.regions for graph in region.all_regions())]

    def _record(self, tensor: TosaTensor, qparams: QParams | None = None) -> TosaValue:
        self.tensors[tensor.name] = tensor
        return TosaValue(tensor.name, tensor.shape, tensor.dtype, qparams)

    def add_input(self, name: str, shape: Sequence[int], dtype: np.dtype) -> TosaValue:
        value = self._record(TosaTensor(self._claim(name), tuple(shape), np.dtype(dtype), "input"))
        self.inputs.append(value.name)
        return value

    def add_tensor(self, name: str, shape: Sequence[int], dtype: np.dtype, qparams: QParams | None = None) -> TosaValue:
        """An intermediate tensor, to be produced by an operator added later."""
        shape = tuple(int(d) for d in shape)
        return self._record(TosaTensor(self._claim(name), shape, np.dtype(dtype), "intermediate"), qparams)

    def add_const(self, name: str, values: np.ndarray, qparams: QParams | None = None) -> TosaValue:
        # np.ascontiguousarray gives a 0-d array one dimension, which made a rank-0 CONST rank 1.
        values = np.ascontiguousarray(values).reshape(np.shape(values))
        tosa_dtype(values.dtype)  # fail here, naming the dtype, rather than in the serializer
        return self._record(TosaTensor(self._claim(name), values.shape, values.dtype, "const", values), qparams)

    def const_data(self, name: str) -> np.ndarray:
        return self.tensors[name].data

    def add_scalar_const(self, name: str, value: int | float, dtype: np.dtype) -> TosaValue:
        """A rank-1, one-element constant: TOSA 1.0 passes zero points and shifts this way."""
        return self.add_const(name, np.array([value], dtype=dtype))

    def add_shape_const(self, name: str, shape: Sequence[int]) -> str:
        data = np.array(shape, dtype=np.int64)
        return self._record(TosaTensor(self._claim(name), data.shape, data.dtype, "shape", data)).name

    def add_op(
        self,
        op: ts.Op,
        inputs: Sequence[TosaValue | str],
        outputs: Sequence[TosaValue],
        attribute: ts.TosaSerializerAttribute,
        *,
        perms: tuple[int, ...] | None = None,
        elementwise_unary: bool = False,
        axis: int | None = None,
    ) -> None:
        input_names = [item if isinstance(item, str) else item.name for item in inputs]
        output_names = [value.name for value in outputs]
        self.operators.append(
            TosaOperator(op, input_names, output_names, attribute, perms, elementwise_unary, axis)
        )

    def move_appended(self, since: int, position: int) -> None:
        """Moves the operators appended since the list held ``since`` of them to ``position``: builders
        append, and a pass that rewrites the middle of a graph puts what it built where it must run."""
        added = self.operators[since:]
        del self.operators[since:]
        self.operators[position:position] = added

    def mark_output(self, value: TosaValue) -> None:
        self.outputs.append(value.name)

    def consumers(self, name: str) -> list[TosaOperator]:
        return [operator for operator in self.operators if name in operator.inputs]

    def producer(self, name: str) -> TosaOperator | None:
        return next((operator for operator in self.operators if name in operator.outputs), None)

    def serialize(self) -> bytes:
        """Writes this graph as the main region, then each region it calls, each as one basic block."""
        serializer = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
        for graph in self.all_regions():
            if graph is not self:
                serializer.startRegion(graph.region)
                serializer.currRegion.addBasicBlock(graph.region)
            graph._write_block(serializer)
        return bytes(serializer.serialize())

    def _write_block(self, serializer: ts.TosaSerializer) -> None:
        """Writes inputs, then every operator with the tensors it touches, in recording order."""
        block = serializer.currRegion.currBasicBlock
        for name in self.inputs:
            tensor = self.tensors[name]
            serializer.addInputTensor(ts.TosaSerializerTensor(name, list(tensor.shape), tosa_dtype(tensor.dtype)))
        written = set(self.inputs)
        for operator in self.operators:
            for name in [*operator.inputs, *operator.outputs]:
                if name not in written:
                    _write_tensor(serializer, block, self.tensors[name])
                    written.add(name)
            serializer.addOperator(operator.op, operator.inputs, operator.outputs, operator.attribute)
        for name in self.outputs:
            if name not in written:  # a constant no operator reads (a partition that only creates it)
                _write_tensor(serializer, block, self.tensors[name])
                written.add(name)
            serializer.addOutputTensor(block.tensors[name])


def _write_tensor(serializer: ts.TosaSerializer, block: ts.TosaSerializerBasicBlock, tensor: TosaTensor) -> None:
    if tensor.kind == "shape":
        serializer.addConst(list(tensor.shape), ts.DType.SHAPE, tensor.data, name=tensor.name)
    elif tensor.kind == "const":
        # The serializer cannot take a bfloat16 buffer (numpy knows no such type): it takes the values
        # as float32, which hold every bfloat16 exactly, and writes them as BF16.
        data = tensor.data.astype(np.float32) if tensor.dtype == BFLOAT16 else tensor.data
        serializer.addConst(list(tensor.shape), tosa_dtype(tensor.dtype), data, name=tensor.name)
    else:
        block.addTensor(tensor.name, list(tensor.shape), tosa_dtype(tensor.dtype))


def reshape(graph: TosaGraph, value: TosaValue, shape: Sequence[int], *, name: str) -> TosaValue:
    output = graph.add_tensor(name, shape, value.dtype, value.qparams)
    shape_name = graph.add_shape_const(f"{output.name}_shape", output.shape)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReshapeAttribute()
    graph.add_op(ts.Op.RESHAPE, [value, shape_name], [output], attribute)
    return output


def rebuild_in_place(graph: TosaGraph, operator: TosaOperator, build: Callable[[], TosaValue]) -> None:
    """Replaces the one-output ``operator`` by the operators ``build`` appends: their result, reshaped to the
    operator's output shape, takes the output's name, and the new operators run where ``operator`` did."""
    name = operator.outputs[0]
    output_shape = graph.tensors[name].shape
    position = graph.operators.index(operator)
    first_new = len(graph.operators)
    value = build()
    del graph.tensors[name]  # re-made by the reshape under the same name
    reshape(graph, value, output_shape, name=name)
    graph.operators.remove(operator)
    graph.move_appended(first_new - 1, position)  # one fewer before them: ``operator`` is gone


def slice_tensor(
    graph: TosaGraph, value: TosaValue, start: Sequence[int], size: Sequence[int], *, name: str
) -> TosaValue:
    output = graph.add_tensor(name, size, value.dtype, value.qparams)
    start_name = graph.add_shape_const(f"{output.name}_start", start)
    size_name = graph.add_shape_const(f"{output.name}_size", size)
    attribute = ts.TosaSerializerAttribute()
    attribute.SliceAttribute()
    graph.add_op(ts.Op.SLICE, [value, start_name, size_name], [output], attribute)
    return output


def concat(graph: TosaGraph, values: Sequence[TosaValue], axis: int, *, name: str) -> TosaValue:
    shape = list(values[0].shape)
    shape[axis] = sum(value.shape[axis] for value in values)
    output = graph.add_tensor(name, shape, values[0].dtype, values[0].qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.ConcatAttribute(axis)
    graph.add_op(ts.Op.CONCAT, values, [output], attribute, axis=axis)
    return output


def int32_elementwise(graph: TosaGraph, op: ts.Op, lhs: TosaValue, rhs: TosaValue, *, name: str) -> TosaValue:
    """ADD, SUB or MUL (shift 0) of two int32 tensors, broadcast to their larger extents: the plain
    operator, for tests and tools that build graphs by hand."""
    output = graph.add_tensor(name, tuple(max(a, b) for a, b in zip(lhs.shape, rhs.shape)), np.dtype(np.int32))
    attribute = ts.TosaSerializerAttribute()
    inputs = [lhs, rhs]
    if op == ts.Op.MUL:
        attribute.MulAttribute()
        inputs.append(graph.add_scalar_const(f"{name}_shift", 0, np.dtype(np.int8)))
    elif op == ts.Op.SUB:
        attribute.SubAttribute()
    else:
        attribute.AddAttribute()
    graph.add_op(op, inputs, [output], attribute)
    return output


def pad_tensor(
    graph: TosaGraph, value: TosaValue, padding: Sequence[tuple[int, int]], pad_value: np.generic, *, name: str
) -> TosaValue:
    """PAD with (before, after) per axis; ``pad_value`` is in the tensor's own dtype (the int8 code for INT)."""
    shape = [size + before + after for size, (before, after) in zip(value.shape, padding)]
    output = graph.add_tensor(name, shape, value.dtype, value.qparams)
    padding_name = graph.add_shape_const(f"{output.name}_padding", [p for pair in padding for p in pair])
    pad_const = graph.add_scalar_const(f"{output.name}_pad_const", pad_value, value.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.PadAttribute()
    graph.add_op(ts.Op.PAD, [value, padding_name, pad_const], [output], attribute)
    return output

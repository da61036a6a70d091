"""A thin, typed builder over ``tosa_serializer`` that the op lowerings write into.

Every tensor gets a name chosen by the lowering (derived from FX node names), never an id or an
address, so lowering the same program twice gives byte-identical flatbuffers.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
import tosa_serializer as ts

from arm.tosa.quantization import QParams

_TOSA_DTYPES: dict[np.dtype, ts.DType] = {
    np.dtype(np.bool_): ts.DType.BOOL,
    np.dtype(np.int8): ts.DType.INT8,
    np.dtype(np.int16): ts.DType.INT16,
    np.dtype(np.int32): ts.DType.INT32,
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


class TosaGraph:
    """One TOSA 1.0 basic block under construction."""

    def __init__(self) -> None:
        self._serializer = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
        self._names: set[str] = set()
        self._const_data: dict[str, np.ndarray] = {}

    def _claim(self, name: str) -> str:
        """Returns ``name``, or ``name_<n>`` with the smallest free n, and reserves it."""
        candidate, n = name, 1
        while candidate in self._names:
            candidate, n = f"{name}_{n}", n + 1
        self._names.add(candidate)
        return candidate

    @property
    def _block(self) -> ts.TosaSerializerBasicBlock:
        return self._serializer.currRegion.currBasicBlock

    def add_input(self, name: str, shape: Sequence[int], dtype: np.dtype) -> TosaValue:
        value = TosaValue(self._claim(name), tuple(shape), np.dtype(dtype))
        self._serializer.addInputTensor(ts.TosaSerializerTensor(value.name, list(value.shape), tosa_dtype(dtype)))
        return value

    def add_tensor(self, name: str, shape: Sequence[int], dtype: np.dtype, qparams: QParams | None = None) -> TosaValue:
        """An intermediate tensor, to be produced by an operator added later."""
        value = TosaValue(self._claim(name), tuple(int(d) for d in shape), np.dtype(dtype), qparams)
        self._block.addTensor(value.name, list(value.shape), tosa_dtype(value.dtype))
        return value

    def add_const(self, name: str, values: np.ndarray, qparams: QParams | None = None) -> TosaValue:
        values = np.ascontiguousarray(values)
        value = TosaValue(self._claim(name), tuple(values.shape), values.dtype, qparams)
        self._serializer.addConst(list(value.shape), tosa_dtype(values.dtype), values, name=value.name)
        self._const_data[value.name] = values
        return value

    def const_data(self, name: str) -> np.ndarray:
        return self._const_data[name]

    def add_scalar_const(self, name: str, value: int | float, dtype: np.dtype) -> TosaValue:
        """A rank-1, one-element constant: TOSA 1.0 passes zero points and shifts this way."""
        return self.add_const(name, np.array([value], dtype=dtype))

    def add_shape_const(self, name: str, shape: Sequence[int]) -> str:
        claimed = self._claim(name)
        self._serializer.addConst([len(shape)], ts.DType.SHAPE, np.array(shape, dtype=np.int64), name=claimed)
        return claimed

    def add_op(
        self,
        op: ts.Op,
        inputs: Sequence[TosaValue | str],
        outputs: Sequence[TosaValue],
        attribute: ts.TosaSerializerAttribute,
    ) -> None:
        input_names = [item if isinstance(item, str) else item.name for item in inputs]
        self._serializer.addOperator(op, input_names, [value.name for value in outputs], attribute)

    def mark_output(self, value: TosaValue) -> None:
        self._serializer.addOutputTensor(self._block.tensors[value.name])

    def serialize(self) -> bytes:
        return bytes(self._serializer.serialize())


def reshape(graph: TosaGraph, value: TosaValue, shape: Sequence[int], *, name: str) -> TosaValue:
    output = graph.add_tensor(name, shape, value.dtype, value.qparams)
    shape_name = graph.add_shape_const(f"{output.name}_shape", output.shape)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReshapeAttribute()
    graph.add_op(ts.Op.RESHAPE, [value, shape_name], [output], attribute)
    return output


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
    graph.add_op(ts.Op.CONCAT, values, [output], attribute)
    return output

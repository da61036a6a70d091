"""A MATMUL with a constant operand as a CONV2D: a fully connected layer with the constant as its weights.

``x @ W`` with a constant W reaches TOSA as a MATMUL whenever the model does not write ``F.linear``:
Falcon's ``FalconLinear`` computes ``input @ self.weight.T + bias``, which pt2e quantizes as a product of
two activations (per tensor) and arm/ops/matmul.py lowers as MATMUL of the input and the constant
(after a TRANSPOSE of the constant). Vela 5.2.0 runs MATMUL on the U55 with no weight stream, at about
one MAC a cycle, and transposes the constant at run time. The same integers come from a CONV2D: the
left operand [N, H, C] as an image [1, 1, N*H, C], the constant [C, W] as W output channels of 1x1
weights, the MATMUL's zero points as the convolution's input and weight zero points, no bias, and the
int32 accumulator [1, 1, N*H, W] reshaped back. Vela streams the weights encoded and folds the output
RESCALE. Measured alone, [16, 64] x [64, 256] int8: U55-128 353,856 cycles (MATMUL and the constant's
run-time transpose) against 21,008; U85-256 11,856 against 1,888.

A constant left operand (``W @ x``) is the same product transposed, ``(x^T W^T)^T``: the activation is
transposed in, the product out, which costs two transposes of activations beside the convolution.

Rewritten only where every batch holds the same constant matrix (a rank-2 constant, or one TILEd or
broadcast over the batch): different matrices per batch are no single convolution's weights. Bit-exact:
CONV2D and MATMUL accumulate the same products of (code - zero point) in int32.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, rebuild_in_place, reshape
from arm.tosa.layout import remove_dead_operators, transpose

_INT8 = np.dtype(np.int8)
_INT32 = np.dtype(np.int32)
# Operators that only rearrange or repeat a constant: the folded value is the constant rearranged.
_REARRANGING = frozenset({ts.Op.RESHAPE, ts.Op.TRANSPOSE, ts.Op.TILE})


def constant_matmuls_as_convolutions(graph: TosaGraph) -> None:
    for matmul in [operator for operator in graph.operators if operator.op == ts.Op.MATMUL]:
        lhs, rhs = (graph.tensors[name] for name in matmul.inputs[:2])
        if lhs.dtype != _INT8 or rhs.dtype != _INT8 or graph.tensors[matmul.outputs[0]].dtype != _INT32:
            continue
        right, left = _one_matrix(graph, rhs.name), _one_matrix(graph, lhs.name)
        if right is not None:
            _rewrite(graph, matmul, right, constant_on_the_right=True)
        elif left is not None:
            _rewrite(graph, matmul, left, constant_on_the_right=False)
    remove_dead_operators(graph)


def _one_matrix(graph: TosaGraph, name: str) -> np.ndarray | None:
    """The [rows, columns] matrix every batch of the constant MATMUL operand ``name`` holds, or None when
    ``name`` is computed or its batches differ."""
    value = _constant_value(graph, name)
    if value is None or not all(np.array_equal(value[0], matrix) for matrix in value[1:]):
        return None
    return value[0]


def _constant_value(graph: TosaGraph, name: str) -> np.ndarray | None:
    """The value of ``name`` when it is a CONST seen through RESHAPEs, TRANSPOSEs and TILEs only (matmul.py
    TILEs a rank-2 operand to the other one's batch)."""
    tensor = graph.tensors[name]
    if tensor.data is not None:
        return np.asarray(tensor.data).reshape(tensor.shape)
    producer = graph.producer(name)
    if producer is None or producer.op not in _REARRANGING:
        return None
    source = _constant_value(graph, producer.inputs[0])
    if source is None:
        return None
    if producer.op == ts.Op.TRANSPOSE:
        return np.transpose(source, producer.perms)
    if producer.op == ts.Op.TILE:
        return np.tile(source, [int(multiple) for multiple in graph.const_data(producer.inputs[1])])
    return source.reshape(tensor.shape)


def _rewrite(graph: TosaGraph, matmul: TosaOperator, matrix: np.ndarray, *, constant_on_the_right: bool) -> None:
    """Replaces ``matmul`` by a CONV2D (and the transposes a constant left operand needs) writing its
    output tensor under the same name."""
    name = matmul.outputs[0]
    batch, rows, columns = graph.tensors[name].shape
    lhs, rhs, lhs_zp, rhs_zp = matmul.inputs

    def product() -> TosaValue:
        if constant_on_the_right:  # [N*H, C] x [C, W]: weights [W, 1, 1, C] = matrix^T
            image = reshape(graph, _value(graph, lhs), (1, 1, batch * rows, matrix.shape[0]), name=f"{name}_image")
            return _convolution(graph, image, matrix.T, input_zp=lhs_zp, weight_zp=rhs_zp, name=f"{name}_convolved")
        # [H, C] x [C, N*W] as ([N*W, C] x [C, H])^T: weights [H, 1, 1, C] = matrix
        activation = _value(graph, rhs)  # [N, C, W]
        inner = activation.shape[1]
        rows_of_x = transpose(graph, activation, (0, 2, 1), name=f"{name}_rhs_transposed")  # [N, W, C]
        image = reshape(graph, rows_of_x, (1, 1, batch * columns, inner), name=f"{name}_image")
        transposed = _convolution(graph, image, matrix, input_zp=rhs_zp, weight_zp=lhs_zp, name=f"{name}_convolved")
        by_batch = reshape(graph, transposed, (batch, columns, rows), name=f"{name}_transposed")
        return transpose(graph, by_batch, (0, 2, 1), name=f"{name}_product")

    rebuild_in_place(graph, matmul, product)


def _value(graph: TosaGraph, name: str) -> TosaValue:
    tensor = graph.tensors[name]
    return TosaValue(tensor.name, tensor.shape, tensor.dtype)


def _convolution(
    graph: TosaGraph, image: TosaValue, matrix: np.ndarray, *, input_zp: str, weight_zp: str, name: str
) -> TosaValue:
    """CONV2D of the int8 image [1, 1, R, C] with 1x1 weights ``matrix`` [O, C]: int32 [1, 1, R, O]."""
    outputs, inner = matrix.shape
    weights = np.ascontiguousarray(matrix, dtype=np.int8).reshape(outputs, 1, 1, inner)
    weights = graph.add_const(f"{name}_weights", weights)
    bias = graph.add_const(f"{name}_no_bias", np.zeros(outputs, dtype=np.int32))
    output = graph.add_tensor(name, (*image.shape[:3], outputs), _INT32)
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    graph.add_op(ts.Op.CONV2D, [image, weights, bias, input_zp, weight_zp], [output], attribute)
    return output

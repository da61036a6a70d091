"""model-converter converts a TOSA graph to VGF, and a graph it cannot convert is reported by operator."""

import pytest
import tosa_serializer as ts

from arm.vgf.converter import VgfConversionError, convert_tosa_to_vgf

# The VGF file's magic number (its first four bytes).
VGF_MAGIC = b"VGF1"


# Operators of one input whose attribute has no fields, and the serializer's setter for it.
_ATTRIBUTE_SETTERS = {ts.Op.ABS: "AbsAttribute", ts.Op.CLZ: "ClzAttribute"}


def one_op_graph(op: ts.Op, dtype: ts.DType) -> bytes:
    """x -> op -> y on a 1x4x4x2 tensor."""
    serializer = ts.TosaSerializer("", targetMajor=1, targetMinor=0, targetPatch=0, targetDraft=False)
    serializer.addInputTensor(ts.TosaSerializerTensor("x", [1, 4, 4, 2], dtype))
    block = serializer.currRegion.currBasicBlock
    block.addTensor("y", [1, 4, 4, 2], dtype)
    attribute = ts.TosaSerializerAttribute()
    getattr(attribute, _ATTRIBUTE_SETTERS[op])()
    serializer.addOperator(op, ["x"], ["y"], attribute)
    serializer.addOutputTensor(block.tensors["y"])
    return bytes(serializer.serialize())


def test_converts_a_supported_graph():
    vgf = convert_tosa_to_vgf(one_op_graph(ts.Op.ABS, ts.DType.FP32))
    assert vgf[:4] == VGF_MAGIC


@pytest.mark.parametrize(
    ("op", "dtype", "name"),
    [(ts.Op.ABS, ts.DType.BOOL, "ABS"), (ts.Op.CLZ, ts.DType.INT8, "CLZ")],
)
def test_a_failed_conversion_names_the_tosa_operator(op: ts.Op, dtype: ts.DType, name: str):
    with pytest.raises(VgfConversionError) as error:
        convert_tosa_to_vgf(one_op_graph(op, dtype))
    assert error.value.tosa_op == name
    assert f"cannot convert TOSA operator {name} to VGF" in str(error.value)

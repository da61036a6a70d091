"""The VGF in each ``*_vgf_pte`` runs on Vulkan (lavapipe with Arm's emulation layers) and computes what
the TOSA reference model computes from the same graph, bit for bit, on seeded int8 inputs.

The inputs cover the whole int8 range rather than a quantized image: any int8 tensor is a valid input
to the delegate, and a wide one exercises saturation in every layer. Torch is not needed: the op tests
(//arm/ops:vgf_INT) check each op against the quantized torch module.
"""

import pathlib

import numpy as np
import pytest
import tosa_reference_model
from executorch.exir._serialize._program import deserialize_pte_binary
from tosa.DType import DType
from tosa.TosaGraph import TosaGraph

from arm.vgf.runner import VgfRunner

PTE_FILES = sorted(pathlib.Path(__file__).parent.glob("*_vgf_pte.pte"))
_NUMPY_TYPES = {DType.INT8: np.int8, DType.INT16: np.int16, DType.INT32: np.int32, DType.FP32: np.float32}


def vgf_of(pte: bytes) -> bytes:
    program = deserialize_pte_binary(pte).program
    (plan,) = program.execution_plan
    assert [d.id for d in plan.delegates] == ["VgfBackend"], [d.id for d in plan.delegates]
    return bytes(program.backend_delegate_data[plan.delegates[0].processed.index].data)


def seeded_inputs(tosa: bytes) -> list[np.ndarray]:
    """Random tensors for the main block's inputs, full range for integers."""
    block = TosaGraph.GetRootAs(tosa, 0).Regions(0).Blocks(0)
    tensors = {block.Tensors(i).Name().decode(): block.Tensors(i) for i in range(block.TensorsLength())}
    rng = np.random.default_rng(0)
    inputs = []
    for i in range(block.InputsLength()):
        tensor = tensors[block.Inputs(i).decode()]
        shape = [tensor.Shape(d) for d in range(tensor.ShapeLength())]
        dtype = _NUMPY_TYPES[tensor.Type()]
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            inputs.append(rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype))
        else:
            inputs.append(rng.standard_normal(shape).astype(dtype))
    return inputs


def test_vgf_pte_files_are_present():
    assert PTE_FILES, "no *_vgf_pte.pte in the test's runfiles: check the data attribute of the test target"


@pytest.mark.parametrize("pte", PTE_FILES, ids=[p.stem for p in PTE_FILES])
def test_vgf_matches_reference_model(pte: pathlib.Path):
    tosa = pte.with_suffix(".tosa").read_bytes()
    inputs = seeded_inputs(tosa)
    expected, status = tosa_reference_model.run(tosa, inputs)
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID, status
    with VgfRunner() as runner:
        actual = runner.run(vgf_of(pte.read_bytes()), inputs)
    assert len(actual) == len(expected)
    for index, (got, want) in enumerate(zip(actual, expected)):
        want = np.asarray(want)
        differing = np.count_nonzero(got.astype(np.int64) != want.astype(np.int64))
        assert got.shape == want.shape and differing == 0, (
            f"output {index}: {differing} of {want.size} elements differ from the TOSA reference model"
        )

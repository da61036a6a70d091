"""2:4 sparse weights on the Ethos-U85 model: a convolution whose weights keep at most 2 non-zero values in
every run of 4 IFM channels makes Vela choose the U85's sparse weight format, and the model's result equals
the TOSA reference model's bit for bit. The cases cover what the format changes in the weight stream's
order: both traversals Vela picks (part-kernel-first for a 3x3 kernel over few channels, depth-first for
a 1x1 kernel over many) and 8- and 16-bit IFMs; the 8-bit depth-first case spans two 128-channel IFM
blocks and several OFM blocks, so the IFM blocks are walked back and forth.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tosa_serializer as ts

from arm.artifacts import TensorIo, TosaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.ethosu.vela import compile_tosa
from arm.tosa.graph import INT48, TosaGraph, tosa_dtype
from arm.tosa.rescale import rescale

TARGET = "ethos-u85-256"


@dataclasses.dataclass(frozen=True)
class SparseConvCase:
    """A stride-1, unpadded convolution of a square IFM."""

    ofm_depth: int
    kernel: int
    ifm_depth: int
    ifm_size: int
    dtype: type[np.integer]
    # The real-number scale from accumulator to output, chosen to spread the outputs over their range.
    output_scale: float

    @property
    def ofm_size(self) -> int:
        return self.ifm_size - self.kernel + 1


CASES = {
    "part_kernel_first_int8": SparseConvCase(16, 3, 32, 6, np.int8, 1 / 1000),
    "depth_first_int8": SparseConvCase(128, 1, 256, 8, np.int8, 1 / 1000),
    "part_kernel_first_int16": SparseConvCase(16, 3, 32, 6, np.int16, 1 / 3000),
    "depth_first_int16": SparseConvCase(32, 1, 128, 4, np.int16, 1 / 2000),
}


def _two_of_four_weights(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """int8 OHWI weights with two zeros in every run of 4 IFM channels (the rest non-zero)."""
    magnitudes = rng.integers(1, 128, shape) * rng.choice([-1, 1], shape)
    runs = magnitudes.reshape(-1, 4)
    zeros = np.argsort(rng.random(runs.shape), axis=1)[:, :2]
    np.put_along_axis(runs, zeros, 0, axis=1)
    return runs.reshape(shape).astype(np.int8)


def _sparse_conv(case: SparseConvCase, rng: np.random.Generator) -> TosaArtifact:
    """CONV2D then RESCALE back to the IFM's type; the IFM zero point is -3 for int8 (TOSA wants 0 for int16)."""
    wide = case.dtype == np.int16
    accumulator = INT48 if wide else np.dtype(np.int32)
    ifm_shape = (1, case.ifm_size, case.ifm_size, case.ifm_depth)
    ofm_shape = (1, case.ofm_size, case.ofm_size, case.ofm_depth)
    ifm_zero_point = 0 if wide else -3
    graph = TosaGraph()
    ifm = graph.add_input("ifm", ifm_shape, case.dtype)
    operands = [
        ifm,
        graph.add_const("weights", _two_of_four_weights(rng, (case.ofm_depth, case.kernel, case.kernel, case.ifm_depth))),
        graph.add_const("bias", rng.integers(-1000, 1000, case.ofm_depth).astype(accumulator)),
        graph.add_scalar_const("ifm_zp", ifm_zero_point, case.dtype),
        graph.add_scalar_const("weight_zp", 0, np.int8),
    ]
    accumulators = graph.add_tensor("accumulators", ofm_shape, accumulator)
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute(
        pad=[0, 0, 0, 0], stride=[1, 1], dilation=[1, 1], local_bound=False, acc_type=tosa_dtype(accumulator)
    )
    graph.add_op(ts.Op.CONV2D, operands, [accumulators], attribute)
    ofm = rescale(
        graph, accumulators, name="ofm", scales=[case.output_scale], output_dtype=case.dtype, input_zp=0, output_zp=0
    )
    graph.mark_output(ofm)
    dtype = np.dtype(case.dtype)
    return TosaArtifact(
        flatbuffer=graph.serialize(),
        inputs=(TensorIo("ifm", ifm_shape, dtype),),
        outputs=(TensorIo("ofm", ofm_shape, dtype),),
        spec="TOSA-1.0+INT",
    )


@pytest.fixture(scope="module")
def npu() -> NpuModel:
    return NpuModel(TARGET)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_sparse_convolution_matches_tosa_reference_bit_for_bit(case: SparseConvCase, npu: NpuModel) -> None:
    rng = np.random.default_rng(case.ifm_depth * case.kernel)
    tosa = _sparse_conv(case, rng)
    bin_stream = compile_tosa(tosa.flatbuffer, EthosUCompileSpec(TARGET)).bin_stream
    limits = np.iinfo(case.dtype)
    ifm = rng.integers(limits.min, limits.max + 1, tosa.inputs[0].shape).astype(case.dtype)

    trace = npu.run_bin_stream(bin_stream, [ifm], trace=True).trace
    convolutions = [line for line in trace if "NPU_OP_CONV" in line]
    assert len(convolutions) == 1 and "2:4 sparse" in convolutions[0], f"Vela chose dense weights: {convolutions}"

    (comparison,) = compare_delegate(tosa, bin_stream, [ifm], npu)
    assert comparison.mismatches == 0, comparison.describe()
    # Outputs spread over many values and few clamped, so a wrong weight order could not pass unseen.
    clamped = np.isin(comparison.reference, [limits.min, limits.max]).mean()
    assert np.unique(comparison.reference).size >= 32 and clamped < 0.1, f"{clamped:.0%} of outputs clamped"

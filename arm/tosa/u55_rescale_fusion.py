"""Which RESCALEs Vela 5.2.0 runs as an operation of their own on the U55/U65, and which it reads inside their reader.

Read from Vela 5.2.0's C++ core (ethosu/regor in the ethos-u-vela 5.2.0 sdist; the wheel carries it compiled):

- ``EthosU55Constraints::SupportsRescale`` runs a RESCALE natively only when neither side is wider than 16 bits.
  ``GraphIrOptimiser::RewriteRescale`` turns any other (int8/int16 -> int32 widenings, int32 -> int8 narrowings)
  into a CAST (an ADD of 0) to int32 and a MUL by the multiplier per run of channels.
- Before that, ``GraphIrOptimiser::FuseRescale`` folds a RESCALE into the operator reading it (the rescale becomes
  the reader's IFM scale and zero point) when ``CanBeFused`` and the U55's ``SupportsQuantization`` allow it. For a
  binary elementwise reader the U55 needs both operands of one type, so both operands must be RESCALEs folded at
  once; ADD/SUB take int8/int16 operands with scales that are each (m, 0) with m fitting int16, or two different
  scales the larger of which is exactly 2^19 (int8; 2^14 for int16): the unscaled operand of the U55's 32-bit
  add scaling. With a 32-bit output (no narrowing RESCALE folded in at the same time) ADD, SUB and MUL take only
  unit operand scales; MUL takes only unit operand scales in every case.

``folds_into_reader`` is that condition for the readers the lowering emits (ADD, SUB, MUL); it answers False for
every other reader, so callers treat an unknown reader as a RESCALE of its own (the safe side: widened_window_copies
then copies a window that Vela might have read in place, which costs cycles, never numbers).

Folding is not computing: ``EthosU55RCSGenerator::GenerateScalingForElementwise`` programs the 16-bit scale mode
(OPA_OPB_16, each operand times its own 16-bit multiplier) only when the two folded scales are equal. Two different
scales always take a 32-bit mode: the smaller operand rescaled by OPA_SCALE, the larger one unscaled, which the U55
weighs 2^19 (8-bit; 2^14 for 16-bit), the fixed shift of its 32-bit add scaling. Vela writes the larger multiplier
to OPB_SCALE as well, but that register is 16 bits wide and would hold 0 for the 2^19 of the flow's own ADDs, so the
hardware cannot be reading it there. Two different 16-bit multipliers (x * 3 + y, which ``SupportedIFMQuant``
accepts) therefore compute x * 2^19 + y on the U55: ``folds_with_unequal_narrow_scales`` names that case, and
arm/tosa/unequal_add_sub_scales.py keeps Vela from folding it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator

_FOLDING_READERS = frozenset({ts.Op.ADD, ts.Op.SUB, ts.Op.MUL})
_NARROW_BITS = 16
# The U55's 32-bit ADD/SUB scaling shifts the unscaled operand left by this many bits (EthosU55Constraints).
_UNSCALED_ADD_SHIFT = {np.dtype(np.int8): 19, np.dtype(np.int16): 14}
_INT16_MAX = np.iinfo(np.int16).max


@dataclasses.dataclass(frozen=True)
class _Scale:
    """A RESCALE's per-tensor (multiplier, shift) in Vela's reduced form: trailing zero bits of the multiplier
    traded for shift (QuantizedScale::ReduceScale)."""

    multiplier: int
    shift: int

    @staticmethod
    def reduced(multiplier: int, shift: int) -> _Scale:
        while multiplier > 1 and multiplier % 2 == 0 and shift > 0:
            multiplier //= 2
            shift -= 1
        return _Scale(multiplier, shift)

    @property
    def is_unit(self) -> bool:
        return (self.multiplier, self.shift) == (1, 0)

    @property
    def value(self) -> float:
        return self.multiplier * 2.0**-self.shift


def is_wide(graph: TosaGraph, rescale: TosaOperator) -> bool:
    """Whether Vela runs ``rescale`` as a CAST and MULs on the U55 (a side wider than 16 bits) if it does not fold."""
    sides = (graph.tensors[rescale.inputs[0]], graph.tensors[rescale.outputs[0]])
    return any(np.dtype(side.dtype).itemsize * 8 > _NARROW_BITS for side in sides)


def folds_into_reader(graph: TosaGraph, rescale: TosaOperator) -> bool:
    """Whether Vela 5.2.0 folds ``rescale`` into the one operator reading its output on the U55 (see the module)."""
    readers = graph.consumers(rescale.outputs[0])
    if len(readers) != 1 or readers[0].op not in _FOLDING_READERS:
        return False
    reader = readers[0]
    operands = [graph.producer(name) for name in reader.inputs[:2]]
    if len(set(reader.inputs[:2])) != 2 or not all(_can_fold_forward(graph, operand) for operand in operands):
        return False
    dtypes = {np.dtype(graph.tensors[operand.inputs[0]].dtype) for operand in operands}
    if len(dtypes) != 1:
        return False  # the U55's IFM and IFM2 must have one type
    (dtype,) = dtypes
    scales = [_scale_of(graph, operand) for operand in operands]
    if any(scale is None for scale in scales):
        return False
    narrowing = _narrowing_reader_output(graph, reader)
    if reader.op == ts.Op.MUL or narrowing is None:
        return all(scale.is_unit for scale in scales)
    return _add_sub_scales_supported(scales, dtype)


def _can_fold_forward(graph: TosaGraph, operator: TosaOperator | None) -> bool:
    """CanBeFused(ontoConsumers): a per-tensor RESCALE read by one operator, output zero point 0, no overflow."""
    if operator is None or operator.op != ts.Op.RESCALE or operator.outputs[0] in graph.outputs:
        return False
    if len(graph.consumers(operator.outputs[0])) != 1:
        return False
    input_zp, output_zp = (graph.const_data(name) for name in operator.inputs[3:5])
    scale = _scale_of(graph, operator)
    if input_zp is None or output_zp is None or scale is None or int(output_zp.reshape(-1)[0]) != 0:
        return False
    source = np.iinfo(graph.tensors[operator.inputs[0]].dtype)
    zero_point = int(input_zp.reshape(-1)[0])
    extreme = (source.max if zero_point < 0 else source.min) - zero_point
    output = np.iinfo(graph.tensors[operator.outputs[0]].dtype)
    return output.min <= (extreme * scale.multiplier) >> scale.shift <= output.max


def _scale_of(graph: TosaGraph, rescale: TosaOperator) -> _Scale | None:
    multiplier, shift = (graph.const_data(name) for name in rescale.inputs[1:3])
    if multiplier is None or shift is None or multiplier.size != 1 or shift.size != 1:
        return None  # per-channel: the U55 has no per-channel IFM scale
    return _Scale.reduced(int(multiplier.reshape(-1)[0]), int(shift.reshape(-1)[0]))


def _narrowing_reader_output(graph: TosaGraph, reader: TosaOperator) -> TosaOperator | None:
    """The RESCALE Vela folds into ``reader``'s output together with its operands (FuseRescale's compound case):
    the only reader of that output, to 16 bits or fewer, from a zero point of 0."""
    readers = graph.consumers(reader.outputs[0])
    if len(readers) != 1 or readers[0].op != ts.Op.RESCALE or reader.outputs[0] in graph.outputs:
        return None
    narrowing = readers[0]
    input_zp = graph.const_data(narrowing.inputs[3])
    narrow = np.dtype(graph.tensors[narrowing.outputs[0]].dtype).itemsize * 8 <= _NARROW_BITS
    if input_zp is None or int(input_zp.reshape(-1)[0]) != 0 or not narrow:
        return None
    return narrowing


def _add_sub_scales_supported(scales: list[_Scale], dtype: np.dtype) -> bool:
    """SupportedIFMQuant for an ADD/SUB with a narrow output: 16-bit multipliers without shift, or two different
    scales whose larger is the unscaled operand of the 32-bit add scaling."""
    if all(scale.shift == 0 and scale.multiplier <= _INT16_MAX for scale in scales):
        return True
    unscaled = _UNSCALED_ADD_SHIFT.get(np.dtype(dtype))
    if unscaled is None or scales[0] == scales[1]:
        return False
    return max(scales, key=lambda scale: scale.value) == _Scale(1 << unscaled, 0)


def folds_with_unequal_narrow_scales(graph: TosaGraph, reader: TosaOperator) -> bool:
    """Whether Vela 5.2.0 folds the two operand RESCALEs of ADD/SUB ``reader`` as two different 16-bit multipliers,
    which the U55 computes with the larger operand weighed 2^19 (2^14) instead of its multiplier (see the module)."""
    if reader.op not in (ts.Op.ADD, ts.Op.SUB):
        return False
    operands = [graph.producer(name) for name in reader.inputs[:2]]
    if not all(operand is not None and operand.op == ts.Op.RESCALE for operand in operands):
        return False
    if not folds_into_reader(graph, operands[0]):
        return False
    scales = [_scale_of(graph, operand) for operand in operands]
    dtype = np.dtype(graph.tensors[operands[0].inputs[0]].dtype)
    unscaled = _UNSCALED_ADD_SHIFT.get(dtype)
    largest = max(scales, key=lambda scale: scale.value)
    return scales[0] != scales[1] and (unscaled is None or largest != _Scale(1 << unscaled, 0))

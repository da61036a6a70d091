"""Runs one op test case through the whole flow for one target and checks what the delegate computes.

Per case the harness compiles the op's module with ``arm.flow``, takes the delegated TOSA graph from
the collected artifacts and runs it in the TOSA reference model. Then:

* every target: the program holds exactly one delegate, of the target's backend;
* ``tosa_FP``: the graph's output matches the float module to float32 rounding;
* ``*_INT``: the dequantized output is within one output quantization step of the quantized torch
  module (both round the same real value to the output grid, so they may differ by one step), and
  within ``FLOAT_ERROR_STEPS`` steps of the float module (see there);
* ``u55_INT``, ``u85_INT``: Vela placed every operator on the NPU, and its command stream run on the
  functional NPU model (runtime/npu_model) gives the TOSA reference model's integers bit for bit on
  the same integer inputs;
* ``vgf_FP``, ``vgf_INT``: the VGF stored in the .pte runs on Vulkan (lavapipe with Arm's emulation
  layers) on the same inputs; FP matches the float module to float32 rounding, INT equals the TOSA
  reference model's int8 output bit for bit (and so is within one step of the quantized module).

A case that lists the target in ``cpu_targets`` instead must stay on the CPU: no delegate, and the
support rule's reason names the op's node.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import torch
import tosa_reference_model
from executorch.exir._serialize._program import deserialize_pte_binary

from arm.artifacts import TensorIo, TosaArtifact
from arm.compile_spec import TosaCompileSpec
from arm.ethosu.bin_stream import parse_bin_stream
from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_delegate, quantized_inputs
from arm.flow import FlowResult, Target, resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.ops.common import registry
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.testing.compare import assert_close
from arm.quantizer import EthosUQuantizer
from arm.tosa.context import tensor_to_numpy
from arm.tosa.reference_io import reference_input, reference_output
from arm.vgf.runner import VgfRunner
from arm.report.float64_quantized import as_float64, in_float64

# Test target name -> flow target name.
OP_TEST_TARGETS = {
    "tosa_FP": "tosa-FP",
    "tosa_INT": "tosa-INT",
    "u55_INT": "ethos-u55-128",
    "u85_INT": "ethos-u85-256",
    "vgf_FP": "vgf-FP",
    "vgf_INT": "vgf-INT",
}

# Float graphs may sum in another order than torch does; that changes results by a few float32 ulps of
# the magnitudes summed, well below these bounds for the tensor sizes of the op cases.
FP_ATOL = 1e-5
FP_RTOL = 1e-5
# Half-precision cases: 8 units in the last place (float16: 2^-10, bfloat16: 2^-7 of a number near 1),
# relative and absolute (PyTorch rounds some intermediates in float32 where TOSA rounds each one).
HALF_TOLERANCE = {torch.float16: 8 * 2.0**-10, torch.bfloat16: 8 * 2.0**-7}

# How far, in output quantization steps, an int8 result may be from the float module. Rounding the
# output costs half a step and the integer rescale at most one more; quantizing each input (and each
# weight, per channel) costs half a step of its own grid, which for the cases' calibrated ranges is
# at most about one output step per input for elementwise ops, and grows only like the square root of
# the number of terms for conv and linear, whose output range grows with that number. Four steps
# (1.6% of an int8 output range) covers those sums with margin (the current cases reach at most 2.2
# steps) while still catching a wrong scale, zero point or rounding mode, which are off by far more.
FLOAT_ERROR_STEPS = 4
# An int8 step of a range is 256 int16 steps of the same range.
INT16_STEPS_PER_INT8_STEP = 256


@dataclasses.dataclass(frozen=True)
class OpCase:
    """One op test case on one test target."""

    op: str
    name: str
    target: str
    case: OpTestCase

    @property
    def test_id(self) -> str:
        return f"{self.op}_{self.name}_{self.target}"


def op_cases(op: str, target: str) -> list[OpCase]:
    if target not in OP_TEST_TARGETS:
        raise ValueError(f"unknown op test target {target!r}; choose one of {', '.join(OP_TEST_TARGETS)}")
    return [OpCase(op, name, target, case) for name, case in registry.test_cases(op).items() if target in case.targets]


def check_op_case(op_case: OpCase) -> None:
    case = op_case.case
    target = _target(op_case.target, case)
    result = run_flow(ModelSpec(case.module, case.inputs, case.calibration_inputs()), target)
    if op_case.target in case.cpu_targets:
        _check_stays_on_cpu(result, op_case.op)
        return
    tosa = _single_delegate(result)
    _check_op_delegated(result, op_case.op)
    delegate_inputs = _delegate_inputs(result, case.inputs)
    actual = _run_reference_model(tosa, delegate_inputs)
    expected = _numpy_outputs(case.module(*case.inputs))
    if len(actual) != len(expected):
        raise AssertionError(f"the TOSA graph has {len(actual)} outputs, the module {len(expected)}")

    if target.is_quantized:
        quantized = _numpy_outputs(_quantized_module_outputs(result.quantized_module, case))
        _check_int(tosa.outputs, actual, quantized, expected, case.steps_from_quantized, case.differing_from_quantized)
    else:
        for index, (got, want) in enumerate(zip(actual, expected)):
            tolerance = _float_tolerance(case)
            assert_close(got, want, atol=tolerance, rtol=tolerance, what=f"output {index} vs float module")
    if target.is_ethos_u:
        _check_vela(result, tosa, delegate_inputs, case.known_departures.get(op_case.target))
    if target.is_vgf:
        _check_vgf(result, tosa, delegate_inputs, actual, expected, _float_tolerance(case))


def _quantized_module_outputs(module: torch.fx.GraphModule, case: OpTestCase) -> object:
    """The quantized module on the case's inputs, in float64 for a ``float64_oracle`` case (whose values
    sit so near a rounding tie that float32's own rounding would decide which way they go)."""
    if not case.float64_oracle:
        return module(*case.inputs)
    return in_float64(module)(*(as_float64(tensor) for tensor in case.inputs))


def _float_tolerance(case: OpTestCase) -> float:
    """FP_ATOL/FP_RTOL for float32 cases; for a half-precision case, a few units in the last place of its
    type: PyTorch and the TOSA graph each round every intermediate to it, not always the same way."""
    dtypes = {tensor.dtype for tensor in case.inputs if tensor.is_floating_point()}
    return max([HALF_TOLERANCE.get(dtype, FP_ATOL) for dtype in dtypes], default=FP_ATOL)


def _target(name: str, case: OpTestCase) -> Target:
    """The flow target of test target ``name``, quantizing with the case's own config if it has one."""
    target = resolve_target(OP_TEST_TARGETS[name])
    if case.tosa_extensions and isinstance(target.compile_spec, TosaCompileSpec):
        spec_text = str(target.compile_spec.tosa_spec) + "".join(f"+{ext}" for ext in case.tosa_extensions)
        target = dataclasses.replace(target, compile_spec=TosaCompileSpec(spec_text))
    if case.quantization is None or not target.is_quantized:
        return target
    config = case.quantization()
    kind = dataclasses.replace(target.kind, make_quantizer=lambda spec: EthosUQuantizer(spec).set_global(config))
    return dataclasses.replace(target, kind=kind)


def _single_delegate(result: FlowResult) -> TosaArtifact:
    backend = result.target.compile_spec.backend_id
    if result.delegate_ids != (backend,) or len(result.artifacts.tosa) != 1:
        on_cpu = "; ".join(reason for _, reason in result.rejected) or "none"
        raise AssertionError(
            f"expected the case to lower to exactly one {backend} delegate, got {list(result.delegate_ids)}; "
            f"nodes left on the CPU: {on_cpu}"
        )
    return result.artifacts.tosa[0]


def _check_op_delegated(result: FlowResult, op: str) -> None:
    """No node of the op under test stayed on the CPU: a case whose op falls back while the ops around
    it fill the one delegate (a view before a slice) would otherwise pass. Cases of graph passes
    (fold_constants, inline_mode_regions) name their pass, not an op: they have nothing to check here."""
    if op not in registry.op_names():
        return
    targets = set(registry.op(op).edge_targets)
    reasons = [reason for _, reason in result.rejected if targets and _names_target(reason, targets)]
    if reasons:
        raise AssertionError(f"expected every {op} node to be delegated; left on the CPU: {'; '.join(reasons)}")


def _delegate_inputs(result: FlowResult, inputs: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """The case's inputs in the delegate's order (the order of first use in the graph)."""
    (sources,) = result.delegate_inputs
    if None in sources:
        raise AssertionError(f"a delegate input is computed on the CPU, not taken from the case: {sources}")
    return tuple(inputs[index] for index in sources)


def _check_stays_on_cpu(result: FlowResult, op: str) -> None:
    """The op's support rule rejected the case: nothing was delegated and a reason names the op's node."""
    if result.delegate_ids:
        raise AssertionError(
            f"expected {op} to stay on the CPU for {result.target.name}, but it was delegated to "
            f"{list(result.delegate_ids)}; its support rule should reject this case"
        )
    if registry.op(op).keep_in_edge:
        return  # rejected at export (linear), it was decomposed: none of its nodes is left to name
    # An op that shares its edge operator with another (transpose_conv2d with conv2d) lists none.
    targets = set(registry.op(op).edge_targets)
    reasons = [reason for name, reason in result.rejected if _names_target(reason, targets) or not targets]
    if not reasons:
        raise AssertionError(f"no rejection reason names a {op} node; reasons given: {result.rejected}")


def _names_target(reason: str, targets: set[object]) -> bool:
    return any(f"({getattr(target, '__name__', target)})" in reason for target in targets)


def _run_reference_model(tosa: TosaArtifact, inputs: tuple[torch.Tensor, ...]) -> list[np.ndarray]:
    """Runs the TOSA graph on the case's real inputs and returns its outputs as real numbers."""
    if len(tosa.inputs) != len(inputs):
        raise AssertionError(
            f"the TOSA graph takes {len(tosa.inputs)} inputs ({[io.name for io in tosa.inputs]}), "
            f"the case gives {len(inputs)}"
        )
    tosa_inputs = [reference_input(io.quantize(tensor_to_numpy(tensor))) for io, tensor in zip(tosa.inputs, inputs)]
    outputs, status = tosa_reference_model.run(tosa.flatbuffer, tosa_inputs)
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise AssertionError(f"the TOSA reference model rejected the graph ({tosa.spec}): {status}")
    return [io.dequantize(reference_output(output, io.dtype)) for io, output in zip(tosa.outputs, outputs, strict=True)]


def _check_int(
    ios: tuple[TensorIo, ...],
    actual: list[np.ndarray],
    quantized: list[np.ndarray],
    expected: list[np.ndarray],
    steps_from_quantized: float,
    differing_from_quantized: float = 1.0,
) -> None:
    for index, (io, got, reference, real) in enumerate(zip(ios, actual, quantized, expected)):
        # Dequantized values are multiples of the step, so "one step" gets a little float slack.
        step = io.scale or 0.0
        assert_close(got, reference, atol=1.01 * steps_from_quantized * step,
                     what=f"output {index} vs quantized module (step {step:.3g})")  # fmt: skip
        differing = float(np.mean(np.abs(got.reshape(-1) - reference.reshape(-1)) > 0.5 * step)) if step else 0.0
        if differing > differing_from_quantized:
            raise AssertionError(
                f"output {index}: {differing:.3%} of its elements are a step off the quantized module, more than "
                f"the case's {differing_from_quantized:.3%}: the lowering rounds the real value the other way too often"
            )
        # int16 outputs (a16w8) still carry int8 weights: their error against float is bounded in
        # the steps an int8 output of the same range would have.
        float_step = step * INT16_STEPS_PER_INT8_STEP if io.dtype == np.int16 else step
        assert_close(
            got, real, atol=FLOAT_ERROR_STEPS * float_step, what=f"output {index} vs float module (step {step:.3g})"
        )


def _check_vela(
    result: FlowResult, tosa: TosaArtifact, inputs: tuple[torch.Tensor, ...], departure: str | None
) -> None:
    """Vela put everything on the NPU, and its command stream computes what the TOSA graph does (or,
    for a case with a known ``departure``, still does not)."""
    (vela,) = result.artifacts.vela
    assert vela.cpu_ops == (), f"Vela left operators on the CPU for {result.target.name}: {vela.cpu_ops}"
    stream = parse_bin_stream(vela.bin_stream)
    assert (len(stream.inputs), len(stream.outputs)) == (len(tosa.inputs), len(tosa.outputs)), (
        f"Vela's command stream has {len(stream.inputs)} inputs and {len(stream.outputs)} outputs, "
        f"the TOSA graph {len(tosa.inputs)} and {len(tosa.outputs)}"
    )
    integer_inputs = quantized_inputs(tosa, [tensor.numpy() for tensor in inputs])
    comparisons = compare_delegate(tosa, vela.bin_stream, integer_inputs, _npu_model(result.target.name))
    differing = [comparison.describe() for comparison in comparisons if comparison.mismatches]
    if departure:
        assert differing, f"the known departure on {result.target.name} is gone ({departure}): drop the entry"
        return
    assert not differing, (
        f"Vela's command stream on the {result.target.name} model departs from the TOSA reference model: "
        f"{'; '.join(differing)}"
    )


@functools.cache
def _npu_model(target: str) -> NpuModel:
    """One functional NPU model per Ethos-U target, shared by the cases of a test process."""
    return NpuModel(target)


@functools.cache
def _vgf_runner() -> VgfRunner:
    """One Vulkan worker per test process (its start-up costs about a second)."""
    return VgfRunner()


def _check_vgf(
    result: FlowResult,
    tosa: TosaArtifact,
    inputs: tuple[torch.Tensor, ...],
    reference: list[np.ndarray],
    expected: list[np.ndarray],
    tolerance: float = FP_ATOL,
) -> None:
    """Runs the .pte's VGF on Vulkan: FP against the float module, INT bit-exact against the reference model."""
    program = deserialize_pte_binary(result.pte).program
    (delegate,) = program.execution_plan[0].delegates
    vgf = bytes(program.backend_delegate_data[delegate.processed.index].data)
    outputs = _vgf_runner().run(vgf, [io.quantize(tensor_to_numpy(tensor)) for io, tensor in zip(tosa.inputs, inputs)])
    if len(outputs) != len(tosa.outputs):
        raise AssertionError(f"the VGF has {len(outputs)} outputs, the TOSA graph {len(tosa.outputs)}")
    for index, (io, output, want_reference, want_torch) in enumerate(zip(tosa.outputs, outputs, reference, expected)):
        got = io.dequantize(output)
        if io.scale is None:
            assert_close(got, want_torch, atol=tolerance, rtol=tolerance, what=f"VGF output {index} vs float module")
        elif not np.array_equal(got, want_reference):
            differing = int(np.count_nonzero(got != want_reference))
            raise AssertionError(
                f"VGF output {index} differs from the TOSA reference model in {differing} of {got.size} "
                f"elements (largest difference {np.abs(got - want_reference).max() / io.scale:.0f} steps)"
            )


def _numpy_outputs(value: torch.Tensor | tuple[torch.Tensor, ...]) -> list[np.ndarray]:
    tensors = value if isinstance(value, (tuple, list)) else (value,)
    # Float outputs compare as float32 (exact for float16 and bfloat16 values).
    return [tensor.detach().float().numpy() if tensor.is_floating_point() else tensor.detach().numpy() for tensor in tensors]

"""A zoo model's .pte (built by arm_pte), checked three ways:

1. the delegated share: one delegate, and no CPU kernel but quantize/dequantize and the ones the
   target is expected to keep (ZOO_CPU_OPS, e.g. the embedding gathers an Ethos-U cannot run);
2. on an Ethos-U target, every delegate's command stream on the NPU model equals the TOSA reference
   model on the partition's TOSA graph, bit for bit (seeded random integer inputs);
3. when fully delegated, the whole program (CPU quantize/dequantize in numpy, the delegate in the TOSA
   reference model) is within one output step of the model's own quantized torch module, which this
   test rebuilds with the same quantizer and calibration samples the arm_pte target used (ZOO_MAX_STEPS
   widens the bound for a model whose measured drift through a long chain of requantizations is larger).

The target names the factory, the .pte, its target and calibration count in the environment
(ZOO_FACTORY, ZOO_PTE, ZOO_TARGET, ZOO_CALIBRATION_SAMPLES, ZOO_CPU_OPS, ZOO_MAX_STEPS, ZOO_KNOWN_DEPARTURE).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch
from executorch.exir._serialize._program import deserialize_pte_binary
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from arm.compile_spec import EthosUCompileSpec, TosaCompileSpec
from arm.ethosu.npu_model.oracle import compare_outputs, reference_outputs
from arm.ethosu.npu_model.program_oracle import ProgramOracle
from arm.flow import resolve_target
from arm.model_spec import load_model_spec

FACTORY = os.environ["ZOO_FACTORY"]
PTE = Path(os.environ["ZOO_PTE"])
TARGET = os.environ["ZOO_TARGET"]
CALIBRATION_SAMPLES = int(os.environ["ZOO_CALIBRATION_SAMPLES"])
# One output step unless the target says otherwise (ZOO_MAX_STEPS, with the measured figure beside it in BUILD).
MAX_STEPS = float(os.environ.get("ZOO_MAX_STEPS", "1"))
EXPECTED_CPU_OPS = {name for name in os.environ.get("ZOO_CPU_OPS", "").split(",") if name}
# Evidence that this .pte's command stream does not compute what its TOSA graph does on the NPU model
# (as OpTestCase.known_departures): the test then asserts the departure persists, so a fix makes it fail.
KNOWN_DEPARTURE = os.environ.get("ZOO_KNOWN_DEPARTURE", "")
_QUANTIZE_OPS = {"quantized_decomposed::quantize_per_tensor", "quantized_decomposed::dequantize_per_tensor"}
_IS_ETHOS_U = TARGET.startswith("ethos-u")


def _plan():
    return deserialize_pte_binary(PTE.read_bytes()).program.execution_plan[0]


def _cpu_ops() -> set[str]:
    plan = _plan()
    called = {plan.operators[chain.instr_args.op_index].name for chain in plan.chains[0].instructions
              if hasattr(chain.instr_args, "op_index")}  # fmt: skip
    return called - _QUANTIZE_OPS


def test_delegated_share() -> None:
    plan = _plan()
    backend = EthosUCompileSpec.backend_id if _IS_ETHOS_U else TosaCompileSpec.backend_id
    assert [delegate.id for delegate in plan.delegates] == [backend], f"{PTE.name}: expected one {backend} delegate"
    assert _cpu_ops() == EXPECTED_CPU_OPS, f"{PTE.name}: CPU kernels {sorted(_cpu_ops())}, expected {sorted(EXPECTED_CPU_OPS)}"


@pytest.mark.skipif(not _IS_ETHOS_U, reason="the NPU model runs Ethos-U command streams only")
def test_delegate_bit_exact_on_npu_model() -> None:
    from arm.ethosu.npu_model.binding import NpuModel
    from arm.ethosu.npu_model.oracle import npu_outputs
    from arm.ethosu.npu_model.pte_delegates import load_ethos_u_delegates, random_integer_inputs

    npu = NpuModel(TARGET)
    differing = []
    for delegate in load_ethos_u_delegates(PTE):
        inputs = random_integer_inputs(delegate.tosa, np.random.default_rng(delegate.index))
        got = npu_outputs(delegate.tosa, delegate.bin_stream, inputs, npu)
        differing += [f"delegate {delegate.index}: {c.describe()}"
                      for c in compare_outputs(got, reference_outputs(delegate.tosa, inputs)) if c.mismatches]  # fmt: skip
    if KNOWN_DEPARTURE:
        assert differing, f"{PTE.name} is now bit-exact: drop its known departure ({KNOWN_DEPARTURE})"
        print(f"{PTE.name}: known departure ({KNOWN_DEPARTURE}) persists: {'; '.join(differing)}")
    else:
        assert not differing, f"{PTE.name}: {'; '.join(differing)}"


def _quantized_module(spec) -> torch.fx.GraphModule:
    exported = torch.export.export(spec.module.eval(), spec.example_inputs)
    prepared = prepare_pt2e(exported.module(check_guards=False), resolve_target(TARGET).quantizer())
    with torch.no_grad():
        for sample in spec.calibration_inputs[:CALIBRATION_SAMPLES]:
            prepared(*sample)
    return convert_pt2e(prepared)


@pytest.mark.skipif(bool(EXPECTED_CPU_OPS), reason="only a fully delegated program is compared as a whole")
def test_program_within_one_step_of_quantized_torch() -> None:
    torch.manual_seed(0)
    spec = load_model_spec(FACTORY)
    # Every delegate's TOSA graph comes from the .tosa files arm_pte writes beside the .pte.
    program = ProgramOracle(PTE)
    output_scale = _output_scale(program)
    quantized = _quantized_module(spec)
    for sample in spec.calibration_inputs[:2]:
        (got,) = program.run([_program_input(tensor) for tensor in sample])
        with torch.no_grad():
            expected = quantized(*sample)
        steps = np.abs(got - expected.numpy()) / output_scale
        print(f"{PTE.name}: {np.mean(steps <= 1.01):.4%} of outputs within one step, max {steps.max():.2f} steps")
        assert steps.max() <= MAX_STEPS + 0.01, f"{PTE.name}: an output is {steps.max():.2f} steps from the quantized torch module"


def _program_input(tensor: torch.Tensor) -> np.ndarray:
    """Floats as float32 (the program quantizes them); integer ids keep their type."""
    return tensor.numpy().astype(np.float32) if tensor.is_floating_point() else tensor.numpy()


def _output_scale(program: ProgramOracle) -> float:
    """The step of the program's output: the scale of its last dequantize."""
    plan = program.plan
    for instruction in reversed(plan.chains[0].instructions):
        call = instruction.instr_args
        if hasattr(call, "op_index") and plan.operators[call.op_index].name.endswith("dequantize_per_tensor"):
            return float(plan.values[call.args[1]].val.double_val)
    raise AssertionError(f"{PTE.name} ends in no dequantize")

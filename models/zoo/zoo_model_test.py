"""A zoo model's .pte (built by arm_pte) against three oracles, with no lowering run here.

One harness for every zoo target in models/BUILD.bazel (CNNs, detector and transformers):

1. the delegated share: the .pte holds the expected number of delegates (ZOO_PARTITIONS), and the CPU
   runs exactly the operators the target names (ZOO_CPU_OPS, e.g. the embedding gathers an Ethos-U
   cannot run) besides the boundary quantize and dequantize;
2. on an Ethos-U target, every delegate's command stream on the NPU model equals the TOSA reference
   model on the partition's TOSA graph, bit for bit, for a seeded random integer input; a target with a
   known departure (ZOO_KNOWN_DEPARTURE, as OpTestCase.known_departures) asserts that it persists, so
   a fixed Vela or NPU model makes the test fail and the entry goes;
3. for a fully delegated model, the whole program (its CPU quantize/dequantize in numpy, each delegate's
   TOSA graph on the reference model, which the NPU model equals by 2.: ProgramOracle) is within
   ZOO_TOLERANCE_LSB output steps (1 unless BUILD names a measured departure) of the model's own
   quantized torch model, on its first two calibration inputs. The quantized torch model is re-made here
   with the arm_pte target's quantizer and calibration samples (quantization only; it is deterministic
   and single-threaded as in the build) and evaluated in float64: the same graph, integer weights and
   grids, without float32's rounding. In float32 its convolutions land on the other side of a rounding
   tie now and then (about 1 in 8000 values); deep networks with random weights amplify each such 1-LSB
   step (RegNetX-400MF: up to 100 LSB by the last block, where the float64 evaluation and the TOSA graph
   agree exactly), so float32 would measure torch's noise, not the lowering. Both numbers are printed.

The target names the .pte, the model factory and the expectations in the environment (ZOO_*).
"""

from __future__ import annotations

import collections
import os
from pathlib import Path

import numpy as np
import torch
from executorch.exir._serialize._program import deserialize_pte_binary

from arm.ethosu.npu_model.pte_delegates import random_integer_inputs
from arm.flow import _quantize, resolve_target
from arm.model_spec import load_model_spec
from arm.report.float64_quantized import as_float64, in_float64, on_grid

PTE = Path(os.environ["ZOO_PTE"])
FACTORY = os.environ["ZOO_FACTORY"]
TARGET = os.environ["ZOO_TARGET"]
PARTITIONS = int(os.environ.get("ZOO_PARTITIONS", "1"))
CPU_OPS = frozenset(filter(None, os.environ.get("ZOO_CPU_OPS", "").split(",")))
CALIBRATION_SAMPLES = int(os.environ["ZOO_CALIBRATION_SAMPLES"])
# 1 LSB unless the target names a known, bounded departure (ZOO_TOLERANCE_LSB, with its reason in BUILD).
TOLERANCE_LSB = int(os.environ.get("ZOO_TOLERANCE_LSB", "1"))
KNOWN_DEPARTURE = os.environ.get("ZOO_KNOWN_DEPARTURE", "")
# What a fully delegated integer program runs on the CPU: its boundary (de)quantization.
BOUNDARY_OPS = frozenset({"quantized_decomposed::quantize_per_tensor", "quantized_decomposed::dequantize_per_tensor"})
# The whole program is compared on this many calibration inputs.
_PROGRAM_SAMPLES = 2


def _cpu_operator_calls(pte: bytes) -> tuple[collections.Counter, list[str]]:
    """CPU kernel calls by operator name, and the delegate id of each delegate call, in plan order."""
    program = deserialize_pte_binary(pte).program
    (plan,) = program.execution_plan
    kernels: collections.Counter = collections.Counter()
    delegates = []
    for chain in plan.chains:
        for instruction in chain.instructions:
            arguments = instruction.instr_args
            if hasattr(arguments, "op_index"):
                kernels[plan.operators[arguments.op_index].name] += 1
            elif hasattr(arguments, "delegate_index"):
                delegates.append(plan.delegates[arguments.delegate_index].id)
    return kernels, delegates


def test_delegated_share() -> None:
    kernels, delegates = _cpu_operator_calls(PTE.read_bytes())
    backend = resolve_target(TARGET).compile_spec.backend_id
    assert delegates == [backend] * PARTITIONS, f"{PTE.name}: delegates {delegates}, expected {PARTITIONS} x {backend}"
    on_cpu = set(kernels) - BOUNDARY_OPS
    assert on_cpu == CPU_OPS, f"{PTE.name}: the CPU runs {sorted(on_cpu)} besides the boundary; expected {sorted(CPU_OPS)}"
    print(f"{PTE.name}: {len(delegates)} delegate(s); CPU kernel calls {dict(kernels)}")


def check_delegates_bit_exact_on_npu_model() -> None:
    # Imported here: the TOSA target's test has no NPU model library among its data.
    from arm.ethosu.npu_model.binding import NpuModel
    from arm.ethosu.npu_model.oracle import compare_delegate
    from arm.ethosu.npu_model.pte_delegates import load_ethos_u_delegates

    npu = NpuModel(TARGET)
    delegates = load_ethos_u_delegates(PTE)
    assert len(delegates) == PARTITIONS
    differing = []
    for delegate in delegates:
        inputs = random_integer_inputs(delegate.tosa, np.random.default_rng(delegate.index))
        differing += [
            f"delegate {delegate.index}: {comparison.describe()}"
            for comparison in compare_delegate(delegate.tosa, delegate.bin_stream, inputs, npu)
            if comparison.mismatches
        ]
    if KNOWN_DEPARTURE:
        assert differing, f"{PTE.name} is now bit-exact: drop its known departure ({KNOWN_DEPARTURE})"
        print(f"{PTE.name}: known departure ({KNOWN_DEPARTURE}) persists: {'; '.join(differing)}")
    else:
        assert not differing, f"{PTE.name}: {'; '.join(differing)}"


def check_program_within_one_lsb_of_quantized_model() -> None:
    from arm.ethosu.npu_model.program_oracle import ProgramOracle

    torch.set_num_threads(1)  # as the build's flow, so that calibration sees the same float sums
    spec = load_model_spec(FACTORY)
    exported = torch.export.export(spec.module.eval(), spec.example_inputs)
    quantized = _quantize(exported, resolve_target(TARGET).quantizer(), spec.calibration_inputs[:CALIBRATION_SAMPLES])
    output_grids = _boundary_grids(quantized, "dequantize_per_tensor", lambda node: "output" in {u.op for u in node.users})
    in_float64_module = in_float64(quantized)
    program = ProgramOracle(PTE)  # every delegate's TOSA graph comes from the .tosa files beside the .pte
    for sample in spec.calibration_inputs[:_PROGRAM_SAMPLES]:
        outputs = program.run([_program_input(tensor) for tensor in sample])
        with torch.no_grad():
            in_float32 = _as_list(quantized(*sample))
            expected = _as_list(in_float64_module(*(as_float64(tensor) for tensor in sample)))
        assert len(outputs) == len(expected) == len(output_grids)
        for index, (got, want, want32, (scale, zero_point)) in enumerate(zip(outputs, expected, in_float32, output_grids)):
            got = on_grid(np.asarray(got), scale, zero_point)
            difference = np.abs(got - on_grid(want, scale, zero_point))
            float32_difference = np.abs(got - on_grid(want32, scale, zero_point))
            print(f"{PTE.name} output {index}: at most {difference.max()} LSB from the quantized torch model in float64 "
                  f"({np.count_nonzero(difference)} of {difference.size} values differ); "
                  f"{float32_difference.max()} LSB from it in float32")  # fmt: skip
            assert difference.max() <= TOLERANCE_LSB, (
                f"{PTE.name} output {index}: {np.count_nonzero(difference > TOLERANCE_LSB)} of {difference.size} values "
                f"more than {TOLERANCE_LSB} LSB from the quantized torch model (at most {difference.max()})"
            )


# The NPU model runs Ethos-U command streams only; only a program whose CPU part is its boundary
# (de)quantization is evaluated whole. A check that does not apply to the target is not collected
# (rather than skipped).
if TARGET.startswith("ethos-u"):
    test_delegates_bit_exact_on_npu_model = check_delegates_bit_exact_on_npu_model
if not CPU_OPS:
    test_program_within_one_lsb_of_quantized_model = check_program_within_one_lsb_of_quantized_model


def _program_input(tensor: torch.Tensor) -> np.ndarray:
    """Floats as float32 (the program quantizes them); integer ids keep their type."""
    return tensor.numpy().astype(np.float32) if tensor.is_floating_point() else tensor.numpy()


def _as_list(outputs: torch.Tensor | tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    return [outputs] if isinstance(outputs, torch.Tensor) else list(outputs)


def _boundary_grids(module: torch.fx.GraphModule, target: str, where) -> list[tuple[float, int]]:
    """(scale, zero point) of the model's input quantize or output dequantize nodes, in graph order."""
    nodes = [
        node
        for node in module.graph.nodes
        if node.op == "call_function" and target in str(node.target) and where(node)
    ]
    return [(float(node.args[1]), int(node.args[2])) for node in nodes]

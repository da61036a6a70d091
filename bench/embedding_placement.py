"""Where an embedding lookup costs less: the NPU's one-hot convolution or the CPU's row copy.

    PYTHONPATH=. python -m bench.embedding_placement [--firmware PTE_FIRMWARE] --out DIR [--models llama,bert]
        [--targets ethos-u85-256,ethos-u55-128]

Compiles each zoo model three ways for each target: ``one_hot`` (the U85's or U55's one-hot lookup on the NPU),
``cpu_int8`` (the lookup on the CPU, reading the int8 table: arm/passes/quantized_table_lookup.py) and
``cpu_float`` (the lookup on the CPU as ExecuTorch leaves it without that pass: the whole table
dequantized to float on every call, the picked rows quantized back). For each it prints Vela's NPU and
total cycles, the one-hot layers' cycles, and the Cortex-M55 instructions one inference executes outside
the NPU: `pte_firmware` (runtime/firmware) on QEMU's mps3-an547 with ``-icount shift=0`` and
``--stub-npu`` (the delegate's inputs and outputs are copied, its stream parsed, nothing computed), the
model's first calibration input as the ids (without ``--firmware``, Vela's figures only). The placement is
forced by swapping embedding.py's CPU rule for the run; the product's rule (embedding._LookupCosts) is
fitted to what this prints.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator
from unittest import mock

import numpy as np

_INSTRUCTIONS = re.compile(r"^execute: .*= (\d+) instructions when QEMU runs with -icount", re.MULTILINE)
VARIANTS = ("one_hot", "cpu_int8", "cpu_float")


@dataclasses.dataclass(frozen=True)
class Placement:
    model: str
    target: str
    variant: str
    npu_cycles: int
    total_cycles: int
    one_hot_cycles: int
    cpu_instructions: int | None


@contextlib.contextmanager
def forced(variant: str) -> Iterator[None]:
    """The flow with the lookup placed as ``variant`` says (on the U55 or the U85)."""
    import arm.flow
    import arm.ops.embedding as embedding

    def cpu(node, *_) -> str:  # noqa: ANN001 (embedding._cpu_lookup_reason's signature)
        return f"{node.name}: the CPU (bench.embedding_placement)"

    rule = {"one_hot": lambda *args: None, "cpu_int8": cpu, "cpu_float": cpu}[variant]
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(embedding, "_cpu_lookup_reason", rule))
        if variant == "cpu_float":
            stack.enter_context(mock.patch.object(arm.flow, "look_up_quantized_rows", lambda edge: edge))
        yield


def cpu_instructions(firmware: Path, pte: Path, ids: Path) -> int:
    """Instructions of one execute of ``pte`` in the firmware on QEMU (files relative to their folder)."""
    arguments = ["pte_firmware", "--model", pte.name, "--input", ids.name, "--stub-npu"]
    semihosting = "enable=on,target=native," + ",".join(f"arg={argument}" for argument in arguments)
    command = ["qemu-system-arm", "-M", "mps3-an547", "-display", "none", "-monitor", "none", "-serial", "none",
               "-icount", "shift=0", "-semihosting-config", semihosting, "-kernel", str(firmware)]  # fmt: skip
    output = subprocess.run(command, cwd=pte.parent, capture_output=True, text=True, timeout=600, check=True).stdout
    match = _INSTRUCTIONS.search(output)
    if match is None:
        raise RuntimeError(f"{pte.name}: no execute line in the firmware's output:\n{output}")
    return int(match.group(1))


def measure(model: str, target: str, variant: str, firmware: Path | None, out: Path) -> Placement:
    from arm.flow import resolve_target, run_flow
    from arm.model_spec import load_model_spec
    from bench.model_list import BENCH_MODELS

    spec = load_model_spec(BENCH_MODELS[model])
    with forced(variant):
        result = run_flow(spec, resolve_target(target), calibration_samples=4, progress=False)
    stem = f"{model}_{target}_{variant}"
    pte, ids = out / f"{stem}.pte", out / f"{model}_ids.npy"
    pte.write_bytes(result.pte)
    np.save(ids, spec.example_inputs[0].numpy())
    npu = total = one_hot = 0
    for vela in result.artifacts.vela:
        for row in csv.DictReader(io.StringIO(vela.summary_csv)):
            npu += int(float(row["cycles_npu"]))
            total += int(float(row["cycles_total"]))
        for layer in csv.DictReader(io.StringIO(vela.per_layer_csv)):
            if "embedding" in layer["Name"]:
                one_hot += int(float(layer["Op Cycles"]))
    instructions = cpu_instructions(firmware, pte, ids) if firmware else None
    return Placement(model, target, variant, npu, total, one_hot, instructions)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--firmware", type=Path, help="pte_firmware built for Corstone-300 (CPU instructions)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the .pte files and the ids")
    parser.add_argument("--models", default="llama,bert")
    parser.add_argument("--targets", default="ethos-u85-256")
    args = parser.parse_args(argv)
    import models.torchvision_compat  # noqa: F401 (transformers imports torchvision)

    args.out.mkdir(parents=True, exist_ok=True)
    print("| model | target | placement | NPU cycles | total cycles | one-hot layers | CPU instructions |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for model in args.models.split(","):
        for target in args.targets.split(","):
            for variant in VARIANTS:
                row = measure(model, target, variant, args.firmware and args.firmware.resolve(), args.out)
                instructions = "–" if row.cpu_instructions is None else f"{row.cpu_instructions:,}"
                print(f"| {row.model} | {row.target} | {row.variant} | {row.npu_cycles:,} | {row.total_cycles:,} | "
                      f"{row.one_hot_cycles:,} | {instructions} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
